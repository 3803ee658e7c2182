//! The context's health: device loss (wgpu's device-lost callback, checked at
//! every MSM and wait), the GPU memory the device holds and a call needs
//! (checked before allocating), and what the context holds now.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::GpuContext;
use crate::bases::BaseSet;
use crate::config::MsmConfig;
use crate::error::MsmError;
use crate::msm::CallPlans;
use crate::plan::AdapterBounds;

/// Resident base sets of one context: an upload counts up, dropping its
/// [`Bases`] counts down.
#[derive(Debug, Default)]
pub(crate) struct LiveBases {
    sets: AtomicU64,
    bytes: AtomicU64,
}

/// Held by a [`Bases`]: its share of [`LiveBases`], given back on drop.
pub(crate) struct LiveGuard {
    live: Arc<LiveBases>,
    bytes: u64,
}

impl LiveGuard {
    pub(crate) fn new(live: &Arc<LiveBases>, bytes: u64) -> Self {
        live.sets.fetch_add(1, Ordering::Relaxed);
        live.bytes.fetch_add(bytes, Ordering::Relaxed);
        LiveGuard {
            live: live.clone(),
            bytes,
        }
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.live.sets.fetch_sub(1, Ordering::Relaxed);
        self.live.bytes.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// GPU memory a context holds now, by what holds it (pipelines aside).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveMemory {
    /// Resident base sets ([`Bases`] not yet dropped) and their bytes.
    pub base_sets: u64,
    pub base_bytes: u64,
    /// Plans whose scratch the context caches, and the scratch's bytes.
    pub scratch_plans: u64,
    pub scratch_bytes: u64,
    /// Pooled result buffers and their bytes.
    pub result_buffers: u64,
    pub result_bytes: u64,
    /// Pooled upload staging buffers and their bytes.
    pub staging_buffers: u64,
    pub staging_bytes: u64,
}

impl LiveMemory {
    pub fn bytes(&self) -> u64 {
        self.base_bytes + self.scratch_bytes + self.result_bytes + self.staging_bytes
    }
}

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

/// Bytes of the largest device-local memory heap: what the device can hold
/// at most. Vulkan (native) only; `None` where wgpu does not expose it.
pub(crate) fn device_local_heap(device: &wgpu::Device) -> Option<u64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // SAFETY: reads a property of the physical device; nothing is
        // created, destroyed or kept past this call.
        let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }?;
        let props = unsafe {
            hal.shared_instance()
                .raw_instance()
                .get_physical_device_memory_properties(hal.raw_physical_device())
        };
        const DEVICE_LOCAL: u32 = 1; // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
        props.memory_heaps[..props.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.as_raw() & DEVICE_LOCAL != 0)
            .map(|h| h.size)
            .max()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = device;
        None
    }
}

/// What an MSM of the first `n` points of a base set held in `parts`
/// (first point, points) allocates on an adapter with `bounds`. Chunks
/// follow the core: the largest share whose plan fits the bindings (halving
/// from `max_chunk_points` or n), never across base parts; each distinct
/// chunk length is a plan with its own scratch.
pub fn msm_memory_on(
    bounds: &AdapterBounds,
    parts: &[(usize, usize)],
    n: usize,
    config: &MsmConfig,
) -> Result<MsmMemory, MsmError> {
    memory_of(&mut CallPlans::new(config, *bounds), parts, &[n])
}

/// What a batch of vectors of the lengths `lens`, each run on its own
/// (cut into chunks as [`msm_memory_on`] says), allocates together: every
/// vector's chunks, results and scalars, and the scratch of the distinct
/// plans they share (the call's plans derived here if not yet).
pub(crate) fn memory_of(plans: &mut CallPlans<'_>, parts: &[(usize, usize)], lens: &[usize]) -> Result<MsmMemory, MsmError> {
    let mut chunks = 0u64;
    let mut result_bytes = 0;
    let mut used = BTreeSet::new();
    for &n in lens.iter().filter(|&&n| n > 0) {
        let size = plans.chunk(n)?;
        for &(start, len) in parts {
            let len = len.min(n.saturating_sub(start));
            chunks += len.div_ceil(size) as u64;
            // the full chunks, then the rest
            for (l, count) in [(size.min(len), len / size), (len % size, 1)] {
                if l > 0 && count > 0 {
                    let i = plans.index(l)?;
                    used.insert(i);
                    result_bytes += count as u64 * crate::msm::result_bytes(&plans.plans()[i]);
                }
            }
        }
    }
    let scratch_bytes = used.iter().map(|&i| plans.plans()[i].scratch_bytes()).sum();
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
            result_bytes += count as u64 * crate::msm::result_bytes(&plans.plans()[i]);
        }
    }
    let jobs = vectors.div_ceil(group) as u64;
    let params = std::mem::size_of::<crate::layout::MsmParams>() as u64;
    Ok(MsmMemory {
        chunks: jobs,
        scratch_bytes: used.iter().map(|&i| plans.plans()[i].scratch_bytes()).sum(),
        result_bytes,
        staging_bytes: (len * vectors) as u64 * 32 + jobs * params,
    })
}

fn is_out_of_memory(message: &str) -> bool {
    message.to_lowercase().contains("out of memory")
}

