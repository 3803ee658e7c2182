//! Operation counts of one MSM, from its plan and its bucket sizes: field
//! multiplications per pass and the inversions, following the shaders'
//! structure (every walker workgroup runs as many iterations as its longest
//! slot, each with one inversion). An inversion is counted as the 344
//! multiplications of Fermat's method whichever algorithm runs, so the
//! inversion share is an upper bound.

use serde::Serialize;

use crate::config::MsmConfig;
use crate::cpu::walker::{slot_iterations, task_range};
use crate::passes::{reduce, tree_leaves};
use crate::plan::Plan;

/// Multiplications of one Fermat inversion: 252 squarings, 78 window
/// multiplications and 14 for the table.
pub const INVERSION_MULS: u64 = 344;
/// Multiplications of the affine addition's peel given its inverse.
const PEEL_MULS: u64 = 3;
/// XYZZ plus affine (madd-2008-s), XYZZ plus XYZZ (add-2008-s), doubling.
const MADD_MULS: u64 = 10;
/// Two affine points into XYZZ (zz = zzz = 1 on both sides).
const AFFINE_ADD_MULS: u64 = 6;
const ADD_MULS: u64 = 14;
const DBL_MULS: u64 = 9;

/// Field multiplications and inversions of one MSM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpCounts {
    /// Multiplications outside inversions, per pass (order of `Pass::ALL`).
    pub muls: [u64; 4],
    /// Inversions, per pass.
    pub inversions: [u64; 4],
    /// Affine additions the walker performs (the useful work).
    pub walker_additions: u64,
    /// Walker loop iterations summed over workgroups.
    pub walker_iterations: u64,
}

impl OpCounts {
    pub fn total_muls(&self) -> u64 {
        self.muls.iter().sum()
    }
    pub fn total_inversions(&self) -> u64 {
        self.inversions.iter().sum()
    }
    /// Inversions' share of all multiplications, an inversion counted as
    /// [`INVERSION_MULS`].
    pub fn inversion_share(&self) -> f64 {
        let inv = (self.total_inversions() * INVERSION_MULS) as f64;
        inv / (inv + self.total_muls() as f64).max(1.0)
    }
}

