//! Getting results back: a pooled staging buffer per MSM (each chunk's window
//! sums and timestamps at a fixed stride, one map for the whole MSM), the
//! host reduce, and decoding GPU points.

use ark_bn254::{Fq, G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_ff::{Field, Zero};

use super::scratch::{Scratch, MAX_TIMESTAMPS};
use crate::context::GpuContext;
use crate::passes::Buf;
use crate::cpu;
use crate::error::MsmError;
use crate::layout::{PointRecord, POINT_RECORD_BYTES, VALID_XYZZ};
use crate::passes::reduce::XYZZ_BYTES;
use crate::plan::Plan;
use crate::repr::{FieldRepr, Words};

/// Bytes of a job's timestamps in a results buffer.
pub(crate) const TIMESTAMP_BYTES: u64 = MAX_TIMESTAMPS as u64 * 8;

/// Bytes of a job's results: its row sums, or its group sums with
/// `host_windows` (XYZZ, padded to 256 bytes), then its timestamps.
pub(crate) fn result_bytes(plan: &Plan) -> u64 {
    rows_bytes(plan) + TIMESTAMP_BYTES
}

fn rows_bytes(plan: &Plan) -> u64 {
    crate::passes::reduce::result_buffer(plan).1.next_multiple_of(256)
}

/// A job's row sums from its results' words: read as they are, or folded
/// from each row's group sums (`host_windows`).
pub(crate) fn decode_rows(repr: &FieldRepr, words: &[u32], plan: &Plan) -> Result<Vec<G1Projective>, MsmError> {
    if !plan.host_windows {
        return decode_window_sums(repr, words, plan.rows() as usize);
    }
    let groups = crate::passes::reduce::groups_per_window(plan) as usize;
    let points = decode_window_sums(repr, words, 2 * plan.rows() as usize * groups)?;
    let pairs: Vec<[G1Projective; 2]> = points.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    Ok(cpu::reduce::windows_from_groups(&pairs, groups))
}

/// Where each job's results lie in one results buffer.
pub(crate) struct ResultLayout {
    /// Each job's first byte.
    pub(crate) at: Vec<u64>,
    /// Bytes of the whole layout.
    pub(crate) bytes: u64,
}

impl ResultLayout {
    pub(crate) fn new<'p>(plans: impl IntoIterator<Item = &'p Plan>) -> Self {
        let mut at = Vec::new();
        let mut bytes = 0;
        for p in plans {
            at.push(bytes);
            bytes += result_bytes(p);
        }
        ResultLayout { at, bytes }
    }

    /// The first byte of job `k`'s timestamps.
    pub(crate) fn timestamps(&self, k: usize, plan: &Plan) -> u64 {
        self.at[k] + rows_bytes(plan)
    }
}

impl GpuContext {
    /// A MAP_READ buffer of at least `bytes`: pooled, so warm calls create
    /// none.
    pub(crate) fn take_results(&self, bytes: u64) -> wgpu::Buffer {
        let need = bytes.max(XYZZ_BYTES);
        let mut pool = self.results.lock().unwrap();
        match pool.iter().position(|b| b.size() >= need) {
            Some(i) => pool.swap_remove(i),
            None => {
                drop(pool);
                self.create_buffer(
                    "results",
                    need,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                )
            }
        }
    }

    pub(crate) fn put_results(&self, buf: wgpu::Buffer) {
        let mut pool = self.results.lock().unwrap();
        pool.push(buf);
        if pool.len() > 4 {
            pool.sort_by_key(|b| std::cmp::Reverse(b.size()));
            pool.truncate(4);
        }
    }

    /// The window sums of a chunk whose bucket sums the host reduces: counts
    /// and bucket sums read back, running sums on the CPU.
    pub(crate) async fn host_window_sums(&self, s: &Scratch) -> Result<Vec<G1Projective>, MsmError> {
        let tb = s.plan.total_buckets() as usize;
        let counts = self.read_words(s.buf(Buf::Counts), tb).await?;
        let words = self.read_words(s.buf(Buf::BucketSums), tb * POINT_RECORD_BYTES / 4).await?;
        let records: &[PointRecord] = bytemuck::cast_slice(&words);
        let split = self.read_words(s.buf(Buf::SplitSums), s.plan.tasks as usize * 32).await?;
        let repr = FieldRepr::new(self.field_layout());
        // Buckets no entry reached hold stale records: skip them as the GPU pass does.
        let buckets: Vec<Option<G1Affine>> = records
            .iter()
            .zip(&counts)
            .map(|(r, &count)| {
                if count == 0 {
                    Ok(None)
                } else {
                    bucket_point(&repr, r, &split)
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(cpu::window_sums(&s.plan, &buckets))
    }
}

/// Window sums packed as XYZZ (32 words each) as projective points (on the
/// pool's threads natively: a joint batch has thousands of rows).
pub(crate) fn decode_window_sums(
    repr: &FieldRepr,
    words: &[u32],
    windows: usize,
) -> Result<Vec<G1Projective>, MsmError> {
    let sums = words[..windows * 32].chunks_exact(32);
    #[cfg(not(target_arch = "wasm32"))]
    if windows > 128 {
        use rayon::prelude::*;
        let sums: Vec<&[u32]> = sums.collect();
        return sums.into_par_iter().map(|w| xyzz_to_projective(repr, w)).collect();
    }
    sums.map(|w| xyzz_to_projective(repr, w)).collect()
}

/// An XYZZ point (32 packed words) as a projective point: (X u v^2, Y u^3 v^2,
/// u v) in Jacobian coordinates, u = ZZ, v = ZZZ; no inversion needed.
pub(crate) fn xyzz_to_projective(repr: &FieldRepr, w: &[u32]) -> Result<G1Projective, MsmError> {
    let c: Vec<Fq> = (0..4)
        .map(|k| {
            repr.from_gpu(&<Words>::try_from(&w[8 * k..8 * k + 8]).unwrap())
                .ok_or(MsmError::CorruptResult)
        })
        .collect::<Result<_, _>>()?;
    let (u, v) = (c[2], c[3]);
    if u.is_zero() {
        return Ok(G1Projective::zero());
    }
    let v2 = v.square();
    Ok(G1Projective::new_unchecked(
        c[0] * u * v2,
        c[1] * u.square() * u * v2,
        u * v,
    ))
}

/// A bucket's sum from its record, following `VALID_XYZZ` records into
/// walker_combine's split sums (32 words each).
pub fn bucket_point(repr: &FieldRepr, r: &PointRecord, split_sums: &[u32]) -> Result<Option<G1Affine>, MsmError> {
    if r.valid != VALID_XYZZ {
        return record_point(repr, r);
    }
    let at = r.through as usize * 32;
    let w = split_sums.get(at..at + 32).ok_or(MsmError::CorruptResult)?;
    let p = xyzz_to_projective(repr, w)?;
    Ok((!p.is_zero()).then(|| p.into_affine()))
}

/// A GPU point record as an affine point (`None` when it holds the identity).
pub fn record_point(repr: &FieldRepr, r: &PointRecord) -> Result<Option<G1Affine>, MsmError> {
    if r.valid == 0 {
        return Ok(None);
    }
    let x = repr.from_gpu(&r.x).ok_or(MsmError::CorruptResult)?;
    let y = repr.from_gpu(&r.y).ok_or(MsmError::CorruptResult)?;
    Ok(Some(G1Affine::new_unchecked(x, y)))
}
