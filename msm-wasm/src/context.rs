//! The classes JS drives: `MsmContext` (a WebGPU device with its pipelines,
//! for one curve group) and `Bases` (a base set resident on it). Scalars
//! and bases go to the GPU as the caller holds them (a `Uint8Array`
//! straight to `GPUQueue.writeBuffer`); the GPU converts and checks them,
//! so no call does per-element work in wasm, in any group. Every fallible
//! call rejects with a message; nothing panics across the boundary.

use std::cell::RefCell;
use std::rc::Rc;

use msm_core::{BaseFormat, Curve, GpuContext, HostBytes, KnobOverrides, MsmConfig, MsmError};
use wasm_bindgen::prelude::*;

use crate::bases::{self, cpu_msm_group, msm_group, on_host, points_start, prefix, upload_group, Bases};
use crate::encoding::{self, body_start};
use crate::js::{from_js, js_error, to_js};
use crate::options::{BasesOptions, ContextOptions, MsmOptions};
use crate::result::MsmResult;
use crate::warm::WarmUp;

/// A WebGPU device with the MSM pipelines, compiled in the background from
/// creation (small calls run on the CPU until theirs are ready) and cached.
/// Create one and reuse it.
#[wasm_bindgen]
pub struct MsmContext {
    pub(crate) ctx: Rc<GpuContext>,
    /// The knobs the caller fixed (over the browser's defaults); the rest
    /// follow the size.
    pub(crate) knobs: RefCell<KnobOverrides>,
    warm: Rc<WarmUp>,
}

