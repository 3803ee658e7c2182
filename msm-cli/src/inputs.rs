//! Seeded MSM inputs: bases as running sums of a few random points (fast to
//! generate at 2^20+, all distinct), scalars uniform in Fr.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_std::UniformRand;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// `n` bases and `n` scalars from `seed`; shows a progress bar when `progress`.
pub fn generate(n: usize, seed: u64, progress: bool) -> (Vec<G1Affine>, Vec<Fr>) {
    let bar = if progress {
        let b = ProgressBar::new(2 * n as u64);
        b.set_style(ProgressStyle::with_template("generating inputs {bar:40} {percent}% ({eta})").unwrap());
        b
    } else {
        ProgressBar::hidden()
    };
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let steps: Vec<G1Projective> = (0..64).map(|_| G1Projective::rand(&mut rng)).collect();
    let mut acc = G1Projective::rand(&mut rng);
    let mut points = Vec::with_capacity(n);
    for i in 0..n {
        acc += steps[(i * 7 + i / 64) % 64];
        points.push(acc);
        if i % 4096 == 0 {
            bar.set_position(i as u64);
        }
    }
    let bases = G1Projective::normalize_batch(&points);
    bar.set_position(n as u64);
    let scalars: Vec<Fr> = (0..n)
        .map(|i| {
            if i % 4096 == 0 {
                bar.set_position((n + i) as u64);
            }
            Fr::rand(&mut rng)
        })
        .collect();
    bar.finish_and_clear();
    (bases, scalars)
}
