//! `msm-cli tune`: measures this adapter for one curve group (`--curve`,
//! `--group`) and writes the group's profile. At each
//! size it times a ladder of knob sets interleaved (ABBA: the order reverses
//! every round, so drift hits every set alike) against the knobs the
//! adapter class has built in for that size, keeps the fastest where it
//! beats them by more than the noise margin (else the built-in knobs, so a
//! profile never loses them), and measures the size from which the GPU
//! beats arkworks. Every result is checked.

use std::time::Instant;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use msm_core::plan::builtin;
use msm_core::plan::profile::{Profile, ProfileRange};
use msm_core::{Bases, GpuContext, GpuCurve, MsmConfig, MsmError, ProfileChoice};

use crate::error::CliError;
use crate::knobs::{config_line, knob_sets, GpuArgs};
use crate::stats::summarize;

/// The ladder's knob sets besides the built-in ones: the walker's shapes
/// that won somewhere on the H200 (docs/benchmarks.md), and the defaults.
const LADDER: &str = "defaults; walker_slots=2; walker_slots=8; walker_tpb=128; walker_tpb=512; \
                      walker_tpb=512,walker_slots=8; walker_tpb=512,walker_slots=8,walker_threads=65536";
/// A set must beat the built-in knobs by this fraction to be kept.
const MARGIN: f64 = 0.03;

#[derive(clap::Args)]
pub struct Args {
    /// log2 sizes at which to tune the knobs (comma-separated).
    #[arg(long, default_value = "12,16,20,22")]
    sizes: String,
    /// Knob sets to try besides the built-in ones, `;`-separated
    /// (`name=value,...` over the defaults; `defaults` for none).
    #[arg(long, default_value = LADDER)]
    ladder: String,
    /// Interleaved rounds per size (the median is kept).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Largest log2 size of the CPU/GPU crossover search (from 2^6).
    #[arg(long, default_value_t = 16)]
    crossover_max_logn: u32,
    /// Where to write the profile (default: the user's config folder).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Print the profile without writing it.
    #[arg(long)]
    dry_run: bool,
    /// Measure the crossover alone (no knob ladder; the profile keeps the
    /// built-in knobs).
    #[arg(long)]
    crossover_only: bool,
    #[command(flatten)]
    gpu: GpuArgs,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    let sizes = parse_sizes(&args.sizes)?;
    let ladder = knob_sets(&args.ladder, &MsmConfig::default())?;
    crate::knobs::in_group!(args.gpu.curve()?, tune_in(args, &sizes, &ladder))
}

/// The tuning of the group `C`.
fn tune_in<C: GpuCurve>(args: &Args, sizes: &[u32], ladder: &[MsmConfig]) -> Result<(), CliError> {
    let ctx = args.gpu.context_with_profile(Default::default(), ProfileChoice::Off)?;
    let layout = ctx.field_layout().to_string();
    let mut profile = Profile::new(ctx.adapter_info(), &layout, C::CURVE);
    let ladder_max = if args.crossover_only {
        0
    } else {
        sizes.iter().copied().max().unwrap_or(0)
    };
    let max_logn = ladder_max.max(args.crossover_max_logn);
    eprintln!("tune: generating 2^{max_logn} {} inputs...", C::CURVE);
    let (bases, scalars) = crate::inputs::generate_of::<C>(1 << max_logn, 7, max_logn >= 18);
    let tuner = Tuner {
        ctx: &ctx,
        resident: ctx.upload_bases_blocking(&bases)?,
        bases: &bases,
        scalars: &scalars,
        reps: args.reps.max(1),
    };
    profile.crossover = tuner.crossover(args.crossover_max_logn)?;
    for (i, &logn) in sizes.iter().enumerate().filter(|_| !args.crossover_only) {
        // the built-in knobs of this size first: the set to beat
        let built_in = ctx.config_for(1 << logn);
        let others = ladder.iter().filter(|c| **c != built_in).cloned();
        let sets: Vec<MsmConfig> = std::iter::once(built_in.clone()).chain(others).collect();
        let medians = tuner.ladder(logn, &sets)?;
        let lo = if i == 0 { 0 } else { (sizes[i - 1] + logn) / 2 + 1 };
        let hi = sizes.get(i + 1).map_or(32, |&next| (logn + next) / 2);
        profile.ranges.extend(keep_best(&sets, &medians, lo, hi));
    }
    if args.crossover_only {
        // the built-in knobs (those that fit), so that the profile does not lose them
        profile.ranges = builtin::builtin_ranges(ctx.adapter_info(), ctx.field_layout().name(), &ctx.bounds());
    }
    println!(
        "crossover: {}",
        match profile.crossover {
            Some(n) => format!("the GPU beats arkworks from {n} points"),
            None => "the GPU did not beat arkworks at the sizes measured: Auto stays on the CPU".into(),
        }
    );
    if args.dry_run {
        println!("{}", serde_json::to_string_pretty(&profile).expect("serialisable"));
        return Ok(());
    }
    let path = match &args.out {
        Some(p) => p.clone(),
        None => Profile::default_path(ctx.adapter_info(), &layout, C::CURVE).ok_or_else(|| {
            bad(
                "--out",
                "no config folder (set HOME or XDG_CONFIG_HOME): give --out".into(),
            )
        })?,
    };
    profile
        .save(&path)
        .map_err(|e| bad("--out", format!("writing {}: {e}", path.display())))?;
    println!("profile written to {}", path.display());
    Ok(())
}

