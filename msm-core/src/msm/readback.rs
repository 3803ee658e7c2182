//! Getting results back: a pooled staging buffer per MSM (each chunk's window
//! sums and timestamps at a fixed stride, one map for the whole MSM), the
//! host reduce, and decoding GPU points.

use ark_bn254::G1Affine;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::CurveGroup;
use ark_ff::{AdditiveGroup, Field, Zero};

use crate::context::{GpuContext, Scratch, MAX_TIMESTAMPS};
use crate::passes::Buf;
use crate::cpu;
use crate::error::MsmError;
use crate::curve::GpuCurve;
use crate::layout::{PointRecord, VALID_XYZZ};
use crate::plan::Plan;
use crate::repr::{FieldCodec, FieldRepr};

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
pub(crate) fn decode_rows<C: GpuCurve>(
    codec: &FieldCodec<C::BaseField>,
    words: &[u32],
    plan: &Plan,
) -> Result<Vec<Projective<C>>, MsmError> {
    if !plan.host_windows {
        return decode_window_sums(codec, words, plan.rows() as usize);
    }
    // each task decodes and folds one chunk of a row's (E, V) group sums
    let groups = crate::passes::reduce::groups_per_window(plan) as usize;
    let pair = 8 * codec.words();
    let rows = plan.rows() as usize;
    let words = words.get(..rows * groups * pair).ok_or(MsmError::CorruptResult)?;
    cpu::reduce::fold_in_chunks(rows, groups, |row, range| {
        let first = row * groups;
        let pairs = words[(first + range.start) * pair..(first + range.end) * pair]
            .chunks_exact(pair)
            .map(|p| Ok([xyzz_to_projective(codec, &p[..pair / 2])?, xyzz_to_projective(codec, &p[pair / 2..])?]))
            .collect::<Result<Vec<_>, MsmError>>()?;
        Ok(cpu::reduce::fold_chunk(range.start, &pairs))
    })
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

/// The window sums of a chunk whose bucket sums the host reduces: counts
/// and bucket sums read back, running sums on the CPU.
pub(crate) async fn host_window_sums<C: GpuCurve>(ctx: &GpuContext, s: &Scratch) -> Result<Vec<Projective<C>>, MsmError> {
    let tb = s.plan.total_buckets() as usize;
    let curve = s.plan.curve;
    let (rec, xyzz) = ((curve.record_bytes() / 4) as usize, (curve.xyzz_bytes() / 4) as usize);
    let counts = ctx.read_words(s.buf(Buf::Counts), tb).await?;
    let words = ctx.read_words(s.buf(Buf::BucketSums), tb * rec).await?;
    let split = ctx.read_words(s.buf(Buf::SplitSums), s.plan.tasks as usize * xyzz).await?;
    let codec = FieldCodec::<C::BaseField>::new(ctx.field_layout(), curve.field());
    // Buckets no entry reached hold stale records: skip them as the GPU pass does.
    let buckets: Vec<Option<Affine<C>>> = words
        .chunks_exact(rec)
        .zip(&counts)
        .map(|(r, &count)| {
            if count == 0 {
                Ok(None)
            } else {
                record_words_point(&codec, r, &split)
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(cpu::reduce::window_sums_direct(&s.plan, &buckets))
}

/// Window sums packed as XYZZ (four coordinates each) as projective
/// points (on the pool's threads natively: a joint batch has thousands of
/// rows).
pub(crate) fn decode_window_sums<C: GpuCurve>(
    codec: &FieldCodec<C::BaseField>,
    words: &[u32],
    windows: usize,
) -> Result<Vec<Projective<C>>, MsmError> {
    let xyzz = 4 * codec.words();
    let sums = words[..windows * xyzz].chunks_exact(xyzz);
    #[cfg(not(target_arch = "wasm32"))]
    if windows > 128 {
        use rayon::prelude::*;
        let sums: Vec<&[u32]> = sums.collect();
        return crate::host::install(|| sums.into_par_iter().map(|w| xyzz_to_projective(codec, w)).collect());
    }
    sums.map(|w| xyzz_to_projective(codec, w)).collect()
}

/// An XYZZ point (four packed coordinates) as a projective point: (X u v^2,
/// Y u^3 v^2, u v) in Jacobian coordinates, u = ZZ, v = ZZZ; no inversion
/// needed.
pub(crate) fn xyzz_to_projective<C: GpuCurve>(
    codec: &FieldCodec<C::BaseField>,
    w: &[u32],
) -> Result<Projective<C>, MsmError> {
    let k = codec.words();
    let mut c = [C::BaseField::ZERO; 4];
    for (c, x) in c.iter_mut().zip(w[..4 * k].chunks_exact(k)) {
        *c = codec.decode(x).ok_or(MsmError::CorruptResult)?;
    }
    let (u, v) = (c[2], c[3]);
    if u.is_zero() {
        return Ok(Projective::zero());
    }
    let v2 = v.square();
    Ok(Projective::new_unchecked(c[0] * u * v2, c[1] * u.square() * u * v2, u * v))
}

/// A bucket's sum from its record's words (x, y, valid, bucket, through),
/// following `VALID_XYZZ` records into walker_combine's split sums.
fn record_words_point<C: GpuCurve>(
    codec: &FieldCodec<C::BaseField>,
    r: &[u32],
    split_sums: &[u32],
) -> Result<Option<Affine<C>>, MsmError> {
    let k = codec.words();
    let (valid, through) = (r[2 * k], r[2 * k + 2]);
    if valid == VALID_XYZZ {
        let at = through as usize * 4 * k;
        let w = split_sums.get(at..at + 4 * k).ok_or(MsmError::CorruptResult)?;
        let p = xyzz_to_projective::<C>(codec, w)?;
        return Ok((!p.is_zero()).then(|| p.into_affine()));
    }
    if valid == 0 {
        return Ok(None);
    }
    let x = codec.decode(&r[..k]).ok_or(MsmError::CorruptResult)?;
    let y = codec.decode(&r[k..2 * k]).ok_or(MsmError::CorruptResult)?;
    Ok(Some(Affine::new_unchecked(x, y)))
}

/// A bucket's sum from its record, following `VALID_XYZZ` records into
/// walker_combine's split sums (32 words each).
pub fn bucket_point(repr: &FieldRepr, r: &PointRecord, split_sums: &[u32]) -> Result<Option<G1Affine>, MsmError> {
    let words: &[u32] = bytemuck::cast_slice(std::slice::from_ref(r));
    record_words_point::<crate::curve::Bn254>(&FieldCodec::from(repr), words, split_sums)
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
