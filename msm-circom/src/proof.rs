//! A Groth16 proof: what the prover makes, the verifying key checks and
//! snarkjs's proof.json holds.

use ark_bn254::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{AffineRepr, CurveGroup};

use crate::zkey::VerifyingKey;

/// π_A, π_B (in G2) and π_C, affine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

/// The five MSMs of a proof: the key's queries against the witness (C's
/// against its private part) and H's against H's scalars.
#[derive(Clone, Copy, Debug)]
pub struct QuerySums {
    pub a: G1Projective,
    pub b_g1: G1Projective,
    pub b_g2: G2Projective,
    pub c: G1Projective,
    pub h: G1Projective,
}

impl Proof {
    /// pi_A, pi_B and pi_C from the MSMs and randomness `r`, `s`, as
    /// snarkjs's `groth16_prove.js` assembles them.
    pub fn assemble(vk: &VerifyingKey, sums: &QuerySums, r: Fr, s: Fr) -> Proof {
        let delta = vk.delta_g1.into_group();
        let a = sums.a + vk.alpha_g1 + delta * r;
        let b = sums.b_g2 + vk.beta_g2 + vk.delta_g2 * s;
        let b1: G1Projective = sums.b_g1 + vk.beta_g1 + delta * s;
        let c = sums.c + sums.h + a * s + b1 * r - delta * (r * s);
        Proof {
            a: a.into_affine(),
            b: b.into_affine(),
            c: c.into_affine(),
        }
    }
}

impl VerifyingKey {
    /// The Groth16 check `snarkjs groth16 verify` makes:
    /// e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ) for public signals `x`.
    pub fn verify(&self, public: &[Fr], proof: &Proof) -> bool {
        use ark_ec::pairing::Pairing;
        use ark_ec::{AffineRepr, CurveGroup};
        if public.len() + 1 != self.ic.len() {
            return false;
        }
        let mut acc = self.ic[0].into_group();
        for (x, ic) in public.iter().zip(&self.ic[1..]) {
            acc += *ic * x;
        }
        let lhs = ark_bn254::Bn254::pairing(proof.a, proof.b);
        let rhs = ark_bn254::Bn254::multi_pairing(
            [self.alpha_g1, acc.into_affine(), proof.c],
            [self.beta_g2, self.gamma_g2, self.delta_g2],
        );
        lhs == rhs
    }
}
