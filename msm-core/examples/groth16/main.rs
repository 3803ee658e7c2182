//! Groth16 over BN254 (or BLS12-381) with the G1 MSMs on the GPU, against
//! ark-groth16's own prover: a chain circuit of 2^16 constraints (or the
//! count given), one setup, then both provers with the same randomness r and
//! s. The proofs must be equal bit for bit and verify; both provers' times
//! come from this run.
//!
//!     cargo run --release -p msm-core --example groth16 [-- --constraints 2^16 --reps 3 --curve bls12-381]
//!
//! Each repetition runs ark-groth16's prover, then the GPU prover.

mod circuit;
mod prover;

use std::error::Error;
use std::time::Instant;

use ark_ff::UniformRand;
use ark_groth16::{prepare_verifying_key, Groth16, Proof};
use ark_serialize::CanonicalSerialize;
use clap::Parser;
use msm_core::{ContextOptions, Curve, GpuContext, GpuCurve};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::Chain;
use prover::{GpuPairing, GpuProvingKey, ProofTimes};

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
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in main, before any thread starts.
    unsafe { msm_core::headless::skip_display_probe() };
    let args = Args::parse();
    match Curve::from_name(&args.curve).ok_or("--curve: expected bn254 or bls12-381")? {
        Curve::Bn254G1 => run::<ark_bn254::Bn254, msm_core::Bn254>(&args),
        Curve::Bls12_381G1 => run::<ark_bls12_381::Bls12_381, msm_core::Bls12_381>(&args),
    }
}

fn run<E: GpuPairing<G>, G: GpuCurve>(args: &Args) -> Result<(), Box<dyn Error>> {
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

    let ctx = GpuContext::new_blocking(&ContextOptions {
        curve: G::CURVE,
        ..Default::default()
    })?;
    println!(
        "adapter: {} ({:?}), field layout {}",
        ctx.adapter_info().name,
        ctx.adapter_info().backend,
        ctx.field_layout()
    );
    let t = Instant::now();
    let gpu_pk = GpuProvingKey::<E, G>::new(&ctx, &pk)?;
    println!("G1 queries uploaded in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);

    // The first GPU proof compiles the MSM pipelines: timed apart.
    let (r, s) = (Fr::<E>::rand(&mut rng), Fr::<E>::rand(&mut rng));
    let (cold, times) = gpu_pk.prove(&ctx, circuit.clone(), r, s)?;
    println!(
        "GPU prover, first proof (pipeline compilation included): {:.0} ms",
        times.total_ms
    );

    let mut ark_ms = Vec::new();
    let mut gpu_times = Vec::new();
    for rep in 0..reps {
        let (r, s) = (Fr::<E>::rand(&mut rng), Fr::<E>::rand(&mut rng));
        let (c1, c2) = (circuit.clone(), circuit.clone());
        let t = Instant::now();
        let expected = Groth16::<E>::create_proof_with_reduction(c1, &pk, r, s)?;
        ark_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let (proof, times) = gpu_pk.prove(&ctx, c2, r, s)?;
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
        "GPU prover:         {gpu:.1} ms (median of {reps}): witness {:.1} ms, G1 MSMs on the GPU {:.1} ms \
         ({:.0}% of the proof), G2 MSM on the CPU {:.1} ms (beside the GPU's)",
        pick(|t| t.witness_ms),
        pick(|t| t.gpu_msm_ms),
        100.0 * pick(|t| t.gpu_msm_ms) / gpu,
        pick(|t| t.g2_cpu_ms),
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
