//! A Groth16 key for a circuit from one seed ([`ZKey::insecure_setup`]):
//! the key `snarkjs groth16 setup` followed by one contribution would
//! make, with tau, alpha, beta, gamma and delta drawn from the seed instead
//! of a ceremony. Whoever knows the seed can forge proofs, so it is for
//! tests and benchmarks only; it exists because snarkjs needs a powers of
//! tau file of the circuit's size, which for 2^20 constraints is a
//! gigabyte and hours of JavaScript to make.
//!
//! The queries, over the domain's Lagrange basis at tau (L_c(tau)) and
//! u_j, v_j, w_j the signal's coefficients in A, B, C summed over the
//! constraints with weights L_c(tau):
//! A_j = [u_j], B_j = [v_j] in G1 and G2, IC_j = [(beta u_j + alpha v_j +
//! w_j) / gamma] for public j, C_j = [(...) / delta] for the others, and
//! H_i = [L'_(2i+1)(tau) / delta] over the domain of twice the size (the
//! odd points, where the prover evaluates A·B - C). snarkjs's extra
//! constraint per public signal (signal × 1 = 0 in A) is added the same
//! way, so the coefficients equal the ones snarkjs writes.

use ark_bn254::{Fr, G1Projective, G2Projective};
use ark_ec::scalar_mul::ScalarMul;
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{Field, UniformRand, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{rngs::StdRng, SeedableRng};

use crate::r1cs::R1cs;
use crate::zkey::{Coef, VerifyingKey, ZKey};

impl ZKey {
    /// A key for `r1cs` whose secrets come from `seed`: **anyone with the
    /// seed can prove false statements**. For tests and benchmarks.
    pub fn insecure_setup(r1cs: &R1cs, seed: u64) -> ZKey {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut secret = || loop {
            let x = Fr::rand(&mut rng);
            if !x.is_zero() {
                return x;
            }
        };
        let (tau, alpha, beta, gamma, delta) = (secret(), secret(), secret(), secret(), secret());
        let n = r1cs.domain_size();
        let m = r1cs.constraints.len();
        let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("a domain below 2^28");
        let lagrange = domain.evaluate_all_lagrange_coefficients(tau);
        let (mut u, mut v, mut w) = (
            vec![Fr::zero(); r1cs.n_vars],
            vec![Fr::zero(); r1cs.n_vars],
            vec![Fr::zero(); r1cs.n_vars],
        );
        let mut coefs = Vec::new();
        for (c, [a, b, cc]) in r1cs.constraints.iter().enumerate() {
            let l = lagrange[c];
            for (matrix, terms, sums) in [(0, a, &mut u), (1, b, &mut v)] {
                for &(signal, value) in terms {
                    sums[signal as usize] += value * l;
                    coefs.push(Coef {
                        matrix,
                        constraint: c as u32,
                        signal,
                        value,
                    });
                }
            }
            for &(signal, value) in cc {
                w[signal as usize] += value * l;
            }
        }
        for s in 0..=r1cs.n_public {
            u[s] += lagrange[m + s];
            coefs.push(Coef {
                matrix: 0,
                constraint: (m + s) as u32,
                signal: s as u32,
                value: Fr::from(1u64),
            });
        }
        let k: Vec<Fr> = (0..r1cs.n_vars).map(|j| beta * u[j] + alpha * v[j] + w[j]).collect();
        let (gamma_inv, delta_inv) = (gamma.inverse().expect("not zero"), delta.inverse().expect("not zero"));
        let (g1, g2) = (G1Projective::generator(), G2Projective::generator());
        let scaled = |xs: &[Fr], by: Fr| xs.iter().map(|x| *x * by).collect::<Vec<_>>();
        let double = Radix2EvaluationDomain::<Fr>::new(2 * n).expect("a domain below 2^28");
        let odd: Vec<Fr> = double
            .evaluate_all_lagrange_coefficients(tau)
            .into_iter()
            .skip(1)
            .step_by(2)
            .map(|l| l * delta_inv)
            .collect();
        let one = |s: Fr| (g1 * s).into_affine();
        let two = |s: Fr| (g2 * s).into_affine();
        ZKey {
            n_vars: r1cs.n_vars,
            n_public: r1cs.n_public,
            domain_size: n,
            vk: VerifyingKey {
                alpha_g1: one(alpha),
                beta_g1: one(beta),
                beta_g2: two(beta),
                gamma_g2: two(gamma),
                delta_g1: one(delta),
                delta_g2: two(delta),
                ic: g1.batch_mul(&scaled(&k[..=r1cs.n_public], gamma_inv)),
            },
            coefs,
            a: g1.batch_mul(&u),
            b_g1: g1.batch_mul(&v),
            b_g2: g2.batch_mul(&v),
            c: g1.batch_mul(&scaled(&k[r1cs.n_public + 1..], delta_inv)),
            h: g1.batch_mul(&odd),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{R1cs, ZKey};

    fn fixture(name: &str) -> String {
        format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    /// The key's shape and coefficients are the ones `snarkjs groth16
    /// setup` wrote for the same constraint system (the coefficients do
    /// not depend on the secrets), in snarkjs's order.
    #[test]
    fn the_key_has_snarkjs_s_shape_and_coefficients() {
        for name in ["chain", "multiplier"] {
            let r1cs = R1cs::read(fixture(&format!("{name}.r1cs"))).unwrap();
            let theirs = ZKey::read(fixture(&format!("{name}.zkey"))).unwrap();
            let ours = ZKey::insecure_setup(&r1cs, 3);
            assert_eq!(
                (ours.n_vars, ours.n_public, ours.domain_size),
                (theirs.n_vars, theirs.n_public, theirs.domain_size),
                "{name}"
            );
            assert_eq!(ours.coefs, theirs.coefs, "{name}");
            assert_eq!(
                (ours.a.len(), ours.c.len(), ours.h.len(), ours.vk.ic.len()),
                (theirs.a.len(), theirs.c.len(), theirs.h.len(), theirs.vk.ic.len())
            );
        }
    }
}
