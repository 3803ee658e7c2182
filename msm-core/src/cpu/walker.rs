//! CPU twin of the stream_walker pass (`passes::stream_walker`): the same
//! task split, the same segments, heads, tails and final sums, and how many
//! loop iterations each slot is live for.

use ark_bn254::{G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::Zero;

use crate::cpu::entry_point;
use crate::plan::Plan;

/// Where task k starts (twin of `task_begin`): an equal share of the stream,
/// moved back to its bucket's start when the plan aligns tasks and that
/// bucket is no longer than a share. `bucket_of` gives an entry's bucket and
/// `offsets` the buckets' starts.
pub fn task_begin(plan: &Plan, k: u32, total: u32, bucket_of: impl Fn(u32) -> u32, offsets: &[u32]) -> u32 {
    let q = total / plan.tasks;
    let rem = total % plan.tasks;
    let a = k * q + k.min(rem);
    if !plan.align || a == 0 || a >= total {
        return a;
    }
    let b = bucket_of(a) as usize;
    let s = offsets[b];
    if offsets[b + 1] - s <= q + 1 {
        s
    } else {
        a
    }
}

/// The task range [a, b) of task k.
pub fn task_range(
    plan: &Plan,
    k: u32,
    total: u32,
    bucket_of: impl Fn(u32) -> u32 + Copy,
    offsets: &[u32],
) -> (u32, u32) {
    (
        task_begin(plan, k, total, bucket_of, offsets),
        task_begin(plan, k + 1, total, bucket_of, offsets),
    )
}

/// Walker loop iterations in which a slot covering entries [a, b) is live,
/// and the additions it performs: a segment of m entries of one bucket takes
/// max(m - 1, 1) iterations (its first loads two points) and m - 1 additions.
pub fn slot_iterations(a: u32, b: u32, bucket_of: impl Fn(u32) -> u32, offsets: &[u32]) -> (u32, u32) {
    let (mut it, mut adds) = (0, 0);
    let mut pos = a;
    while pos < b {
        let end = offsets[bucket_of(pos) as usize + 1].min(b);
        let m = end - pos;
        it += (m - 1).max(1);
        adds += m - 1;
        pos = end;
    }
    (it, adds)
}

/// What the walker writes, as group elements: final bucket sums, and per task
/// a head partial (with its pass-through flag) and a tail partial; and each
/// slot's live iterations.
#[derive(Debug, PartialEq)]
pub struct WalkerOutput {
    pub finals: Vec<(u32, G1Affine)>,
    pub heads: Vec<Option<(G1Affine, bool)>>,
    pub tails: Vec<Option<(u32, G1Affine)>>,
    pub iterations: Vec<u32>,
}

/// The bucket holding stream entry e < total (twin of `bucket_at`): the last
/// bucket starting at or before e, as empty buckets start where the next does.
pub fn bucket_at(offsets: &[u32], e: u32) -> u32 {
    offsets.partition_point(|&o| o <= e) as u32 - 1
}

/// CPU twin of stream_walker on a given entry stream (the GPU's own order;
/// `offsets` are the buckets' starts, with the total last).
pub fn stream_walker(plan: &Plan, bases: &[G1Affine], l0_index: &[u32], offsets: &[u32]) -> WalkerOutput {
    let total = l0_index.len() as u32;
    let bucket_of = |i: u32| bucket_at(offsets, i);
    let mut out = WalkerOutput {
        finals: Vec::new(),
        heads: vec![None; plan.tasks as usize],
        tails: vec![None; plan.tasks as usize],
        iterations: vec![0; plan.tasks as usize],
    };
    for k in 0..plan.tasks {
        let (a, b) = task_range(plan, k, total, bucket_of, offsets);
        out.iterations[k as usize] = slot_iterations(a, b, bucket_of, offsets).0;
        let mut pos = a;
        while pos < b {
            let bucket = bucket_of(pos);
            let end = offsets[bucket as usize + 1];
            let seg = pos;
            let mut acc = G1Projective::zero();
            while pos < b && pos < end {
                acc += entry_point(bases, l0_index[pos as usize]);
                pos += 1;
            }
            let starts_mid = seg == a && a > 0 && offsets[bucket as usize] < a;
            let ends_mid = pos == b && b < total && b < end;
            let p = acc.into_affine();
            if starts_mid {
                out.heads[k as usize] = Some((p, ends_mid));
            } else if ends_mid {
                out.tails[k as usize] = Some((bucket, p));
            } else {
                out.finals.push((bucket, p));
            }
        }
        if a == b && a > 0 && a < total && offsets[bucket_of(a - 1) as usize + 1] > a {
            out.heads[k as usize] = Some((G1Affine::zero(), true));
        }
    }
    out.finals.sort_by_key(|f| f.0);
    out
}

#[cfg(test)]
mod tests {
    use super::bucket_at;

    /// Empty buckets start where the next one does: an entry belongs to the
    /// last bucket starting at or before it, never to an empty one.
    #[test]
    fn bucket_at_skips_empty_buckets() {
        // buckets 0 and 2, 3 empty; 1 holds [0, 2), 4 holds [2, 5), 5 holds [5, 6)
        let offsets = [0, 0, 2, 2, 2, 5, 6];
        let got: Vec<u32> = (0..6).map(|e| bucket_at(&offsets, e)).collect();
        assert_eq!(got, [1, 1, 4, 4, 4, 5]);
    }
}