impl Drop for MsmContext {
    fn drop(&mut self) {
        self.warm.stop();
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct AdapterDescription {
    name: String,
    backend: String,
    device_type: String,
    driver: String,
    adapter_class: &'static str,
    field_layout: String,
    field_code: String,
    inversion: String,
    reduce: &'static str,
    timestamps: bool,
    software: bool,
}

#[wasm_bindgen]
impl MsmContext {
    /// Requests a WebGPU adapter and device (rejects when the browser has no
    /// WebGPU or refuses a device).
    pub async fn create(
        #[wasm_bindgen(unchecked_optional_param_type = "ContextOptions")] options: JsValue,
    ) -> Result<MsmContext, JsError> {
        // a function does not survive `from_js`'s JSON: read it first
        let on_progress = js_sys::Reflect::get(&options, &"onProgress".into())
            .ok()
            .filter(|f| !f.is_undefined() && !f.is_null());
        let on_progress = match on_progress.map(|f| f.dyn_into::<js_sys::Function>()) {
            Some(Ok(f)) => Some(f),
            Some(Err(_)) => return Err(js_error("ContextOptions: onProgress: expected a function")),
            None => None,
        };
        let options: ContextOptions = from_js(options, "ContextOptions")?;
        let core = options.to_core().map_err(js_error)?;
        let ctx = Rc::new(GpuContext::new(&core).await.map_err(js_error)?);
        let knobs = core.knobs;
        let (background, max_points, cpu_max_points) = options.warm_up(ctx.is_software());
        let warm = WarmUp::new(knobs.clone(), max_points, cpu_max_points, background, on_progress);
        warm.start(ctx.clone());
        Ok(MsmContext {
            ctx,
            knobs: RefCell::new(knobs),
            warm,
        })
    }

    /// Resolves once every pipeline of the context's knobs is compiled for
    /// MSMs up to `warmUpMaxPoints` (compiling what the background has not
    /// yet); rejects when a compile fails. Calls after it run on the GPU.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn ready(&self) -> js_sys::Promise {
        let (ctx, warm) = (self.ctx.clone(), self.warm.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            warm.finish(&ctx).await.map_err(|e| JsValue::from(js_error(e)))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Where the warm-up stands: `{ done, total, ready, failed }` (steps:
    /// the bases kernels, then one per size class).
    #[wasm_bindgen(getter, js_name = warmUpProgress, unchecked_return_type = "WarmUpProgress")]
    pub fn warm_up_progress(&self) -> JsValue {
        to_js(&self.warm.progress())
    }

    /// The adapter and how this context uses it.
    #[wasm_bindgen(getter, unchecked_return_type = "AdapterDescription")]
    pub fn adapter(&self) -> JsValue {
        let info = self.ctx.adapter_info();
        to_js(&AdapterDescription {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            adapter_class: self.ctx.adapter_class().name(),
            field_layout: self.ctx.field_layout().to_string(),
            field_code: self.ctx.field_code().to_string(),
            inversion: self.ctx.field_options().inversion.to_string(),
            reduce: if self.ctx.reduces_on_host(&self.config_for(1)) {
                "host"
            } else {
                "gpu"
            },
            timestamps: self.ctx.has_timestamps(),
            software: self.ctx.is_software(),
        })
    }

    /// The limits of this context's device, as the planner sees them.
    #[wasm_bindgen(getter, unchecked_return_type = "DeviceLimits")]
    pub fn limits(&self) -> JsValue {
        let l = self.ctx.limits();
        let limits = serde_json::json!({
            "maxStorageBufferBindingSize": l.max_storage_buffer_binding_size,
            "maxBufferSize": l.max_buffer_size,
            "maxComputeWorkgroupStorageSize": l.max_compute_workgroup_storage_size,
            "maxComputeInvocationsPerWorkgroup": l.max_compute_invocations_per_workgroup,
        });
        to_js(&limits)
    }

    /// Every knob this context's small MSMs use by default (`configFor`
    /// says a size's: from 2^18 points a GPU's may differ).
    #[wasm_bindgen(getter, unchecked_return_type = "MsmOptions")]
    pub fn config(&self) -> JsValue {
        to_js(&MsmOptions::from_config(&self.config_for(1)))
    }

    /// Every knob an MSM of `points` points uses by default: the knobs the
    /// context was given or `setConfig` set, the rest this size's defaults.
    #[wasm_bindgen(js_name = configFor, unchecked_return_type = "MsmOptions")]
    pub fn config_for_js(&self, points: usize) -> JsValue {
        to_js(&MsmOptions::from_config(&self.config_for(points)))
    }

    /// Changes the default knobs (keys left out keep their values; a knob
    /// set here holds at every size).
    #[wasm_bindgen(js_name = setConfig)]
    pub fn set_config(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MsmOptions")] options: JsValue,
    ) -> Result<(), JsError> {
        let options: MsmOptions = from_js(options, "MsmOptions")?;
        options.give(&mut self.knobs.borrow_mut()).map_err(js_error)
    }

    /// Uploads bases of this context's group given in the arkworks
    /// uncompressed format (`pointBytes` a point: 64 for BN254's G1,
    /// optionally with arkworks' 8-byte `Vec` length in front), once. BN254
    /// G1's are converted and checked on the GPU, other groups' in wasm; the
    /// promise rejects naming the first point that is not on the curve or
    /// not in the one encoding arkworks writes (subgroup membership is the
    /// caller's). `options.tableBits` also builds the set's table of shifted
    /// bases (every window into one row of buckets: faster MSMs for about
    /// 256 / c times the bases' GPU memory).
    #[wasm_bindgen(js_name = uploadBases, unchecked_return_type = "Promise<Bases>")]
    pub fn upload_bases(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BasesOptions")] options: JsValue,
    ) -> js_sys::Promise {
        self.upload(bytes, options, BaseFormat::Arkworks, "bases")
    }

    /// Uploads bases given as raw little-endian coordinates (x then y, each
    /// base-field element little-endian, Fq2 as c0 then c1; the identity as
    /// zero bytes), once; `options` as for `uploadBases`.
    #[wasm_bindgen(js_name = uploadBasesRaw, unchecked_return_type = "Promise<Bases>")]
    pub fn upload_bases_raw(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BasesOptions")] options: JsValue,
    ) -> js_sys::Promise {
        self.upload(bytes, options, BaseFormat::Raw, "raw bases")
    }

    /// Uploads bases in ffjavascript's layout (snarkjs's `.zkey` sections
    /// and the bases of its `multiExpAffine`): as `uploadBasesRaw`, each
    /// base-field element in Montgomery form (R = 2^256 for BN254,
    /// 2^384 for BLS12-381), converted and checked on the GPU; `options`
    /// as for `uploadBases`.
    #[wasm_bindgen(js_name = uploadBasesMontgomery, unchecked_return_type = "Promise<Bases>")]
    pub fn upload_bases_montgomery(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "BasesOptions")] options: JsValue,
    ) -> js_sys::Promise {
        self.upload(bytes, options, BaseFormat::Montgomery, "Montgomery bases")
    }

    fn upload(&self, bytes: JsValue, options: JsValue, format: BaseFormat, what: &'static str) -> js_sys::Promise {
        let ctx = self.ctx.clone();
        let table = from_js::<BasesOptions>(options, "BasesOptions")
            .and_then(|o| o.table().map_err(|e| js_error(format!("BasesOptions: {e}"))));
        // While the warm-up runs, a set small enough for the CPU is decoded
        // there too, and goes to the GPU now only if that compiles nothing.
        let host_copy = self.warm.cpu_allowed() && matches!(table, Ok(None));
        let cpu_max = self.warm.cpu_max_points();
        wasm_bindgen_futures::future_to_promise(async move {
            let table = table.map_err(JsValue::from)?;
            let array = typed_array(bytes, what)?;
            let curve = ctx.curve();
            let all = HostBytes::js(&array);
            let start = for_group!(curve, points_start(all, format, what))?;
            let points = (all.len() - start) / curve.point_bytes();
            if host_copy && points <= cpu_max {
                let gpu = if ctx.bases_are_warm() {
                    Some(for_group!(
                        curve,
                        upload_group(&ctx, all.range(start..all.len()), format, None, what).await
                    )?)
                } else {
                    None
                };
                return Ok(for_group!(curve, on_host(&array, format, what, gpu))?.into());
            }
            let set = for_group!(
                curve,
                upload_group(&ctx, all.range(start..all.len()), format, table, what).await
            )?;
            Ok(bases::on_gpu(curve, set).into())
        })
    }

    /// The MSM of `bases` and `scalars` (32 little-endian bytes each, any
    /// 256-bit value, taken mod r; optionally with arkworks' 8-byte `Vec`
    /// length in front). The bytes go to the GPU as they are: keep the array
    /// unchanged until the promise settles. `options` overrides this
    /// context's knobs for this call only.
    #[wasm_bindgen(unchecked_return_type = "Promise<MsmResult>")]
    pub fn msm(
        &self,
        bases: &Bases,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] scalars: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "MsmOptions")] options: JsValue,
    ) -> js_sys::Promise {
        let prepared = self.prepare_batch(bases, vec![scalars], options, false);
        let (ctx, cpu) = (self.ctx.clone(), self.runs_on_cpu(&prepared));
        wasm_bindgen_futures::future_to_promise(async move {
            let results = run(&ctx, prepared, cpu).await?;
            Ok(results.into_iter().next().expect("one result").into())
        })
    }

    /// The MSMs of `bases` with each scalar vector (bytes as for `msm`), in
    /// one GPU submission; the results come in the vectors' order. A vector
    /// shorter than the bases uses the first bases (a lower-degree polynomial
    /// over the same SRS); an empty one gives the identity; a longer one
    /// rejects the whole batch, naming the vector and both lengths.
    #[wasm_bindgen(js_name = msmBatch, unchecked_return_type = "Promise<MsmResult[]>")]
    pub fn msm_batch(
        &self,
        bases: &Bases,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] vectors: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "MsmOptions")] options: JsValue,
    ) -> js_sys::Promise {
        let prepared = if js_sys::Array::is_array(&vectors) {
            self.prepare_batch(bases, js_sys::Array::from(&vectors).iter().collect(), options, true)
        } else {
            Err(js_error("msmBatch: expected an array of Uint8Array scalar vectors"))
        };
        let (ctx, cpu) = (self.ctx.clone(), self.runs_on_cpu(&prepared));
        wasm_bindgen_futures::future_to_promise(async move {
            let results = run(&ctx, prepared, cpu).await?;
            let array = js_sys::Array::new();
            for r in results {
                array.push(&r.into());
            }
            Ok(array.into())
        })
    }

    /// Checks every vector's type and length here (no byte is read beyond a
    /// length prefix), so that a mistake names its vector.
    fn prepare_batch(
        &self,
        bases: &Bases,
        vectors: Vec<JsValue>,
        options: JsValue,
        batch: bool,
    ) -> Result<Prepared, JsError> {
        let mut out = Vec::with_capacity(vectors.len());
        let mut lens = Vec::with_capacity(vectors.len());
        for (i, v) in vectors.into_iter().enumerate() {
            let name = if batch {
                format!("scalar vector {i}")
            } else {
                "scalars".to_string()
            };
            let array = typed_array(v, &name)?;
            let all = HostBytes::js(&array);
            let start = body_start(all.len(), encoding::SCALAR_BYTES, || prefix(&all), &name).map_err(js_error)?;
            let n = (all.len() - start) / encoding::SCALAR_BYTES;
            if n > bases.inner.len() {
                let e = MsmError::LengthMismatch {
                    bases: bases.inner.len(),
                    scalars: n,
                };
                return Err(js_error(format!("{name}: {e}")));
            }
            out.push((array, start));
            lens.push(n);
        }
        let config = self.call_config(options, &lens)?;
        Ok((bases.inner.clone(), out, config))
    }

    /// Whether a prepared call runs on the CPU: while the warm-up runs, for
    /// a small call with the context's knobs on bases with a CPU copy,
    /// unless the GPU would wait on no compile. Decided when the call is
    /// made, so a caller that read `warmUpProgress` knows where it runs.
    fn runs_on_cpu(&self, prepared: &Result<Prepared, JsError>) -> bool {
        let Ok((bases, vectors, config)) = prepared else {
            return false;
        };
        let lens: Vec<usize> = vectors
            .iter()
            .map(|(a, start)| (a.length() as usize - start) / encoding::SCALAR_BYTES)
            .collect();
        let n = lens.iter().copied().max().unwrap_or(0);
        if !self.warm.cpu_allowed() {
            bases.drop_host();
            return false;
        }
        let gpu_ready = (bases.is_on_gpu() || self.ctx.bases_are_warm()) && self.ctx.is_warm(config, n);
        let warmed = *config == self.ctx.config_for_batch_with(self.warm.knobs(), &lens);
        bases.host().is_some() && n <= self.warm.cpu_max_points() && warmed && !gpu_ready
    }

    /// The curve group this context runs: `{ curve, group }`.
    #[wasm_bindgen(getter, unchecked_return_type = "GroupOptions")]
    pub fn group(&self) -> JsValue {
        to_js(&group_description(self.ctx.curve()))
    }

    /// Bytes of one point of this context's group in `uploadBases`' formats.
    #[wasm_bindgen(getter, js_name = pointBytes)]
    pub fn point_bytes(&self) -> usize {
        self.ctx.curve().point_bytes()
    }

    /// The knobs of one call of vectors of these lengths (msm-core's
    /// checks, the owner of the bases among them, run when the call starts).
    fn call_config(&self, options: JsValue, lens: &[usize]) -> Result<MsmConfig, JsError> {
        let options: MsmOptions = from_js(options, "MsmOptions")?;
        let base = self.ctx.config_for_batch_with(&self.knobs.borrow(), lens);
        options.apply(&base).map_err(js_error)
    }

    /// The knobs of an MSM of `n` points without a call's own.
    pub(crate) fn config_for(&self, n: usize) -> MsmConfig {
        self.ctx.config_for_with(&self.knobs.borrow(), n)
    }
}

