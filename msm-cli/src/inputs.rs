//! Seeded MSM inputs ([`msm_core::sample`]) with a progress bar.

use indicatif::{ProgressBar, ProgressStyle};
use msm_core::sample::Inputs;
use msm_core::GpuCurve;

/// `n` bases of the group `C` and `n` scalars from `seed`; shows a progress
/// bar when `progress`.
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
