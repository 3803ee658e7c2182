//! Mapped upload memory: MAP_WRITE staging buffers, mapped again as soon as
//! the GPU has copied out of them, so the next call writes into resident,
//! mapped memory. What is written into them is the MSM's (`msm::upload`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::pool::Pooled;
use super::GpuContext;

/// Staging sizes round up to this, so nearby sizes share a buffer.
const GRANULE: u64 = 1 << 20;

/// A MAP_WRITE staging buffer and whether it is mapped now.
pub(crate) struct Staging {
    pub(crate) buffer: wgpu::Buffer,
    /// Set by the map callback; clear while the GPU may read the buffer.
    ready: Arc<AtomicBool>,
}

impl Staging {
    const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::MAP_WRITE.union(wgpu::BufferUsages::COPY_SRC);

    /// Maps the buffer again once the submitted copies out of it have run.
    pub(crate) fn remap(&self) {
        let ready = self.ready.clone();
        self.buffer.slice(..).map_async(wgpu::MapMode::Write, move |r| {
            if r.is_ok() {
                ready.store(true, Ordering::Release);
            }
        });
    }

    /// Ends the writes before the submission that copies out of the buffer.
    pub(crate) fn finish_writes(&self) {
        self.buffer.unmap();
    }
}

impl Pooled for Staging {
    fn bytes(&self) -> u64 {
        self.buffer.size()
    }
}

impl GpuContext {
    /// A mapped staging buffer of at least `bytes`: a pooled one that is
    /// mapped now, else a new one (created mapped).
    pub(crate) fn take_staging(&self, bytes: u64) -> Staging {
        let pooled = self
            .pools
            .staging
            .take(|s| s.buffer.size() >= bytes && s.ready.load(Ordering::Acquire));
        if let Some(s) = pooled {
            s.ready.store(false, Ordering::Release);
            return s;
        }
        let buffer = self.create_buffer_mapped(
            "staging",
            bytes.div_ceil(GRANULE).max(1) * GRANULE,
            Staging::USAGE,
            true,
        );
        Staging {
            buffer,
            ready: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Returns a staging buffer whose remap is under way (the largest few
    /// are kept).
    pub(crate) fn put_staging(&self, s: Staging) {
        self.pools.staging.put(s);
    }
}
