//! Groth16 over BN254 (or BLS12-381) with every MSM on the GPU (G2's too,
//! unless `--g2 cpu`), against ark-groth16's own prover: a chain circuit of
//! 2^16 constraints (or the count given), one setup, then both provers with
//! the same randomness r and s. The proofs must be equal bit for bit and
//! verify; both provers' times come from this run.
//!
//!     cargo run --release -p msm-core --example groth16 [-- --constraints 2^16 --reps 3 --curve bls12-381 --g2 cpu --matrices per-proof --order blocks --gpu-timestamps]
//!
//! Each repetition runs ark-groth16's prover, then the GPU prover (`--order
//! blocks`: ark-groth16's proofs first, then the GPU's back to back, as a
//! proving service runs them). `--gpu-timestamps` prints each group's GPU
//! time inside the proof beside the host's waits. The GPU
//! prover keeps the circuit's R1CS matrices across proofs (made once beside
//! the key; `--matrices per-proof` rebuilds them in every proof, as
//! ark-groth16 does). On a machine whose driver has not compiled the
//! pipelines yet (seconds natively, minutes for G2), the first proof runs on
//! ark-groth16 while they compile in the background (`--first-proof gpu`
//! waits for them instead), so no proof waits on a compile.

mod circuit;
mod prover;

use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

use ark_ff::UniformRand;
use ark_groth16::{prepare_verifying_key, Groth16, Proof};
use ark_serialize::CanonicalSerialize;
use clap::Parser;
use msm_core::{ContextOptions, Curve, GpuContext, GpuCurve, MsmError};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::Chain;
use prover::{Contexts, GpuPairing, GpuProvingKey, Matrices, ProofTimes};

#[derive(Parser)]
struct Args {
    /// Constraints in the circuit: a count (65536) or a power of two (2^16).
    #[arg(long, default_value = "2^16", value_parser = parse_count)]
    constraints: usize,
    /// Proof pairs timed (medians are printed).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// bn254 or bls12-381.
    #[arg(long, default_value = "bn254")]
    curve: String,
    /// Where B's G2 MSM runs: gpu or cpu (arkworks, beside the GPU's work).
    #[arg(long, default_value = "gpu", value_parser = ["gpu", "cpu"])]
    g2: String,
    /// The R1CS matrices: cached (made once, each proof synthesises the
    /// witness alone) or per-proof (rebuilt in every proof).
    #[arg(long, default_value = "cached", value_parser = ["cached", "per-proof"])]
    matrices: String,
    /// GPU timestamps on every MSM: prints each group's GPU time beside
    /// its host's waits.
    #[arg(long)]
    gpu_timestamps: bool,
    /// interleaved (each GPU proof after an ark-groth16 one) or blocks
    /// (ark-groth16's proofs first, then the GPU's back to back).
    #[arg(long, default_value = "interleaved", value_parser = ["interleaved", "blocks"])]
    order: String,
    /// Where the first proof runs when the GPU pipelines are not compiled
    /// yet: cpu (ark-groth16, while they compile in the background) or gpu
    /// (the proof waits for them).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    first_proof: String,
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in main, before any thread starts.
    unsafe { msm_core::headless::skip_display_probe() };
    let args = Args::parse();
    match Curve::from_name(&args.curve).ok_or("--curve: expected bn254 or bls12-381")? {
        Curve::Bn254G1 => run::<ark_bn254::Bn254, ark_bn254::g1::Config, ark_bn254::g2::Config>(&args),
        Curve::Bls12_381G1 => {
            run::<ark_bls12_381::Bls12_381, ark_bls12_381::g1::Config, ark_bls12_381::g2::Config>(&args)
        }
        _ => Err("--curve: expected bn254 or bls12-381 (the pairing, not a group)".into()),
    }
}

/// Compiles, on a thread of its own, what MSMs of each of `sizes` run on
/// `ctx` (with `timing` as the prover sets it); returns when it took.
fn warm_up(ctx: Arc<GpuContext>, sizes: Vec<usize>, timing: bool) -> std::thread::JoinHandle<Result<f64, MsmError>> {
    std::thread::spawn(move || {
        let t = Instant::now();
        for n in sizes {
            let mut config = ctx.config_for(n);
            config.timing = timing;
            pollster::block_on(ctx.warm_up(&config, n))?;
        }
        Ok(t.elapsed().as_secs_f64())
    })
}

