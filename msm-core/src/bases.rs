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
    /// (they contribute nothing).
    pub fn upload_bases(&self, points: &[G1Affine]) -> Bases {
        let repr = FieldRepr::new(self.field_layout());
        let mut x = Vec::with_capacity(points.len() * 8);
        let mut y = Vec::with_capacity(points.len() * 8);
        let mut flags = Vec::with_capacity(points.len());
        for p in points {
            if p.is_zero() {
                x.extend([0u32; 8]);
                y.extend([0u32; 8]);
                flags.push(1);
            } else {
                x.extend(repr.to_gpu(&p.x));
                y.extend(repr.to_gpu(&p.y));
                flags.push(0);
            }
        }
        Bases {
            n: points.len(),
            x: self.storage_init("bases.x", &x, false),
            y: self.storage_init("bases.y", &y, false),
            flags: self.storage_init("bases.flags", &flags, false),
            layout: self.field_layout(),
        }
    }
}
