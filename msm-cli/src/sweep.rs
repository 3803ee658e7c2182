//! `msm-cli sweep`: the A/B ladder of the knobs in one process. Each variant
//! changes one knob from the knobs `bench` runs at this size (the context's
//! `config_for(n)`: the tuned profile's, else the adapter class's built-in
//! ones) or is given with `--variants` over them; variants are timed
//! interleaved in ABBA order so that drift (clocks, thermals, other load)
//! hits every variant alike instead of favouring whichever ran first. Each rep times the variant end to end
//! (untimed passes) and, where the adapter has timestamps, once more with
//! per-pass timestamps for its GPU sum.

use ark_ec::short_weierstrass::Projective;
use ark_ec::{CurveGroup, VariableBaseMSM};
use msm_core::sample::ScalarClass;
use msm_core::{GpuContext, GpuCurve, MsmConfig, MsmError, PrefMem, TaskSplit};
use serde::Serialize;

use crate::calls::Calls;
use crate::error::CliError;
use crate::knobs::{adapter_line, config_line, knob_sets, GpuArgs};
use crate::stats::{summarize, Summary};

#[derive(clap::Args)]
pub struct Args {
    /// log2 of the number of points.
    #[arg(long, default_value_t = 12)]
    logn: u32,
    /// Timed repetitions per variant, after one warm-up (the median is reported).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Seed of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The variants to time instead of the ladder: knob sets separated by
    /// `;`, each `name=value,...` over the knobs `bench` runs at this size
    /// (`defaults` for those alone), e.g. "defaults; walker_slots=8".
    #[arg(long)]
    variants: Option<String>,
    /// Scalar distribution: random, equal, zero90, bits8 or onebucket.
    #[arg(long, default_value = "random")]
    scalars: String,
    /// Print one JSON array (one object per variant) instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    table: crate::calls::TableArg,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// The default `d`, then each knob value that differs from it, one knob at a time.
fn ladder(d: MsmConfig) -> Vec<MsmConfig> {
    let mut out = vec![d.clone()];
    let mut push = |c: MsmConfig| {
        if !out.contains(&c) {
            out.push(c);
        }
    };
    for walker_tpb in [64, 96, 128, 160, 256] {
        push(MsmConfig {
            walker_tpb,
            ..d.clone()
        });
    }
    for walker_pref_mem in [PrefMem::Private, PrefMem::Workgroup] {
        push(MsmConfig {
            walker_pref_mem,
            ..d.clone()
        });
    }
    for walker_cache_dx in [true, false] {
        push(MsmConfig {
            walker_cache_dx,
            ..d.clone()
        });
    }
    for walker_fused in [true, false] {
        push(MsmConfig {
            walker_fused,
            ..d.clone()
        });
    }
    for walker_slots in [1, 2, 4, 8, 16] {
        push(MsmConfig {
            walker_slots,
            ..d.clone()
        });
    }
    for walker_unroll in [false, true] {
        push(MsmConfig {
            walker_unroll,
            ..d.clone()
        });
    }
    for walker_split in [TaskSplit::Equal, TaskSplit::Buckets] {
        push(MsmConfig {
            walker_split,
            ..d.clone()
        });
    }
    out
}

/// One variant's fate: not run (its plan is invalid on this adapter), failed
/// while running, or timed.
enum Outcome {
    Skipped(String),
    Failed(String),
    Timed {
        times: Vec<f64>,
        gpu: Vec<f64>,
        correct: bool,
    },
}

struct Variant {
    config: MsmConfig,
    outcome: Outcome,
}

#[derive(Serialize)]
struct Row {
    adapter: String,
    backend: String,
    driver: String,
    n: usize,
    logn: u32,
    seed: u64,
    variant: String,
    default: bool,
    /// "ok", "skipped" (invalid plan on this adapter) or "failed" (error while running).
    status: &'static str,
    reason: Option<String>,
    reps: usize,
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    max_ms: Option<f64>,
    /// Median of the per-pass GPU timestamps' sum (timed reps).
    gpu_sum_ms: Option<f64>,
    correct: Option<bool>,
    /// This variant's median over the default's: below 1 is faster.
    ratio_to_default: Option<f64>,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    if args.logn > 26 {
        return Err(MsmError::invalid_config("--logn", format!("{}: at most 26", args.logn)).into());
    }
    if args.reps == 0 {
        return Err(MsmError::invalid_config("--reps", "0: at least 1 timed repetition is needed").into());
    }
    let class: ScalarClass = args
        .scalars
        .parse()
        .map_err(|e: String| MsmError::invalid_config("--scalars", e))?;
    crate::knobs::in_group!(args.gpu.curve()?, sweep_in(args, class))
}

/// The sweep in the group `C` (the context's `--curve` and `--group`).
fn sweep_in<C: GpuCurve>(args: &Args, class: ScalarClass) -> Result<(), CliError> {
    let ctx = args.gpu.context(Default::default())?;
    let n = 1usize << args.logn;
    // the variants over the bases as they are (plain, or `--table`'s):
    // a table that `table_after` built mid-sweep would move every variant
    // timed after it (a variant may still set it)
    let base = MsmConfig {
        table_after: 0,
        ..ctx.config_for(n)
    };
    let configs = match &args.variants {
        Some(spec) => knob_sets(spec, &base)?,
        None => ladder(base),
    };
    let (bases, mut scalars) = crate::inputs::generate_of::<C>(n, args.seed, !args.json && args.logn >= 18);
    msm_core::sample::reshape_scalars(&mut scalars, class, args.seed);
    let expected = Projective::<C>::msm(&bases, &scalars)
        .expect("equal lengths")
        .into_affine();
    let mut resident = ctx.upload_bases_blocking(&bases)?;
    args.table.build(&ctx, &mut resident)?;
    let calls = Calls {
        ctx: &ctx,
        bases: &resident,
        scalars: &scalars,
        expected,
    };
    let mut variants: Vec<Variant> = configs
        .into_iter()
        .map(|config| {
            let outcome = warm_up(&calls, n, &config);
            Variant { config, outcome }
        })
        .collect();
    if !args.json {
        eprintln!(
            "timing {} variants x {} reps in ABBA order...",
            variants
                .iter()
                .filter(|v| matches!(v.outcome, Outcome::Timed { .. }))
                .count(),
            args.reps
        );
    }
    for rep in 0..args.reps {
        let mut order: Vec<usize> = (0..variants.len()).collect();
        if rep % 2 == 1 {
            order.reverse();
        }
        for i in order {
            time(&calls, &mut variants[i]);
        }
    }

    let rows = rows(&ctx, args, n, &variants);
    if args.json {
        println!("{}", serde_json::to_string(&rows).expect("serialisable"));
    } else {
        print_table(&ctx, args, n, &rows);
    }
    if rows.iter().any(|r| r.correct == Some(false)) {
        return Err(CliError::Mismatch);
    }
    if rows.iter().all(|r| r.status == "skipped") {
        return Err(CliError::NothingRan);
    }
    let failed = rows.iter().filter(|r| r.status == "failed").count();
    if failed > 0 {
        return Err(CliError::VariantsFailed(failed));
    }
    Ok(())
}

/// A variant's warm-up (pipelines compiled, scratch allocated, checked
/// but untimed), or why it is skipped or failed.
fn warm_up<C: GpuCurve>(calls: &Calls<'_, C>, n: usize, config: &MsmConfig) -> Outcome {
    if let Err(e) = calls.ctx.plan(n, config) {
        return Outcome::Skipped(e.to_string());
    }
    match calls
        .call(config)
        .and_then(|(_, _, ok)| calls.timed(config).map(|_| ok))
    {
        Err(e) => Outcome::Failed(e.to_string()),
        Ok(correct) => Outcome::Timed {
            times: Vec::new(),
            gpu: Vec::new(),
            correct,
        },
    }
}

/// One timed round of a variant that still runs: an end-to-end call and,
/// where there are timestamps, a call for the GPU sum.
fn time<C: GpuCurve>(calls: &Calls<'_, C>, v: &mut Variant) {
    if let Outcome::Timed { times, gpu, correct } = &mut v.outcome {
        match calls
            .call(&v.config)
            .and_then(|(ms, _, ok)| Ok((ms, ok, calls.timed(&v.config)?)))
        {
            Ok((ms, ok, timed)) => {
                times.push(ms);
                *correct &= ok;
                if let Some((run, ok)) = timed {
                    gpu.push(run.timings.gpu_pass_ms.map_or(0.0, |p| p.iter().sum()));
                    *correct &= ok;
                }
            }
            Err(e) => v.outcome = Outcome::Failed(e.to_string()),
        }
    }
}

fn rows(ctx: &GpuContext, args: &Args, n: usize, variants: &[Variant]) -> Vec<Row> {
    let info = ctx.adapter_info();
    let summary = |v: &Variant| match &v.outcome {
        Outcome::Timed { times, .. } => Some(summarize(times)),
        _ => None,
    };
    let gpu_sum = |v: &Variant| match &v.outcome {
        Outcome::Timed { gpu, .. } if !gpu.is_empty() => Some(summarize(gpu).median),
        _ => None,
    };
    let default_median = variants.first().and_then(summary).map(|s| s.median);
    variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let s: Option<Summary> = summary(v);
            let (status, reason, correct) = match &v.outcome {
                Outcome::Skipped(r) => ("skipped", Some(r.clone()), None),
                Outcome::Failed(r) => ("failed", Some(r.clone()), None),
                Outcome::Timed { correct, .. } => ("ok", None, Some(*correct)),
            };
            Row {
                adapter: info.name.clone(),
                backend: format!("{:?}", info.backend),
                driver: format!("{} {}", info.driver, info.driver_info),
                n,
                logn: args.logn,
                seed: args.seed,
                variant: config_line(&v.config),
                default: i == 0,
                status,
                reason,
                reps: args.reps,
                median_ms: s.map(|s| s.median),
                min_ms: s.map(|s| s.min),
                max_ms: s.map(|s| s.max),
                gpu_sum_ms: gpu_sum(v),
                correct,
                ratio_to_default: s.zip(default_median).map(|(s, d)| s.median / d),
            }
        })
        .collect()
}

