//! `msm-cli soak`: many random MSMs on one context, each checked against
//! arkworks. Every run draws its size, its input classes (the adversarial
//! ones of `msm_core::sample` mixed in), how its bases are held (prefix of a
//! longer set, split into parts) and a value for every knob of
//! `msm_core::knobs::KNOBS`, applied through `MsmConfig::set`. A knob set the
//! adapter refuses is counted, not failed; a wrong result or any other error
//! fails the soak. Run `i` of seed `s` depends on `(s, i)` only, so
//! `--seed s --start i --count 1` replays it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use ark_ec::CurveGroup;
use indicatif::{ProgressBar, ProgressStyle};
use msm_core::{cpu, GpuContext, MsmConfig, MsmError, Scalars};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::error::CliError;
use crate::knobs::{adapter_line, field_line, GpuArgs};

mod draw;

use draw::{bases_of, below, scalars_of, shader_knobs, shader_set, Draw};

#[derive(clap::Args)]
pub struct Args {
    /// How many MSMs.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Seed of everything a run draws.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest size as log2: sizes are drawn log-uniformly from 0..=2^L.
    #[arg(long, default_value_t = 12)]
    max_logn: u32,
    /// Index of the first run (replay run I with `--start I --count 1`).
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Draw the shader knobs (walker variant and threads per workgroup) from
    /// this many sets, the defaults first: each set compiles its pipelines at
    /// first use, seconds on a CPU adapter. 0: a fresh draw every run.
    #[arg(long, default_value_t = 0)]
    shader_sets: usize,
    /// Threads sharing the one context, each taking the next run index: the
    /// draws and results are the same as with one, the runs overlap (the
    /// arkworks checks on the host's cores, the MSMs on the device).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Start no run after this many seconds (the summary says how many ran).
    #[arg(long)]
    max_seconds: Option<f64>,
    /// One line per run on stderr (index, draw, outcome, seconds), for logs
    /// of long runs where a progress bar is not drawn.
    #[arg(long)]
    log: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// One run's fate.
enum Outcome {
    Ok,
    /// The adapter or the plan refused the knob set (the first knob the
    /// message names, else the error's kind).
    Refused(String),
    Mismatch,
    Error(MsmError),
}

fn run_one(ctx: &GpuContext, d: &Draw, seed: u64, rng: &mut ChaCha20Rng) -> (Outcome, f64, f64) {
    let config = match d.config() {
        Ok(c) => c,
        Err(e) => return (Outcome::Error(e), 0.0, 0.0),
    };
    let points = bases_of(d.base_class, d.n + d.extra, seed);
    let scalars = scalars_of(&d.scalar_class, d.n, rng);
    let mut bases = match d.part {
        Some(p) => ctx.upload_bases_in_parts(&points, p),
        None => match ctx.upload_bases_blocking(&points) {
            Ok(b) => b,
            Err(e) => return (Outcome::Error(e), 0.0, 0.0),
        },
    };
    if let Some(c) = d.table {
        if let Err(e) = ctx.build_table_blocking(&mut bases, Some(c)) {
            return (Outcome::Error(e), 0.0, 0.0);
        }
    }
    let words: Vec<ark_ff::BigInt<4>> = scalars.iter().map(|s| ark_ff::PrimeField::into_bigint(*s)).collect();
    let input = if d.canonical {
        Scalars::Canonical(&words)
    } else {
        Scalars::Fr(&scalars)
    };
    let t = Instant::now();
    let got = pollster::block_on(ctx.msm_scalars_with(&bases, input, &config));
    let gpu_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let want = cpu::msm_reference(&points[..d.n], &scalars);
    let cpu_s = t.elapsed().as_secs_f64();
    let outcome = match got {
        Ok(run) if run.result.into_affine() == want.into_affine() => Outcome::Ok,
        Ok(_) => Outcome::Mismatch,
        Err(MsmError::BindingTooSmall { what, .. }) => Outcome::Refused(format!("binding ({what})")),
        Err(MsmError::InvalidConfig { knob, .. }) => Outcome::Refused(knob),
        Err(e) => Outcome::Error(e),
    };
    (outcome, gpu_s, cpu_s)
}

/// One finished run, sent from the thread that ran it to the tally.
struct Record {
    i: u64,
    draw: Draw,
    outcome: Outcome,
    gpu_s: f64,
    cpu_s: f64,
}

/// Draws run `i` from `(seed, i)` alone and runs it. With `--log`, one thread
/// writes the draw before the run and the outcome after it on one line (a
/// hang or crash shows which run); several threads write a line for each.
fn soak_one(
    ctx: &GpuContext,
    args: &Args,
    sets: &[Vec<(&'static str, String)>],
    max_tpb: u32,
    i: u64,
    shared: bool,
) -> Record {
    let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
    rng.set_stream(i);
    let set = (!sets.is_empty()).then(|| sets[below(&mut rng, sets.len() as u64) as usize].as_slice());
    let draw = Draw::new(&mut rng, args.max_logn, set, max_tpb);
    if args.log {
        let knobs: Vec<String> = draw.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let line = format!("run {i}: n = {}, {}, {} ... ", draw.n, draw.class(), knobs.join(","));
        if shared {
            eprintln!("{line}started");
        } else {
            eprint!("{line}");
        }
    }
    let (outcome, gpu_s, cpu_s) = run_one(ctx, &draw, rng.next_u64(), &mut rng);
    if args.log {
        let what = match &outcome {
            Outcome::Ok => "ok".to_string(),
            Outcome::Refused(k) => format!("refused ({k})"),
            Outcome::Mismatch => "MISMATCH".to_string(),
            Outcome::Error(e) => format!("ERROR {e}"),
        };
        if shared {
            eprintln!("run {i}: {what} in {gpu_s:.3} s");
        } else {
            eprintln!("{what} in {gpu_s:.3} s");
        }
    }
    Record {
        i,
        draw,
        outcome,
        gpu_s,
        cpu_s,
    }
}

/// Adds one run to the summary; a failure is printed with its replay command.
fn tally(s: &mut Summary, r: Record, args: &Args, bar: &ProgressBar) {
    let (i, d) = (r.i, &r.draw);
    s.runs += 1;
    s.points += d.n as u64;
    s.gpu_s += r.gpu_s;
    s.arkworks_s += r.cpu_s;
    let class = s.by_class.entry(d.class()).or_default();
    class.runs += 1;
    let failure = match r.outcome {
        Outcome::Ok => {
            s.ok += 1;
            None
        }
        Outcome::Refused(knob) => {
            s.refused += 1;
            *s.refused_by.entry(knob).or_default() += 1;
            None
        }
        Outcome::Mismatch => {
            s.mismatches += 1;
            class.mismatches += 1;
            Some("MISMATCH with arkworks".to_string())
        }
        Outcome::Error(e) => {
            s.errors += 1;
            class.errors += 1;
            Some(format!("ERROR {e}"))
        }
    };
    if let Some(what) = failure {
        let knobs: Vec<String> = d.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let line = format!(
            "run {i}: {what}; n = {} (+{} bases, parts of {:?}, table {:?}, {} scalars), {}, knobs {}; replay: \
             msm-cli soak --seed {} --max-logn {} --shader-sets {} --start {i} --count 1",
            d.n,
            d.extra,
            d.part,
            d.table,
            if d.canonical { "canonical" } else { "Fr" },
            d.class(),
            knobs.join(","),
            args.seed,
            args.max_logn,
            args.shader_sets,
        );
        bar.println(&line);
        s.failures.push(line);
    }
    bar.set_message(format!(
        "ok {} refused {} mismatches {} errors {}",
        s.ok, s.refused, s.mismatches, s.errors
    ));
    bar.inc(1);
}

#[derive(Default, Serialize)]
struct ClassCount {
    runs: u64,
    mismatches: u64,
    errors: u64,
}

#[derive(Default, Serialize)]
struct Summary {
    adapter: String,
    field: String,
    seed: u64,
    start: u64,
    max_logn: u32,
    shader_sets: usize,
    threads: usize,
    runs: u64,
    ok: u64,
    refused: u64,
    mismatches: u64,
    errors: u64,
    /// Refusals by the knob their message names.
    refused_by: BTreeMap<String, u64>,
    by_class: BTreeMap<String, ClassCount>,
    points: u64,
    wall_s: f64,
    gpu_s: f64,
    arkworks_s: f64,
    /// `--max-seconds` ended the soak before `--count` runs.
    stopped_early: bool,
    /// The runs that failed, as replay commands with their draw.
    failures: Vec<String>,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    args.gpu.bn254_g1_only("soak")?;
    let ctx = args.gpu.context(Default::default())?;
    let l = ctx.limits();
    let max_tpb = l
        .max_compute_workgroup_size_x
        .min(l.max_compute_invocations_per_workgroup);
    let sets = shader_sets(args.seed, args.shader_sets, max_tpb);
    let threads = args.threads.max(1);
    let mut s = Summary {
        adapter: adapter_line(&ctx),
        field: field_line(&ctx),
        seed: args.seed,
        start: args.start,
        max_logn: args.max_logn,
        shader_sets: args.shader_sets,
        threads,
        ..Default::default()
    };
    if !args.json {
        eprintln!("soak on {}: {} MSMs from seed {}", s.adapter, args.count, args.seed);
    }
    let bar = progress(args);
    let t0 = Instant::now();
    let next = AtomicU64::new(args.start);
    let last = args.start + args.count;
    let (tx, rx) = mpsc::channel::<Record>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (ctx, sets, next) = (&ctx, &sets, &next);
            scope.spawn(move || loop {
                if args.max_seconds.is_some_and(|m| t0.elapsed().as_secs_f64() > m) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= last {
                    break;
                }
                let record = soak_one(ctx, args, sets, max_tpb, i, threads > 1);
                if tx.send(record).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            tally(&mut s, r, args, &bar);
        }
    });
    s.stopped_early = s.runs < args.count;
    bar.finish_and_clear();
    s.wall_s = t0.elapsed().as_secs_f64();
    if args.json {
        println!("{}", serde_json::to_string(&s).expect("serialisable"));
    } else {
        print_summary(&s);
    }
    if s.mismatches + s.errors > 0 {
        return Err(CliError::SoakFailed {
            mismatches: s.mismatches,
            errors: s.errors,
        });
    }
    Ok(())
}

/// The shader knob sets the runs draw from: the defaults, then sets drawn
/// from the seed's own stream.
fn shader_sets(seed: u64, count: usize, max_tpb: u32) -> Vec<Vec<(&'static str, String)>> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(u64::MAX);
    (0..count)
        .map(|i| {
            if i == 0 {
                let d = MsmConfig::default();
                shader_knobs().map(|k| (k, d.get(k).unwrap())).collect()
            } else {
                shader_set(&mut rng, max_tpb)
            }
        })
        .collect()
}

/// A progress bar on stderr (hidden with `--json`).
fn progress(args: &Args) -> ProgressBar {
    if args.json {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(args.count);
    b.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed_precise}, eta {eta}]").expect("template"),
    );
    b
}