/// `--sizes`: log2 sizes up to 24, in ascending order.
fn parse_sizes(text: &str) -> Result<Vec<u32>, MsmError> {
    let mut sizes: Vec<u32> = text
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .map_err(|_| bad("--sizes", format!("`{s}` is not a number")))
        })
        .collect::<Result<_, _>>()?;
    if sizes.iter().any(|&l| l > 24) || sizes.is_empty() {
        return Err(bad("--sizes", "give log2 sizes up to 24".into()));
    }
    sizes.sort_unstable();
    Ok(sizes)
}

/// The fastest set of the ladder as a profile range for 2^lo..2^hi where it
/// beats the first set (the built-in knobs) by more than [`MARGIN`], else
/// the first set; none where that is the plain defaults.
fn keep_best(ladder: &[MsmConfig], medians: &[Option<f64>], lo: u32, hi: u32) -> Option<ProfileRange> {
    let default_ms = medians[0].expect("the built-in knobs always run");
    let (best, best_ms) = medians
        .iter()
        .enumerate()
        .filter_map(|(k, m)| m.map(|m| (k, m)))
        .fold((0, default_ms), |acc, (k, m)| if m < acc.1 { (k, m) } else { acc });
    let best = if best_ms < default_ms * (1.0 - MARGIN) { best } else { 0 };
    if ladder[best] == MsmConfig::default() {
        println!("  the defaults stay (no set beat them by {:.0}%)", 100.0 * MARGIN);
        return None;
    }
    let knobs = knobs_of(&ladder[best]);
    let gain = medians[best].map_or(0.0, |m| 100.0 * (1.0 - m / default_ms));
    println!(
        "  kept for 2^{lo}..2^{hi}: {} ({gain:.1}% faster than the built-in knobs)",
        ladder[best].describe()
    );
    Some(ProfileRange {
        min_logn: lo,
        max_logn: hi,
        knobs,
    })
}

/// The knobs of `config` that differ from the defaults, as a profile holds them.
fn knobs_of(config: &MsmConfig) -> std::collections::BTreeMap<String, String> {
    config
        .describe()
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The seeded inputs, resident, and the rounds per measurement.
struct Tuner<'a, C: GpuCurve> {
    ctx: &'a GpuContext,
    resident: Bases<C>,
    bases: &'a [Affine<C>],
    scalars: &'a [C::ScalarField],
    reps: usize,
}

