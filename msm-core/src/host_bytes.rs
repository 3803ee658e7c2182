//! Bytes the caller holds, written to the GPU as they are: a Rust slice, or
//! on the web a JS `Uint8Array`, which goes to `GPUQueue.writeBuffer` with no
//! copy through wasm memory and no per-element work.

use std::ops::Range;

use crate::error::MsmError;

#[cfg(target_arch = "wasm32")]
fn unreadable() -> MsmError {
    MsmError::InvalidInput(
        "the input array could not be read (was its buffer transferred or resized during the call?)".into(),
    )
}

/// Where the bytes live.
#[derive(Clone, Copy, Debug)]
enum Source<'a> {
    Slice(&'a [u8]),
    #[cfg(target_arch = "wasm32")]
    Js(&'a js_sys::Uint8Array),
}

/// A byte range of caller memory (see the module docs). Cheap to copy and to
/// slice; nothing is read until it is written to the GPU.
#[derive(Clone, Copy, Debug)]
pub struct HostBytes<'a> {
    src: Source<'a>,
    start: usize,
    len: usize,
}

impl<'a> HostBytes<'a> {
    /// Bytes in Rust memory.
    pub fn slice(bytes: &'a [u8]) -> Self {
        HostBytes {
            src: Source::Slice(bytes),
            start: 0,
            len: bytes.len(),
        }
    }

    /// Bytes of a JS typed array (web only).
    #[cfg(target_arch = "wasm32")]
    pub fn js(array: &'a js_sys::Uint8Array) -> Self {
        HostBytes {
            src: Source::Js(array),
            start: 0,
            len: array.length() as usize,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes in `r` (relative to this range).
    pub fn range(&self, r: Range<usize>) -> HostBytes<'a> {
        assert!(r.start <= r.end && r.end <= self.len, "byte range out of bounds");
        HostBytes {
            src: self.src,
            start: self.start + r.start,
            len: r.end - r.start,
        }
    }

    /// A copy of the bytes in `r` (for the few bytes a check reads: a length
    /// prefix, one rejected item).
    pub fn read(&self, r: Range<usize>) -> Vec<u8> {
        let b = self.range(r);
        match b.src {
            Source::Slice(s) => s[b.start..b.start + b.len].to_vec(),
            #[cfg(target_arch = "wasm32")]
            Source::Js(a) => a.subarray(b.start as u32, (b.start + b.len) as u32).to_vec(),
        }
    }

    /// Queues a write of these bytes to `buffer` at `offset` (runs before
    /// the next submission). The length must be a multiple of 4. Fails only
    /// on the web, when the JS array can no longer be read (its buffer was
    /// transferred or shrunk while the call was under way).
    pub(crate) fn write_to(&self, queue: &wgpu::Queue, buffer: &wgpu::Buffer, offset: u64) -> Result<(), MsmError> {
        if self.len == 0 {
            return Ok(());
        }
        match self.src {
            Source::Slice(s) => queue.write_buffer(buffer, offset, &s[self.start..self.start + self.len]),
            #[cfg(target_arch = "wasm32")]
            Source::Js(a) => {
                if (a.length() as usize) < self.start + self.len {
                    return Err(unreadable());
                }
                match (queue.as_webgpu(), buffer.as_webgpu()) {
                    (Some(q), Some(b)) => q
                        .write_buffer_with_f64_and_u8_array_and_f64_and_f64(
                            b,
                            offset as f64,
                            a,
                            self.start as f64,
                            self.len as f64,
                        )
                        .map_err(|_| unreadable())?,
                    // Not the WebGPU backend (never on wasm32): through a copy.
                    _ => queue.write_buffer(buffer, offset, &self.read(0..self.len)),
                }
            }
        }
        Ok(())
    }

    /// Copies the bytes into `dst` (a mapped range of the same length), in
    /// JS: no pass through wasm memory.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn copy_into_js(&self, dst: &js_sys::Uint8Array) -> Result<(), MsmError> {
        match self.src {
            Source::Slice(s) => dst.copy_from(&s[self.start..self.start + self.len]),
            Source::Js(a) => {
                if (a.length() as usize) < self.start + self.len {
                    return Err(unreadable());
                }
                dst.set(&a.subarray(self.start as u32, (self.start + self.len) as u32), 0);
            }
        }
        Ok(())
    }

    /// Copies the bytes into `dst` (a mapped range of the same length).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn copy_into(&self, mut dst: wgpu::WriteOnly<'_, [u8]>) {
        match self.src {
            Source::Slice(s) => dst.copy_from_slice(&s[self.start..self.start + self.len]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compose() {
        let data: Vec<u8> = (0..100).collect();
        let b = HostBytes::slice(&data);
        let r = b.range(10..60).range(5..15);
        assert_eq!(r.len(), 10);
        assert_eq!(r.read(0..10), (15..25).collect::<Vec<u8>>());
        assert_eq!(r.read(2..4), vec![17, 18]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn range_past_the_end_panics() {
        HostBytes::slice(&[0u8; 8]).range(4..9);
    }
}
