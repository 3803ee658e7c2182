//! The Groth16 example's GPU prover on a small circuit, over BN254 and
//! BLS12-381: its proofs must equal ark-groth16's bit for bit for the same
//! randomness, and verify. BN254's runs every MSM on the GPU (G2's too);
//! BLS12-381's keeps G2 on the CPU in CI (its G2 pipelines compile for
//! minutes on lavapipe) and runs it on the GPU under `--ignored`.

use crate::common;

#[path = "../../examples/groth16/circuit.rs"]
mod circuit;
// The example reads the prover's times; this test does not.
#[allow(dead_code)]
#[path = "../../examples/groth16/prover.rs"]
mod prover;

use ark_ec::pairing::Pairing;
use ark_ec::AffineRepr;
use ark_ff::{UniformRand, Zero};
use ark_groth16::{prepare_verifying_key, Groth16, Proof};
use ark_serialize::CanonicalSerialize;
use msm_core::{ContextOptions, GpuContext, GpuCurve};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::Chain;
use prover::{Contexts, GpuPairing, GpuProvingKey, Matrices};

fn bytes<E: Pairing>(proof: &Proof<E>) -> Vec<u8> {
    let mut out = Vec::new();
    proof.serialize_uncompressed(&mut out).unwrap();
    out
}

fn gpu_prover_equals_ark_groth16<E, G, G2>(constraints: usize, g2_on_gpu: bool)
where
    E: GpuPairing<G, G2>,
    G: GpuCurve,
    G2: GpuCurve<ScalarField = <G as ark_ec::CurveConfig>::ScalarField>,
{
    let circuit = Chain::<E::ScalarField>::new(constraints, 7);
    let output = circuit.output();
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let pk = Groth16::<E>::generate_random_parameters_with_reduction(circuit.clone(), &mut rng).unwrap();
    let pvk = prepare_verifying_key(&pk.vk);
    // The queries hold identity points (variables absent from A or B): the
    // MSMs must take them as they come.
    assert!(pk.a_query.iter().chain(&pk.b_g1_query).any(|p| p.is_zero()));

    let context = |curve| {
        GpuContext::new_blocking(&ContextOptions {
            curve,
            // the proofs' MSMs run timed (`Contexts::timing`), as the
            // example's --gpu-timestamps
            timestamps: true,
            ..Default::default()
        })
        .expect("no GPU context")
    };
    let ctx = context(G::CURVE);
    let ctx2 = g2_on_gpu.then(|| context(G2::CURVE));
    let ctxs = Contexts {
        g1: &ctx,
        g2: ctx2.as_ref(),
        timing: true,
    };
    let gpu_pk = GpuProvingKey::<E, G, G2>::new(&ctxs, &pk).expect("upload");
    let matrices = Matrices::of(circuit.clone()).unwrap();
    // Random r and s, then r = s = 0 (no zero knowledge: A, B, C without
    // the delta terms).
    let zero = E::ScalarField::zero();
    let randomness = [
        (E::ScalarField::rand(&mut rng), E::ScalarField::rand(&mut rng)),
        (zero, zero),
    ];
    // The matrices rebuilt in the proof (as ark-groth16 does), then made
    // once beside the key (the witness alone synthesised in the proof).
    for ((r, s), cached) in randomness
        .into_iter()
        .flat_map(|rs| [(rs, None), (rs, Some(&matrices))])
    {
        let expected = Groth16::<E>::create_proof_with_reduction(circuit.clone(), &pk, r, s).unwrap();
        let (proof, times) = gpu_pk.prove(&ctxs, circuit.clone(), cached, r, s).unwrap();
        if ctx.has_timestamps() {
            assert!(times.g1.gpu_ms > 0.0, "timed MSMs report their kernels' span");
        }
        let how = if cached.is_some() {
            "cached matrices"
        } else {
            "matrices per proof"
        };
        assert_eq!(
            bytes(&proof),
            bytes(&expected),
            "{} ({how}): r = {r}, s = {s}",
            G::CURVE
        );
        assert!(Groth16::<E>::verify_proof(&pvk, &proof, &[output]).unwrap());
        let wrong = output + E::ScalarField::from(1u64);
        assert!(!Groth16::<E>::verify_proof(&pvk, &proof, &[wrong]).unwrap());
    }
}

#[test]
fn bn254_gpu_prover_equals_ark_groth16() {
    common::fast_lavapipe_compile();
    gpu_prover_equals_ark_groth16::<ark_bn254::Bn254, ark_bn254::g1::Config, ark_bn254::g2::Config>(1 << 10, true);
}

#[test]
fn bls12_381_gpu_prover_equals_ark_groth16() {
    common::fast_lavapipe_compile();
    type E = ark_bls12_381::Bls12_381;
    gpu_prover_equals_ark_groth16::<E, ark_bls12_381::g1::Config, ark_bls12_381::g2::Config>(1 << 8, false);
}

#[test]
#[ignore]
fn bls12_381_gpu_prover_with_g2_on_the_gpu() {
    common::fast_lavapipe_compile();
    type E = ark_bls12_381::Bls12_381;
    gpu_prover_equals_ark_groth16::<E, ark_bls12_381::g1::Config, ark_bls12_381::g2::Config>(1 << 8, true);
}
