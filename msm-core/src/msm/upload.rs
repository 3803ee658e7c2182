//! Scalars into upload memory as the caller holds them, with no arithmetic:
//! each `Fr`'s four Montgomery limbs (copied in parallel chunks), canonical
//! words or caller bytes (the GPU converts and reduces them in preprocess).
//! A batch's parameters and scalars go into one pooled staging buffer.
//!
//! The staging buffer is mapped memory, mapped again as soon as the GPU has
//! copied out of it, so the next call writes into resident, mapped memory.
//! On the web the writes go straight into the mapping's `ArrayBuffer` (a JS
//! `TypedArray.set` from the caller's array): wgpu's web views would first
//! copy the whole range into wasm memory, reading the mapping back (13 ms
//! per 256 KiB on the H200 under Dawn), and `GPUQueue.writeBuffer` moves
//! 2.6 GB/s there against 9 GB/s for the mapped copy (docs/benchmarks.md).

use ark_bn254::Fr;
use ark_ff::BigInt;
#[cfg(not(target_arch = "wasm32"))]
use wgpu::WriteOnly;

use super::Scalars;
use crate::context::{Scratch, Staging};
use crate::layout::MsmParams;
use crate::passes::Buf;
use crate::error::MsmError;

/// Scalars per parallel chunk.
#[cfg(not(target_arch = "wasm32"))]
const CHUNK: usize = 8192;
#[cfg(not(target_arch = "wasm32"))]
const CHUNK_BYTES: usize = CHUNK * 32;
/// Native: written through wgpu's mapped views (the mapping itself).
#[cfg(not(target_arch = "wasm32"))]
impl Staging {
    /// Writes `bytes` at `offset` of the mapped buffer.
    pub(crate) fn write_bytes(&self, offset: u64, bytes: &[u8]) -> Result<(), MsmError> {
        if let Some(mut view) = self.view(offset, bytes.len() as u64)? {
            view.slice(..).copy_from_slice(bytes);
        }
        Ok(())
    }

    /// Writes `scalars` (32 bytes each) at `offset` of the mapped buffer.
    pub(crate) fn write_scalars(&self, offset: u64, scalars: Scalars<'_>) -> Result<(), MsmError> {
        if let Some(mut view) = self.view(offset, scalars.len() as u64 * 32)? {
            write_scalars(view.slice(..), scalars);
        }
        Ok(())
    }

    /// The mapped range (`None` when empty). A staging buffer is taken
    /// mapped; one that is not was made on a device lost since the call's
    /// check.
    fn view(&self, offset: u64, len: u64) -> Result<Option<wgpu::BufferViewMut>, MsmError> {
        if len == 0 {
            return Ok(None);
        }
        let view = self.buffer.slice(offset..offset + len).get_mapped_range_mut();
        view.map(Some).map_err(|e| unmapped(&e))
    }
}

/// The error of upload memory that cannot be written: wgpu refuses the
/// mapped range of a buffer made on a lost device.
pub(crate) fn unmapped(e: &dyn std::fmt::Display) -> MsmError {
    MsmError::DeviceLost(format!("the upload memory could not be written ({e})"))
}

/// Web: written straight into the mapping's `ArrayBuffer` (wgpu's own web
/// views copy the whole range into wasm memory and back).
#[cfg(target_arch = "wasm32")]
impl Staging {
    pub(crate) fn write_bytes(&self, offset: u64, bytes: &[u8]) -> Result<(), MsmError> {
        if let Some(view) = self.js_range(offset, bytes.len() as u64)? {
            view.copy_from(bytes);
        }
        Ok(())
    }

    pub(crate) fn write_scalars(&self, offset: u64, scalars: Scalars<'_>) -> Result<(), MsmError> {
        let Some(view) = self.js_range(offset, scalars.len() as u64 * 32)? else {
            return Ok(());
        };
        match scalars {
            Scalars::Bytes(b) => return b.copy_into_js(&view),
            Scalars::Canonical(w) => view.copy_from(&w.iter().flat_map(limb_bytes).collect::<Vec<u8>>()),
            Scalars::Fr(f) => view.copy_from(&f.iter().flat_map(limb_bytes).collect::<Vec<u8>>()),
            Scalars::Bls12_381Fr(f) => view.copy_from(&f.iter().flat_map(limb_bytes).collect::<Vec<u8>>()),
        }
        Ok(())
    }

    fn js_range(&self, offset: u64, len: u64) -> Result<Option<js_sys::Uint8Array>, MsmError> {
        let Some(buffer) = self.buffer.as_webgpu().filter(|_| len > 0) else {
            return Ok(None);
        };
        let range = buffer
            .get_mapped_range_with_f64_and_f64(offset as f64, len as f64)
            .map_err(|e| unmapped(&format!("{e:?}")))?;
        Ok(Some(js_sys::Uint8Array::new(&range)))
    }
}

