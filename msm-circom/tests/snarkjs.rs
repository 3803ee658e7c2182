//! Proofs of circom circuits (circuits/, compiled with circom2, keys from
//! `snarkjs groth16 setup` and one contribution, witnesses from the
//! circuits' wasm) on the GPU: equal byte for byte to snarkjs's own proof
//! with the same r and s (fixtures/*_proof.json, by circuits/prove-fixed.mjs),
//! and accepted by the Groth16 pairing check under the key's verifying key.
//! Bad files are refused with the error that names them.

use ark_bn254::{Fr, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, PrimeField};
use msm_circom::{proof_json, public_json, CircomError, Proof, Prover, ProverOptions, VerifyingKey, Witness, ZKey};
use msm_core::{Backend, EngineOptions};
use serde_json::Value;

const R: u64 = 1234567;
const S: u64 = 7654321;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

fn json(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).expect("fixture JSON")
}

fn options(backend: Backend) -> ProverOptions {
    ProverOptions {
        engine: EngineOptions {
            backend,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn verifies(vk: &VerifyingKey, public: &[Fr], p: &Proof) -> bool {
    vk.verify(public, p)
}

fn check_circuit(name: &str, backend: Backend) {
    let key = ZKey::from_bytes(&fixture(&format!("{name}.zkey"))).expect("the key reads");
    let witness = Witness::from_bytes(&fixture(&format!("{name}.wtns"))).expect("the witness reads");
    let prover = Prover::new(key, &options(backend)).expect("the prover opens");
    let (proof, _) = prover.prove_with(&witness, Fr::from(R), Fr::from(S)).expect("a proof");
    assert_eq!(
        proof_json(&proof),
        json(&format!("{name}_proof.json")),
        "{name}: snarkjs's proof"
    );
    assert_eq!(
        public_json(prover.public(&witness)),
        json(&format!("{name}_public.json"))
    );
    assert!(verifies(prover.verifying_key(), prover.public(&witness), &proof));
    // fresh randomness: another proof, still valid
    let (fresh, _) = prover.prove(&witness).expect("a proof");
    assert_ne!(fresh, proof);
    assert!(verifies(prover.verifying_key(), prover.public(&witness), &fresh));
    // a wrong witness (one private signal changed) gives a proof that fails
    let mut wrong = witness.clone();
    let k = wrong.0.len() - 1;
    wrong.0[k] += Fr::from(1u64);
    let (bad, _) = prover.prove_with(&wrong, Fr::from(R), Fr::from(S)).expect("a proof");
    assert!(!verifies(prover.verifying_key(), prover.public(&witness), &bad));
}

#[test]
fn poseidon_chain_equals_snarkjs_on_the_gpu() {
    check_circuit("chain", Backend::Gpu);
}

#[test]
fn multiplier_equals_snarkjs_on_the_gpu_and_the_cpu() {
    check_circuit("multiplier", Backend::Gpu);
    check_circuit("multiplier", Backend::Cpu);
}

#[test]
fn the_verifying_key_is_snarkjs_export() {
    let key = ZKey::from_bytes(&fixture("chain.zkey")).unwrap();
    let vk = json("chain_vkey.json");
    let dec = |x: ark_bn254::Fq| x.into_bigint().to_string();
    let (x, y) = key.vk.alpha_g1.xy().unwrap();
    assert_eq!(vk["vk_alpha_1"], serde_json::json!([dec(x), dec(y), "1"]));
    let (x, _) = key.vk.delta_g2.xy().unwrap();
    assert_eq!(vk["vk_delta_2"][0], serde_json::json!([dec(x.c0), dec(x.c1)]));
    assert_eq!(vk["nPublic"], key.n_public);
    assert_eq!(key.vk.ic.len(), vk["IC"].as_array().unwrap().len());
}

fn refused(bytes: &[u8]) -> CircomError {
    match ZKey::from_bytes(bytes) {
        Err(e) => e,
        Ok(_) => panic!("a bad key was accepted"),
    }
}

/// The byte offset of section `ty`'s contents in an iden3 file.
fn section_offset(bytes: &[u8], ty: u32) -> usize {
    let mut pos = 12;
    loop {
        let t = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
        let len = u64::from_le_bytes(bytes[pos + 4..pos + 12].try_into().unwrap()) as usize;
        if t == ty {
            return pos + 12;
        }
        pos += 12 + len;
    }
}

#[test]
fn bad_files_are_refused_with_what_is_wrong() {
    let key = fixture("chain.zkey");
    let e = refused(&key[..key.len() / 2]);
    assert!(matches!(e, CircomError::Truncated { .. }), "{e}");
    let e = refused(&fixture("chain.wtns"));
    assert!(matches!(e, CircomError::Magic { .. }), "{e}");
    assert!(e.to_string().contains("not a .zkey file"), "{e}");

    // PLONK's protocol id
    let mut plonk = key.clone();
    let p = section_offset(&plonk, 1);
    plonk[p] = 2;
    assert!(matches!(refused(&plonk), CircomError::NotGroth16(2)));

    // another curve's base field modulus (BLS12-381's is 48 bytes long)
    let mut other = key.clone();
    let p = section_offset(&other, 2) + 4;
    other[p] ^= 1;
    let e = refused(&other);
    assert!(matches!(e, CircomError::WrongCurve { .. }), "{e}");

    // a point off the curve in A
    let mut off = key.clone();
    let p = section_offset(&off, 5) + 64 * 3;
    off[p] ^= 1;
    let e = refused(&off);
    assert!(matches!(e, CircomError::InvalidPoint { what: "A", .. }), "{e}");

    // a witness of another circuit
    let prover = Prover::new(ZKey::from_bytes(&key).unwrap(), &options(Backend::Cpu)).unwrap();
    let w = Witness::from_bytes(&fixture("multiplier.wtns")).unwrap();
    let e = prover.prove(&w).unwrap_err();
    assert!(matches!(e, CircomError::WitnessLength { .. }), "{e}");
    assert!(Witness::from_bytes(&key).is_err());
    let wtns = fixture("chain.wtns");
    assert!(matches!(
        Witness::from_bytes(&wtns[..wtns.len() - 1]),
        Err(CircomError::Truncated { .. })
    ));
}

/// Montgomery limbs as snarkjs writes them.
fn mont(x: ark_bn254::Fq) -> Vec<u8> {
    x.0.to_bytes_le()
}

#[test]
fn g2_points_outside_the_subgroup_are_refused_on_the_gpu() {
    // on the twist, outside the prime-order subgroup: BN254's G2 cofactor
    // is about 2^254, so nearly every twist point is
    let p = (1u64..)
        .find_map(|x| G2Affine::get_point_from_x_unchecked(ark_bn254::Fq2::from(x), false))
        .unwrap();
    assert!(p.is_on_curve() && !p.is_in_correct_subgroup_assuming_on_curve());
    let mut key = fixture("chain.zkey");
    let index = 5;
    let at = section_offset(&key, 7) + 128 * index;
    let (x, y) = p.xy().unwrap();
    let bytes = [mont(x.c0), mont(x.c1), mont(y.c0), mont(y.c1)].concat();
    key[at..at + 128].copy_from_slice(&bytes);
    let zkey = ZKey::from_bytes(&key).expect("on the curve: read");
    assert_eq!(zkey.b_g2[index], p);
    match Prover::new(zkey, &options(Backend::Gpu)) {
        Err(CircomError::InvalidPoint {
            what: "B (G2)",
            index: i,
            ..
        }) => assert_eq!(i, index),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("accepted"),
    }
}
