//! Chained 254-bit limb products by u32 or f32 units timed on the GPU
//! (`msm-cli field-bench --op products`): issue 39's third lever measured
//! at its floor before any field code is written for it.

pub use msm_wgsl::products::ProductStyle;

/// Result of [`crate::GpuContext::limb_products`].
#[derive(Clone, Copy, Debug)]
pub struct ProductRate {
    /// Chained 254-bit products (a chain step each) per second.
    pub products_per_sec_median: f64,
    pub products_per_sec_best: f64,
    pub products_per_sec_worst: f64,
    /// Limb products per second (N^2 a step) at the median.
    pub limb_products_per_sec: f64,
    /// Every chain equalled the CPU twin's.
    pub correct: bool,
}

// Timed with the host's clock and its blocking waits: native only.
#[cfg(not(target_arch = "wasm32"))]
mod native {
    use msm_wgsl::products::{products_module, products_reference, ProductStyle};
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    use super::ProductRate;
    use crate::context::GpuContext;
    use crate::error::MsmError;

    const WG: u32 = 64;

    impl GpuContext {
        /// `invocations` chains of `iters` products each in `style`, timed
        /// over `reps` dispatches after one warm-up (wall clock around submit
        /// and wait), every chain checked against the CPU twin. Inputs are
        /// seeded random limbs, the first chain's all ones (the largest
        /// products and columns).
        pub async fn limb_products(
            &self,
            style: ProductStyle,
            invocations: usize,
            iters: u32,
            reps: usize,
        ) -> Result<ProductRate, MsmError> {
            let (w, n) = (style.limb_bits(), style.limbs());
            let mut rng = ChaCha20Rng::seed_from_u64(39);
            let mut limbs = |k: usize| -> Vec<u32> {
                (0..k * n)
                    .map(|i| {
                        if i < n {
                            (1 << w) - 1
                        } else {
                            rng.next_u32() >> (32 - w)
                        }
                    })
                    .collect()
            };
            let (a, b) = (limbs(invocations), limbs(invocations));
            let module = self.shader_module("limb_products", products_module(style));
            let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("limb_products"),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[("ITERS", f64::from(iters)), ("WG", f64::from(WG))],
                    ..Default::default()
                },
                cache: None,
            });
            let ba = self.storage_init("in_a", &a, false);
            let bb = self.storage_init("in_b", &b, false);
            let out = self.storage_out("out", invocations * n);
            let groups = self.grid(invocations.div_ceil(WG as usize) as u32);
            let times = self.timed_dispatches("limb_products", &pipeline, &[&ba, &bb, &out], groups, reps)?;
            let got = self.read_words(&out, invocations * n).await?;
            let correct = crate::host::install(|| {
                use rayon::prelude::*;
                got.par_chunks_exact(n)
                    .zip(a.par_chunks_exact(n).zip(b.par_chunks_exact(n)))
                    .all(|(g, (x, y))| g == products_reference(style, x, y, iters).as_slice())
            });
            let rate = |t: f64| (invocations as f64) * f64::from(iters) / t;
            let median = rate(times[times.len() / 2]);
            Ok(ProductRate {
                products_per_sec_median: median,
                products_per_sec_best: rate(times[0]),
                products_per_sec_worst: rate(times[times.len() - 1]),
                limb_products_per_sec: median * (n * n) as f64,
                correct,
            })
        }
    }
}
