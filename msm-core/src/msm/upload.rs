//! Scalars into upload memory as arkworks holds them: each `Fr`'s four
//! Montgomery limbs, copied in parallel chunks with no arithmetic (the GPU
//! converts them in preprocess). A batch's parameters and scalars go into one
//! pooled staging buffer that is mapped again as soon as the GPU has copied
//! out of it, so the next call writes into resident, mapped memory.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ark_bn254::Fr;
use wgpu::WriteOnly;

use super::Scalars;
use crate::context::GpuContext;

/// Scalars per parallel chunk.
const CHUNK: usize = 8192;
const CHUNK_BYTES: usize = CHUNK * 32;
/// Staging buffers the pool keeps.
const POOLED: usize = 3;
/// Staging sizes round up to this, so nearby sizes share a buffer.
const GRANULE: u64 = 1 << 20;

/// A MAP_WRITE | COPY_SRC buffer and whether it is mapped now.
pub(crate) struct Staging {
    pub(crate) buffer: wgpu::Buffer,
    /// Set by the map callback; clear while the GPU may read the buffer.
    ready: Arc<AtomicBool>,
}

impl Staging {
    /// Maps the buffer again once the submitted copies out of it have run.
    pub(crate) fn remap(&self) {
        let ready = self.ready.clone();
        self.buffer.slice(..).map_async(wgpu::MapMode::Write, move |r| {
            if r.is_ok() {
                ready.store(true, Ordering::Release);
            }
        });
    }

    /// Writes `bytes` at `offset` of the mapped buffer.
    pub(crate) fn write_bytes(&self, offset: u64, bytes: &[u8]) {
        if let Some(mut view) = self.view(offset, bytes.len() as u64) {
            view.slice(..).copy_from_slice(bytes);
        }
    }

    /// Writes `scalars` (32 bytes each) at `offset` of the mapped buffer.
    pub(crate) fn write_scalars(&self, offset: u64, scalars: Scalars<'_>) {
        if let Some(mut view) = self.view(offset, scalars.len() as u64 * 32) {
            write_scalars(view.slice(..), scalars);
        }
    }

    fn view(&self, offset: u64, len: u64) -> Option<wgpu::BufferViewMut> {
        (len > 0).then(|| {
            self.buffer
                .slice(offset..offset + len)
                .get_mapped_range_mut()
                .expect("a staging buffer is taken mapped")
        })
    }
}

impl GpuContext {
    /// A mapped staging buffer of at least `bytes`: a pooled one that is
    /// mapped now, else a new one (created mapped).
    pub(crate) fn take_staging(&self, bytes: u64) -> Staging {
        let mut pool = self.staging.lock().unwrap();
        let found = pool
            .iter()
            .position(|s| s.buffer.size() >= bytes && s.ready.load(Ordering::Acquire));
        if let Some(i) = found {
            let s = pool.swap_remove(i);
            s.ready.store(false, Ordering::Release);
            return s;
        }
        drop(pool);
        let buffer = self.create_buffer_mapped(
            "staging",
            bytes.div_ceil(GRANULE).max(1) * GRANULE,
            wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            true,
        );
        Staging {
            buffer,
            ready: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Returns a staging buffer whose remap is under way (the largest few are kept).
    pub(crate) fn put_staging(&self, s: Staging) {
        let mut pool = self.staging.lock().unwrap();
        pool.push(s);
        if pool.len() > POOLED {
            pool.sort_by_key(|s| std::cmp::Reverse(s.buffer.size()));
            pool.truncate(POOLED);
        }
    }
}

/// Writes scalars in either form (32 bytes each) into upload memory.
pub(crate) fn write_scalars(mut dst: WriteOnly<'_, [u8]>, scalars: Scalars<'_>) {
    match scalars {
        Scalars::Fr(f) => fr_limbs(dst, f),
        Scalars::Canonical(w) => dst.copy_from_slice(bytemuck::cast_slice(w)),
    }
}

/// Copies the limbs of `scalars` (32 bytes each, little-endian) into `dst`.
fn fr_limbs(dst: WriteOnly<'_, [u8]>, scalars: &[Fr]) {
    // Fixed-size chunks are `Send` (a `WriteOnly` of a slice is not), so
    // each chunk can be filled on its own thread.
    let (chunks, rest) = dst.into_chunks::<CHUNK_BYTES>();
    let chunks: Vec<WriteOnly<'_, [u8; CHUNK_BYTES]>> = chunks.into_iter().collect();
    let whole = chunks.len() * CHUNK;
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        chunks
            .into_par_iter()
            .zip(scalars[..whole].par_chunks(CHUNK))
            .for_each(|(w, c)| fill(w.into(), c));
    }
    #[cfg(target_arch = "wasm32")]
    for (w, c) in chunks.into_iter().zip(scalars[..whole].chunks(CHUNK)) {
        fill(w.into(), c);
    }
    fill(rest, &scalars[whole..]);
}

/// Each scalar's 32 bytes straight into its slot (no intermediate buffer).
fn fill(w: WriteOnly<'_, [u8]>, scalars: &[Fr]) {
    let (slots, _) = w.into_chunks::<32>();
    slots.write_iter(scalars.iter().map(|s| {
        let mut b = [0u8; 32];
        for (i, limb) in s.0 .0.iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&limb.to_le_bytes());
        }
        b
    }));
}
