//! `msm-cli tune`: measures this adapter and writes its profile. At each
//! size it times a ladder of knob sets interleaved (ABBA: the order reverses
//! every round, so drift hits every set alike), keeps the fastest where it
//! beats the defaults by more than the noise margin, and measures the size
//! from which the GPU beats arkworks. Every result is checked.

use std::time::Instant;

use ark_ec::CurveGroup;
use msm_core::engine::profile::{Profile, ProfileRange};
use msm_core::{cpu, MsmConfig, MsmError, ProfileChoice};

use crate::error::CliError;
use crate::knobs::{config_line, GpuArgs};
use crate::stats::summarize;

/// The ladder's knob sets besides the defaults.
const LADDER: &str = "walker_slots=2; walker_slots=8; walker_tpb=128; walker_tpb=128,walker_slots=8";
/// A set must beat the defaults by this fraction to be kept.
const MARGIN: f64 = 0.03;

#[derive(clap::Args)]
pub struct Args {
    /// log2 sizes at which to tune the knobs (comma-separated).
    #[arg(long, default_value = "12,16,20")]
    sizes: String,
    /// Knob sets to try besides the defaults, `;`-separated (`name=value,...`).
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
    #[command(flatten)]
    gpu: GpuArgs,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    let sizes: Vec<u32> = args
        .sizes
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .map_err(|_| bad("--sizes", format!("`{s}` is not a number")))
        })
        .collect::<Result<_, _>>()?;
    if sizes.iter().any(|&l| l > 24) || sizes.is_empty() {
        return Err(bad("--sizes", "give log2 sizes up to 24".into()).into());
    }
    let mut ladder = vec![MsmConfig::default()];
    for spec in args.ladder.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        ladder.push(MsmConfig::default().with_knobs(spec)?);
    }
    let ctx = args.gpu.context_with_profile(Default::default(), ProfileChoice::Off)?;
    let layout = ctx.field_layout().to_string();
    let mut profile = Profile::new(ctx.adapter_info(), &layout);
    let max_logn = sizes.iter().copied().max().unwrap_or(0).max(args.crossover_max_logn);
    eprintln!("tune: generating 2^{max_logn} inputs...");
    let (bases, scalars) = crate::inputs::generate(1 << max_logn, 7, max_logn >= 18);
    let resident = ctx.upload_bases_blocking(&bases)?;

    // the crossover: GPU against arkworks, smallest to largest
    let mut crossover = None;
    println!("crossover    logn   gpu ms   arkworks ms");
    for logn in 6..=args.crossover_max_logn {
        let n = 1usize << logn;
        let want = cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine();
        let config = ctx.config_for(n);
        let gpu = || -> Result<f64, MsmError> {
            let t = Instant::now();
            let r = ctx.msm_blocking_with(&resident, &scalars[..n], &config)?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            check(r.result.into_affine() == want, n, &config)?;
            Ok(ms)
        };
        let host = || {
            let t = Instant::now();
            let _ = std::hint::black_box(cpu::msm_reference(&bases[..n], &scalars[..n]));
            t.elapsed().as_secs_f64() * 1e3
        };
        gpu()?; // compiles this size's pipelines
        let (mut g, mut c) = (Vec::new(), Vec::new());
        for r in 0..args.reps.max(1) {
            if r % 2 == 0 {
                g.push(gpu()?);
                c.push(host());
            } else {
                c.push(host());
                g.push(gpu()?);
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
    profile.crossover = crossover;

    // the knob ladder per size
    let mut sorted = sizes.clone();
    sorted.sort_unstable();
    for (i, &logn) in sorted.iter().enumerate() {
        let n = 1usize << logn;
        let want = cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine();
        let mut times = vec![Vec::new(); ladder.len()];
        let mut usable = vec![true; ladder.len()];
        for (k, config) in ladder.iter().enumerate() {
            // warm-up (compiles); a set the adapter refuses is skipped
            match ctx.msm_blocking_with(&resident, &scalars[..n], config) {
                Ok(r) => check(r.result.into_affine() == want, n, config)?,
                Err(MsmError::InvalidConfig { .. }) | Err(MsmError::BindingTooSmall { .. }) => usable[k] = false,
                Err(e) => return Err(e.into()),
            }
        }
        for r in 0..args.reps.max(1) {
            let order: Vec<usize> = if r % 2 == 0 {
                (0..ladder.len()).collect()
            } else {
                (0..ladder.len()).rev().collect()
            };
            for k in order.into_iter().filter(|&k| usable[k]) {
                let t = Instant::now();
                let run = ctx.msm_blocking_with(&resident, &scalars[..n], &ladder[k])?;
                times[k].push(t.elapsed().as_secs_f64() * 1e3);
                check(run.result.into_affine() == want, n, &ladder[k])?;
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
        let default_ms = medians[0].expect("the defaults always run");
        let (best, best_ms) = medians
            .iter()
            .enumerate()
            .filter_map(|(k, m)| m.map(|m| (k, m)))
            .fold((0, default_ms), |acc, (k, m)| if m < acc.1 { (k, m) } else { acc });
        if best != 0 && best_ms < default_ms * (1.0 - MARGIN) {
            let lo = if i == 0 { 0 } else { (sorted[i - 1] + logn) / 2 + 1 };
            let hi = sorted.get(i + 1).map_or(32, |&next| (logn + next) / 2);
            let knobs = ladder[best]
                .describe()
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
            println!(
                "  kept for 2^{lo}..2^{hi}: {} ({:.1}% faster)",
                ladder[best].describe(),
                100.0 * (1.0 - best_ms / default_ms)
            );
            profile.ranges.push(ProfileRange {
                min_logn: lo,
                max_logn: hi,
                knobs,
            });
        } else {
            println!("  the defaults stay (no set beat them by {:.0}%)", 100.0 * MARGIN);
        }
    }
    println!(
        "crossover: {}",
        match profile.crossover {
            Some(n) => format!("the GPU beats arkworks from {n} points"),
            None => "the GPU did not beat arkworks at the sizes measured: Auto stays on the CPU".into(),
        }
    );
    let json = serde_json::to_string_pretty(&profile).expect("serialisable");
    if args.dry_run {
        println!("{json}");
        return Ok(());
    }
    let path = match &args.out {
        Some(p) => p.clone(),
        None => Profile::default_path(ctx.adapter_info(), &layout).ok_or_else(|| {
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
