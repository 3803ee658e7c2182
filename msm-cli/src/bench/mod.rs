//! `msm-cli bench`: the GPU MSM beside arkworks on the same seeded inputs,
//! cold and warm, per pass, each timed result with its correctness verdict.

mod report;
mod upload;

use std::time::Instant;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::PrimeField;
use msm_core::cpu::cost::OpCounts;
use msm_core::sample::ScalarClass;
use msm_core::{cpu, GpuCurve, MsmError};
use report::{Cold, CompileSummary, Report, Setup, TimedRuns, Warm, WarmRuns};

use crate::calls::Calls;
use crate::knobs::{config_line, field_line, GpuArgs, KnobArgs};
use crate::stats::{summarize, Summary};

#[derive(clap::Args)]
pub struct Args {
    /// log2 of the number of points.
    #[arg(long, default_value_t = 17)]
    logn: u32,
    /// Warm repetitions (the median is reported).
    #[arg(long, default_value_t = 10)]
    reps: usize,
    /// Seed of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Repetitions of arkworks' CPU MSM (0 skips the timing; the check always runs).
    #[arg(long, default_value_t = 3)]
    cpu_reps: usize,
    /// Scalar distribution: random, equal, zero90, bits8 or onebucket.
    #[arg(long, default_value = "random")]
    scalars: String,
    /// Also time K scalar vectors as one batch against K single calls.
    #[arg(long, value_name = "K")]
    batch: Option<usize>,
    /// Run one MSM of 2^L points first (L < logn, the first bases), so that
    /// the cold figure is a new size class's in a process that has run an
    /// MSM already.
    #[arg(long, value_name = "L")]
    after: Option<u32>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    /// Also time R uploads of the bases as bytes with and without the
    /// subgroup test (ABBA), and the test alone (printed to stderr).
    #[arg(long, value_name = "R", default_value_t = 0)]
    upload_reps: usize,
    #[command(flatten)]
    table: crate::calls::TableArg,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    knobs: KnobArgs,
}

pub fn run(args: &Args) -> Result<(), MsmError> {
    if args.logn > 26 {
        return Err(MsmError::invalid_config("--logn", format!("{}: at most 26", args.logn)));
    }
    crate::knobs::in_group!(args.gpu.curve()?, run_for(args))
}

