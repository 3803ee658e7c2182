//! A Groth16 proof: what the prover makes, the verifying key checks and
//! snarkjs's proof.json holds.

use ark_bn254::{G1Affine, G2Affine};

/// π_A, π_B (in G2) and π_C, affine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}
