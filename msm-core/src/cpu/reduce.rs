//! CPU twin of the reduce pass (`passes::reduce`).

use ark_bn254::{G1Affine, G1Projective};
use ark_ff::Zero;

use crate::plan::Plan;

/// CPU twin of reduce: window sums W_j = sum_k k B_{j,k} from all bucket sums
/// (indexed by bucket; `None` = empty).
pub fn window_sums(plan: &Plan, buckets: &[Option<G1Affine>]) -> Vec<G1Projective> {
    (0..plan.windows)
        .map(|j| {
            let mut running = G1Projective::zero();
            let mut total = G1Projective::zero();
            for i in (0..plan.buckets).rev() {
                if let Some(p) = buckets[(j * plan.buckets + i) as usize] {
                    running += p;
                }
                total += running;
            }
            total
        })
        .collect()
}
