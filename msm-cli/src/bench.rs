//! `msm-cli bench`: the GPU MSM beside arkworks on the same seeded inputs,
//! cold and warm, per pass, each timed result with its correctness verdict.

use std::time::Instant;

use ark_ec::CurveGroup;
use msm_core::{cpu, MsmError};
use serde::Serialize;

use crate::knobs::{adapter_line, config_line, GpuArgs, KnobArgs};
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
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    knobs: KnobArgs,
}

#[derive(Serialize)]
struct Report {
    adapter: String,
    backend: String,
    driver: String,
    software_adapter: bool,
    field_layout: String,
    n: usize,
    logn: u32,
    seed: u64,
    config: String,
    window_bits: u32,
    windows: u32,
    walker_threads: u32,
    walker_tasks: u32,
    input_generation_s: f64,
    base_upload_ms: f64,
    cold_ms: f64,
    cold_correct: bool,
    warm_ms: Summary,
    warm_correct: bool,
    reps: usize,
    gpu_pass_ms: Option<[Summary; 4]>,
    gpu_pass_timing: &'static str,
    scalar_upload_ms: Summary,
    gpu_wall_ms: Summary,
    host_combine_ms: Summary,
    arkworks_ms: Option<Summary>,
    arkworks_threads: usize,
    speedup_vs_arkworks: Option<f64>,
}

pub fn run(args: &Args) -> Result<(), MsmError> {
    if args.logn > 26 {
        return Err(MsmError::InvalidConfig(format!("--logn {}: at most 26", args.logn)));
    }
    let config = args.knobs.config()?;
    let ctx = args.gpu.context(config.clone())?;
    let n = 1usize << args.logn;
    let t = Instant::now();
    let (bases, scalars) = crate::inputs::generate(n, args.seed, !args.json && args.logn >= 18);
    let input_generation_s = t.elapsed().as_secs_f64();
    let expected = cpu::msm_reference(&bases, &scalars).into_affine();

    let t = Instant::now();
    let resident = ctx.upload_bases(&bases);
    let base_upload_ms = t.elapsed().as_secs_f64() * 1e3;

    let t = Instant::now();
    let cold = ctx.msm_blocking_with(&resident, &scalars, &config)?;
    let cold_ms = t.elapsed().as_secs_f64() * 1e3;
    let cold_correct = cold.result.into_affine() == expected;
    let plan = cold.plan.expect("n > 0");

    // Untimed end-to-end reps, then reps with per-pass timestamps (their own passes
    // add overhead, so they are reported apart).
    let mut warm = Vec::new();
    let (mut upload, mut wall, mut combine) = (Vec::new(), Vec::new(), Vec::new());
    let mut warm_correct = true;
    for _ in 0..args.reps {
        let t = Instant::now();
        let run = ctx.msm_blocking_with(&resident, &scalars, &config)?;
        warm.push(t.elapsed().as_secs_f64() * 1e3);
        warm_correct &= run.result.into_affine() == expected;
        upload.push(run.timings.upload_ms);
        wall.push(run.timings.gpu_wall_ms);
        combine.push(run.timings.host_combine_ms);
    }
    let timed_config = msm_core::MsmConfig {
        timing: true,
        ..config.clone()
    };
    let mut passes: Vec<[f64; 4]> = Vec::new();
    if ctx.has_timestamps() {
        for _ in 0..args.reps.max(1) {
            let run = ctx.msm_blocking_with(&resident, &scalars, &timed_config)?;
            warm_correct &= run.result.into_affine() == expected;
            if let Some(p) = run.timings.gpu_pass_ms {
                passes.push(p);
            }
        }
    }
    let gpu_pass_ms = (!passes.is_empty())
        .then(|| std::array::from_fn(|i| summarize(&passes.iter().map(|p| p[i]).collect::<Vec<_>>())));

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
    let report = Report {
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: format!("{} {}", info.driver, info.driver_info),
        software_adapter: ctx.is_software(),
        field_layout: ctx.field_layout().to_string(),
        n,
        logn: args.logn,
        seed: args.seed,
        config: config_line(&config),
        window_bits: plan.c,
        windows: plan.windows,
        walker_threads: plan.threads,
        walker_tasks: plan.tasks,
        input_generation_s,
        base_upload_ms,
        cold_ms,
        cold_correct,
        warm_ms,
        warm_correct,
        reps: args.reps,
        gpu_pass_ms,
        gpu_pass_timing: if ctx.has_timestamps() {
            "gpu timestamps"
        } else {
            "unavailable (no timestamp queries)"
        },
        scalar_upload_ms: summarize(&upload),
        gpu_wall_ms: summarize(&wall),
        host_combine_ms: summarize(&combine),
        arkworks_ms,
        arkworks_threads,
        speedup_vs_arkworks: arkworks_ms.map(|a| a.median / warm_ms.median),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report).expect("serialisable"));
    } else {
        print_report(&ctx, &report);
    }
    if !(cold_correct && warm_correct) {
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
    println!("field        {}", r.field_layout);
    println!(
        "inputs       n = 2^{} = {}, seed {} (generated in {:.2} s)",
        r.logn, r.n, r.seed, r.input_generation_s
    );
    println!(
        "plan         c = {}, {} windows, {} walker threads x S = {} tasks; {}",
        r.window_bits, r.windows, r.walker_threads, r.walker_tasks, r.config
    );
    println!("bases        uploaded once in {:.2} ms", r.base_upload_ms);
    println!(
        "cold         {:.3} ms (first call: pipelines, buffers)   check: {}",
        r.cold_ms,
        verdict(r.cold_correct)
    );
    println!(
        "warm         {} over {} reps   check: {}",
        ms(&r.warm_ms),
        r.reps,
        verdict(r.warm_correct)
    );
    match &r.gpu_pass_ms {
        Some(p) => {
            for (name, s) in msm_core::msm::PASSES.iter().zip(p) {
                println!("  {name:<15} {}  [gpu timestamps]", ms(s));
            }
        }
        None => println!("  per pass      {}", r.gpu_pass_timing),
    }
    println!("  scalar upload  {}  [wall clock]", ms(&r.scalar_upload_ms));
    println!("  gpu + readback {}  [wall clock]", ms(&r.gpu_wall_ms));
    println!("  host combine   {}  [wall clock]", ms(&r.host_combine_ms));
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
