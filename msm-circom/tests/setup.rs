//! Keys from `ZKey::insecure_setup` over circom's `.r1cs` (fixtures/,
//! compiled by circuits/make-fixtures.sh): proofs under them pass the
//! pairing check and wrong ones fail, the file written is snarkjs's layout
//! (a snarkjs key written back is its own bytes), and bad `.r1cs` files are
//! refused with what is wrong. snarkjs itself verified proofs under such a
//! key (docs/circom.md).

use ark_bn254::Fr;
use msm_circom::{CircomError, Prover, ProverOptions, R1cs, Witness, ZKey};
use msm_core::{Backend, EngineOptions};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

fn cpu() -> ProverOptions {
    ProverOptions {
        engine: EngineOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Each section of an iden3 file: (type, bytes).
fn sections(bytes: &[u8]) -> Vec<(u32, &[u8])> {
    let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    let mut pos = 12;
    (0..count)
        .map(|_| {
            let ty = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
            let len = u64::from_le_bytes(bytes[pos + 4..pos + 12].try_into().unwrap()) as usize;
            pos += 12 + len;
            (ty, &bytes[pos - len..pos])
        })
        .collect()
}

#[test]
fn proofs_under_a_seeded_key_verify() {
    for name in ["chain", "multiplier"] {
        let r1cs = R1cs::from_bytes(&fixture(&format!("{name}.r1cs"))).unwrap();
        let witness = Witness::from_bytes(&fixture(&format!("{name}.wtns"))).unwrap();
        let key = ZKey::insecure_setup(&r1cs, 11);
        // through the file: what a user's `msm-cli setup` then `prove` do
        let key = ZKey::from_bytes(&key.to_bytes()).expect("the written key reads");
        let prover = Prover::new(key, &cpu()).unwrap();
        let (proof, _) = prover.prove(&witness).unwrap();
        let public = prover.public(&witness).to_vec();
        assert!(prover.verifying_key().verify(&public, &proof), "{name}");
        // a wrong public signal, and another seed's key, refuse it
        let mut wrong = public.clone();
        wrong[0] += Fr::from(1u64);
        assert!(!prover.verifying_key().verify(&wrong, &proof), "{name}");
        let other = ZKey::insecure_setup(&r1cs, 12);
        assert!(!other.vk.verify(&public, &proof), "{name}");
        // a witness of the constraint system: A·w × B·w = C·w everywhere
        let dot = |lc: &msm_circom::Lc| lc.iter().map(|(s, c)| *c * witness.0[*s as usize]).sum::<Fr>();
        assert!(
            r1cs.constraints.iter().all(|[a, b, c]| dot(a) * dot(b) == dot(c)),
            "{name}"
        );
    }
}

#[test]
fn a_snarkjs_key_written_back_is_its_own_bytes() {
    let theirs = fixture("chain.zkey");
    let ours = ZKey::from_bytes(&theirs).unwrap().to_bytes();
    let (theirs, ours) = (sections(&theirs), sections(&ours));
    for ty in 1..=9 {
        let find = |s: &[(u32, &[u8])]| s.iter().find(|x| x.0 == ty).map(|x| x.1.to_vec());
        assert_eq!(find(&ours), find(&theirs), "section {ty}");
    }
}

#[test]
fn bad_r1cs_files_are_refused_with_what_is_wrong() {
    let bytes = fixture("chain.r1cs");
    let e = R1cs::from_bytes(&bytes[..bytes.len() - 100]).unwrap_err();
    assert!(matches!(e, CircomError::Truncated { .. }), "{e}");
    let e = R1cs::from_bytes(&fixture("chain.zkey")).unwrap_err();
    assert!(matches!(e, CircomError::Magic { .. }), "{e}");
    assert!(e.to_string().contains("not a .r1cs file"), "{e}");
    // a modulus other than BN254's r in the header: another curve
    let mut other = bytes.clone();
    let at = sections(&bytes).iter().position(|s| s.0 == 1).unwrap();
    let header = sections(&bytes)[at].1.as_ptr() as usize - bytes.as_ptr() as usize;
    other[header + 4] ^= 1;
    let e = R1cs::from_bytes(&other).unwrap_err();
    assert!(matches!(e, CircomError::WrongCurve { .. }), "{e}");
}
