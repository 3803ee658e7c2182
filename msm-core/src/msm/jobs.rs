//! Cutting a batch into jobs: one per vector and chunk, or one per group of
//! equal-length vectors run as a joint plan (rows of buckets per vector and
//! window), so that short vectors fill the GPU together.

use super::plans::CallPlans;
use super::Scalars;
use crate::bases::{BasePart, BaseSet};
use crate::error::MsmError;
use crate::layout::{MsmParams, LINK_CHAINED, LINK_PRIOR};
use crate::plan::Plan;

/// One job: points [offset, offset + len) of base part `part` (of the
/// bases, or of their table) for the batch's vectors `first..first +
/// plan.vectors` (one, unless joint), with the call's plan number `entry`.
pub(crate) struct Job<'a> {
    pub(crate) first: usize,
    /// The id of the part's set (bases or table): keys its bind groups.
    pub(crate) parts_id: u64,
    pub(crate) part_index: usize,
    pub(crate) part: &'a BasePart,
    pub(crate) offset: usize,
    /// The scalars, one slice per vector, uploaded back to back.
    pub(crate) scalars: Vec<Scalars<'a>>,
    pub(crate) plan: Plan,
    pub(crate) entry: usize,
    /// `MsmParams::link`: 0 for a lone job, else its place in a chain.
    pub(crate) link: u32,
    /// Whether it runs reduce and has results: a lone job or a chain's last.
    pub(crate) reduces: bool,
}

impl Job<'_> {
    /// Bytes of the job's scalars.
    pub(crate) fn scalar_bytes(&self) -> u64 {
        self.plan.n as u64 * 32
    }

    /// The job's uniform parameters.
    pub(crate) fn params(&self) -> MsmParams {
        MsmParams {
            base_offset: self.offset as u32,
            scalar_form: self.scalars[0].form(),
            table_stride: self.table_stride(),
            link: self.link,
            ..MsmParams::from(&self.plan)
        }
    }

    /// Points between a table's windows (the table part's length); 0
    /// without a table.
    pub(crate) fn table_stride(&self) -> u32 {
        if self.plan.table {
            self.part.len as u32
        } else {
            0
        }
    }
}

/// Rows of buckets a joint plan may have: reduce's `windows` kernel runs one
/// workgroup per row along x (WebGPU's least `maxComputeWorkgroupsPerDimension`).
const MAX_ROWS: usize = 65_535;

/// Vectors per joint job for this batch, where it joins: at least two
/// non-empty vectors of one length and form, inside the bases' first part,
/// two of which fit `joint_points` (and `max_chunk_points`); groups halve
/// until their plan's buffers fit the adapter's bindings.
pub(crate) fn joint_group(
    plans: &mut CallPlans<'_>,
    bases: &BaseSet,
    vectors: &[Scalars<'_>],
) -> Result<Option<usize>, MsmError> {
    let Some(first) = vectors.first() else {
        return Ok(None);
    };
    let len = first.len();
    let joins = vectors.len() >= 2
        && len > 0
        && vectors.iter().all(|v| v.len() == len && v.form() == first.form())
        && (bases.job_parts(plans.table()).1.first()).is_some_and(|p| p.start == 0 && p.len >= len);
    if !joins {
        return Ok(None);
    }
    // reduce's windows kernel: one workgroup per row of buckets
    let single = match plans.index(len) {
        Ok(i) => i,
        Err(MsmError::BindingTooSmall { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let max_rows = MAX_ROWS / plans.plans()[single].windows as usize;
    // a job holds at most joint_points points, and max_chunk_points
    let config = plans.config();
    let cap = config
        .max_chunk_points
        .map_or(config.joint_points, |c| c.min(config.joint_points));
    let mut group = vectors.len().min(cap as usize / len).min(max_rows);
    if group < 2 {
        return Ok(None);
    }
    loop {
        match plans.index_joint(len, group) {
            Ok(_) => return Ok(Some(group)),
            Err(MsmError::BindingTooSmall { .. }) if group > 2 => group = group.div_ceil(2),
            Err(MsmError::BindingTooSmall { .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
    }
}

/// The batch's jobs: groups of `joint_group` vectors (what
/// [`joint_group`] gave the call), else each vector cut into chunks that
/// never straddle two base parts; a vector's runs of at least `chain`
/// consecutive jobs of one plan (and two; 0: none) form a chain that
/// reduces once (see [`chain_runs`]).
pub(crate) fn cut_jobs<'a>(
    bases: &'a BaseSet,
    vectors: &[Scalars<'a>],
    plans: &mut CallPlans<'_>,
    joint_group: Option<usize>,
    chain: u32,
) -> Result<Vec<Job<'a>>, MsmError> {
    let mut out = Vec::new();
    let (parts_id, parts) = bases.job_parts(plans.table());
    if let Some(group) = joint_group {
        let len = vectors[0].len();
        for (k, chunk) in vectors.chunks(group).enumerate() {
            // a lone last vector: the plain plan (one vector)
            let entry = plans.index_joint(len, chunk.len())?;
            out.push(Job {
                first: k * group,
                parts_id,
                part_index: 0,
                part: &parts[0],
                offset: 0,
                scalars: chunk.to_vec(),
                plan: plans.plans()[entry],
                entry,
                link: 0,
                reduces: true,
            });
        }
        return Ok(out);
    }
    for (vector, scalars) in vectors.iter().enumerate() {
        if scalars.is_empty() {
            continue;
        }
        let first_job = out.len();
        let size = plans.chunk(scalars.len())?;
        for (part_index, part) in parts.iter().enumerate() {
            // a prefix MSM stops at its last scalar
            let part_len = part.len.min(scalars.len().saturating_sub(part.start));
            let mut offset = 0;
            while offset < part_len {
                let len = size.min(part_len - offset);
                let at = part.start + offset;
                let entry = plans.index(len)?;
                out.push(Job {
                    first: vector,
                    parts_id,
                    part_index,
                    part,
                    offset,
                    scalars: vec![scalars.slice(at..at + len)],
                    plan: plans.plans()[entry],
                    entry,
                    link: 0,
                    reduces: true,
                });
                offset += len;
            }
        }
        chain_runs(&mut out[first_job..], plans, chain);
    }
    Ok(out)
}

/// Whether a run of `run` consecutive jobs of one plan chains under the
/// threshold `chain` (`chain_jobs`: 0 never; a run holds at least two).
pub(crate) fn chains(run: usize, chain: u32) -> bool {
    chain > 0 && run >= chain.max(2) as usize
}

/// Links each run of consecutive jobs of one plan (one vector's) that
/// [`chains`] into a chain over that plan's chained twin: every job adds its
/// bucket sums into the chain's, and only the last reduces, so that the
/// host sums one result instead of one a job.
fn chain_runs(jobs: &mut [Job<'_>], plans: &mut CallPlans<'_>, chain: u32) {
    let mut start = 0;
    while start < jobs.len() {
        let entry = jobs[start].entry;
        let end = start + jobs[start..].iter().take_while(|j| j.entry == entry).count();
        if chains(end - start, chain) {
            let chained = plans.index_chained(entry);
            for (k, j) in jobs[start..end].iter_mut().enumerate() {
                j.entry = chained;
                j.plan = plans.plans()[chained];
                j.link = LINK_CHAINED | if k > 0 { LINK_PRIOR } else { 0 };
                j.reduces = start + k + 1 == end;
            }
        }
        start = end;
    }
}
