//! Shared setup of the criterion benches: seeded inputs, the sizes to run and
//! the GPU context.

use ark_bn254::{Fr, G1Affine};
use msm_core::{ContextOptions, GpuContext};

/// Seed of every bench's inputs: runs compare like with like.
pub const SEED: u64 = 1;

/// log2 sizes run when `MSM_BENCH_LOGN` is unset.
pub const DEFAULT_LOGN: [u32; 3] = [8, 10, 12];

/// `n` bases and `n` scalars from `seed` ([`msm_core::sample`], the same
/// inputs as `msm-cli`'s generator).
pub fn inputs(n: usize, seed: u64) -> (Vec<G1Affine>, Vec<Fr>) {
    msm_core::sample::inputs(n, seed)
}

/// Parses a list of log2 sizes such as "10,12,16" (each in 0..=26).
pub fn parse_logn(s: &str) -> Result<Vec<u32>, String> {
    let sizes = s
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t.parse::<u32>() {
            Ok(v) if v <= 26 => Ok(v),
            _ => Err(format!("`{t}` is not a log2 size in 0..=26")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if sizes.is_empty() {
        return Err("no sizes given".into());
    }
    Ok(sizes)
}

/// The sizes to bench: `MSM_BENCH_LOGN` (comma-separated log2 sizes) or
/// [`DEFAULT_LOGN`]. A malformed value ends the bench with a message (exit 2)
/// rather than silently benching something else.
pub fn bench_logn() -> Vec<u32> {
    match std::env::var("MSM_BENCH_LOGN") {
        Err(_) => DEFAULT_LOGN.to_vec(),
        Ok(s) => parse_logn(&s).unwrap_or_else(|e| {
            eprintln!("MSM_BENCH_LOGN={s:?}: {e} (expected e.g. \"10,12,16\")");
            std::process::exit(2);
        }),
    }
}

/// The context on the best adapter with the default layout and knobs, or
/// `None` (with the reason on stderr) where there is no adapter, so that the
/// CPU benches still run.
pub fn context() -> Option<GpuContext> {
    context_for(msm_core::Curve::Bn254G1)
}

/// [`context`] for the curve group `curve`.
pub fn context_for(curve: msm_core::Curve) -> Option<GpuContext> {
    let opts = ContextOptions {
        curve,
        ..Default::default()
    };
    match GpuContext::new_blocking(&opts) {
        Ok(ctx) => {
            let info = ctx.adapter_info();
            eprintln!(
                "GPU benches ({curve}) on `{}` ({:?}), field layout {}{}",
                info.name,
                info.backend,
                ctx.field_layout(),
                if ctx.is_software() {
                    "; a software adapter: times are CPU times"
                } else {
                    ""
                }
            );
            Some(ctx)
        }
        Err(e) => {
            eprintln!("skipping the GPU benches: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_logn("10, 12,16"), Ok(vec![10, 12, 16]));
        assert!(parse_logn("").is_err());
        assert!(parse_logn("10,x").is_err());
        assert!(parse_logn("27").is_err());
    }
}
