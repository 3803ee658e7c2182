//! The GPU memory an MSM call allocates (chunks, scratch, results,
//! staging), checked before anything is allocated, and what a failed
//! call's error means for the caller.

use std::collections::BTreeSet;

use super::{readback, CallPlans};
use crate::bases::BaseSet;
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::error::MsmError;
use crate::plan::AdapterBounds;

/// What one MSM allocates beyond its resident bases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsmMemory {
    /// Chunks the MSM runs as.
    pub chunks: u64,
    /// Scratch of its distinct chunk plans.
    pub scratch_bytes: u64,
    /// Its results buffer (window sums and timestamps per chunk).
    pub result_bytes: u64,
    /// Its upload staging: the scalars (32 bytes each) and each chunk's
    /// parameters.
    pub staging_bytes: u64,
}

impl MsmMemory {
    pub fn bytes(&self) -> u64 {
        self.scratch_bytes + self.result_bytes + self.staging_bytes
    }
}

/// What an MSM of the first `n` points of a base set held in `parts`
/// (first point, points) allocates on an adapter with `bounds` (reducing on
/// the GPU). Chunks follow the core: the largest share whose plan fits the
/// bindings (halving from `max_chunk_points` or n), never across base parts;
/// each distinct chunk length is a plan with its own scratch, and a chained
/// run of them (`chain_jobs`) its chained twin's.
pub fn msm_memory_on(
    bounds: &AdapterBounds,
    parts: &[(usize, usize)],
    n: usize,
    config: &MsmConfig,
) -> Result<MsmMemory, MsmError> {
    memory_of(&mut CallPlans::new(config, *bounds), parts, &[n], config.chain_jobs)
}

/// What a batch of vectors of the lengths `lens`, each run on its own
/// (cut into chunks as [`msm_memory_on`] says), allocates together: every
/// vector's chunks, results and scalars, and the scratch of the distinct
/// plans they share (the call's plans derived here if not yet).
pub(crate) fn memory_of(
    plans: &mut CallPlans<'_>,
    parts: &[(usize, usize)],
    lens: &[usize],
    chain: u32,
) -> Result<MsmMemory, MsmError> {
    let mut chunks = 0u64;
    let mut result_bytes = 0;
    // (plan number, chained)
    let mut used = BTreeSet::new();
    for &n in lens.iter().filter(|&&n| n > 0) {
        let size = plans.chunk(n)?;
        // the vector's job lengths in order: each part's full chunks, then its rest
        let mut jobs = Vec::new();
        for &(start, len) in parts {
            let len = len.min(n.saturating_sub(start));
            chunks += len.div_ceil(size) as u64;
            jobs.extend(std::iter::repeat_n(size, len / size));
            if len % size > 0 {
                jobs.push(len % size);
            }
        }
        // runs of one length chain as `cut_jobs` links them
        for run in jobs.chunk_by(|a, b| a == b) {
            let i = plans.index(run[0])?;
            used.insert((i, super::jobs::chains(run.len(), chain)));
            result_bytes += run.len() as u64 * readback::result_bytes(&plans.plans()[i]);
        }
    }
    let scratch_bytes = used.iter().map(|&(i, chained)| scratch_bytes(&plans.plans()[i], chained)).sum();
    let params = std::mem::size_of::<crate::layout::MsmParams>() as u64;
    let points: u64 = lens.iter().map(|&n| n as u64).sum();
    Ok(MsmMemory {
        chunks,
        scratch_bytes,
        result_bytes,
        staging_bytes: points * 32 + chunks * params,
    })
}

/// What a batch of `vectors` vectors of `len` points run as joint jobs of
/// `group` vectors allocates (the last job may hold fewer).
pub(crate) fn joint_memory_of(
    plans: &mut CallPlans<'_>,
    len: usize,
    vectors: usize,
    group: usize,
) -> Result<MsmMemory, MsmError> {
    let mut used = BTreeSet::new();
    let mut result_bytes = 0;
    // the full groups, then the rest (a lone vector runs its own plan)
    for (g, count) in [(group, vectors / group), (vectors % group, 1)] {
        if g > 0 && count > 0 {
            let i = plans.index_joint(len, g)?;
            used.insert(i);
            result_bytes += count as u64 * readback::result_bytes(&plans.plans()[i]);
        }
    }
    let jobs = vectors.div_ceil(group) as u64;
    let params = std::mem::size_of::<crate::layout::MsmParams>() as u64;
    Ok(MsmMemory {
        chunks: jobs,
        scratch_bytes: used.iter().map(|&i| crate::passes::scratch_bytes(&plans.plans()[i])).sum(),
        result_bytes,
        staging_bytes: (len * vectors) as u64 * 32 + jobs * params,
    })
}

