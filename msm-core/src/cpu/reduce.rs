//! CPU twin of the reduce pass (`passes::reduce`), shaped like its three
//! kernels so that a test can compare every stage's buffer:
//!
//! - `segments`: segment g of window j (buckets [g P, g P + P)) gives
//!   T_g = sum (i - g P + 1) B_i and U_g = P sum B_i;
//! - `groups`: per group x of WG segments, E_x = sum T + sum_k k U_k and
//!   V_x = sum U (k the segment's index in its group);
//! - `windows`: W_j = sum_x E_x + WG sum_x x V_x = sum_k k B_{j,k}.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::PrimeGroup;
use ark_ff::{AdditiveGroup, Zero};

use crate::passes::reduce::WG;
use crate::plan::Plan;

/// Each kernel's output, in the GPU's order: `(T, U)` per (row, segment)
/// and `(E, V)` per (row, group), row-major; then one sum per row (a row is
/// a window of one vector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceStages {
    pub segments: Vec<[G1Projective; 2]>,
    pub groups: Vec<[G1Projective; 2]>,
    pub windows: Vec<G1Projective>,
}

/// CPU twin of reduce's three kernels, from the bucket sums (indexed by
/// bucket; `None` = empty).
pub fn reduce_stages(plan: &Plan, buckets: &[Option<G1Affine>]) -> ReduceStages {
    let b = plan.buckets as usize;
    let per = plan.buckets.div_ceil(plan.segments) as usize;
    let mut segments = Vec::with_capacity(plan.rows() as usize * plan.segments as usize);
    for j in 0..plan.rows() as usize {
        for g in 0..plan.segments as usize {
            let lo = (g * per).min(b);
            let hi = (lo + per).min(b);
            let (mut t, mut s) = (G1Projective::zero(), G1Projective::zero());
            for i in lo..hi {
                if let Some(p) = buckets[j * b + i] {
                    t += p * Fr::from((i - lo + 1) as u64);
                    s += p;
                }
            }
            segments.push([t, s * Fr::from(per as u64)]);
        }
    }
    let per_window = plan.segments.div_ceil(WG) as usize;
    let mut groups = Vec::with_capacity(plan.rows() as usize * per_window);
    for j in 0..plan.rows() as usize {
        let window = &segments[j * plan.segments as usize..(j + 1) * plan.segments as usize];
        for group in window.chunks(WG as usize) {
            let (mut e, mut v) = (G1Projective::zero(), G1Projective::zero());
            for (k, [t, u]) in group.iter().enumerate() {
                e += t + *u * Fr::from(k as u64);
                v += u;
            }
            groups.push([e, v]);
        }
    }
    let windows = windows_from_groups(&groups, per_window);
    ReduceStages {
        segments,
        groups,
        windows,
    }
}

/// Groups one task of the host's fold takes: a row of more is cut into
/// chunks folded side by side, then joined (a row of 64 groups is about
/// 190 additions in a chain otherwise).
pub(crate) const FOLD_CHUNK: usize = 16;

/// The `windows` kernel's step, where the host runs it (`host_windows`):
/// each row's W = sum_x E_x + WG sum_x x V_x from its `per_row` (E, V)
/// group sums, the weights by suffix sums (two additions a group, then
/// log2(WG) doublings), in chunks of [`FOLD_CHUNK`] groups
/// ([`fold_in_chunks`]).
pub fn windows_from_groups<C: SWCurveConfig>(groups: &[[Projective<C>; 2]], per_row: usize) -> Vec<Projective<C>> {
    let per_row = per_row.max(1);
    let rows = groups.len().div_ceil(per_row);
    let folded = fold_in_chunks(rows, per_row, |row, range| {
        // a short last row takes what it has
        let at = |i: usize| (row * per_row + i).min(groups.len());
        let chunk = &groups[at(range.start)..at(range.end)];
        Ok::<_, std::convert::Infallible>(fold_chunk(range.start, chunk))
    });
    match folded {
        Ok(w) => w,
        Err(never) => match never {},
    }
}

/// Each of `rows` rows' window sum from its groups in chunks of
/// [`FOLD_CHUNK`]: `share(row, groups)` gives the chunk's [`fold_chunk`]
/// (the callers read their groups their own way: points, or the GPU's
/// words); natively the chunks run on the pool, then join.
pub(crate) fn fold_in_chunks<C: SWCurveConfig, E: Send>(
    rows: usize,
    per_row: usize,
    share: impl Fn(usize, std::ops::Range<usize>) -> Result<[Projective<C>; 2], E> + Sync,
) -> Result<Vec<Projective<C>>, E> {
    let chunks: Vec<(usize, std::ops::Range<usize>)> = (0..rows)
        .flat_map(|row| (0..per_row).step_by(FOLD_CHUNK).map(move |a| (row, a..(a + FOLD_CHUNK).min(per_row))))
        .collect();
    let fold = |(row, range): &(usize, std::ops::Range<usize>)| share(*row, range.clone()).map(|p| (*row, p));
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<(usize, [Projective<C>; 2])> = if chunks.len() > 1 {
        use rayon::prelude::*;
        crate::host::install(|| chunks.par_iter().map(fold).collect::<Result<_, E>>())?
    } else {
        chunks.iter().map(fold).collect::<Result<_, E>>()?
    };
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<(usize, [Projective<C>; 2])> = chunks.iter().map(fold).collect::<Result<_, E>>()?;
    Ok(join_chunks(parts, rows))
}

