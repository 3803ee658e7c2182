//! What an MSM hands back to JS: the point in each format, its plan and where
//! the time went.

use ark_bn254::G1Affine;
use ark_ec::{AffineRepr, CurveGroup};
use msm_core::MsmRun;
use wasm_bindgen::prelude::*;

use crate::encoding;

/// One MSM's result point, its plan and where the time went. In a batch
/// every result carries the batch's timings and its first vector's plan.
#[wasm_bindgen]
pub struct MsmResult {
    points: usize,
    run: MsmRun,
}

impl MsmResult {
    pub(crate) fn new(run: MsmRun, points: usize) -> Self {
        MsmResult { points, run }
    }

    fn affine(&self) -> G1Affine {
        self.run.result.into_affine()
    }
}

#[wasm_bindgen]
impl MsmResult {
    /// The point in the arkworks uncompressed format (64 bytes).
    #[wasm_bindgen(getter)]
    pub fn point(&self) -> Vec<u8> {
        encoding::point_arkworks(&self.run.result)
    }

    /// The point as raw little-endian x then y (64 zero bytes for the identity).
    #[wasm_bindgen(getter)]
    pub fn raw(&self) -> Vec<u8> {
        encoding::point_raw(&self.run.result)
    }

    /// Affine x as 0x-prefixed big-endian hex (empty for the identity).
    #[wasm_bindgen(getter)]
    pub fn x(&self) -> String {
        self.affine().x().map(|x| encoding::hex(&x)).unwrap_or_default()
    }

    /// Affine y as 0x-prefixed big-endian hex (empty for the identity).
    #[wasm_bindgen(getter)]
    pub fn y(&self) -> String {
        self.affine().y().map(|y| encoding::hex(&y)).unwrap_or_default()
    }

    #[wasm_bindgen(getter, js_name = isIdentity)]
    pub fn is_identity(&self) -> bool {
        self.affine().is_zero()
    }

    /// Number of points of the MSM.
    #[wasm_bindgen(getter)]
    pub fn points(&self) -> usize {
        self.points
    }

    /// GPU time per pass in ms (order of `passes()`), when `timing` was on and
    /// the context has timestamps.
    #[wasm_bindgen(getter, js_name = gpuPassMs)]
    pub fn gpu_pass_ms(&self) -> Option<Vec<f64>> {
        self.run.timings.gpu_pass_ms.map(|p| p.to_vec())
    }

    /// Scalar conversion and upload, ms.
    #[wasm_bindgen(getter, js_name = uploadMs)]
    pub fn upload_ms(&self) -> f64 {
        self.run.timings.upload_ms
    }

    /// Submit until the window sums were read back, ms.
    #[wasm_bindgen(getter, js_name = gpuWallMs)]
    pub fn gpu_wall_ms(&self) -> f64 {
        self.run.timings.gpu_wall_ms
    }

    /// Horner over the window sums on the CPU, ms.
    #[wasm_bindgen(getter, js_name = hostCombineMs)]
    pub fn host_combine_ms(&self) -> f64 {
        self.run.timings.host_combine_ms
    }

    /// Where the time went, host and GPU (see `MsmTimings` in the types).
    #[wasm_bindgen(getter, unchecked_return_type = "MsmTimings")]
    pub fn timings(&self) -> JsValue {
        let t = &self.run.timings;
        let kernels: serde_json::Map<String, serde_json::Value> = t
            .gpu_kernel_ms
            .iter()
            .map(|(k, ms)| (k.clone(), (*ms).into()))
            .collect();
        crate::js::to_js(&serde_json::json!({
            "prepareMs": t.prepare_ms,
            "uploadMs": t.upload_ms,
            "submitMs": t.submit_ms,
            "waitMs": t.wait_ms,
            "gpuWallMs": t.gpu_wall_ms,
            "hostCombineMs": t.host_combine_ms,
            "gpuSpanMs": t.gpu_span_ms,
            "gpuPassMs": t.gpu_pass_ms,
            "gpuKernelMs": kernels,
        }))
    }

    /// The window width used (0 for an empty MSM).
    #[wasm_bindgen(getter, js_name = windowBits)]
    pub fn window_bits(&self) -> u32 {
        self.run.plan.map_or(0, |p| p.c)
    }

    /// Walker threads of the (first) chunk's plan.
    #[wasm_bindgen(getter, js_name = walkerThreads)]
    pub fn walker_threads(&self) -> u32 {
        self.run.plan.map_or(0, |p| p.threads)
    }
}
