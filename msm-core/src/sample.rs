//! Seeded MSM inputs for benches, demos and cross-checks: bases are running
//! sums of 64 random points (all distinct, and fast to make at 2^20 and more,
//! where one random scalar multiplication per point is not), scalars are
//! uniform in Fr. The same seed gives the same inputs on every platform.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_ff::UniformRand;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// `n` bases and `n` scalars from `seed`.
pub fn inputs(n: usize, seed: u64) -> (Vec<G1Affine>, Vec<Fr>) {
    inputs_with_progress(n, seed, |_, _| {})
}

/// [`inputs`], calling `progress(done, total)` every 4096 items (2n in all).
pub fn inputs_with_progress(n: usize, seed: u64, mut progress: impl FnMut(usize, usize)) -> (Vec<G1Affine>, Vec<Fr>) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let steps: Vec<G1Projective> = (0..64).map(|_| G1Projective::rand(&mut rng)).collect();
    let mut acc = G1Projective::rand(&mut rng);
    let mut points = Vec::with_capacity(n);
    for i in 0..n {
        acc += steps[(i * 7 + i / 64) % 64];
        points.push(acc);
        if i % 4096 == 0 {
            progress(i, 2 * n);
        }
    }
    let bases = G1Projective::normalize_batch(&points);
    let scalars = (0..n)
        .map(|i| {
            if i % 4096 == 0 {
                progress(n + i, 2 * n);
            }
            Fr::rand(&mut rng)
        })
        .collect();
    progress(2 * n, 2 * n);
    (bases, scalars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_distinct() {
        let (b1, s1) = inputs(300, 7);
        let (b2, s2) = inputs(300, 7);
        assert_eq!((&b1, &s1), (&b2, &s2));
        assert_ne!(inputs(300, 8).1, s1);
        let mut xs: Vec<_> = b1.iter().map(|p| p.x).collect();
        xs.sort();
        xs.dedup();
        assert_eq!(xs.len(), 300);
        assert!(b1.iter().all(|p| p.is_on_curve()));
    }
}