impl GpuContext {
    /// Whether the device is lost (wgpu's device-lost callback fired: driver
    /// reset, GPU removed, device destroyed; or an MSM found its buffers
    /// destroyed before the callback ran). A lost context fails every MSM
    /// with [`MsmError::DeviceLost`]; build a new one. Contexts from
    /// [`GpuContext::from_device`] leave that callback to the caller and
    /// report `true` only after such an MSM.
    pub fn is_lost(&self) -> bool {
        // lets wgpu run a pending device-lost callback (never blocks)
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::Poll);
        self.lost.lock().unwrap().is_some()
    }

    /// Marks the context lost where a call saw the loss before wgpu's
    /// callback ran (the first reason stays); the error to return.
    pub(crate) fn mark_lost(&self, reason: &str) -> MsmError {
        let mut lost = self.lost.lock().unwrap();
        MsmError::DeviceLost(lost.get_or_insert_with(|| reason.to_string()).clone())
    }

    pub(crate) fn check_lost(&self) -> Result<(), MsmError> {
        match self.lost.lock().unwrap().as_ref() {
            Some(reason) => Err(MsmError::DeviceLost(reason.clone())),
            None => Ok(()),
        }
    }

    #[cfg(feature = "diagnostics")]
    /// Destroys this context's device as a driver reset would lose it, for
    /// tests of the device-loss path: MSMs in flight and later ones end in
    /// [`MsmError::DeviceLost`]. Not for production use.
    pub fn destroy_device_for_test(&self) {
        self.device.destroy();
    }

    /// Bytes of the device's largest device-local memory heap, where the
    /// backend says (Vulkan): what every check before allocation compares with.
    pub fn device_memory(&self) -> Option<u64> {
        self.device_memory
    }

    #[cfg(feature = "diagnostics")]
    /// Makes the checks before allocation compare with `bytes` instead of
    /// the device's memory, for tests of refusals on a device of any size.
    pub fn set_device_memory_for_test(&mut self, bytes: Option<u64>) {
        self.device_memory = bytes;
    }

    #[cfg(feature = "diagnostics")]
    /// The GPU memory this context holds now.
    pub fn live_memory(&self) -> LiveMemory {
        let (scratch_plans, scratch_bytes) = {
            let cache = self.scratch.lock().unwrap();
            // a timed scratch's resolve buffer: the timestamps' share of a result stride
            let timing = crate::msm::TIMESTAMP_BYTES;
            let bytes = cache
                .iter()
                .map(|s| s.plan.scratch_bytes() + if s.timing.is_some() { timing } else { 0 })
                .sum();
            (cache.len() as u64, bytes)
        };
        let results = self.results.lock().unwrap();
        let staging = self.staging.lock().unwrap();
        LiveMemory {
            base_sets: self.live_bases.sets.load(Ordering::Relaxed),
            base_bytes: self.live_bases.bytes.load(Ordering::Relaxed),
            scratch_plans,
            scratch_bytes,
            result_buffers: results.len() as u64,
            result_bytes: results.iter().map(|b| b.size()).sum(),
            staging_buffers: staging.len() as u64,
            staging_bytes: staging.iter().map(|s| s.buffer.size()).sum(),
        }
    }

    diagnostics_pub! {
        /// Checks that `n` more bases fit on the device beside the base sets this
        /// context holds, before anything is allocated.
        fn check_bases_fit(&self, n: usize) -> Result<(), MsmError> {
            self.check_bytes_fit(crate::bases::BaseSet::bytes_of(n, self.curve()), || format!("{n} bases"))
        }
    }

    /// `bytes` more of resident data (named by `what`) fit beside the
    /// resident bases, where the device says how much memory it has.
    pub(crate) fn check_bytes_fit(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), MsmError> {
        let resident = self.live_bases.bytes.load(Ordering::Relaxed);
        let needed = resident.saturating_add(bytes);
        match self.device_memory {
            Some(available) if needed > available => Err(MsmError::OutOfMemory {
                what: format!("{} (beside {resident} bytes of resident bases)", what()),
                needed,
                available: Some(available),
            }),
            _ => Ok(()),
        }
    }

    diagnostics_pub! {
        /// The chunks, scratch, results and staging of an MSM of the first `n`
        /// of `bases` with `config` on this adapter (see [`msm_memory_on`]).
        fn msm_memory(&self, bases: &BaseSet, n: usize, config: &MsmConfig) -> Result<MsmMemory, MsmError> {
            let mut plans = CallPlans::new(config, self.bounds()).over(bases);
            let parts: Vec<(usize, usize)> = bases.part_ranges(plans.table()).collect();
            memory_of(&mut plans, &parts, &[n])
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
            None => memory_of(plans, &bases.part_ranges(plans.table()).collect::<Vec<_>>(), lens)?,
        };
        let max_buffer = self.device.limits().max_buffer_size;
        if m.result_bytes > max_buffer {
            return Err(MsmError::OutOfMemory {
                what: format!("the results of {} chunks (one buffer)", m.chunks),
                needed: m.result_bytes,
                available: Some(max_buffer),
            });
        }
        let resident = self.live_bases.bytes.load(Ordering::Relaxed);
        let needed = resident.saturating_add(m.bytes());
        match self.device_memory {
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
        let pending = self.device_error.lock().unwrap().take();
        let refused = match (&e, &pending) {
            (_, Some(m)) if is_out_of_memory(m) => Some(m.clone()),
            (MsmError::Device(m), _) if is_out_of_memory(m) => Some(m.clone()),
            _ => None,
        };
        let (Some(message), Ok(m)) = (refused, self.msm_memory(bases, n, config)) else {
            // not ours to explain: leave it for the next call
            if let Some(p) = pending {
                self.device_error.lock().unwrap().get_or_insert(p);
            }
            return e;
        };
        let resident = self.live_bases.bytes.load(Ordering::Relaxed);
        MsmError::OutOfMemory {
            what: format!("an MSM of {n} points (the driver refused: {message})"),
            needed: resident + m.bytes(),
            available: self.device_memory,
        }
    }
}