/// `value` as a `Uint8Array`, or an error naming `what`.
fn typed_array(value: JsValue, what: &str) -> Result<js_sys::Uint8Array, JsError> {
    value
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| js_error(format!("{what}: expected a Uint8Array")))
}

/// Runs a prepared call on the CPU (arkworks in wasm) or the GPU.
async fn run(ctx: &GpuContext, prepared: Result<Prepared, JsError>, cpu: bool) -> Result<Vec<MsmResult>, JsValue> {
    let (bases, vectors, config) = prepared.map_err(JsValue::from)?;
    let curve = bases.curve();
    if let (true, Some(host)) = (cpu, bases.host()) {
        return for_group!(curve, cpu_msm_group(&host, &vectors));
    }
    let set = bases.on_gpu(ctx).await?;
    for_group!(curve, msm_group(ctx, &set, &vectors, &config).await)
}

/// An MSM batch's checked inputs: the bases, each vector's array with where
/// its scalars begin (after a length prefix), the knobs.
type Prepared = (Rc<bases::Inner>, Vec<(js_sys::Uint8Array, usize)>, MsmConfig);

/// `{ curve, group }` of a group.
pub(crate) fn group_description(curve: Curve) -> serde_json::Value {
    let (name, group) = match curve {
        Curve::Bn254G1 => ("bn254", "g1"),
        Curve::Bls12_381G1 => ("bls12-381", "g1"),
        Curve::Bn254G2 => ("bn254", "g2"),
        Curve::Bls12_381G2 => ("bls12-381", "g2"),
    };
    serde_json::json!({ "curve": name, "group": group })
}