fn print_table(ctx: &GpuContext, args: &Args, n: usize, rows: &[Row]) {
    println!("adapter  {}", adapter_line(ctx));
    println!("field    {}", crate::knobs::field_line(ctx));
    println!(
        "inputs   n = 2^{} = {n}, seed {}; {} reps per variant after one warm-up, ABBA order; \
         wall clock per call to the result on the host",
        args.logn, args.seed, args.reps
    );
    let width = rows.iter().map(|r| r.variant.len()).max().unwrap_or(0).max(7);
    println!(
        "{:<width$}  {:>10}  {:>21}  {:>9}  {:>7}  {:>9}",
        "variant", "median ms", "min..max ms", "gpu ms", "correct", "x default"
    );
    for r in rows {
        match (r.median_ms, r.min_ms, r.max_ms) {
            (Some(med), Some(lo), Some(hi)) => println!(
                "{:<width$}  {med:>10.3}  {:>21}  {:>9}  {:>7}  {:>9}{}",
                r.variant,
                format!("{lo:.3}..{hi:.3}"),
                r.gpu_sum_ms.map_or("-".into(), |g| format!("{g:.3}")),
                if r.correct == Some(true) { "ok" } else { "WRONG" },
                r.ratio_to_default.map_or("-".into(), |x| format!("{x:.3}")),
                if r.default { "  (default)" } else { "" },
            ),
            _ => println!(
                "{:<width$}  {} : {}",
                r.variant,
                r.status,
                r.reason.as_deref().unwrap_or("")
            ),
        }
    }
    println!("x default: the variant's median over the default's (below 1 is faster)");
}
