//! CPU twin of the walker_combine pass (`passes::walker_combine`).

use ark_bn254::{G1Affine, G1Projective};
use ark_ec::CurveGroup;

use crate::cpu::WalkerOutput;

/// CPU twin of walker_combine: the sums of split buckets.
pub fn walker_combine(w: &WalkerOutput) -> Vec<(u32, G1Affine)> {
    let mut out = Vec::new();
    for (k, tail) in w.tails.iter().enumerate() {
        let Some((bucket, p)) = tail else { continue };
        let mut acc = G1Projective::from(*p);
        for head in &w.heads[k + 1..] {
            let Some((h, through)) = head else { break };
            acc += h;
            if !through {
                break;
            }
        }
        out.push((*bucket, acc.into_affine()));
    }
    out
}
