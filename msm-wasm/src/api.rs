//! The classes and functions JS sees. Every fallible call returns a JS
//! exception (or a rejected Promise) with a message; nothing panics across the
//! boundary.

use std::cell::RefCell;
use std::rc::Rc;

use ark_bn254::{Fr, G1Affine};
use ark_ec::AffineRepr;
use msm_core::{GpuContext, MsmConfig, MsmRun};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use crate::encoding;
use crate::options::{ContextOptions, MsmOptions};
use crate::result::MsmResult;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/**
 * Knobs of an MSM; keys left out keep the context's values. Keys are the
 * camelCase (or snake_case) knob names; values may also be given as strings
 * (as URL parameters are), "auto" for automatic choices. See docs/design.md.
 */
export interface MsmOptions {
  /** Window width in bits (2..=20); default: chosen from the input size. */
  windowBits?: number | "auto";
  /** Stream-walker threads per workgroup (default 128, at most 256 on WebGPU). */
  walkerTpb?: number;
  /** Where the walker keeps prefix products (default "private"). */
  walkerPrefMem?: "private" | "workgroup";
  /** Walker slots per thread, 1..=16 (default 4); a workgroup's slots share one inversion. */
  walkerSlots?: number;
  /** Keep dx for the inverse pass (default true). */
  walkerCacheDx?: boolean;
  /** Fuse the walker's inverse and peel passes (default false). */
  walkerFused?: boolean;
  /** Walker threads; default: planned from the input size. */
  walkerThreads?: number | "auto";
  /** Walker tasks: "equal" shares (default) or aligned to "buckets". */
  walkerSplit?: "equal" | "buckets";
  /** Per-pass GPU timings in the result, where timestamp-query exists (default false). */
  timing?: boolean;
  /** Split MSMs into chunks of at most this many points. */
  maxChunkPoints?: number;
  /** Where buckets become window sums (default "auto": the GPU, the CPU on SwiftShader). */
  reduce?: "auto" | "gpu" | "host";
}

export interface ContextOptions {
  /** Field limb layout; default "13x20" (WebGPU has no 64-bit integers). */
  fieldLayout?: "13x20" | "16x16" | "32x8-int64";
  /** Field multiplication code; default "looped" on SwiftShader, else "unrolled". */
  fieldCode?: "unrolled" | "looped";
  /** Field inversion; default "gcd" (binary GCD), "fermat" under a loop cap. */
  inversion?: "fermat" | "gcd";
  /** Request timestamp-query when the adapter has it (default true). */
  timestamps?: boolean;
  /** Default knobs of this context's MSMs. */
  config?: MsmOptions;
}

export interface AdapterDescription {
  name: string;
  backend: string;
  deviceType: string;
  driver: string;
  fieldLayout: string;
  fieldCode: "unrolled" | "looped";
  /** Per-pass GPU timings are available. */
  timestamps: boolean;
  /** A CPU implementation of WebGPU (e.g. SwiftShader): timings are not a GPU's. */
  software: boolean;
}
"#;

fn js_error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// `value` as `T`; `undefined` and `null` give `T::default()`. Goes through
/// JSON so that serde sees every key and refuses unknown ones (a misspelt knob
/// must not be ignored).
fn from_js<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    let json = js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| js_error(format!("{what}: expected a plain object")))?;
    serde_json::from_str(&json).map_err(|e| js_error(format!("{what}: {e}")))
}

fn to_js<T: serde::Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|s| js_sys::JSON::parse(&s).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

