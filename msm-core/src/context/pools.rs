//! The context's pools: per-plan scratch (the most recent plans kept),
//! mapped staging for uploads and MAP_READ buffers for results (the
//! largest kept).

use super::pool::{Keep, Pool};
use super::scratch::Scratch;
use super::staging::Staging;
use super::GpuContext;

/// The context's three pools.
pub(crate) struct Pools {
    pub(crate) scratch: Pool<Scratch>,
    pub(crate) staging: Pool<Staging>,
    pub(crate) results: Pool<wgpu::Buffer>,
}

impl Pools {
    /// Plans whose scratch is kept (a sweep alternates a few).
    const SCRATCH_PLANS: usize = 6;
    /// Staging buffers kept.
    const STAGING: usize = 3;
    /// Result buffers kept.
    const RESULTS: usize = 4;

    pub(crate) const fn new() -> Self {
        Pools {
            scratch: Pool::new(Self::SCRATCH_PLANS, Keep::Recent),
            staging: Pool::new(Self::STAGING, Keep::Largest),
            results: Pool::new(Self::RESULTS, Keep::Largest),
        }
    }
}

impl GpuContext {
    /// A MAP_READ buffer of at least `bytes`: pooled, so warm calls create
    /// none.
    pub(crate) fn take_results(&self, bytes: u64) -> wgpu::Buffer {
        let need = bytes.max(self.curve().xyzz_bytes());
        self.pools.results.take(|b| b.size() >= need).unwrap_or_else(|| {
            self.create_buffer(
                "results",
                need,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )
        })
    }

    pub(crate) fn put_results(&self, buf: wgpu::Buffer) {
        self.pools.results.put(buf);
    }
}