/// The bench in the group `C` (the context's `--curve`).
fn run_for<C: GpuCurve>(args: &Args) -> Result<(), MsmError> {
    let start = Instant::now();
    let ctx = args.gpu.context(args.knobs.overrides.clone())?;
    let context_ms = start.elapsed().as_secs_f64() * 1e3;
    // the knobs given, each over the adapter's profile for this size
    let config = ctx.config_for(1 << args.logn);
    let class: ScalarClass = args
        .scalars
        .parse()
        .map_err(|e: String| MsmError::invalid_config("--scalars", e))?;
    let n = 1usize << args.logn;
    let t = Instant::now();
    let (bases, mut scalars) = crate::inputs::generate_of::<C>(n, args.seed, !args.json && args.logn >= 18);
    msm_core::sample::reshape_scalars(&mut scalars, class, args.seed);
    let input_generation_s = t.elapsed().as_secs_f64();
    let expected = reference(&bases, &scalars).into_affine();

    let t = Instant::now();
    let mut resident = ctx.upload_bases_blocking(&bases)?;
    let base_upload_ms = t.elapsed().as_secs_f64() * 1e3;
    let table = args.table.build(&ctx, &mut resident)?;
    if !args.json {
        eprintln!(
            "cold call: compiling the GPU pipelines (a first-run cost: seconds on a GPU, up to a minute on a CPU \
             adapter; cached afterwards where the driver allows)..."
        );
    }
    if let Some(l) = args.after.filter(|&l| l < args.logn) {
        let m = 1usize << l;
        ctx.msm_blocking_with(&resident, &scalars[..m], &ctx.config_for(m))?;
    }
    let t = Instant::now();
    let first = ctx.msm_blocking_with(&resident, &scalars, &config)?;
    let mut cold = Cold {
        after_logn: args.after.filter(|&l| l < args.logn),
        context_ms,
        first_result_ms: start.elapsed().as_secs_f64() * 1e3,
        input_generation_s,
        base_upload_ms,
        table_bits: table.map(|t| t.0),
        table_build_ms: table.map(|t| t.1),
        auto_table_bits: None,
        auto_table_call_ms: None,
        plain_before_table_ms: None,
        cold_ms: t.elapsed().as_secs_f64() * 1e3,
        cold_correct: first.result.into_affine() == expected,
        compile: CompileSummary::of(&ctx.compile_log()),
        pipeline_cache: ctx.has_pipeline_cache(),
    };
    let mut plan = first.plan.expect("n > 0");
    let calls = Calls {
        ctx: &ctx,
        bases: &resident,
        scalars: &scalars,
        expected,
    };
    let before = calls_before_the_table(&calls, &resident, &config)?;
    cold.plain_before_table_ms = (!before.plain_ms.is_empty()).then(|| summarize(&before.plain_ms));
    if let Some((bits, ms, run)) = before.built {
        (cold.auto_table_bits, cold.auto_table_call_ms) = (Some(bits), Some(ms));
        plan = run;
    }
    let (warm_runs, warm_ok) = warm_calls(&calls, &config, args.reps)?;
    let (timed, timed_ok) = timed_calls(&calls, &config, args.reps.max(1))?;
    let warm = Warm::of(&warm_runs, &timed, args.reps, warm_ok && timed_ok, ctx.has_timestamps());
    let ops = op_counts(&plan, &config, &bases, &scalars);
    let batch = match args.batch {
        Some(k) => Some(crate::batch_bench::measure(
            &ctx,
            &resident,
            &bases,
            k,
            args.reps.min(5),
            args.seed,
            (&config, &ctx.config_for_batch(&vec![n; k])),
        )?),
        None => None,
    };
    if args.upload_reps > 0 {
        upload::measure(&ctx, &bases, args.upload_reps)?.print(n);
    }
    let arkworks_ms = arkworks_ms(&bases, &scalars, args.cpu_reps);
    let report = Report {
        setup: setup(&ctx, args, class, &config, &plan),
        gpu_memory_bytes: ctx.live_memory().bytes(),
        inversion_share: ops.inversion_share(),
        ops,
        speedup_vs_arkworks: arkworks_ms.map(|a| a.median / warm.warm_ms.median),
        arkworks_ms,
        arkworks_threads: rayon::current_num_threads(),
        batch,
        cold,
        warm,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("serialisable"));
    } else {
        report.print(&ctx);
    }
    let batch_ok = report.batch.as_ref().is_none_or(|b| b.correct);
    if !(report.cold.cold_correct && report.warm.warm_correct && batch_ok) {
        return Err(MsmError::CorruptResult);
    }
    Ok(())
}

/// The adapter, inputs and plan of this bench.
fn setup(
    ctx: &msm_core::GpuContext,
    args: &Args,
    class: ScalarClass,
    config: &msm_core::MsmConfig,
    plan: &msm_core::Plan,
) -> Setup {
    let info = ctx.adapter_info();
    Setup {
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: format!("{} {}", info.driver, info.driver_info),
        software_adapter: ctx.is_software(),
        field_layout: ctx.field_layout().to_string(),
        field: field_line(ctx),
        n: 1 << args.logn,
        logn: args.logn,
        seed: args.seed,
        scalars: class.name().into(),
        config: config_line(config),
        profile: ctx.profile_source().to_string(),
        window_bits: plan.c,
        windows: plan.windows,
        walker_threads: plan.threads,
        walker_tasks: plan.tasks,
    }
}

