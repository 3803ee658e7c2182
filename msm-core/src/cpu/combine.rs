//! CPU twin of the walker_combine pass (`passes::walker_combine`), shaped
//! like its kernels so that a test can compare each one's buffer:
//!
//! - `blocks` (level l = 1..=levels): block b sums the chain elements of
//!   level l - 1 from index `BLOCK b` while the chain goes on inside the
//!   block; its flags say whether it is in a chain and whether the chain
//!   continues past it;
//! - `owners`: each task with a tail partial walks its chain, jumping by a
//!   whole block where the index is block-aligned, and ends with its
//!   bucket's sum.

use ark_bn254::{G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_ff::Zero;

use crate::cpu::WalkerOutput;
use crate::passes::walker_combine::{chain_levels, level_len, BLOCK};

/// A chain element above level 0, as the `blocks` kernel writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainSum {
    pub sum: G1Projective,
    /// The block starts inside a chain (flag bit 0).
    pub in_chain: bool,
    /// The chain continues past the block (flag bit 1).
    pub through: bool,
}

/// Each kernel's output: the block levels (level 1 first), and per owner
/// task its bucket and the bucket's sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CombineStages {
    pub levels: Vec<Vec<ChainSum>>,
    pub owners: Vec<(u32, u32, G1Projective)>,
}

/// Level-0 element j: the head partial of task j (point, in chain, through).
fn head(w: &WalkerOutput, j: usize) -> (G1Projective, bool, bool) {
    match w.heads[j] {
        Some((p, through)) => (p.into(), true, through),
        None => (G1Projective::zero(), false, false),
    }
}

/// CPU twin of walker_combine's kernels on the walker's partials.
pub fn combine_stages(w: &WalkerOutput) -> CombineStages {
    let tasks = w.heads.len() as u32;
    let mut levels: Vec<Vec<ChainSum>> = Vec::new();
    for level in 1..=chain_levels(tasks) {
        let below = level_len(tasks, level - 1) as usize;
        let element = |j: usize| match levels.last() {
            None => head(w, j),
            Some(l) => (l[j].sum, l[j].in_chain, l[j].through),
        };
        let mut out = Vec::new();
        for b in 0..level_len(tasks, level) as usize {
            let (lo, hi) = (b * BLOCK as usize, ((b + 1) * BLOCK as usize).min(below));
            let mut e = ChainSum {
                sum: G1Projective::zero(),
                in_chain: false,
                through: false,
            };
            for j in lo..hi {
                let (p, in_chain, through) = element(j);
                if !in_chain {
                    break;
                }
                e.sum += p;
                e.in_chain = true;
                if !through {
                    break;
                }
                e.through = j == hi - 1 && hi == lo + BLOCK as usize;
            }
            out.push(e);
        }
        levels.push(out);
    }
    let mut owners = Vec::new();
    for (k, tail) in w.tails.iter().enumerate() {
        let Some((bucket, p)) = tail else { continue };
        let mut acc = G1Projective::from(*p);
        let mut j = k + 1;
        while j < w.heads.len() {
            // the highest level whose block starts at j
            let (mut level, mut step) = (0usize, 1usize);
            while level < levels.len() && j % (step * BLOCK as usize) == 0 {
                level += 1;
                step *= BLOCK as usize;
            }
            let (next, through) = match level {
                0 => {
                    let (p, _, through) = head(w, j);
                    (p, through)
                }
                l => (levels[l - 1][j / step].sum, levels[l - 1][j / step].through),
            };
            acc += next;
            if !through {
                break;
            }
            j += step;
        }
        owners.push((k as u32, *bucket, acc));
    }
    CombineStages { levels, owners }
}

/// The sums of split buckets (bucket, sum): walker_combine's result.
pub fn walker_combine(w: &WalkerOutput) -> Vec<(u32, G1Affine)> {
    combine_stages(w)
        .owners
        .into_iter()
        .map(|(_, bucket, sum)| (bucket, sum.into_affine()))
        .collect()
}

/// The same sums by walking each chain element by element: what every
/// route must equal.
pub fn walker_combine_direct(w: &WalkerOutput) -> Vec<(u32, G1Affine)> {
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