fn print_summary(s: &Summary) {
    println!("adapter    {}", s.adapter);
    println!("field      {}", s.field);
    println!(
        "runs       {} (seed {}, from run {}, sizes 0..=2^{}, {} points in all, shader sets {}, threads {})",
        s.runs,
        s.seed,
        s.start,
        s.max_logn,
        s.points,
        if s.shader_sets == 0 {
            "unbounded".to_string()
        } else {
            s.shader_sets.to_string()
        },
        s.threads
    );
    if s.stopped_early {
        println!("stopped    at the time limit, after {} runs", s.runs);
    }
    println!(
        "outcome    {} equal to arkworks, {} refused knob sets, {} mismatches, {} errors",
        s.ok, s.refused, s.mismatches, s.errors
    );
    if !s.refused_by.is_empty() {
        let by: Vec<String> = s.refused_by.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("refused by {}", by.join(", "));
    }
    println!(
        "time       {:.1} s wall: {:.1} s in GPU MSM calls, {:.1} s in arkworks (summed over threads), the rest inputs and uploads",
        s.wall_s, s.gpu_s, s.arkworks_s
    );
    println!("per class  (runs / mismatches / errors)");
    for (class, c) in &s.by_class {
        println!("  {class:<40} {:>6} {:>4} {:>4}", c.runs, c.mismatches, c.errors);
    }
    for f in &s.failures {
        println!("FAILED {f}");
    }
}
