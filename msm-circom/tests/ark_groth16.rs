//! The ark-groth16 example's circuit (examples/ark_groth16): circom's
//! `.r1cs` and a `.wtns` as an arkworks constraint system. The fixtures'
//! witnesses satisfy it, a changed private signal does not, its public
//! inputs are snarkjs's public signals, and ark-groth16's proof verifies.

#[path = "../examples/ark_groth16/circuit.rs"]
mod circuit;

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem};
use ark_std::UniformRand;
use msm_circom::{R1cs, Witness};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use circuit::CircomCircuit;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

fn circuit(name: &str) -> CircomCircuit {
    CircomCircuit {
        r1cs: Arc::new(R1cs::from_bytes(&fixture(&format!("{name}.r1cs"))).unwrap()),
        witness: Arc::new(Witness::from_bytes(&fixture(&format!("{name}.wtns"))).unwrap()),
    }
}

fn satisfied(c: CircomCircuit) -> bool {
    let cs = ConstraintSystem::<Fr>::new_ref();
    c.generate_constraints(cs.clone()).unwrap();
    cs.is_satisfied().unwrap()
}

#[test]
fn fixtures_satisfy_their_r1cs_and_ark_groth16_proves_them() {
    for name in ["multiplier", "chain"] {
        let c = circuit(name);
        let public: Vec<String> = serde_json::from_slice(&fixture(&format!("{name}_public.json"))).unwrap();
        let want: Vec<Fr> = public.iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(c.public(), want, "{name}: public signals");
        assert!(satisfied(c.clone()), "{name}: the witness satisfies its circuit");
        // a private signal changed: some constraint fails
        let mut w = c.witness.0.clone();
        let last = w.len() - 1;
        w[last] += Fr::from(1u64);
        let bad = CircomCircuit {
            r1cs: c.r1cs.clone(),
            witness: Arc::new(Witness(w)),
        };
        assert!(!satisfied(bad), "{name}: a changed private signal");

        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let pk = Groth16::<Bn254>::generate_random_parameters_with_reduction(c.clone(), &mut rng).unwrap();
        let pvk = prepare_verifying_key(&pk.vk);
        let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
        let proof = Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s).unwrap();
        assert!(Groth16::<Bn254>::verify_proof(&pvk, &proof, &want).unwrap(), "{name}");
        let mut wrong = want.clone();
        wrong[0] += Fr::from(1u64);
        assert!(
            !Groth16::<Bn254>::verify_proof(&pvk, &proof, &wrong).unwrap(),
            "{name}: a wrong public signal"
        );
    }
}

/// A witness of another circuit is refused, not proved.
#[test]
fn a_witness_of_another_circuit_is_unsatisfiable() {
    let c = CircomCircuit {
        r1cs: circuit("chain").r1cs,
        witness: circuit("multiplier").witness,
    };
    let cs = ConstraintSystem::<Fr>::new_ref();
    assert!(c.generate_constraints(cs).is_err());
}