/// A plan's scratch, or its chained twin's (with a chain's running sums).
fn scratch_bytes(plan: &crate::plan::Plan, chain: bool) -> u64 {
    let plan = crate::plan::Plan { chain, ..*plan };
    crate::passes::scratch_bytes(&plan)
}

fn is_out_of_memory(message: &str) -> bool {
    message.to_lowercase().contains("out of memory")
}

impl GpuContext {
    diagnostics_pub! {
        /// The chunks, scratch, results and staging of an MSM of the first `n`
        /// of `bases` with `config` on this adapter (see [`msm_memory_on`]).
        fn msm_memory(&self, bases: &BaseSet, n: usize, config: &MsmConfig) -> Result<MsmMemory, MsmError> {
            let mut plans = CallPlans::new(config, self.bounds()).over(bases);
            let parts: Vec<(usize, usize)> = bases.part_ranges(plans.table()).collect();
            memory_of(&mut plans, &parts, &[n], self.chain_threshold(config))
        }
    }

    /// The checks an MSM makes before it allocates: the device is not lost,
    /// its results fit one buffer, and the bases, scratch and results fit the
    /// device's memory (with the call's plans).
    /// A batch of vectors of the lengths `lens` is checked with all of them
    /// (run as joint jobs, `joint` vectors per job, with its joint plans).
    pub(crate) fn check_msm(
        &self,
        bases: &BaseSet,
        lens: &[usize],
        plans: &mut CallPlans<'_>,
        joint: Option<usize>,
    ) -> Result<(), MsmError> {
        self.check_lost()?;
        let n = lens.iter().copied().max().unwrap_or(0);
        if n == 0 {
            return Ok(());
        }
        let m = match joint {
            Some(group) => joint_memory_of(plans, n, lens.len(), group)?,
            None => {
                let chain = self.chain_threshold(plans.config());
                memory_of(plans, &bases.part_ranges(plans.table()).collect::<Vec<_>>(), lens, chain)?
            }
        };
        let max_buffer = self.device.limits().max_buffer_size;
        if m.result_bytes > max_buffer {
            return Err(MsmError::OutOfMemory {
                what: format!("the results of {} chunks (one buffer)", m.chunks),
                needed: m.result_bytes,
                available: Some(max_buffer),
            });
        }
        let resident = self.resident_bytes();
        let needed = resident.saturating_add(m.bytes());
        match self.device_memory() {
            Some(available) if needed > available => Err(MsmError::OutOfMemory {
                what: format!(
                    "{} ({resident} bytes of resident bases, {} of scratch, {} of results)",
                    match lens.len() {
                        1 => format!("an MSM of {n} points"),
                        k => format!("a batch of {k} MSMs of up to {n} points"),
                    },
                    m.scratch_bytes,
                    m.result_bytes
                ),
                needed,
                available: Some(available),
            }),
            _ => Ok(()),
        }
    }

    /// What an MSM's error means for the caller: a lost device, or memory
    /// the driver refused (with the call's planned bytes); else as it is.
    pub(crate) fn explain_error(&self, e: MsmError, bases: &BaseSet, n: usize, config: &MsmConfig) -> MsmError {
        // the upload memory of a device lost since the call's check
        if let MsmError::DeviceLost(m) = &e {
            return self.mark_lost(m);
        }
        // a failure right after a loss may come before wgpu's callback ran
        if self.is_lost() {
            if let Err(lost) = self.check_lost() {
                return lost;
            }
        }
        // The context destroys none of its buffers while an MSM holds them:
        // a destroyed one means the device was (its callback still pending,
        // so the context is marked here: `is_lost` and later calls agree).
        if let MsmError::Readback(m) = &e {
            if m.contains("has been destroyed") {
                return self.mark_lost(m);
            }
        }
        let pending = self.take_device_error();
        let refused = match (&e, &pending) {
            (_, Some(m)) if is_out_of_memory(m) => Some(m.clone()),
            (MsmError::Device(m), _) if is_out_of_memory(m) => Some(m.clone()),
            _ => None,
        };
        let (Some(message), Ok(m)) = (refused, self.msm_memory(bases, n, config)) else {
            // not ours to explain: leave it for the next call
            if let Some(p) = pending {
                self.keep_device_error(p);
            }
            return e;
        };
        let resident = self.resident_bytes();
        MsmError::OutOfMemory {
            what: format!("an MSM of {n} points (the driver refused: {message})"),
            needed: resident + m.bytes(),
            available: self.device_memory(),
        }
    }
}