/// A WebGPU device with the MSM pipelines compiled on first use and cached.
/// Create one and reuse it: the first MSM of each knob setting compiles shaders.
#[wasm_bindgen]
pub struct MsmContext {
    ctx: Rc<GpuContext>,
    config: RefCell<MsmConfig>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct AdapterDescription {
    name: String,
    backend: String,
    device_type: String,
    driver: String,
    field_layout: String,
    field_code: String,
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
        let options: ContextOptions = from_js(options, "ContextOptions")?;
        let core = options.to_core().map_err(js_error)?;
        let config = core.config.clone();
        let ctx = GpuContext::new(&core).await.map_err(js_error)?;
        Ok(MsmContext {
            ctx: Rc::new(ctx),
            config: RefCell::new(config),
        })
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
            field_layout: self.ctx.field_layout().to_string(),
            field_code: format!("{:?}", self.ctx.field_code()).to_lowercase(),
            timestamps: self.ctx.has_timestamps(),
            software: self.ctx.is_software(),
        })
    }

    /// Every knob this context's MSMs use by default.
    #[wasm_bindgen(getter, unchecked_return_type = "MsmOptions")]
    pub fn config(&self) -> JsValue {
        to_js(&MsmOptions::from_config(&self.config.borrow()))
    }

    /// Changes the default knobs (keys left out keep their values).
    #[wasm_bindgen(js_name = setConfig)]
    pub fn set_config(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MsmOptions")] options: JsValue,
    ) -> Result<(), JsError> {
        let options: MsmOptions = from_js(options, "MsmOptions")?;
        let config = options.apply(&self.config.borrow()).map_err(js_error)?;
        *self.config.borrow_mut() = config;
        Ok(())
    }

    /// Uploads bases given in the arkworks uncompressed format (64 bytes a
    /// point, optionally with arkworks' 8-byte `Vec` length in front), once.
    #[wasm_bindgen(js_name = uploadBases)]
    pub fn upload_bases(&self, bytes: &[u8]) -> Result<Bases, JsError> {
        let points = encoding::bases_arkworks(bytes).map_err(js_error)?;
        Ok(self.upload(&points))
    }

    /// Uploads bases given as raw little-endian coordinates (x then y, 32
    /// bytes each; the identity as 64 zero bytes), once.
    #[wasm_bindgen(js_name = uploadBasesRaw)]
    pub fn upload_bases_raw(&self, bytes: &[u8]) -> Result<Bases, JsError> {
        let points = encoding::bases_raw(bytes).map_err(js_error)?;
        Ok(self.upload(&points))
    }

    fn upload(&self, points: &[G1Affine]) -> Bases {
        Bases {
            inner: Rc::new(self.ctx.upload_bases(points)),
            owner: Rc::as_ptr(&self.ctx) as usize,
        }
    }

    /// The MSM of `bases` and `scalars` (32 little-endian bytes each, below the
    /// group order; optionally with arkworks' 8-byte `Vec` length in front).
    /// `options` overrides this context's knobs for this call only.
    #[wasm_bindgen(unchecked_return_type = "Promise<MsmResult>")]
    pub fn msm(
        &self,
        bases: &Bases,
        scalars: &[u8],
        #[wasm_bindgen(unchecked_optional_param_type = "MsmOptions")] options: JsValue,
    ) -> js_sys::Promise {
        let prepared = self.prepare(bases, scalars, options);
        let ctx = self.ctx.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (bases, scalars, config) = prepared.map_err(JsValue::from)?;
            let run = ctx
                .msm_scalars_with(&bases, msm_core::Scalars::Canonical(&scalars), &config)
                .await
                .map_err(|e| JsValue::from(js_error(e)))?;
            Ok(MsmResult::new(run, scalars.len()).into())
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
        let prepared = self.prepare_batch(bases, &vectors, options);
        let ctx = self.ctx.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (bases, vectors, config) = prepared.map_err(JsValue::from)?;
            let scalars: Vec<_> = vectors.iter().map(|v| msm_core::Scalars::Canonical(v)).collect();
            let run = ctx
                .msm_batch_with(&bases, &scalars, &config)
                .await
                .map_err(|e| JsValue::from(js_error(e)))?;
            let results = js_sys::Array::new();
            for (result, v) in run.results.into_iter().zip(&vectors) {
                let run = MsmRun {
                    result,
                    plan: run.plan,
                    timings: run.timings.clone(),
                };
                results.push(&MsmResult::new(run, v.len()).into());
            }
            Ok(results.into())
        })
    }

    fn prepare(&self, bases: &Bases, scalars: &[u8], options: JsValue) -> Result<Prepared, JsError> {
        let config = self.call_config(bases, options)?;
        let scalars = encoding::scalar_words(scalars).map_err(js_error)?;
        Ok((bases.inner.clone(), scalars, config))
    }

    /// Checks every vector here, so that a mistake names its vector.
    fn prepare_batch(&self, bases: &Bases, vectors: &JsValue, options: JsValue) -> Result<PreparedBatch, JsError> {
        let config = self.call_config(bases, options)?;
        if !js_sys::Array::is_array(vectors) {
            return Err(js_error("msmBatch: expected an array of Uint8Array scalar vectors"));
        }
        let mut words = Vec::new();
        for (i, v) in js_sys::Array::from(vectors).iter().enumerate() {
            let bytes = v
                .dyn_into::<js_sys::Uint8Array>()
                .map_err(|_| js_error(format!("scalar vector {i}: expected a Uint8Array")))?;
            let v = encoding::scalar_words(&bytes.to_vec()).map_err(|e| js_error(format!("scalar vector {i}: {e}")))?;
            if v.len() > bases.length() {
                let e = msm_core::MsmError::LengthMismatch {
                    bases: bases.length(),
                    scalars: v.len(),
                };
                return Err(js_error(format!("scalar vector {i}: {e}")));
            }
            words.push(v);
        }
        Ok((bases.inner.clone(), words, config))
    }

    /// The knobs of one call on `bases` (which must be this context's).
    fn call_config(&self, bases: &Bases, options: JsValue) -> Result<MsmConfig, JsError> {
        if bases.owner != Rc::as_ptr(&self.ctx) as usize {
            return Err(js_error("these bases were uploaded through another MsmContext"));
        }
        let options: MsmOptions = from_js(options, "MsmOptions")?;
        options.apply(&self.config.borrow()).map_err(js_error)
    }
}

