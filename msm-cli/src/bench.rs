//! `msm-cli bench`: the GPU MSM beside arkworks on the same seeded inputs,
//! cold and warm, per pass, each timed result with its correctness verdict.

use std::time::Instant;

use std::collections::BTreeMap;

use ark_ec::{AffineRepr, CurveGroup};
use msm_core::cpu::cost::OpCounts;
use msm_core::sample::ScalarClass;
use msm_core::{cpu, MsmError, Pass};
use serde::Serialize;

use crate::knobs::{adapter_line, config_line, field_line, GpuArgs, KnobArgs};
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
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    knobs: KnobArgs,
}

#[derive(Serialize)]
struct CompileSummary {
    pipelines: usize,
    sum_ms: f64,
    max_ms: f64,
    per_pipeline: Vec<(String, f64)>,
}

impl CompileSummary {
    fn of(log: &[msm_core::CompileRecord]) -> Self {
        CompileSummary {
            pipelines: log.len(),
            sum_ms: log.iter().map(|r| r.ms).sum(),
            max_ms: log.iter().map(|r| r.ms).fold(0.0, f64::max),
            per_pipeline: log
                .iter()
                .map(|r| (format!("{}.{}", r.shader, r.entry), r.ms))
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Report {
    adapter: String,
    backend: String,
    driver: String,
    software_adapter: bool,
    field_layout: String,
    field: String,
    n: usize,
    logn: u32,
    seed: u64,
    scalars: String,
    config: String,
    /// Where the knobs came from: a tuned profile or built-in defaults.
    profile: String,
    /// GPU memory this context holds after the runs (bases, scratch,
    /// staging, results; the context's own count).
    gpu_memory_bytes: u64,
    window_bits: u32,
    windows: u32,
    walker_threads: u32,
    walker_tasks: u32,
    input_generation_s: f64,
    base_upload_ms: f64,
    cold_ms: f64,
    cold_correct: bool,
    /// Pipelines the first call compiled: count, summed and longest creation
    /// time (wall clock, compiled in parallel), and the per-pipeline list.
    compile: CompileSummary,
    /// Compiled pipelines persist across processes in this context's disk cache.
    pipeline_cache: bool,
    warm_ms: Summary,
    warm_correct: bool,
    reps: usize,
    /// GPU time per pass, by name.
    gpu_pass_ms: Option<BTreeMap<&'static str, Summary>>,
    /// GPU time per kernel (`pass.entry`).
    gpu_kernel_ms: Option<BTreeMap<String, Summary>>,
    /// Sum of the passes' GPU times per rep.
    gpu_sum_ms: Option<Summary>,
    /// Warm median minus the GPU sum median: what the host adds.
    host_overhead_ms: Option<f64>,
    gpu_pass_timing: &'static str,
    /// Field multiplications and inversions of this MSM (from its plan and
    /// bucket sizes; an inversion counted as 344 multiplications).
    ops: OpCounts,
    inversion_share: f64,
    /// Warm calls' host phases (wall clock): plans and lookups, scalar
    /// upload, recording and submission, the wait for results, Horner.
    prepare_ms: Summary,
    scalar_upload_ms: Summary,
    submit_ms: Summary,
    wait_ms: Summary,
    gpu_wall_ms: Summary,
    host_combine_ms: Summary,
    /// Timed runs: first kernel start to last kernel end (passes plus gaps).
    gpu_span_ms: Option<Summary>,
    arkworks_ms: Option<Summary>,
    /// `--batch K`: one batch of K vectors against K single calls.
    batch: Option<crate::batch_bench::BatchReport>,
    arkworks_threads: usize,
    speedup_vs_arkworks: Option<f64>,
}

pub fn run(args: &Args) -> Result<(), MsmError> {
    if args.logn > 26 {
        return Err(MsmError::invalid_config("--logn", format!("{}: at most 26", args.logn)));
    }
    let ctx = args.gpu.context(args.knobs.overrides.clone())?;
    // the knobs given, each over the adapter's profile for this size
    let config = ctx.config_for(1 << args.logn);
    let class: ScalarClass = args
        .scalars
        .parse()
        .map_err(|e: String| MsmError::invalid_config("--scalars", e))?;
    let n = 1usize << args.logn;
    let t = Instant::now();
    let (bases, mut scalars) = crate::inputs::generate(n, args.seed, !args.json && args.logn >= 18);
    msm_core::sample::reshape_scalars(&mut scalars, class, args.seed);
    let input_generation_s = t.elapsed().as_secs_f64();
    let expected = cpu::msm_reference(&bases, &scalars).into_affine();

    let t = Instant::now();
    let resident = ctx.upload_bases_blocking(&bases)?;
    let base_upload_ms = t.elapsed().as_secs_f64() * 1e3;

    if !args.json {
        eprintln!(
            "cold call: compiling the GPU pipelines (a first-run cost: seconds on a GPU, up to a minute on a CPU \
             adapter; cached afterwards where the driver allows)..."
        );
    }
    let t = Instant::now();
    let cold = ctx.msm_blocking_with(&resident, &scalars, &config)?;
    let cold_ms = t.elapsed().as_secs_f64() * 1e3;
    let cold_correct = cold.result.into_affine() == expected;
    let compile = CompileSummary::of(&ctx.compile_log());
    let plan = cold.plan.expect("n > 0");

    // Untimed end-to-end reps, then reps with per-pass timestamps (their own passes
    // add overhead, so they are reported apart).
    let mut warm = Vec::new();
    let (mut upload, mut wall, mut combine) = (Vec::new(), Vec::new(), Vec::new());
    let (mut prepare, mut submit, mut wait, mut span) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut warm_correct = true;
    for _ in 0..args.reps {
        let t = Instant::now();
        let run = ctx.msm_blocking_with(&resident, &scalars, &config)?;
        warm.push(t.elapsed().as_secs_f64() * 1e3);
        warm_correct &= run.result.into_affine() == expected;
        upload.push(run.timings.upload_ms);
        prepare.push(run.timings.prepare_ms);
        submit.push(run.timings.submit_ms);
        wait.push(run.timings.wait_ms);
        wall.push(run.timings.gpu_wall_ms);
        combine.push(run.timings.host_combine_ms);
    }
    let timed_config = msm_core::MsmConfig {
        timing: true,
        ..config.clone()
    };
    let mut passes: Vec<[f64; 4]> = Vec::new();
    let mut kernels: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    if ctx.has_timestamps() {
        for _ in 0..args.reps.max(1) {
            let run = ctx.msm_blocking_with(&resident, &scalars, &timed_config)?;
            warm_correct &= run.result.into_affine() == expected;
            if let Some(p) = run.timings.gpu_pass_ms {
                passes.push(p);
            }
            span.extend(run.timings.gpu_span_ms);
            for (label, ms) in run.timings.gpu_kernel_ms {
                kernels.entry(label).or_default().push(ms);
            }
        }
    }
    let gpu_pass_ms = (!passes.is_empty()).then(|| {
        Pass::ALL
            .iter()
            .map(|p| {
                (
                    p.name(),
                    summarize(&passes.iter().map(|t| t[p.index()]).collect::<Vec<_>>()),
                )
            })
            .collect::<BTreeMap<_, _>>()
    });
    let gpu_sum_ms =
        (!passes.is_empty()).then(|| summarize(&passes.iter().map(|t| t.iter().sum()).collect::<Vec<f64>>()));
    let gpu_kernel_ms = (!kernels.is_empty()).then(|| kernels.iter().map(|(k, v)| (k.clone(), summarize(v))).collect());
    let ops = op_counts(&plan, &config, &bases, &scalars);

    let batch = match args.batch {
        Some(k) => Some(crate::batch_bench::measure(
            &ctx,
            &resident,
            &bases,
            k,
            args.reps.min(5),
            args.seed,
            &config,
        )?),
        None => None,
    };
    let arkworks_threads = rayon::current_num_threads();
    let mut cpu_times = Vec::new();
    for _ in 0..args.cpu_reps {
        let t = Instant::now();
        let r = cpu::msm_reference(&bases, &scalars);
        cpu_times.push(t.elapsed().as_secs_f64() * 1e3);
        let _ = std::hint::black_box(r);
    }
    let arkworks_ms = (!cpu_times.is_empty()).then(|| summarize(&cpu_times));
    let warm_ms = summarize(&warm);
    let info = ctx.adapter_info();
    let host_overhead_ms = gpu_sum_ms.map(|g| warm_ms.median - g.median);
    let report = Report {
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: format!("{} {}", info.driver, info.driver_info),
        software_adapter: ctx.is_software(),
        field_layout: ctx.field_layout().to_string(),
        field: field_line(&ctx),
        n,
        logn: args.logn,
        seed: args.seed,
        scalars: class.name().into(),
        config: config_line(&config),
        profile: ctx.profile_source().to_string(),
        gpu_memory_bytes: ctx.live_memory().bytes(),
        window_bits: plan.c,
        windows: plan.windows,
        walker_threads: plan.threads,
        walker_tasks: plan.tasks,
        input_generation_s,
        base_upload_ms,
        cold_ms,
        cold_correct,
        compile,
        pipeline_cache: ctx.has_pipeline_cache(),
        warm_ms,
        warm_correct,
        reps: args.reps,
        gpu_pass_ms,
        gpu_kernel_ms,
        gpu_sum_ms,
        host_overhead_ms,
        inversion_share: ops.inversion_share(),
        ops,
        gpu_pass_timing: if ctx.has_timestamps() {
            "gpu timestamps"
        } else {
            "unavailable (no timestamp queries)"
        },
        prepare_ms: summarize(&prepare),
        scalar_upload_ms: summarize(&upload),
        submit_ms: summarize(&submit),
        wait_ms: summarize(&wait),
        gpu_span_ms: (!span.is_empty()).then(|| summarize(&span)),
        gpu_wall_ms: summarize(&wall),
        host_combine_ms: summarize(&combine),
        arkworks_ms,
        batch,
        arkworks_threads,
        speedup_vs_arkworks: arkworks_ms.map(|a| a.median / warm_ms.median),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("serialisable"));
    } else {
        print_report(&ctx, &report);
    }
    if !(cold_correct && warm_correct && report.batch.as_ref().is_none_or(|b| b.correct)) {
        return Err(MsmError::CorruptResult);
    }
    Ok(())
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok (= arkworks)"
    } else {
        "WRONG (differs from arkworks)"
    }
}

fn print_report(ctx: &msm_core::GpuContext, r: &Report) {
    let ms = |s: &Summary| format!("{:.3} ms (min {:.3}, max {:.3})", s.median, s.min, s.max);
    println!("adapter      {}", adapter_line(ctx));
    println!("field        {}", r.field);
    println!(
        "inputs       n = 2^{} = {}, seed {}, {} scalars (generated in {:.2} s)",
        r.logn, r.n, r.seed, r.scalars, r.input_generation_s
    );
    println!(
        "plan         c = {}, {} windows, {} walker threads x S = {} tasks; {}",
        r.window_bits, r.windows, r.walker_threads, r.walker_tasks, r.config
    );
    println!("profile      {}", r.profile);
    println!("bases        uploaded once in {:.2} ms", r.base_upload_ms);
    println!(
        "gpu memory   {:.1} MiB held by this context",
        r.gpu_memory_bytes as f64 / (1 << 20) as f64
    );
    println!(
        "cold         {:.3} ms (first call: pipelines, buffers)   check: {}",
        r.cold_ms,
        verdict(r.cold_correct)
    );
    println!(
        "  pipelines  {} compiled in parallel: {:.0} ms summed, {:.0} ms the longest; disk pipeline cache {}",
        r.compile.pipelines,
        r.compile.sum_ms,
        r.compile.max_ms,
        if r.pipeline_cache {
            "on"
        } else {
            "unavailable on this adapter"
        }
    );
    println!(
        "warm         {} over {} reps   check: {}",
        ms(&r.warm_ms),
        r.reps,
        verdict(r.warm_correct)
    );
    match (&r.gpu_pass_ms, &r.gpu_kernel_ms, &r.gpu_sum_ms) {
        (Some(p), Some(k), Some(sum)) => {
            for pass in Pass::ALL {
                println!("  {:<15} {}  [gpu timestamps]", pass.name(), ms(&p[pass.name()]));
                for (label, s) in k.iter().filter(|(l, _)| l.starts_with(&format!("{}.", pass.name()))) {
                    println!("    {label:<28} {:.3} ms", s.median);
                }
            }
            println!("  gpu sum         {}", ms(sum));
            if let Some(span) = &r.gpu_span_ms {
                println!(
                    "  gpu span        {}  (first kernel start to last kernel end)",
                    ms(span)
                );
            }
            if let Some(h) = r.host_overhead_ms {
                println!("  host overhead   {h:.3} ms (warm median minus gpu sum median)");
            }
        }
        _ => println!("  per pass      {}", r.gpu_pass_timing),
    }
    let o = &r.ops;
    println!(
        "ops          {:.1}M field multiplications, {} inversions ({:.2}% of multiplications at 344 each); \
         walker: {:.1}M additions in {} workgroup iterations",
        o.total_muls() as f64 / 1e6,
        o.total_inversions(),
        100.0 * r.inversion_share,
        o.walker_additions as f64 / 1e6,
        o.walker_iterations
    );
    println!("  prepare        {}  [wall clock]", ms(&r.prepare_ms));
    println!("  scalar upload  {}  [wall clock]", ms(&r.scalar_upload_ms));
    println!("  record+submit  {}  [wall clock]", ms(&r.submit_ms));
    println!("  wait           {}  [wall clock]", ms(&r.wait_ms));
    println!("  gpu + readback {}  [wall clock]", ms(&r.gpu_wall_ms));
    println!("  host combine   {}  [wall clock]", ms(&r.host_combine_ms));
    if let Some(b) = &r.batch {
        println!(
            "batch        {} vectors: one batch {}, {} single calls {}: {:.2}x   check: {}",
            b.vectors,
            ms(&b.batch_ms),
            b.vectors,
            ms(&b.singles_ms),
            b.speedup,
            verdict(b.correct)
        );
    }
    match (&r.arkworks_ms, r.speedup_vs_arkworks) {
        (Some(a), Some(x)) => println!(
            "arkworks     {} on {} threads (CPU, same inputs); GPU warm median is {:.2}x arkworks' speed",
            ms(a),
            r.arkworks_threads,
            x
        ),
        _ => println!("arkworks     not timed (--cpu-reps 0)"),
    }
}

/// The operation counts of this MSM: the CPU twin's histogram of the scalars
/// under the plan, then the plan's structure.
fn op_counts(
    plan: &msm_core::Plan,
    config: &msm_core::MsmConfig,
    bases: &[ark_bn254::G1Affine],
    scalars: &[ark_bn254::Fr],
) -> OpCounts {
    let words: Vec<_> = scalars.iter().map(cpu::scalar_words).collect();
    let identity: Vec<bool> = bases.iter().map(|p| p.is_zero()).collect();
    let counts = cpu::preprocess::bucket_counts(plan, &words, &identity);
    cpu::cost::count(plan, config, &counts)
}
