//! What an MSM hands back to JS: the point in each format, its plan and where
//! the time went.

use ark_ec::{AffineRepr, CurveGroup};
use msm_core::{GpuCurve, MsmRun, MsmTimings};
use wasm_bindgen::prelude::*;

use crate::encoding;

/// One MSM's result point (in any group, encoded once), its plan and where
/// the time went. In a batch every result carries the batch's timings and
/// its first vector's plan.
#[wasm_bindgen]
pub struct MsmResult {
    points: usize,
    point: Vec<u8>,
    raw: Vec<u8>,
    xy: Option<(String, String)>,
    /// The (first) chunk's window width and walker threads.
    plan: Option<(u32, u32)>,
    timings: MsmTimings,
    backend: &'static str,
}

impl MsmResult {
    /// `backend`: "gpu", or "cpu" for a call run by arkworks in wasm while
    /// the context warmed up.
    pub(crate) fn new<C: GpuCurve>(run: MsmRun<C>, points: usize, backend: &'static str) -> Self {
        let affine = run.result.into_affine();
        MsmResult {
            points,
            point: encoding::point_arkworks(&run.result),
            raw: encoding::point_raw(&run.result),
            xy: affine.xy().map(|(x, y)| (encoding::hex(&x), encoding::hex(&y))),
            plan: run.plan.map(|p| (p.c, p.threads)),
            timings: run.timings,
            backend,
        }
    }

    /// The point in the arkworks uncompressed format of its group.
    pub(crate) fn point_bytes(&self) -> &[u8] {
        &self.point
    }
}

#[wasm_bindgen]
impl MsmResult {
    /// The point in the arkworks uncompressed format of its group (64
    /// bytes for BN254's G1).
    #[wasm_bindgen(getter)]
    pub fn point(&self) -> Vec<u8> {
        self.point.clone()
    }

    /// The point in the raw format: x then y, little-endian base-field
    /// elements (all zero bytes for the identity).
    #[wasm_bindgen(getter)]
    pub fn raw(&self) -> Vec<u8> {
        self.raw.clone()
    }

    /// Affine x as 0x-prefixed big-endian hex, over Fq2 (G2) "c0,c1"
    /// (empty for the identity).
    #[wasm_bindgen(getter)]
    pub fn x(&self) -> String {
        self.xy.as_ref().map(|xy| xy.0.clone()).unwrap_or_default()
    }

    /// Affine y as `x` writes it.
    #[wasm_bindgen(getter)]
    pub fn y(&self) -> String {
        self.xy.as_ref().map(|xy| xy.1.clone()).unwrap_or_default()
    }

    #[wasm_bindgen(getter, js_name = isIdentity)]
    pub fn is_identity(&self) -> bool {
        self.xy.is_none()
    }

    /// Where the MSM ran: "gpu", or "cpu" (arkworks in wasm, while the
    /// context's pipelines were compiling; no plan or GPU timings then).
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.backend.to_string()
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
        self.timings.gpu_pass_ms.map(|p| p.to_vec())
    }

    /// Scalar conversion and upload, ms.
    #[wasm_bindgen(getter, js_name = uploadMs)]
    pub fn upload_ms(&self) -> f64 {
        self.timings.upload_ms
    }

    /// Submit until the window sums were read back, ms.
    #[wasm_bindgen(getter, js_name = gpuWallMs)]
    pub fn gpu_wall_ms(&self) -> f64 {
        self.timings.gpu_wall_ms
    }

    /// Horner over the window sums on the CPU, ms.
    #[wasm_bindgen(getter, js_name = hostCombineMs)]
    pub fn host_combine_ms(&self) -> f64 {
        self.timings.host_combine_ms
    }

    /// Where the time went, host and GPU (see `MsmTimings` in the types).
    #[wasm_bindgen(getter, unchecked_return_type = "MsmTimings")]
    pub fn timings(&self) -> JsValue {
        let t = &self.timings;
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
        self.plan.map_or(0, |(c, _)| c)
    }

    /// Walker threads of the (first) chunk's plan.
    #[wasm_bindgen(getter, js_name = walkerThreads)]
    pub fn walker_threads(&self) -> u32 {
        self.plan.map_or(0, |(_, threads)| threads)
    }
}
