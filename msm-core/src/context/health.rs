//! The context's health: device loss (wgpu's device-lost callback, checked at
//! every MSM and wait), the GPU memory the device holds and a call needs
//! (checked before allocating), and what the context holds now.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::GpuContext;
use crate::error::MsmError;

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
        let (scratch_plans, scratch_bytes) = self.pools.scratch.held();
        let (result_buffers, result_bytes) = self.pools.results.held();
        let (staging_buffers, staging_bytes) = self.pools.staging.held();
        LiveMemory {
            base_sets: self.live_bases.sets.load(Ordering::Relaxed),
            base_bytes: self.live_bases.bytes.load(Ordering::Relaxed),
            scratch_plans,
            scratch_bytes,
            result_buffers,
            result_bytes,
            staging_buffers,
            staging_bytes,
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

    /// Bytes of the base sets (and tables) this context holds now.
    pub(crate) fn resident_bytes(&self) -> u64 {
        self.live_bases.bytes.load(Ordering::Relaxed)
    }

    /// Takes the first GPU error that reached no error scope, if any.
    pub(crate) fn take_device_error(&self) -> Option<String> {
        self.device_error.lock().unwrap().take()
    }

    /// Puts back an error [`GpuContext::take_device_error`] took, for the
    /// next call to report (a newer one stays behind it).
    pub(crate) fn keep_device_error(&self, message: String) {
        self.device_error.lock().unwrap().get_or_insert(message);
    }
}