/// The counts for `plan` under `config`, given each bucket's entry count in
/// stream order (window-major, as preprocess sorts them).
pub fn count(plan: &Plan, config: &MsmConfig, counts: &[u32]) -> OpCounts {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut run = 0u32;
    for c in counts {
        offsets.push(run);
        run += c;
    }
    offsets.push(run);
    let total = run;
    // bucket of an entry: binary search over the starts
    let bucket_of = |i: u32| (offsets.partition_point(|&o| o <= i) - 1) as u32;
    let mut out = OpCounts::default();
    let s = config.walker_slots as u64;
    let tpb = config.walker_tpb as u64;
    let leaves = tree_leaves(config.walker_tpb) as u64;
    let groups = (plan.threads as u64).div_ceil(tpb);
    // tasks with a tail (owners of a split bucket) and tasks with a head
    let mut owners = vec![false; plan.tasks as usize];
    let mut heads = 0u64;
    let mid = |i: u32| i > 0 && i < total && bucket_of(i - 1) == bucket_of(i);
    for g in 0..groups {
        let mut longest = 0u64;
        for t in g * tpb..((g + 1) * tpb).min(plan.threads as u64) {
            for slot in 0..s {
                let k = (t * s + slot) as u32;
                let (a, b) = task_range(plan, k, total, bucket_of, &offsets);
                let (it, adds) = slot_iterations(a, b, bucket_of, &offsets);
                longest = longest.max(it as u64);
                out.walker_additions += adds as u64;
                let one_segment = b > a && bucket_of(a) == bucket_of(b - 1);
                owners[k as usize] = b > a && mid(b) && !(one_segment && mid(a));
                heads += u64::from(mid(a));
            }
        }
        out.walker_iterations += longest;
        // per iteration: S prefix, 2S - 1 backward, and the tree
        out.muls[1] += longest * (tpb * (3 * s - 1) + 3 * (leaves - 1));
        out.inversions[1] += longest;
    }
    let splits = owners.iter().filter(|&&o| o).count() as u64;
    out.muls[1] += out.walker_additions * PEEL_MULS;
    // combine: each split bucket's pieces join in XYZZ and stay there (no
    // inversion); reduce adds them with a full XYZZ addition. An owner's
    // first addition (its affine tail plus the affine head after it) takes
    // six, counted for every owner: a block's sum in the head's place is rare
    let first = splits.min(heads);
    out.muls[2] = heads * MADD_MULS - first * (MADD_MULS - AFFINE_ADD_MULS);
    // reduce: a mixed and a full addition per bucket; per segment, its sum
    // times P (double-and-add); per group and window, a suffix scan, one
    // addition per invocation and a tree (the window's suffixes also
    // doubled log2(WG) times)
    let per = plan.buckets.div_ceil(plan.segments);
    let bits = (31 - per.leading_zeros()) as u64;
    let weights = plan.segments as u64 * (bits * DBL_MULS + (per.count_ones() as u64 - 1) * ADD_MULS);
    let scan = |m: u64| (0..64).map(|l| m.saturating_sub(1 << l)).sum::<u64>();
    let wg = reduce::WG as u64;
    let groups_per_window = reduce::groups_per_window(plan) as u64;
    let span = reduce::group_span(plan) as u64;
    let group_trees = groups_per_window * (scan(span) + span + span - 1) * ADD_MULS;
    let width = groups_per_window.next_power_of_two();
    let window_tree = (scan(groups_per_window) + groups_per_window + width - 1) * ADD_MULS
        + groups_per_window.saturating_sub(1) * wg.trailing_zeros() as u64 * DBL_MULS;
    let trees = group_trees + window_tree;
    out.muls[3] = plan.rows() as u64 * (plan.buckets as u64 * (MADD_MULS + ADD_MULS) + weights + trees)
        + splits * (ADD_MULS - MADD_MULS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{preprocess, scalar_words, stream_walker};
    use crate::plan::AdapterBounds;
    use ark_bn254::{Fr, G1Affine};
    use ark_std::UniformRand;

    /// The count's walker iterations are the twin's: per workgroup, its
    /// longest slot.
    #[test]
    fn walker_iterations_match_the_twin() {
        let mut rng = ark_std::test_rng();
        let n = 500;
        let bases = vec![G1Affine::default(); n];
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let words: Vec<_> = scalars.iter().map(scalar_words).collect();
        let bounds = AdapterBounds {
            curve: crate::curve::Curve::Bn254G1,
            max_workgroup_size_x: 256,
            max_invocations_per_workgroup: 256,
            max_workgroup_storage: 32768,
            max_binding_size: 1 << 30,
            loop_capped: false,
            inversion_loops: 78,
            mul_loops: 0,
            walker_mul_loops: 0,
            field_int64: true,
        };
        for split in [crate::config::TaskSplit::Equal, crate::config::TaskSplit::Buckets] {
            let config = MsmConfig {
                window_bits: Some(7),
                walker_threads: Some(300),
                walker_tpb: 64,
                walker_slots: 3,
                walker_split: split,
                ..Default::default()
            };
            let plan = config.plan(n, &bounds).unwrap();
            let pre = preprocess(&plan, &words, &vec![false; n]);
            let w = stream_walker(&plan, &bases, &pre.stream(), &pre.offsets);
            let per_group = 64 * 3;
            let want: u64 = w
                .iterations
                .chunks(per_group)
                .map(|g| *g.iter().max().unwrap() as u64)
                .sum();
            let got = count(&plan, &config, &pre.counts);
            assert_eq!(got.walker_iterations, want, "{split:?}");
            assert_eq!(got.inversions[1], want);
            // every bucket of m entries needs m - 1 additions; each task
            // boundary inside a bucket moves one of them to walker_combine
            let entries: u64 = pre.counts.iter().map(|&c| c as u64).sum();
            let buckets = pre.counts.iter().filter(|&&c| c > 0).count() as u64;
            assert!(got.walker_additions <= entries - buckets, "{split:?}");
            assert!(
                got.walker_additions + plan.tasks as u64 >= entries - buckets,
                "{split:?}"
            );
        }
    }
}

#[cfg(test)]
mod share {
    use super::*;
    use crate::cpu::{preprocess::bucket_counts, scalar_words};
    use crate::plan::AdapterBounds;

    /// With the default plan on a large GPU's bounds, inversions stay under
    /// 5% of all multiplications from 2^10 to 2^16 points (the H200 runs
    /// cover 2^16..2^22, docs/benchmarks.md).
    #[test]
    fn inversions_stay_under_five_percent() {
        let bounds = AdapterBounds::discrete_for_tests();
        let config = MsmConfig::default();
        let (_, scalars) = crate::sample::inputs(1 << 16, 40);
        let words: Vec<_> = scalars.iter().map(scalar_words).collect();
        for log in 10..=16 {
            let n = 1usize << log;
            let plan = config.plan(n, &bounds).unwrap();
            let counts = bucket_counts(&plan, &words[..n], &vec![false; n]);
            let ops = count(&plan, &config, &counts);
            assert!(
                ops.inversion_share() <= 0.05,
                "2^{log}: {:.2}% ({ops:?})",
                100.0 * ops.inversion_share()
            );
        }
    }
}
