//! `msm-cli soak`: many random MSMs on one context, each checked against
//! arkworks. Every run draws its size, its input classes (the adversarial
//! ones of `msm_core::sample` mixed in), how its bases are held (prefix of a
//! longer set, split into parts) and a value for every knob of
//! `msm_core::knobs::KNOBS`, applied through `MsmConfig::set`. A knob set the
//! adapter refuses is counted, not failed; a wrong result or any other error
//! fails the soak. Run `i` of seed `s` depends on `(s, i)` only, so
//! `--seed s --start i --count 1` replays it.

use std::collections::BTreeMap;
use std::time::Instant;

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{UniformRand, Zero};
use indicatif::{ProgressBar, ProgressStyle};
use msm_core::knobs::KNOBS;
use msm_core::sample::{reshape_scalars, ScalarClass};
use msm_core::{cpu, GpuContext, MsmConfig, MsmError, Scalars};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::error::CliError;
use crate::knobs::{adapter_line, field_line, GpuArgs};

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
    /// Start no run after this many seconds (the summary says how many ran).
    #[arg(long)]
    max_seconds: Option<f64>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// Knobs that select a compiled pipeline (the rest only change the plan).
const SHADER_KNOBS: &[&str] = &[
    "walker_tpb",
    "walker_pref_mem",
    "walker_slots",
    "walker_cache_dx",
    "walker_fused",
    "walker_unroll",
];

fn pick<'a>(rng: &mut ChaCha20Rng, items: &[&'a str]) -> &'a str {
    items[below(rng, items.len() as u64) as usize]
}