/// A chunk's share of its row's window sum, the chunk starting at group a of
/// the row: (sum_x (x - a) V_x + a sum_x V_x, sum_x E_x), so that the shares'
/// sums are the row's (sum_x x V_x, sum_x E_x).
pub(crate) fn fold_chunk<C: SWCurveConfig>(a: usize, chunk: &[[Projective<C>; 2]]) -> [Projective<C>; 2] {
    let (mut suffix, mut weighted, mut e_sum) = (Projective::<C>::zero(), Projective::<C>::zero(), Projective::<C>::zero());
    for [e, v] in chunk.iter().rev() {
        weighted += suffix;
        suffix += v;
        e_sum += e;
    }
    [weighted + suffix.mul_bigint([a as u64]), e_sum]
}

/// Each of `rows` rows' window sum WG sum_x x V_x + sum_x E_x from its
/// chunks' shares ([`fold_chunk`], tagged with their row).
fn join_chunks<C: SWCurveConfig>(
    parts: impl IntoIterator<Item = (usize, [Projective<C>; 2])>,
    rows: usize,
) -> Vec<Projective<C>> {
    let mut acc = vec![[Projective::<C>::zero(); 2]; rows];
    for (row, [w, e]) in parts {
        acc[row][0] += w;
        acc[row][1] += e;
    }
    acc.into_iter()
        .map(|[mut weighted, e]| {
            for _ in 0..WG.trailing_zeros() {
                weighted.double_in_place();
            }
            weighted + e
        })
        .collect()
}

/// Window sums W_j = sum_k k B_{j,k} (the reduce pass's result), by the
/// kernels' route: [`reduce_stages`]'s last stage.
pub fn window_sums(plan: &Plan, buckets: &[Option<G1Affine>]) -> Vec<G1Projective> {
    reduce_stages(plan, buckets).windows
}

/// W_j by the plain running sum over each window's buckets: what every
/// route must equal, and the host reduce's route (two additions a bucket;
/// rows on the pool's threads natively).
pub fn window_sums_direct<C: SWCurveConfig>(plan: &Plan, buckets: &[Option<Affine<C>>]) -> Vec<Projective<C>> {
    let row = |j: u32| {
        let mut running = Projective::<C>::zero();
        let mut total = Projective::<C>::zero();
        for i in (0..plan.buckets).rev() {
            if let Some(p) = buckets[(j * plan.buckets + i) as usize] {
                running += p;
            }
            total += running;
        }
        total
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        crate::host::install(|| (0..plan.rows()).into_par_iter().map(row).collect())
    }
    #[cfg(target_arch = "wasm32")]
    (0..plan.rows()).map(row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::CurveGroup;
    use ark_std::UniformRand;

    #[test]
    fn the_kernels_route_equals_the_running_sum() {
        let mut rng = ark_std::test_rng();
        for (buckets, segments) in [(16u32, 2u32), (4096, 512), (4096, 100), (300, 7), (8, 8), (5, 1)] {
            let plan = Plan {
                n: 1,
                c: 5,
                curve: crate::curve::Curve::Bn254G1,
                windows: 3,
                vectors: 1,
                buckets,
                threads: 1,
                tasks: 1,
                segments,
                align: false,
                win_wg: 256,
                table: false,
                host_windows: false,
                scatter_span: u32::MAX,
                chain: false,
            };
            let all: Vec<Option<G1Affine>> = (0..3 * buckets)
                .map(|i| (i % 3 != 1).then(|| G1Projective::rand(&mut rng).into_affine()))
                .collect();
            let stages = reduce_stages(&plan, &all);
            assert_eq!(stages.segments.len(), (3 * segments) as usize);
            assert_eq!(stages.groups.len(), 3 * segments.div_ceil(WG) as usize);
            let direct = window_sums_direct(&plan, &all);
            assert_eq!(stages.windows, direct, "{buckets} buckets, {segments} segments");
        }
    }

    /// The chunked fold is W = sum_x E_x + WG sum_x x V_x for rows of one,
    /// one chunk, a chunk and one group, and several chunks.
    #[test]
    fn windows_from_groups_joins_its_chunks() {
        let mut rng = ark_std::test_rng();
        for per_row in [1, FOLD_CHUNK, FOLD_CHUNK + 1, 2 * FOLD_CHUNK + 8] {
            let rows = 3;
            let groups: Vec<[G1Projective; 2]> = (0..rows * per_row)
                .map(|_| [G1Projective::rand(&mut rng), G1Projective::rand(&mut rng)])
                .collect();
            let want: Vec<G1Projective> = groups
                .chunks(per_row)
                .map(|row| {
                    row.iter().enumerate().fold(G1Projective::zero(), |w, (x, [e, v])| {
                        w + e + *v * Fr::from((x as u64) * WG as u64)
                    })
                })
                .collect();
            assert_eq!(windows_from_groups(&groups, per_row), want, "{per_row} groups a row");
        }
    }
}
