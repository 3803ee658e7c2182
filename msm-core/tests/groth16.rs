//! The Groth16 example's GPU prover on a small circuit: its proofs must equal
//! ark-groth16's bit for bit for the same randomness, and verify.

#[path = "../examples/groth16/circuit.rs"]
mod circuit;
// The example reads the prover's times; this test does not.
#[allow(dead_code)]
#[path = "../examples/groth16/prover.rs"]
mod prover;

use ark_bn254::{Bn254, Fr};
use ark_ec::AffineRepr;
use ark_ff::{UniformRand, Zero};
use ark_groth16::{prepare_verifying_key, Groth16, Proof};
use ark_serialize::CanonicalSerialize;
use msm_core::{ContextOptions, GpuContext};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::Chain;
use prover::GpuProvingKey;

fn bytes(proof: &Proof<Bn254>) -> Vec<u8> {
    let mut out = Vec::new();
    proof.serialize_uncompressed(&mut out).unwrap();
    out
}

#[test]
fn gpu_prover_equals_ark_groth16() {
    let circuit = Chain::new(1 << 10, 7);
    let output = circuit.output();
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let pk = Groth16::<Bn254>::generate_random_parameters_with_reduction(circuit.clone(), &mut rng).unwrap();
    let pvk = prepare_verifying_key(&pk.vk);
    // The queries hold identity points (variables absent from A or B): the
    // MSMs must take them as they come.
    assert!(pk.a_query.iter().chain(&pk.b_g1_query).any(|p| p.is_zero()));

    let ctx = GpuContext::new_blocking(&ContextOptions::default()).expect("no GPU context");
    let gpu_pk = GpuProvingKey::new(&ctx, &pk).expect("upload");
    // Random r and s, then r = s = 0 (no zero knowledge: A, B, C without
    // the delta terms).
    let randomness = [(Fr::rand(&mut rng), Fr::rand(&mut rng)), (Fr::zero(), Fr::zero())];
    for (r, s) in randomness {
        let expected = Groth16::<Bn254>::create_proof_with_reduction(circuit.clone(), &pk, r, s).unwrap();
        let (proof, _) = gpu_pk.prove(&ctx, circuit.clone(), r, s).unwrap();
        assert_eq!(bytes(&proof), bytes(&expected), "r = {r}, s = {s}");
        assert!(Groth16::<Bn254>::verify_proof(&pvk, &proof, &[output]).unwrap());
        assert!(!Groth16::<Bn254>::verify_proof(&pvk, &proof, &[output + Fr::from(1u64)]).unwrap());
    }
}
