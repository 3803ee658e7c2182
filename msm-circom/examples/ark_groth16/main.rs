//! ark-groth16 over a circom circuit's R1CS and witness: the reference a
//! GPU prover is measured against ("ahead of ark-groth16 over the same
//! R1CS"). Makes ark-groth16's own key from the `.r1cs` (seeded, insecure:
//! for measurements), then times its proofs of the `.wtns` and checks each.
//!
//!     cargo run --release -p msm-circom --example ark_groth16 -- \
//!         --r1cs circuit.r1cs --wtns witness.wtns --reps 5
//!
//! The reduction is ark-groth16's (`LibsnarkReduction`), not snarkjs's, so
//! its proofs do not verify under a snarkjs key: the work is the same (the
//! witness's A, B and C at the domain, six FFTs, five MSMs on every core).

mod circuit;

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_std::UniformRand;
use clap::Parser;
use msm_circom::{R1cs, Witness};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::CircomCircuit;

#[derive(Parser)]
struct Args {
    /// The circuit's constraints (circom's `.r1cs`, BN254).
    #[arg(long)]
    r1cs: PathBuf,
    /// A witness (`snarkjs wtns calculate` or the circuit's generate_witness.js).
    #[arg(long)]
    wtns: PathBuf,
    /// Proofs to time (each is checked; the median is printed).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// The key's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let t = Instant::now();
    let r1cs = R1cs::from_bytes(&std::fs::read(&args.r1cs)?)?;
    let witness = Witness::from_bytes(&std::fs::read(&args.wtns)?)?;
    println!(
        "read: {} constraints, {} signals ({} public) in {:.1} ms",
        r1cs.constraints.len(),
        r1cs.n_vars,
        r1cs.n_public,
        ms(t)
    );
    let circuit = CircomCircuit {
        r1cs: Arc::new(r1cs),
        witness: Arc::new(witness),
    };
    let public = circuit.public();
    let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
    let t = Instant::now();
    let pk = Groth16::<Bn254>::generate_random_parameters_with_reduction(circuit.clone(), &mut rng)?;
    let pvk = prepare_verifying_key(&pk.vk);
    println!("ark-groth16 setup: {:.1} ms", ms(t));
    let mut times = Vec::new();
    for rep in 0..args.reps {
        let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
        let t = Instant::now();
        let proof = Groth16::<Bn254>::create_proof_with_reduction(circuit.clone(), &pk, r, s)?;
        let took = ms(t);
        if !Groth16::<Bn254>::verify_proof(&pvk, &proof, &public)? {
            return Err(format!("proof {rep} does not verify: is the witness this circuit's?").into());
        }
        println!("proof {rep}: {took:.1} ms, verified");
        times.push(took);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "ark-groth16 prove: median {:.1} ms over {} proofs",
        times[times.len() / 2],
        times.len()
    );
    Ok(())
}
