//! Resident bases: converted to the GPU's packed Montgomery form and uploaded
//! once, then reused by every MSM against them.

use ark_bn254::G1Affine;
use ark_ec::AffineRepr;

use crate::gpu::GpuContext;
use crate::repr::FieldRepr;

/// A base set resident on one context's device (SoA planes x[], y[] and
/// identity flags).
pub struct Bases {
    pub(crate) n: usize,
    pub(crate) x: wgpu::Buffer,
    pub(crate) y: wgpu::Buffer,
    pub(crate) flags: wgpu::Buffer,
    pub(crate) layout: msm_wgsl::FieldLayout,
}

impl Bases {
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

impl std::fmt::Debug for Bases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bases")
            .field("n", &self.n)
            .field("layout", &self.layout)
            .finish()
    }
}

impl GpuContext {
    /// Converts `points` and uploads them once. Identity points are allowed
    /// (they contribute nothing). Each coordinate plane is one buffer of
    /// n x 32 bytes, so n is bounded by the adapter's largest storage binding
    /// (2^26 points at 2 GiB); wgpu reports a larger set as a device error.
    pub fn upload_bases(&self, points: &[G1Affine]) -> Bases {
        let repr = FieldRepr::new(self.field_layout());
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
        const CHUNK: usize = 4096;
        #[cfg(not(target_arch = "wasm32"))]
        {
            use rayon::prelude::*;
            x.par_chunks_mut(8 * CHUNK)
                .zip(y.par_chunks_mut(8 * CHUNK))
                .zip(points.par_chunks(CHUNK))
                .for_each(|((xs, ys), ps)| convert((xs, ys, ps)));
        }
        #[cfg(target_arch = "wasm32")]
        convert((&mut x, &mut y, points));
        Bases {
            n: points.len(),
            x: self.storage_init("bases.x", &x, false),
            y: self.storage_init("bases.y", &y, false),
            flags: self.storage_init("bases.flags", &flags, false),
            layout: self.field_layout(),
        }
    }
}
