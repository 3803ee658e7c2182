//! Buffer helpers: counted buffer creation, storage buffers from host data,
//! readback and dispatch sizing.

use std::sync::atomic::Ordering;

use wgpu::util::DeviceExt;

use super::waiter::{Slot, SlotFuture};
use super::GpuContext;
use crate::error::MsmError;

impl GpuContext {
    /// Creates a buffer (counted in [`GpuContext::created_objects`]).
    pub(crate) fn create_buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.create_buffer_mapped(label, size, usage, false)
    }

    /// [`GpuContext::create_buffer`], optionally mapped at creation.
    pub(crate) fn create_buffer_mapped(
        &self,
        label: &str,
        size: u64,
        usage: wgpu::BufferUsages,
        mapped: bool,
    ) -> wgpu::Buffer {
        self.counters.buffers.fetch_add(1, Ordering::Relaxed);
        self.counters.buffer_bytes.fetch_add(size, Ordering::Relaxed);
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: mapped,
        })
    }

    /// Creates a bind group (counted).
    pub(crate) fn create_bind_group(&self, desc: &wgpu::BindGroupDescriptor) -> wgpu::BindGroup {
        self.counters.bind_groups.fetch_add(1, Ordering::Relaxed);
        self.device.create_bind_group(desc)
    }

    /// Creates a query set of `count` timestamps (counted).
    pub(crate) fn create_timestamp_queries(&self, count: u32) -> wgpu::QuerySet {
        self.counters.query_sets.fetch_add(1, Ordering::Relaxed);
        self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        })
    }

    /// A storage buffer initialised with `data` (at least 4 bytes: empty bindings
    /// are not allowed).
    pub(crate) fn storage_init(&self, label: &str, data: &[u32], copy_src: bool) -> wgpu::Buffer {
        let words: &[u32] = if data.is_empty() { &[0] } else { data };
        self.counters.buffers.fetch_add(1, Ordering::Relaxed);
        self.counters
            .buffer_bytes
            .fetch_add(std::mem::size_of_val(words) as u64, Ordering::Relaxed);
        let mut usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        if copy_src {
            usage |= wgpu::BufferUsages::COPY_SRC;
        }
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(words),
            usage,
        })
    }

    /// An uninitialised storage buffer of `words` u32 words that can be read back.
    pub(crate) fn storage_out(&self, label: &str, words: usize) -> wgpu::Buffer {
        self.create_buffer(
            label,
            (words.max(1) * 4) as u64,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        )
    }

    /// Copies `words` u32 words of `src` to the host (submits a copy, then waits).
    pub(crate) async fn read_words(&self, src: &wgpu::Buffer, words: usize) -> Result<Vec<u32>, MsmError> {
        let size = (words.max(1) * 4) as u64;
        let staging = self.create_buffer(
            "readback",
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
        enc.copy_buffer_to_buffer(src, 0, &staging, 0, size);
        let copied = self.queue.submit([enc.finish()]);
        let bytes = self.map_read_range(&staging, staging.size(), copied).await?;
        let mut out: Vec<u32> = bytemuck::cast_slice(&bytes).to_vec();
        out.truncate(words);
        Ok(out)
    }

    /// Maps the first `size` bytes of a MAP_READ buffer written by
    /// submission `after` (or an earlier one) and returns them.
    pub(crate) async fn map_read_range(
        &self,
        buf: &wgpu::Buffer,
        size: u64,
        after: wgpu::SubmissionIndex,
    ) -> Result<Vec<u8>, MsmError> {
        use tracing::Instrument;
        self.map_read_inner(buf, size, after)
            .instrument(tracing::debug_span!("msm.readback", bytes = size))
            .await
    }

    async fn map_read_inner(
        &self,
        buf: &wgpu::Buffer,
        size: u64,
        #[cfg_attr(target_arch = "wasm32", allow(unused_variables))] after: wgpu::SubmissionIndex,
    ) -> Result<Vec<u8>, MsmError> {
        let slot = Slot::new();
        let filled = slot.clone();
        buf.slice(..size).map_async(wgpu::MapMode::Read, move |r| {
            filled.fill(r.map_err(|e| MsmError::Readback(e.to_string())));
        });
        // The poller drives the device while this future waits.
        #[cfg(not(target_arch = "wasm32"))]
        self.poller.watch(&slot, after, self.gpu_timeout, "a readback");
        if let Err(e) = SlotFuture(slot).await {
            // A lost device fails every map: report why it was lost.
            self.check_device_error()?;
            // wgpu may fail the map with a bare "async map" error before it
            // runs the device-lost callback: give the callback a moment
            // before calling the failure a readback's
            #[cfg(not(target_arch = "wasm32"))]
            if matches!(e, MsmError::Readback(_)) {
                for _ in 0..40 {
                    if self.is_lost() {
                        self.check_lost()?;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
            return Err(e);
        }
        let bytes = buf
            .slice(..size)
            .get_mapped_range()
            .map_err(|e| MsmError::Readback(e.to_string()))?
            .to_vec();
        buf.unmap();
        Ok(bytes)
    }

    /// Blocks until submitted work finishes (for timing loops that measure
    /// the GPU and nothing else; native: the browser drives its queue).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn wait_idle(&self) -> Result<(), MsmError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.mark_lost(&e.to_string()))?;
        Ok(())
    }

    /// Splits `groups` workgroups into an (x, y) grid within the adapter's
    /// per-dimension limit. Shaders rebuild the linear index from `num_workgroups`.
    pub(crate) fn grid(&self, groups: u32) -> (u32, u32) {
        let max = self.device.limits().max_compute_workgroups_per_dimension.max(1);
        if groups <= max {
            (groups.max(1), 1)
        } else {
            let y = groups.div_ceil(max);
            (groups.div_ceil(y), y)
        }
    }

    /// Records one dispatch of `pipeline` with `buffers` bound in order at group 0.
    pub(crate) fn dispatch(
        &self,
        enc: &mut wgpu::CommandEncoder,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        groups: (u32, u32),
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let bindings: Vec<(u32, &wgpu::Buffer)> = buffers.iter().enumerate().map(|(i, b)| (i as u32, *b)).collect();
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: timestamps,
        });
        self.dispatch_in(&mut pass, label, pipeline, &bindings, groups);
    }

    /// Records one dispatch into an open compute pass, binding `(binding, buffer)`
    /// pairs at group 0 (an entry point's layout holds only the bindings it uses).
    pub(crate) fn dispatch_in(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        bindings: &[(u32, &wgpu::Buffer)],
        groups: (u32, u32),
    ) {
        let entries: Vec<wgpu::BindGroupEntry> = bindings
            .iter()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: *i,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bind = self.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    }
}