/// An MSM's checked inputs: the bases, the scalars as canonical words, the knobs.
type Prepared = (Rc<msm_core::Bases>, Vec<[u32; 8]>, MsmConfig);
/// A batch's checked inputs: as [`Prepared`] with one word vector per MSM.
type PreparedBatch = (Rc<msm_core::Bases>, Vec<Vec<[u32; 8]>>, MsmConfig);

/// A base set resident on one context's GPU.
#[wasm_bindgen]
pub struct Bases {
    inner: Rc<msm_core::Bases>,
    owner: usize,
}

#[wasm_bindgen]
impl Bases {
    /// Number of points.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.len()
    }
}

/// Names of the four passes, the order of `MsmResult.gpuPassMs`.
#[wasm_bindgen]
pub fn passes() -> Vec<String> {
    msm_core::Pass::ALL.iter().map(|p| p.name().to_string()).collect()
}

/// The most points `sampleInputs` makes (memory of a wasm instance).
const MAX_SAMPLE_POINTS: usize = 1 << 22;

/// Seeded inputs for demos and tests: distinct bases and uniform scalars.
#[wasm_bindgen]
pub struct SampleInputs {
    points: Vec<G1Affine>,
    scalars: Vec<Fr>,
}

#[wasm_bindgen]
impl SampleInputs {
    /// `n` points and scalars from `seed` (the same as `msm-cli gen` makes).
    #[wasm_bindgen(constructor)]
    pub fn new(n: usize, seed: u64) -> Result<SampleInputs, JsError> {
        if n > MAX_SAMPLE_POINTS {
            return Err(js_error(format!("sample inputs: n = {n} is above {MAX_SAMPLE_POINTS}")));
        }
        let (points, scalars) = msm_core::sample::inputs(n, seed);
        Ok(SampleInputs { points, scalars })
    }

    /// The bases in the arkworks uncompressed format.
    #[wasm_bindgen(getter)]
    pub fn bases(&self) -> Vec<u8> {
        encoding::points_arkworks(&self.points)
    }

    /// The bases as raw little-endian coordinates.
    #[wasm_bindgen(getter, js_name = basesRaw)]
    pub fn bases_raw(&self) -> Vec<u8> {
        self.points
            .iter()
            .flat_map(|p| encoding::point_raw(&p.into_group()))
            .collect()
    }

    /// The scalars, 32 little-endian bytes each.
    #[wasm_bindgen(getter)]
    pub fn scalars(&self) -> Vec<u8> {
        encoding::scalars_bytes(&self.scalars)
    }
}

/// The same MSM computed by arkworks on the CPU (in wasm, one thread): the
/// cross-check. Inputs as for `uploadBases` and `msm`; returns the point in
/// the arkworks uncompressed format.
#[wasm_bindgen(js_name = cpuMsm)]
pub fn cpu_msm(bases: &[u8], scalars: &[u8]) -> Result<Vec<u8>, JsError> {
    let points = encoding::bases_arkworks(bases).map_err(js_error)?;
    let scalars = encoding::scalars(scalars).map_err(js_error)?;
    if points.len() < scalars.len() {
        return Err(js_error(msm_core::MsmError::LengthMismatch {
            bases: points.len(),
            scalars: scalars.len(),
        }));
    }
    Ok(encoding::point_arkworks(&msm_core::cpu::msm_reference(
        &points[..scalars.len()],
        &scalars,
    )))
}