/// Queues a write of `scalars` to `buffer` at `offset`: caller bytes and
/// canonical words as they are, `Fr` limbs through one host copy.
#[cfg(target_arch = "wasm32")]
pub(crate) fn write_scalars_to(
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    offset: u64,
    scalars: Scalars<'_>,
) -> Result<(), MsmError> {
    match scalars {
        Scalars::Bytes(b) => return b.write_to(queue, buffer, offset),
        Scalars::Canonical(w) if !w.is_empty() => {
            queue.write_buffer(buffer, offset, &w.iter().flat_map(limb_bytes).collect::<Vec<u8>>())
        }
        Scalars::Fr(f) if !f.is_empty() => {
            queue.write_buffer(buffer, offset, &f.iter().flat_map(limb_bytes).collect::<Vec<u8>>())
        }
        Scalars::Bls12_381Fr(f) if !f.is_empty() => {
            queue.write_buffer(buffer, offset, &f.iter().flat_map(limb_bytes).collect::<Vec<u8>>())
        }
        _ => {}
    }
    Ok(())
}

/// A scratch's scalars and parameters written through the queue (the
/// path of MSMs submitted job by job and of the diagnostics).
impl Scratch {
    /// Writes a chunk's parameters and scalars into this scratch through
    /// the queue (wgpu stages them; the copies run at the next submission).
    pub(crate) fn write_chunk(&self, queue: &wgpu::Queue, scalars: Scalars<'_>, base_offset: usize) -> Result<(), MsmError> {
        let params = MsmParams {
            base_offset: base_offset as u32,
            scalar_form: scalars.form(),
            ..MsmParams::from(&self.plan)
        };
        self.write_job(queue, &[scalars], &params)
    }

    /// [`Scratch::write_chunk`] for a job's vectors, back to back, with the
    /// job's parameters.
    pub(crate) fn write_job(&self, queue: &wgpu::Queue, vectors: &[Scalars<'_>], params: &MsmParams) -> Result<(), MsmError> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(size) = wgpu::BufferSize::new(vectors.iter().map(|v| v.len() as u64 * 32).sum()) {
            // refused only for a buffer of a device lost since the call's check
            let Some(mut view) = queue.write_buffer_with(self.buf(Buf::Scalars), 0, size) else {
                return Err(unmapped(&"the queue refused the scalars' write"));
            };
            let mut at = 0;
            for v in vectors {
                let len = v.len() * 32;
                write_scalars(view.slice(at..at + len), *v);
                at += len;
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let mut at = 0;
            for v in vectors {
                write_scalars_to(queue, self.buf(Buf::Scalars), at, *v)?;
                at += v.len() as u64 * 32;
            }
        }
        queue.write_buffer(self.buf(Buf::Params), 0, bytemuck::bytes_of(params));
        Ok(())
    }
}

/// Writes scalars in any form (32 bytes each) into mapped upload memory.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn write_scalars(dst: WriteOnly<'_, [u8]>, scalars: Scalars<'_>) {
    match scalars {
        Scalars::Fr(f) => copy_limbs(dst, f),
        Scalars::Bls12_381Fr(f) => copy_limbs(dst, f),
        Scalars::Canonical(w) => copy_limbs(dst, w),
        Scalars::Bytes(b) => b.copy_into(dst),
    }
}

/// 256 bits as four little-endian u64 limbs: `Fr` (its Montgomery form, as
/// arkworks holds it) and `BigInt<4>`.
pub(crate) trait Limbs: Sync {
    fn limbs(&self) -> &[u64; 4];
}

impl Limbs for Fr {
    fn limbs(&self) -> &[u64; 4] {
        &self.0 .0
    }
}

impl Limbs for ark_bls12_381::Fr {
    fn limbs(&self) -> &[u64; 4] {
        &self.0 .0
    }
}

impl Limbs for BigInt<4> {
    fn limbs(&self) -> &[u64; 4] {
        &self.0
    }
}

/// The 32 little-endian bytes of `x`.
pub(crate) fn limb_bytes(x: &impl Limbs) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, limb) in x.limbs().iter().enumerate() {
        b[8 * i..8 * i + 8].copy_from_slice(&limb.to_le_bytes());
    }
    b
}

/// Copies the limbs of `scalars` (32 bytes each, little-endian) into `dst`.
#[cfg(not(target_arch = "wasm32"))]
fn copy_limbs<T: Limbs>(dst: WriteOnly<'_, [u8]>, scalars: &[T]) {
    // Fixed-size chunks are `Send` (a `WriteOnly` of a slice is not), so
    // each chunk can be filled on its own thread.
    let (chunks, rest) = dst.into_chunks::<CHUNK_BYTES>();
    let chunks: Vec<WriteOnly<'_, [u8; CHUNK_BYTES]>> = chunks.into_iter().collect();
    let whole = chunks.len() * CHUNK;
    use rayon::prelude::*;
    crate::host::install(|| {
        chunks
            .into_par_iter()
            .zip(scalars[..whole].par_chunks(CHUNK))
            .for_each(|(w, c)| fill(w.into(), c))
    });
    fill(rest, &scalars[whole..]);
}

/// Each scalar's 32 bytes straight into its slot (no intermediate buffer).
#[cfg(not(target_arch = "wasm32"))]
fn fill<T: Limbs>(w: WriteOnly<'_, [u8]>, scalars: &[T]) {
    let (slots, _) = w.into_chunks::<32>();
    slots.write_iter(scalars.iter().map(limb_bytes));
}
