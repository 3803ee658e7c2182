//! Seeded MSM inputs ([`msm_core::sample`]) with a progress bar.

use ark_bn254::{Fr, G1Affine};
use indicatif::{ProgressBar, ProgressStyle};
use msm_core::sample::Inputs;
use msm_core::GpuCurve;

/// `n` BN254 bases and `n` scalars from `seed`; shows a progress bar when `progress`.
pub fn generate(n: usize, seed: u64, progress: bool) -> (Vec<G1Affine>, Vec<Fr>) {
    generate_of::<msm_core::Bn254>(n, seed, progress)
}

/// [`generate`] in the group `C`.
pub fn generate_of<C: GpuCurve>(n: usize, seed: u64, progress: bool) -> Inputs<C> {
    let bar = if progress {
        let b = ProgressBar::new(2 * n as u64);
        b.set_style(ProgressStyle::with_template("generating inputs {bar:40} {percent}% ({eta})").unwrap());
        b
    } else {
        ProgressBar::hidden()
    };
    let inputs = msm_core::sample::inputs_of_with_progress::<C>(n, seed, |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    inputs
}