/// arkworks' MSM in the group `C` (on every core).
fn reference<C: GpuCurve>(bases: &[Affine<C>], scalars: &[C::ScalarField]) -> Projective<C> {
    Projective::<C>::msm(bases, scalars).expect("equal lengths")
}

/// Where the knob `table_after` builds the bases' table, the calls up to
/// the one that builds it (at most 256), each checked: the warm calls then
/// measure the steady state over the table.
struct BeforeTable {
    /// The plain calls' times (the first call's excluded).
    plain_ms: Vec<f64>,
    /// The table's width, the building call's time and its plan.
    built: Option<(u32, f64, msm_core::Plan)>,
}

fn calls_before_the_table<C: GpuCurve>(
    calls: &Calls<'_, C>,
    bases: &msm_core::Bases<C>,
    config: &msm_core::MsmConfig,
) -> Result<BeforeTable, MsmError> {
    let mut out = BeforeTable {
        plain_ms: Vec::new(),
        built: None,
    };
    let int64 = calls.ctx.field_layout().needs_int64();
    let builds = msm_core::auto_table_width(config, bases.len(), bases.curve(), int64).is_some();
    if !builds || bases.table_bits().is_some() {
        return Ok(out);
    }
    for _ in 1..config.table_after.min(256) {
        let (ms, run, exact) = calls.call(config)?;
        if !exact {
            return Err(MsmError::CorruptResult);
        }
        if let Some(bits) = bases.table_bits() {
            out.built = Some((bits, ms, run.plan.expect("n > 0")));
            break;
        }
        out.plain_ms.push(ms);
    }
    Ok(out)
}

/// `reps` untimed calls, end to end; whether every one was exact.
fn warm_calls<C: GpuCurve>(
    calls: &Calls<'_, C>,
    config: &msm_core::MsmConfig,
    reps: usize,
) -> Result<(WarmRuns, bool), MsmError> {
    let (mut runs, mut ok) = (WarmRuns::default(), true);
    for _ in 0..reps {
        let (ms, run, exact) = calls.call(config)?;
        runs.push(ms, &run.timings);
        ok &= exact;
    }
    Ok((runs, ok))
}

/// `reps` calls with per-pass timestamps (none without timestamp queries).
fn timed_calls<C: GpuCurve>(
    calls: &Calls<'_, C>,
    config: &msm_core::MsmConfig,
    reps: usize,
) -> Result<(TimedRuns, bool), MsmError> {
    let (mut runs, mut ok) = (TimedRuns::default(), true);
    for _ in 0..reps {
        let Some((run, exact)) = calls.timed(config)? else {
            break;
        };
        ok &= exact;
        runs.passes.extend(run.timings.gpu_pass_ms);
        runs.span.extend(run.timings.gpu_span_ms);
        for (label, ms) in run.timings.gpu_kernel_ms {
            runs.kernels.entry(label).or_default().push(ms);
        }
    }
    Ok((runs, ok))
}

/// arkworks' MSM on every core, `reps` times (`None` for none).
fn arkworks_ms<C: GpuCurve>(bases: &[Affine<C>], scalars: &[C::ScalarField], reps: usize) -> Option<Summary> {
    let times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            let _ = std::hint::black_box(reference(bases, scalars));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (!times.is_empty()).then(|| summarize(&times))
}

/// The operation counts of this MSM: the CPU twin's histogram of the scalars
/// under the plan, then the plan's structure.
fn op_counts<C: GpuCurve>(
    plan: &msm_core::Plan,
    config: &msm_core::MsmConfig,
    bases: &[Affine<C>],
    scalars: &[C::ScalarField],
) -> OpCounts {
    let words: Vec<_> = scalars
        .iter()
        .map(|s| msm_core::repr::bigint_to_words(&s.into_bigint()))
        .collect();
    let identity: Vec<bool> = bases.iter().map(|p| p.is_zero()).collect();
    let counts = cpu::preprocess::bucket_counts(plan, &words, &identity);
    cpu::cost::count(plan, config, &counts)
}
