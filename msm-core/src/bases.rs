//! Resident bases: converted to the GPU's packed Montgomery form and uploaded
//! once, then reused by every MSM against them.

use ark_bn254::G1Affine;
use ark_ec::AffineRepr;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::context::GpuContext;
use crate::repr::FieldRepr;

/// Bytes of one packed coordinate (8 words).
const COORD_BYTES: u64 = 32;

/// A base set resident on one context's device, as SoA planes x[], y[] and
/// identity flags. Sets larger than one storage binding are split into parts
/// of consecutive points; an MSM runs each part's points as its own chunk.
pub struct Bases {
    /// Unique per upload: keys the bind groups cached for these buffers.
    pub(crate) id: u64,
    pub(crate) n: usize,
    pub(crate) parts: Vec<BasePart>,
    pub(crate) layout: msm_wgsl::FieldLayout,
}

/// Points `[start, start + len)` of a base set, in buffers of their own.
pub(crate) struct BasePart {
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) x: wgpu::Buffer,
    pub(crate) y: wgpu::Buffer,
    pub(crate) flags: wgpu::Buffer,
}

impl Bases {
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// How many buffer sets hold the points (1 unless a coordinate plane would
    /// exceed the adapter's largest storage binding).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }
}

impl std::fmt::Debug for Bases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bases")
            .field("n", &self.n)
            .field("parts", &self.parts.len())
            .field("layout", &self.layout)
            .finish()
    }
}

impl GpuContext {
    /// The most points one base part may hold: a coordinate plane (32 bytes a
    /// point) must fit one storage binding and one buffer.
    pub fn max_base_part_points(&self) -> usize {
        let limits = self.device.limits();
        let bytes = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        (bytes / COORD_BYTES).max(1) as usize
    }

    /// Converts `points` and uploads them once. Identity points are allowed
    /// (they contribute nothing). A set whose coordinate planes exceed one
    /// storage binding is split into parts that each fit.
    pub fn upload_bases(&self, points: &[G1Affine]) -> Bases {
        self.upload_bases_in_parts(points, self.max_base_part_points())
    }

    /// [`GpuContext::upload_bases`] with at most `part_points` points a part
    /// (clamped to what one binding holds). Smaller parts only cost extra chunks;
    /// this exists to exercise the split on small inputs.
    pub fn upload_bases_in_parts(&self, points: &[G1Affine], part_points: usize) -> Bases {
        let part_points = part_points.clamp(1, self.max_base_part_points());
        let repr = FieldRepr::new(self.field_layout());
        let mut parts = Vec::new();
        let mut start = 0;
        // An empty set still gets one (minimal) part so bindings stay valid.
        loop {
            let chunk = &points[start..(start + part_points).min(points.len())];
            parts.push(self.upload_part(&repr, start, chunk));
            start += chunk.len();
            if start >= points.len() {
                break;
            }
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Bases {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            n: points.len(),
            parts,
            layout: self.field_layout(),
        }
    }

    fn upload_part(&self, repr: &FieldRepr, start: usize, points: &[G1Affine]) -> BasePart {
        let mut x = vec![0u32; points.len() * 8];
        let mut y = vec![0u32; points.len() * 8];
        let flags: Vec<u32> = points.iter().map(|p| u32::from(p.is_zero())).collect();
        let convert = |(xs, ys, ps): (&mut [u32], &mut [u32], &[G1Affine])| {
            for ((xd, yd), p) in xs.chunks_exact_mut(8).zip(ys.chunks_exact_mut(8)).zip(ps) {
                if !p.is_zero() {
                    xd.copy_from_slice(&repr.to_gpu(&p.x));
                    yd.copy_from_slice(&repr.to_gpu(&p.y));
                }
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            use rayon::prelude::*;
            const CHUNK: usize = 4096;
            x.par_chunks_mut(8 * CHUNK)
                .zip(y.par_chunks_mut(8 * CHUNK))
                .zip(points.par_chunks(CHUNK))
                .for_each(|((xs, ys), ps)| convert((xs, ys, ps)));
        }
        #[cfg(target_arch = "wasm32")]
        convert((&mut x, &mut y, points));
        BasePart {
            start,
            len: points.len(),
            x: self.storage_init("bases.x", &x, false),
            y: self.storage_init("bases.y", &y, false),
            flags: self.storage_init("bases.flags", &flags, false),
        }
    }
}
