//! Functions JS calls without a GPU: the pass names, seeded sample inputs
//! and the arkworks cross-check on the CPU, in any curve group
//! (`GroupOptions`, BN254's G1 by default).

use ark_ec::short_weierstrass::Projective;
use ark_ec::VariableBaseMSM;
use msm_core::{BaseFormat, Curve, GpuCurve};
use wasm_bindgen::prelude::*;

use crate::encoding;
use crate::js::js_error;
use crate::options::GroupOptions;

/// Names of the four passes, the order of `MsmResult.gpuPassMs`.
#[wasm_bindgen]
pub fn passes() -> Vec<String> {
    msm_core::MsmTimings::pass_names().map(String::from).to_vec()
}

/// The most points `sampleInputs` makes (memory of a wasm instance).
const MAX_SAMPLE_POINTS: usize = 1 << 22;

/// The group a `GroupOptions` value names (BN254's G1 when undefined).
pub(crate) fn group_option(options: JsValue) -> Result<Curve, JsError> {
    #[cfg(target_arch = "wasm32")]
    let options: GroupOptions = crate::js::from_js(options, "GroupOptions")?;
    #[cfg(not(target_arch = "wasm32"))]
    let options = {
        let _ = options;
        GroupOptions::default()
    };
    options.to_core().map_err(js_error)
}

/// Seeded inputs for demos and tests: distinct bases and uniform scalars,
/// in the bytes `uploadBases` and `msm` take.
#[wasm_bindgen]
pub struct SampleInputs {
    curve: Curve,
    bases: Vec<u8>,
    scalars: Vec<u8>,
}

fn sample<C: GpuCurve>(n: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let (points, scalars) = msm_core::sample::inputs_of::<C>(n, seed);
    (encoding::points_arkworks(&points), encoding::scalars_bytes(&scalars))
}

fn arkworks_to_raw<C: GpuCurve>(bytes: &[u8]) -> Vec<u8> {
    let points = encoding::points_of::<C>(bytes, BaseFormat::Arkworks, "bases").expect("the sampler's own bytes");
    encoding::points_in(&points, BaseFormat::Raw)
}

#[wasm_bindgen]
impl SampleInputs {
    /// `n` points and scalars from `seed` in the group of `options` (the
    /// same as `msm-cli gen --curve C --group G` makes).
    #[wasm_bindgen(constructor)]
    pub fn new(
        n: usize,
        seed: u64,
        #[wasm_bindgen(unchecked_optional_param_type = "GroupOptions")] options: JsValue,
    ) -> Result<SampleInputs, JsError> {
        let curve = group_option(options)?;
        if n > MAX_SAMPLE_POINTS {
            return Err(js_error(format!("sample inputs: n = {n} is above {MAX_SAMPLE_POINTS}")));
        }
        let (bases, scalars) = for_group!(curve, sample(n, seed));
        Ok(SampleInputs { curve, bases, scalars })
    }

    /// The bases in the arkworks uncompressed format.
    #[wasm_bindgen(getter)]
    pub fn bases(&self) -> Vec<u8> {
        self.bases.clone()
    }

    /// The bases in the raw format.
    #[wasm_bindgen(getter, js_name = basesRaw)]
    pub fn bases_raw(&self) -> Vec<u8> {
        for_group!(self.curve, arkworks_to_raw(&self.bases))
    }

    /// The scalars, 32 little-endian bytes each.
    #[wasm_bindgen(getter)]
    pub fn scalars(&self) -> Vec<u8> {
        self.scalars.clone()
    }
}

fn reference<C: GpuCurve>(bases: &[u8], scalars: &[u8]) -> Result<Vec<u8>, JsError> {
    let points = encoding::points_of::<C>(bases, BaseFormat::Arkworks, "bases").map_err(js_error)?;
    let scalars = encoding::scalars_of::<C::ScalarField>(scalars).map_err(js_error)?;
    if points.len() < scalars.len() {
        return Err(js_error(msm_core::MsmError::LengthMismatch {
            bases: points.len(),
            scalars: scalars.len(),
        }));
    }
    let sum = Projective::<C>::msm(&points[..scalars.len()], &scalars).expect("equal lengths");
    Ok(encoding::point_arkworks(&sum))
}

/// The same MSM computed by arkworks on the CPU (in wasm, one thread): the
/// cross-check. Inputs as for `uploadBases` and `msm` of a context of the
/// group of `options`; returns the point in the arkworks uncompressed format.
#[wasm_bindgen(js_name = cpuMsm)]
pub fn cpu_msm(
    bases: &[u8],
    scalars: &[u8],
    #[wasm_bindgen(unchecked_optional_param_type = "GroupOptions")] options: JsValue,
) -> Result<Vec<u8>, JsError> {
    let curve = group_option(options)?;
    for_group!(curve, reference(bases, scalars))
}

fn adversarial<C: GpuCurve>(n: usize, seed: u64) -> js_sys::Array {
    let out = js_sys::Array::new();
    for (what, bases, scalars) in msm_core::sample::adversarial_of::<C>(n, seed) {
        let case = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&case, &k.into(), v).expect("a plain object");
        set("what", &what.into());
        let bases = encoding::points_arkworks(&bases);
        set("bases", &js_sys::Uint8Array::from(&bases[..]).into());
        let scalars = encoding::scalars_bytes(&scalars);
        set("scalars", &js_sys::Uint8Array::from(&scalars[..]).into());
        out.push(&case);
    }
    out
}

/// Seeded adversarial inputs of `n` points (n >= 10) in the group of
/// `options`, one case per class the tests run (identities, P and -P,
/// repeated points, equal, zero and one scalars, scalars near r, one bucket
/// holding nearly everything...): an array of `{ what, bases, scalars }` in
/// the byte formats of `uploadBases` and `msm`.
#[wasm_bindgen(js_name = adversarialInputs, unchecked_return_type = "AdversarialInput[]")]
pub fn adversarial_inputs(
    n: usize,
    seed: u64,
    #[wasm_bindgen(unchecked_optional_param_type = "GroupOptions")] options: JsValue,
) -> Result<js_sys::Array, JsError> {
    let curve = group_option(options)?;
    if !(10..=1 << 16).contains(&n) {
        return Err(js_error(format!("adversarial inputs: n = {n} is outside 10..=65536")));
    }
    Ok(for_group!(curve, adversarial(n, seed)))
}
