//! The classes JS drives: `MsmContext` (a WebGPU device with its pipelines,
//! for one curve group) and `Bases` (a base set resident on it). Scalars
//! and bases go to the GPU as the caller holds them (a `Uint8Array`
//! straight to `GPUQueue.writeBuffer`); the GPU converts and checks them,
//! so no call does per-element work in wasm, in any group. Every fallible
//! call rejects with a message; nothing panics across the boundary.

use std::cell::RefCell;
use std::rc::Rc;

use msm_core::{
    AdapterClass, BaseFormat, BaseSet, Curve, GpuContext, GpuCurve, HostBytes, MsmConfig, MsmError, MsmRun, Scalars,
};
use wasm_bindgen::prelude::*;

use crate::encoding::{self, body_start};
use crate::js::{from_js, js_error, to_js};
use crate::options::{BasesOptions, ContextOptions, MsmOptions};
use crate::result::MsmResult;

/// A WebGPU device with the MSM pipelines compiled on first use and cached.
/// Create one and reuse it: the first MSM of each knob setting compiles shaders.
#[wasm_bindgen]
pub struct MsmContext {
    pub(crate) ctx: Rc<GpuContext>,
    pub(crate) config: RefCell<MsmConfig>,
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
        let options: ContextOptions = from_js(options, "ContextOptions")?;
        let core = options.to_core().map_err(js_error)?;
        let ctx = GpuContext::new(&core).await.map_err(js_error)?;
        // The web defaults with the walker's workgroup fitted to this adapter
        // and group (G2's inversion tree is wider), then the caller's knobs.
        let mut base = MsmConfig::web();
        base.fit_walker_threads(&ctx.bounds());
        let config = options.knobs_over(&base).map_err(js_error)?;
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
            adapter_class: match self.ctx.adapter_class() {
                AdapterClass::Lavapipe => "lavapipe",
                AdapterClass::SwiftShader => "swiftshader",
                AdapterClass::OtherCpu => "cpu",
                AdapterClass::Gpu => "gpu",
            },
            field_layout: self.ctx.field_layout().to_string(),
            field_code: self.ctx.field_code().to_string(),
            inversion: self.ctx.field_options().inversion.to_string(),
            reduce: if self.ctx.reduces_on_host(&self.config.borrow()) {
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

    fn upload(&self, bytes: JsValue, options: JsValue, format: BaseFormat, what: &'static str) -> js_sys::Promise {
        let ctx = self.ctx.clone();
        let table = from_js::<BasesOptions>(options, "BasesOptions")
            .and_then(|o| o.table().map_err(|e| js_error(format!("BasesOptions: {e}"))));
        wasm_bindgen_futures::future_to_promise(async move {
            let table = table.map_err(JsValue::from)?;
            let array = typed_array(bytes, what)?;
            let inner = for_group!(ctx.curve(), upload_group(&ctx, &array, format, table, what).await)?;
            Ok(Bases { inner }.into())
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
        let ctx = self.ctx.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (bases, vectors, config) = prepared.map_err(JsValue::from)?;
            let results = for_group!(bases.curve(), msm_group(&ctx, &bases, &vectors, &config).await)?;
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
        let ctx = self.ctx.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (bases, vectors, config) = prepared.map_err(JsValue::from)?;
            let results = for_group!(bases.curve(), msm_group(&ctx, &bases, &vectors, &config).await)?;
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
        let config = self.call_config(options)?;
        let mut out = Vec::with_capacity(vectors.len());
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
            if n > bases.length() {
                let e = MsmError::LengthMismatch {
                    bases: bases.length(),
                    scalars: n,
                };
                return Err(js_error(format!("{name}: {e}")));
            }
            out.push((array, start));
        }
        Ok((bases.inner.clone(), out, config))
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

    /// The knobs of one call (msm-core's checks, the owner of the bases
    /// among them, run when the call starts).
    fn call_config(&self, options: JsValue) -> Result<MsmConfig, JsError> {
        let options: MsmOptions = from_js(options, "MsmOptions")?;
        options.apply(&self.config.borrow()).map_err(js_error)
    }
}

/// `value` as a `Uint8Array`, or an error naming `what`.
fn typed_array(value: JsValue, what: &str) -> Result<js_sys::Uint8Array, JsError> {
    value
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| js_error(format!("{what}: expected a Uint8Array")))
}

/// The first 8 bytes (an arkworks `Vec` length prefix).
fn prefix(bytes: &HostBytes<'_>) -> [u8; 8] {
    bytes.read(0..8).try_into().expect("8 bytes")
}

/// An MSM batch's checked inputs: the bases, each vector's array with where
/// its scalars begin (after a length prefix), the knobs.
type Prepared = (GroupBases, Vec<(js_sys::Uint8Array, usize)>, MsmConfig);

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

/// Uploads the bases of `array` (after an arkworks length prefix in that
/// format), with their table where `table` asks for one.
async fn upload_group<C: WebGroup>(
    ctx: &GpuContext,
    array: &js_sys::Uint8Array,
    format: BaseFormat,
    table: Option<Option<u32>>,
    what: &str,
) -> Result<GroupBases, JsValue> {
    let all = HostBytes::js(array);
    let start = match format {
        BaseFormat::Arkworks => body_start(all.len(), C::CURVE.point_bytes(), || prefix(&all), what),
        BaseFormat::Raw => Ok(0),
    }
    .map_err(js_error)?;
    let mut inner = ctx
        .upload_bases_bytes::<C>(all.range(start..all.len()), format)
        .await
        .map_err(|e| match e {
            MsmError::InvalidBase { index, defect } => js_error(encoding::base_error(what, index, defect)),
            e => js_error(format!("{what}: {e}")),
        })?;
    if let Some(c) = table {
        (ctx.build_table(&mut inner, c).await).map_err(|e| js_error(format!("{what}: the table: {e}")))?;
    }
    Ok(C::wrap(inner))
}

/// The MSMs of `bases` (of the group `C`) with each vector, one submission.
async fn msm_group<C: WebGroup>(
    ctx: &GpuContext,
    bases: &GroupBases,
    vectors: &[(js_sys::Uint8Array, usize)],
    config: &MsmConfig,
) -> Result<Vec<MsmResult>, JsValue> {
    let bases = C::unwrap(bases).expect("dispatched on the bases' group");
    let bytes: Vec<HostBytes<'_>> = vectors
        .iter()
        .map(|(a, start)| {
            let all = HostBytes::js(a);
            all.range(*start..all.len())
        })
        .collect();
    let scalars: Vec<Scalars<'_>> = bytes.iter().map(|b| Scalars::Bytes(*b)).collect();
    let run = ctx
        .msm_batch_with(bases, &scalars, config)
        .await
        .map_err(|e| JsValue::from(js_error(e)))?;
    let results = run.results.into_iter().zip(&scalars).map(|(result, v)| {
        let run = MsmRun {
            result,
            plan: run.plan,
            timings: run.timings.clone(),
        };
        MsmResult::new(run, v.len())
    });
    Ok(results.collect())
}

/// A base set of any group.
#[derive(Clone)]
enum GroupBases {
    Bn254G1(Rc<msm_core::Bases<ark_bn254::g1::Config>>),
    Bls12_381G1(Rc<msm_core::Bases<ark_bls12_381::g1::Config>>),
    Bn254G2(Rc<msm_core::Bases<ark_bn254::g2::Config>>),
    Bls12_381G2(Rc<msm_core::Bases<ark_bls12_381::g2::Config>>),
}

impl GroupBases {
    fn set(&self) -> &BaseSet {
        match self {
            GroupBases::Bn254G1(b) => b,
            GroupBases::Bls12_381G1(b) => b,
            GroupBases::Bn254G2(b) => b,
            GroupBases::Bls12_381G2(b) => b,
        }
    }

    fn curve(&self) -> Curve {
        self.set().curve()
    }
}

/// A group's typed bases in and out of [`GroupBases`].
trait WebGroup: GpuCurve {
    fn wrap(bases: msm_core::Bases<Self>) -> GroupBases;
    fn unwrap(bases: &GroupBases) -> Option<&msm_core::Bases<Self>>;
}

macro_rules! web_group {
    ($config:ty, $variant:ident) => {
        impl WebGroup for $config {
            fn wrap(bases: msm_core::Bases<Self>) -> GroupBases {
                GroupBases::$variant(Rc::new(bases))
            }
            fn unwrap(bases: &GroupBases) -> Option<&msm_core::Bases<Self>> {
                match bases {
                    GroupBases::$variant(b) => Some(b),
                    _ => None,
                }
            }
        }
    };
}

web_group!(ark_bn254::g1::Config, Bn254G1);
web_group!(ark_bls12_381::g1::Config, Bls12_381G1);
web_group!(ark_bn254::g2::Config, Bn254G2);
web_group!(ark_bls12_381::g2::Config, Bls12_381G2);

/// A base set resident on one context's GPU.
#[wasm_bindgen]
pub struct Bases {
    inner: GroupBases,
}

#[wasm_bindgen]
impl Bases {
    /// Number of points.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.set().len()
    }

    /// The window width of the set's table of shifted bases (undefined
    /// without one).
    #[wasm_bindgen(getter, js_name = tableBits)]
    pub fn table_bits(&self) -> Option<u32> {
        self.inner.set().table_bits()
    }
}
