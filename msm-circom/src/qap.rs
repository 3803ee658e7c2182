//! The H query's scalars, as snarkjs computes them: A, B and C = A·B at
//! the domain's points from the key's coefficients and the witness, each
//! interpolated (inverse FFT) and evaluated on the odd coset ω_2n·⟨ω_n⟩
//! (the 2n-th roots of unity the domain leaves out), then A·B - C there.
//! The key's H points carry 1/Z, constant on that coset, so these
//! evaluations are the MSM's scalars as they are.

use ark_bn254::Fr;
use ark_ff::{FftField, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rayon::prelude::*;

use crate::error::CircomError;
use crate::wtns::Witness;
use crate::zkey::{Coef, KeyHead, ZKey};

/// A and B at the domain's points: Σ coefficient·witness per constraint.
/// Each matrix's coefficients are summed on their own core; the order of
/// the additions does not change a field sum.
fn evaluations(coefs: &[Coef], n: usize, w: &[Fr]) -> (Vec<Fr>, Vec<Fr>) {
    let one = |matrix: u32| {
        let mut out = vec![Fr::zero(); n];
        for c in coefs.iter().filter(|c| c.matrix == matrix) {
            out[c.constraint as usize] += c.value * w[c.signal as usize];
        }
        out
    };
    rayon::join(|| one(0), || one(1))
}

/// A, B and C = A·B at the domain's points for witness `w`: the vectors
/// whose odd-coset evaluations H's scalars combine.
pub(crate) fn abc(coefs: &[Coef], n: usize, w: &[Fr]) -> [Vec<Fr>; 3] {
    let (a, b) = evaluations(coefs, n, w);
    let c: Vec<Fr> = a.par_iter().zip(&b).map(|(x, y)| *x * y).collect();
    [a, b, c]
}

/// The H query's scalars for witness `w` (one per domain point).
pub fn h_scalars(key: &ZKey, w: &[Fr]) -> Vec<Fr> {
    h_scalars_from(&key.coefs, key.domain_size, w)
}

/// [`h_scalars`] over a key's coefficients and domain size `n`.
pub(crate) fn h_scalars_from(coefs: &[Coef], n: usize, w: &[Fr]) -> Vec<Fr> {
    let [mut a, mut b, mut c] = abc(coefs, n, w);
    let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("the key's domain is a power of two below 2^28");
    // snarkjs's shift: the primitive 2n-th root of unity (ffjavascript's
    // w[power + 1], the same root arkworks derives from generator 5)
    let shift = Fr::get_root_of_unity(2 * n as u64).expect("2n divides r - 1");
    let coset = domain.get_coset(shift).expect("a coset of the domain");
    let odd = |v: &mut Vec<Fr>| {
        domain.ifft_in_place(v);
        coset.fft_in_place(v);
    };
    rayon::join(|| odd(&mut a), || rayon::join(|| odd(&mut b), || odd(&mut c)));
    a.par_iter_mut().zip(&b).zip(&c).for_each(|((a, b), c)| *a = *a * b - c);
    a
}

impl KeyHead {
    /// H's scalars for `witness` (one per domain point), as snarkjs
    /// computes them; refuses a witness of another circuit.
    pub fn h_scalars(&self, witness: &Witness) -> Result<Vec<Fr>, CircomError> {
        if witness.0.len() != self.n_vars {
            return Err(CircomError::WitnessLength {
                witness: witness.0.len(),
                circuit: self.n_vars,
            });
        }
        Ok(h_scalars_from(&self.coefs, self.domain_size, &witness.0))
    }

    /// A, B and C = A·B at the domain's points for `witness` (whose length
    /// the caller checked): the first half of [`KeyHead::h_scalars`], for a
    /// caller that runs the FFTs elsewhere (the browser package, on
    /// ffjavascript's threads). H's scalars are then A·B - C on the odd
    /// coset.
    pub fn abc(&self, witness: &Witness) -> [Vec<Fr>; 3] {
        abc(&self.coefs, self.domain_size, &witness.0)
    }
}
