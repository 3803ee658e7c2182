//! `msm-cli prove`: a Groth16 proof of a circom circuit from snarkjs's
//! `.zkey` and `.wtns` (rapidsnark's interface, snarkjs's JSON), every MSM
//! on the GPU; `--reps` proves again over the resident key and reports
//! medians of where the time went.

use std::path::PathBuf;
use std::time::Instant;

use msm_circom::{proof_json, public_json, ProofTimes, Prover, ProverOptions, Witness, ZKey};
use msm_core::{Backend, ContextOptions, EngineOptions};

use crate::error::CliError;
use crate::knobs::{cache_flag, layout_flag, parsed};
use crate::stats::summarize;

#[derive(clap::Args)]
pub struct Args {
    /// The proving key (`snarkjs groth16 setup`, BN254).
    #[arg(long)]
    zkey: PathBuf,
    /// The witness (`snarkjs wtns calculate` or the circuit's generate_witness.js).
    #[arg(long)]
    wtns: PathBuf,
    /// Write the proof here as snarkjs's proof.json (default: stdout).
    #[arg(long)]
    proof: Option<PathBuf>,
    /// Write the public signals here as snarkjs's public.json.
    #[arg(long)]
    public: Option<PathBuf>,
    /// Proofs to make over the resident key (timing; each is checked).
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// Where the MSMs run: gpu, auto (the CPU below the crossover and while
    /// pipelines compile) or cpu (arkworks).
    #[arg(long, default_value = "gpu")]
    backend: String,
    /// Use the first adapter whose name contains this text (see `msm-cli adapters`).
    #[arg(long)]
    adapter: Option<String>,
    /// Field limb layout: 13x20, 16x16 or 32x8-int64 (default: best for the adapter).
    #[arg(long)]
    layout: Option<String>,
    /// Folder of the pipeline cache kept across processes, or `off`.
    #[arg(long)]
    pipeline_cache: Option<PathBuf>,
    /// Skip the pairing check of each proof against the key's verifying key.
    #[arg(long)]
    no_verify: bool,
    /// Skip the GPU check that G2's query is in the prime-order subgroup.
    #[arg(long)]
    no_subgroup_check: bool,
}

fn options(args: &Args) -> Result<ProverOptions, CliError> {
    let backend: Backend = parsed(Some(&args.backend), "--backend")?.expect("a value");
    Ok(ProverOptions {
        engine: EngineOptions {
            backend,
            context: ContextOptions {
                field_layout: layout_flag(args.layout.as_deref())?,
                adapter_name: args.adapter.clone(),
                pipeline_cache: cache_flag(args.pipeline_cache.as_ref()),
                ..Default::default()
            },
            ..Default::default()
        },
        check_subgroup: !args.no_subgroup_check,
    })
}

fn write_json(path: &Option<PathBuf>, value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).expect("JSON");
    match path {
        Some(p) => std::fs::write(p, text + "\n").map_err(|e| CliError::file(p, e.to_string())),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

/// A prover's error as the CLI's, naming the file it is about.
pub(crate) fn circom(path: &std::path::Path) -> impl Fn(msm_circom::CircomError) -> CliError + '_ {
    move |e| CliError::file(path, e.to_string())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

pub fn run(args: &Args) -> Result<(), CliError> {
    let opts = options(args)?;
    let t = Instant::now();
    let key = ZKey::read(&args.zkey).map_err(circom(&args.zkey))?;
    let read_key_ms = ms(t);
    let t = Instant::now();
    let witness = Witness::read(&args.wtns).map_err(circom(&args.wtns))?;
    let read_wtns_ms = ms(t);
    eprintln!(
        "key: {} signals ({} public), domain 2^{}; read in {read_key_ms:.0} ms, the witness in {read_wtns_ms:.0} ms",
        key.n_vars,
        key.n_public,
        key.power()
    );
    let t = Instant::now();
    let prover = Prover::new(key, &opts).map_err(circom(&args.zkey))?;
    if let Some(ctx) = prover.engines().0.gpu() {
        eprintln!("adapter: {}", ctx.adapter_info().name);
    }
    eprintln!("engines opened and the key uploaded in {:.0} ms", ms(t));
    let on_gpu = prover.engines().0.gpu().is_some();
    let mut times: Vec<ProofTimes> = Vec::new();
    // proofs whose MSMs ran on the CPU (an auto engine still warming up)
    // stay out of the warm median
    let mut warm_from = 1;
    let mut last = None;
    for rep in 0..args.reps.max(1) {
        let (g1, g2) = prover.engines();
        let n = witness.0.len();
        let warming =
            |e: &msm_core::Engine| e.placement(n) == msm_core::Route::Gpu && e.route(n) == msm_core::Route::Cpu;
        let on_cpu: Vec<&str> = [("G1", warming(g1)), ("G2", warming(g2))]
            .into_iter()
            .filter(|(_, w)| *w)
            .map(|(g, _)| g)
            .collect();
        if !on_cpu.is_empty() {
            warm_from = rep + 2;
        }
        let (proof, t) = prover.prove(&witness).map_err(circom(&args.wtns))?;
        if !args.no_verify && !prover.verifying_key().verify(prover.public(&witness), &proof) {
            return Err(CliError::file(
                &args.zkey,
                "the proof does not verify under the key's verifying key (a wrong witness, or a GPU miscompile: run `msm-cli selftest`)",
            ));
        }
        eprintln!(
            "proof {rep}: {:.1} ms (H's scalars {:.1} ms; A, B, C in G1 {:.1} ms and B in G2 {:.1} ms beside them; H's MSM {:.1} ms){}",
            t.total_ms,
            t.qap_ms,
            t.g1_msm_ms,
            t.g2_msm_ms,
            t.h_msm_ms,
            match (on_cpu.is_empty(), on_gpu && rep == warm_from - 1) {
                (false, _) => format!(" [{} on the CPU: pipelines compiling]", on_cpu.join(" and ")),
                (true, true) => " [first on the GPU: any pipeline compiles]".to_string(),
                (true, false) => String::new(),
            }
        );
        times.push(t);
        last = Some(proof);
    }
    if times.len() > warm_from + 1 {
        let warm = &times[warm_from..];
        let m = |f: fn(&ProofTimes) -> f64| summarize(&warm.iter().map(f).collect::<Vec<_>>()).median;
        eprintln!(
            "warm median over {} proofs: {:.1} ms (H's scalars {:.1}, G1 {:.1}, G2 {:.1}, H's MSM {:.1})",
            warm.len(),
            m(|t| t.total_ms),
            m(|t| t.qap_ms),
            m(|t| t.g1_msm_ms),
            m(|t| t.g2_msm_ms),
            m(|t| t.h_msm_ms)
        );
    }
    if !args.no_verify {
        eprintln!("verified: every proof passes the pairing check");
    }
    let proof = last.expect("one proof");
    write_json(&args.proof, &proof_json(&proof))?;
    if args.public.is_some() {
        write_json(&args.public, &public_json(prover.public(&witness)))?;
    }
    Ok(())
}