fn below(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

fn chance(rng: &mut ChaCha20Rng, one_in: u64) -> bool {
    below(rng, one_in) == 0
}

/// A random value of knob `name` in the text `MsmConfig::set` reads, drawn
/// over the knob's documented domain (automatic choices included) for an
/// MSM of `n` points; `None` for a knob this table does not know.
fn knob_value(name: &str, rng: &mut ChaCha20Rng, n: usize, max_tpb: u32) -> Option<String> {
    let auto_or = |rng: &mut ChaCha20Rng, v: u64| if chance(rng, 2) { "auto".into() } else { v.to_string() };
    let boolean = |rng: &mut ChaCha20Rng| pick(rng, &["true", "false"]).to_string();
    Some(match name {
        // wide windows (reduce over up to 2^19 buckets) are slow: one in four
        "window_bits" if chance(rng, 4) => (2 + below(rng, 19)).to_string(),
        "window_bits" => "auto".into(),
        "walker_tpb" if chance(rng, 4) => (1 + below(rng, max_tpb as u64)).to_string(),
        "walker_tpb" => pick(rng, &["32", "64", "96", "128", "160", "192", "256"]).into(),
        "walker_pref_mem" => pick(rng, &["private", "workgroup"]).into(),
        "walker_slots" => (1 + below(rng, 16)).to_string(),
        "walker_cache_dx" | "walker_fused" | "walker_unroll" | "timing" => boolean(rng),
        "walker_threads" => {
            let v = if chance(rng, 2) {
                1 << below(rng, 17)
            } else {
                1 + below(rng, 70_000)
            };
            auto_or(rng, v)
        }
        "walker_split" => pick(rng, &["equal", "buckets"]).into(),
        // at most about 8 chunks: one submission each
        "max_chunk_points" => {
            let lo = (n as u64 / 8).max(1);
            let v = lo + below(rng, (n as u64).saturating_sub(lo) + 1);
            auto_or(rng, v)
        }
        "reduce" => pick(rng, &["auto", "gpu", "host"]).into(),
        _ => return None,
    })
}

/// The shader knobs of one set, drawn fresh.
fn shader_set(rng: &mut ChaCha20Rng, max_tpb: u32) -> Vec<(&'static str, String)> {
    SHADER_KNOBS
        .iter()
        .map(|&k| (k, knob_value(k, rng, 0, max_tpb).expect("a shader knob has values")))
        .collect()
}

/// How the bases of a run are made from seeded points.
const BASE_CLASSES: &[&str] = &["random", "identities", "duplicates", "plus-minus", "progression"];
/// Scalar classes beyond `ScalarClass`: 0, 1, r - 1, r - 2 and powers of two mixed.
const EDGE_SCALARS: &str = "edge";

/// `n` bases of `class` from seed `seed`.
fn bases_of(class: &str, n: usize, seed: u64) -> Vec<G1Affine> {
    let (random, _) = msm_core::sample::inputs(n, seed);
    match class {
        "identities" => (0..n)
            .map(|i| if i % 3 == 0 { G1Affine::zero() } else { random[i] })
            .collect(),
        "duplicates" => (0..n).map(|i| random[i % 5]).collect(),
        "plus-minus" => (0..n)
            .map(|i| if i % 2 == 0 { random[i / 2] } else { -random[i / 2] })
            .collect(),
        "progression" => {
            let g = G1Affine::generator();
            let mut acc = G1Projective::zero();
            let points: Vec<G1Projective> = (0..n)
                .map(|_| {
                    acc += g;
                    acc
                })
                .collect();
            G1Projective::normalize_batch(&points)
        }
        _ => random,
    }
}

/// `n` scalars of `class` (a `ScalarClass` name or `edge`).
fn scalars_of(class: &str, n: usize, rng: &mut ChaCha20Rng) -> Vec<Fr> {
    let mut s: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
    if class == EDGE_SCALARS {
        let one = Fr::from(1u64);
        for x in s.iter_mut() {
            *x = match below(rng, 6) {
                0 => Fr::zero(),
                1 => one,
                2 => -one,
                3 => -one - one,
                4 => ark_ff::Field::pow(&Fr::from(2u64), [below(rng, 254)]),
                _ => *x,
            };
        }
    } else if let Ok(c) = class.parse::<ScalarClass>() {
        reshape_scalars(&mut s, c, rng.next_u64());
    }
    s
}

/// Everything one run drew.
struct Draw {
    n: usize,
    /// Bases beyond the scalars (a prefix MSM uses the first bases).
    extra: usize,
    /// Points per base part (`None`: as the adapter allows).
    part: Option<usize>,
    canonical: bool,
    scalar_class: String,
    base_class: &'static str,
    knobs: Vec<(&'static str, String)>,
}

impl Draw {
    fn new(rng: &mut ChaCha20Rng, max_logn: u32, shader: Option<&[(&'static str, String)]>, max_tpb: u32) -> Self {
        let log = below(rng, max_logn as u64 + 1) as u32;
        let n = if log == 0 {
            below(rng, 2) as usize
        } else {
            (1usize << (log - 1)) + 1 + below(rng, 1 << (log - 1)) as usize
        };
        let extra = if chance(rng, 4) { 1 + below(rng, 16) as usize } else { 0 };
        let part = (n >= 2 && chance(rng, 4)).then(|| (n / 4).max(1) + below(rng, (n - n / 4) as u64) as usize);
        let mut scalar_classes: Vec<&str> = ScalarClass::ALL.iter().map(|c| c.name()).collect();
        scalar_classes.push(EDGE_SCALARS);
        let scalar_class = pick(rng, &scalar_classes).to_string();
        let base_class = BASE_CLASSES[below(rng, BASE_CLASSES.len() as u64) as usize];
        let canonical = chance(rng, 2);
        let mut knobs = Vec::new();
        for k in KNOBS {
            let drawn = knob_value(k.name, rng, n, max_tpb)
                .unwrap_or_else(|| panic!("soak: knob `{}` has no value generator (add it to knob_value)", k.name));
            let from_set = shader.and_then(|s| s.iter().find(|(name, _)| *name == k.name));
            knobs.push((k.name, from_set.map_or(drawn, |(_, v)| v.clone())));
        }
        Draw {
            n,
            extra,
            part,
            canonical,
            scalar_class,
            base_class,
            knobs,
        }
    }

    fn config(&self) -> Result<MsmConfig, MsmError> {
        let mut c = MsmConfig::default();
        for (name, value) in &self.knobs {
            c.set(name, value)?;
        }
        Ok(c)
    }

    fn class(&self) -> String {
        format!("{} scalars / {} bases", self.scalar_class, self.base_class)
    }
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
    let bases = match d.part {
        Some(p) => ctx.upload_bases_in_parts(&points, p),
        None => ctx.upload_bases(&points),
    };
    let words: Vec<[u32; 8]> = scalars.iter().map(cpu::scalar_words).collect();
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
        Err(MsmError::InvalidConfig(msg)) => {
            let knob = KNOBS.iter().map(|k| k.name).find(|k| msg.contains(k));
            Outcome::Refused(knob.unwrap_or("other").to_string())
        }
        Err(e) => Outcome::Error(e),
    };
    (outcome, gpu_s, cpu_s)
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
    let ctx = args.gpu.context(MsmConfig::default())?;
    let l = ctx.limits();
    let max_tpb = l
        .max_compute_workgroup_size_x
        .min(l.max_compute_invocations_per_workgroup);
    let mut sets_rng = ChaCha20Rng::seed_from_u64(args.seed);
    sets_rng.set_stream(u64::MAX);
    let sets: Vec<Vec<(&'static str, String)>> = (0..args.shader_sets)
        .map(|i| {
            if i == 0 {
                let d = MsmConfig::default();
                SHADER_KNOBS.iter().map(|&k| (k, d.get(k).unwrap())).collect()
            } else {
                shader_set(&mut sets_rng, max_tpb)
            }
        })
        .collect();
    let mut s = Summary {
        adapter: adapter_line(&ctx),
        field: field_line(&ctx),
        seed: args.seed,
        start: args.start,
        max_logn: args.max_logn,
        shader_sets: args.shader_sets,
        ..Default::default()
    };
    if !args.json {
        eprintln!("soak on {}: {} MSMs from seed {}", s.adapter, args.count, args.seed);
    }
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(args.count);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed_precise}, eta {eta}]")
                .expect("template"),
        );
        b
    };
    let t0 = Instant::now();
    for i in args.start..args.start + args.count {
        if args.max_seconds.is_some_and(|m| t0.elapsed().as_secs_f64() > m) {
            s.stopped_early = true;
            break;
        }
        let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
        rng.set_stream(i);
        let set = (!sets.is_empty()).then(|| sets[below(&mut rng, sets.len() as u64) as usize].as_slice());
        let d = Draw::new(&mut rng, args.max_logn, set, max_tpb);
        let (outcome, gpu_s, cpu_s) = run_one(&ctx, &d, rng.next_u64(), &mut rng);
        s.runs += 1;
        s.points += d.n as u64;
        s.gpu_s += gpu_s;
        s.arkworks_s += cpu_s;
        let class = s.by_class.entry(d.class()).or_default();
        class.runs += 1;
        let failure = match outcome {
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
                "run {i}: {what}; n = {} (+{} bases, parts of {:?}, {} scalars), {}, knobs {}; replay: msm-cli soak \
                 --seed {} --max-logn {} --shader-sets {} --start {i} --count 1",
                d.n,
                d.extra,
                d.part,
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

fn print_summary(s: &Summary) {
    println!("adapter    {}", s.adapter);
    println!("field      {}", s.field);
    println!(
        "runs       {} (seed {}, from run {}, sizes 0..=2^{}, {} points in all, shader sets {})",
        s.runs,
        s.seed,
        s.start,
        s.max_logn,
        s.points,
        if s.shader_sets == 0 {
            "unbounded".to_string()
        } else {
            s.shader_sets.to_string()
        }
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
        "time       {:.1} s wall: {:.1} s in GPU MSM calls, {:.1} s in arkworks, the rest inputs and uploads",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every knob of the table gets drawn values that its parser accepts: a
    /// knob added to msm-core without a generator here fails this test.
    #[test]
    fn every_knob_has_values_the_parser_takes() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for k in KNOBS {
            for n in [0, 1, 100, 4096] {
                for _ in 0..50 {
                    let v = knob_value(k.name, &mut rng, n, 256)
                        .unwrap_or_else(|| panic!("knob {} has no generator", k.name));
                    let mut c = MsmConfig::default();
                    c.set(k.name, &v).unwrap_or_else(|e| panic!("{} = {v}: {e}", k.name));
                }
            }
        }
        for k in SHADER_KNOBS {
            assert!(msm_core::knobs::knob(k).is_some(), "{k} is not a knob");
        }
    }

    /// Draws depend on (seed, run) only, and sizes stay in range.
    #[test]
    fn draws_replay_and_stay_in_range() {
        let draw = |i: u64| {
            let mut rng = ChaCha20Rng::seed_from_u64(9);
            rng.set_stream(i);
            Draw::new(&mut rng, 12, None, 256)
        };
        let mut sizes = Vec::new();
        for i in 0..500 {
            let (a, b) = (draw(i), draw(i));
            assert_eq!((a.n, &a.knobs, a.part), (b.n, &b.knobs, b.part));
            assert!(a.n <= 1 << 12);
            assert!(a.part.is_none_or(|p| (1..=a.n).contains(&p)));
            sizes.push(a.n);
        }
        assert!(sizes.contains(&0) && sizes.iter().any(|&n| n > 2048));
    }
}