fn run<E, G, G2>(args: &Args) -> Result<(), Box<dyn Error>>
where
    E: GpuPairing<G, G2>,
    G: GpuCurve,
    G2: GpuCurve<ScalarField = <G as ark_ec::CurveConfig>::ScalarField>,
{
    type Fr<E> = <E as ark_ec::pairing::Pairing>::ScalarField;
    let (constraints, reps) = (args.constraints, args.reps);
    let circuit = Chain::<Fr<E>>::new(constraints, 1);
    let output = circuit.output();
    let mut rng = ChaCha20Rng::seed_from_u64(2);

    let t = Instant::now();
    let pk = Groth16::<E>::generate_random_parameters_with_reduction(circuit.clone(), &mut rng)?;
    let pvk = prepare_verifying_key(&pk.vk);
    println!(
        "circuit: {constraints} constraints over {}; setup {:.1} s (ark-groth16, CPU)",
        G::CURVE,
        t.elapsed().as_secs_f64()
    );

    let context = |curve| {
        GpuContext::new_blocking(&ContextOptions {
            curve,
            timestamps: args.gpu_timestamps,
            ..Default::default()
        })
    };
    let ctx = Arc::new(context(G::CURVE)?);
    let ctx2 = if args.g2 == "gpu" {
        Some(Arc::new(context(G2::CURVE)?))
    } else {
        None
    };
    // the MSM sizes of a proof: A, B and L over the assignment, H; B in G2
    let g1_sizes = vec![pk.a_query.len(), pk.l_query.len(), pk.h_query.len()];
    let g2_sizes = vec![pk.b_g2_query.len()];
    let timing = args.gpu_timestamps;
    let warming = [
        Some(("G1", warm_up(ctx.clone(), g1_sizes, timing))),
        ctx2.clone().map(|c| ("G2", warm_up(c, g2_sizes, timing))),
    ];
    // Pipelines the driver has cached load in a fraction of a second: wait
    // that long before putting the first proof on the CPU.
    let t = Instant::now();
    while warming.iter().flatten().any(|(_, w)| !w.is_finished()) && t.elapsed().as_secs_f64() < 0.5 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let cold = warming.iter().flatten().any(|(_, w)| !w.is_finished());
    let ctxs = Contexts {
        g1: &ctx,
        g2: ctx2.as_deref(),
        timing,
    };
    println!(
        "adapter: {} ({:?}), field layout {}; G2 on the {}",
        ctx.adapter_info().name,
        ctx.adapter_info().backend,
        ctx.field_layout(),
        args.g2.to_uppercase()
    );
    let t = Instant::now();
    let gpu_pk = GpuProvingKey::<E, G, G2>::new(&ctxs, &pk)?;
    println!("queries uploaded in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let matrices = (args.matrices == "cached")
        .then(|| Matrices::of(circuit.clone()))
        .transpose()?;
    if matrices.is_some() {
        println!("R1CS matrices made once in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    let matrices = matrices.as_ref();

    let (r, s) = (Fr::<E>::rand(&mut rng), Fr::<E>::rand(&mut rng));
    if cold && args.first_proof == "cpu" {
        let t = Instant::now();
        let proof = Groth16::<E>::create_proof_with_reduction(circuit.clone(), &pk, r, s)?;
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        assert!(
            Groth16::<E>::verify_proof(&pvk, &proof, &[output])?,
            "first proof does not verify"
        );
        println!("first proof on the CPU (ark-groth16; the GPU pipelines compiling meanwhile): {first_ms:.0} ms");
    }
    for (group, w) in warming.into_iter().flatten() {
        let seconds = w.join().expect("the warm-up thread panicked")?;
        println!("{group} GPU pipelines ready {seconds:.2} s after the contexts");
    }
    // The first GPU proof (its buffers allocated, nothing to compile now).
    let (cold, times) = gpu_pk.prove(&ctxs, circuit.clone(), matrices, r, s)?;
    println!("GPU prover, first proof: {:.0} ms", times.total_ms);

    let mut ark_ms = Vec::new();
    let mut gpu_times = Vec::new();
    let randomness: Vec<_> = (0..reps)
        .map(|_| (Fr::<E>::rand(&mut rng), Fr::<E>::rand(&mut rng)))
        .collect();
    let mut ark_proof = |(r, s)| -> Result<_, Box<dyn Error>> {
        let t = Instant::now();
        let proof = Groth16::<E>::create_proof_with_reduction(circuit.clone(), &pk, r, s)?;
        ark_ms.push(t.elapsed().as_secs_f64() * 1e3);
        Ok(proof)
    };
    // interleaved: each GPU proof after an ark-groth16 one (the GPU idles
    // seconds before each); blocks: the GPU's proofs back to back.
    let expected: Vec<Proof<E>> = match args.order.as_str() {
        "blocks" => randomness.iter().map(|&rs| ark_proof(rs)).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    for (rep, &(r, s)) in randomness.iter().enumerate() {
        let expected = match expected.get(rep) {
            Some(p) => p.clone(),
            None => ark_proof((r, s))?,
        };
        let (proof, times) = gpu_pk.prove(&ctxs, circuit.clone(), matrices, r, s)?;
        gpu_times.push(times);
        assert_eq!(bytes(&proof), bytes(&expected), "repetition {rep}: proofs differ");
        assert!(
            Groth16::<E>::verify_proof(&pvk, &proof, &[output])?,
            "proof does not verify"
        );
    }
    assert!(
        Groth16::<E>::verify_proof(&pvk, &cold, &[output])?,
        "first proof does not verify"
    );
    assert!(
        !Groth16::<E>::verify_proof(&pvk, &cold, &[output + Fr::<E>::from(1u64)])?,
        "a proof verifies against the wrong output"
    );
    println!("{reps} proof pairs equal bit for bit; every proof verifies (and fails for a wrong output)");

    let ark = median(ark_ms);
    let pick = |f: fn(&ProofTimes) -> f64| median(gpu_times.iter().map(f).collect());
    let gpu = pick(|t| t.total_ms);
    println!("ark-groth16 prover: {ark:.1} ms (median of {reps})");
    println!(
        "GPU prover:         {gpu:.1} ms (median of {reps}; matrices {}): synthesis {:.1} ms, then at once: the FFTs {:.1} ms \
         (CPU), A, B, L in G1 {:.1} ms (GPU), B in G2 {:.1} ms ({}); then H {:.1} ms",
        args.matrices,
        pick(|t| t.synthesis_ms),
        pick(|t| t.fft_ms),
        pick(|t| t.g1_msm_ms),
        pick(|t| t.g2_msm_ms),
        args.g2.to_uppercase(),
        pick(|t| t.h_msm_ms),
    );
    println!(
        "inside the proof (medians, summed over each group's MSMs): A, B, L GPU span {:.1} ms, scalar writes {:.1} ms, \
         waits {:.1} ms; B in G2 GPU span {:.1} ms, scalar writes {:.1} ms, waits {:.1} ms{}",
        pick(|t| t.g1.gpu_ms),
        pick(|t| t.g1.upload_ms),
        pick(|t| t.g1.wait_ms),
        pick(|t| t.g2.gpu_ms),
        pick(|t| t.g2.upload_ms),
        pick(|t| t.g2.wait_ms),
        if args.gpu_timestamps { "" } else { " (GPU spans: --gpu-timestamps)" },
    );
    println!("ark-groth16 / GPU prover: {:.2}x", ark / gpu);
    Ok(())
}

fn bytes<E: ark_ec::pairing::Pairing>(proof: &Proof<E>) -> Vec<u8> {
    let mut out = Vec::new();
    proof.serialize_uncompressed(&mut out).expect("serialize into a Vec");
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn parse_count(text: &str) -> Result<usize, String> {
    let n = match text.strip_prefix("2^") {
        Some(log) => log.parse().ok().and_then(|k| 1usize.checked_shl(k)),
        None => text.parse().ok(),
    };
    n.filter(|&n| n > 0)
        .ok_or_else(|| format!("expected a positive count or 2^k, got {text:?}"))
}