impl<C: GpuCurve> Tuner<'_, C> {
    /// arkworks' MSM of the first `n` points.
    fn reference(&self, n: usize) -> Projective<C> {
        Projective::<C>::msm(&self.bases[..n], &self.scalars[..n]).expect("equal lengths")
    }

    /// The first `n` points' MSM on the GPU with `config`, checked (ms).
    fn gpu_ms(&self, n: usize, config: &MsmConfig, want: &Affine<C>) -> Result<f64, MsmError> {
        // every size over the plain bases: a table that `table_after` built
        // for one size would run the others' calls at its width
        let config = &MsmConfig {
            table_after: 0,
            ..config.clone()
        };
        let t = Instant::now();
        let r = self.ctx.msm_blocking_with(&self.resident, &self.scalars[..n], config)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        check(r.result.into_affine() == *want, n, config)?;
        Ok(ms)
    }

    /// The smallest size from which the GPU beats arkworks and stays ahead
    /// (2^6..2^max_logn, ABBA rounds per size).
    fn crossover(&self, max_logn: u32) -> Result<Option<usize>, MsmError> {
        let mut crossover = None;
        println!("crossover    logn   gpu ms   arkworks ms");
        for logn in 6..=max_logn {
            let n = 1usize << logn;
            let want = self.reference(n).into_affine();
            let config = self.ctx.config_for(n);
            let host = || {
                let t = Instant::now();
                let _ = std::hint::black_box(self.reference(n));
                t.elapsed().as_secs_f64() * 1e3
            };
            self.gpu_ms(n, &config, &want)?; // compiles this size's pipelines
            let (mut g, mut c) = (Vec::new(), Vec::new());
            for r in 0..self.reps {
                if r % 2 == 1 {
                    c.push(host());
                }
                g.push(self.gpu_ms(n, &config, &want)?);
                if r % 2 == 0 {
                    c.push(host());
                }
            }
            let (g, c) = (summarize(&g).median, summarize(&c).median);
            println!("             {logn:>4} {g:>8.3} {c:>13.3}");
            match (g < c, crossover) {
                (true, None) => crossover = Some(n),
                (false, Some(_)) => crossover = None, // the GPU must stay ahead
                _ => {}
            }
        }
        Ok(crossover)
    }

    /// Each set's median at 2^logn, interleaved (the order reverses every
    /// round); `None` for a set the adapter refuses.
    fn ladder(&self, logn: u32, ladder: &[MsmConfig]) -> Result<Vec<Option<f64>>, MsmError> {
        let n = 1usize << logn;
        let want = self.reference(n).into_affine();
        let mut times = vec![Vec::new(); ladder.len()];
        let mut usable = vec![true; ladder.len()];
        for (k, config) in ladder.iter().enumerate() {
            // warm-up (compiles); a set the adapter refuses is skipped
            match self.gpu_ms(n, config, &want) {
                Ok(_) => {}
                Err(MsmError::InvalidConfig { .. }) | Err(MsmError::BindingTooSmall { .. }) => usable[k] = false,
                Err(e) => return Err(e),
            }
        }
        for r in 0..self.reps {
            let mut order: Vec<usize> = (0..ladder.len()).filter(|&k| usable[k]).collect();
            if r % 2 == 1 {
                order.reverse();
            }
            for k in order {
                times[k].push(self.gpu_ms(n, &ladder[k], &want)?);
            }
        }
        let medians: Vec<Option<f64>> = times
            .iter()
            .map(|t| (!t.is_empty()).then(|| summarize(t).median))
            .collect();
        println!("2^{logn}:");
        for (k, m) in medians.iter().enumerate() {
            match m {
                Some(m) => println!("  {m:>9.3} ms  {}", config_line(&ladder[k])),
                None => println!("  {:>9}     {} (refused by this adapter)", "-", config_line(&ladder[k])),
            }
        }
        Ok(medians)
    }
}

fn bad(option: &str, msg: String) -> MsmError {
    MsmError::invalid_config(option, msg)
}

fn check(ok: bool, n: usize, config: &MsmConfig) -> Result<(), MsmError> {
    if ok {
        Ok(())
    } else {
        eprintln!("tune: WRONG result at n = {n} with {}", config.describe());
        Err(MsmError::CorruptResult)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(spec: &str) -> MsmConfig {
        MsmConfig::default().with_knobs(spec).unwrap()
    }

    /// The built-in knobs (the first set) stay unless a set beats them by
    /// the margin; plain defaults write no range.
    #[test]
    fn keep_best_keeps_the_built_in_knobs_unless_beaten() {
        let ladder = [set("walker_slots=8"), MsmConfig::default(), set("walker_slots=2")];
        let kept = |m: [f64; 3]| keep_best(&ladder, &m.map(Some), 18, 19).map(|r| r.knobs);
        let slots = |v: &str| Some([("walker_slots".to_string(), v.to_string())].into_iter().collect());
        assert_eq!(kept([10.0, 12.0, 9.9]), slots("8"), "within the margin");
        assert_eq!(kept([10.0, 12.0, 9.0]), slots("2"), "beaten");
        let plain = [MsmConfig::default(), set("walker_slots=2")];
        assert_eq!(keep_best(&plain, &[Some(10.0), Some(9.9)], 0, 16), None);
        let range = keep_best(&plain, &[Some(10.0), Some(9.0)], 0, 16).unwrap();
        assert_eq!((range.min_logn, range.max_logn), (0, 16));
    }
}
