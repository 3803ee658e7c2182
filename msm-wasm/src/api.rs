//! Functions JS calls without a GPU: the pass names, seeded sample inputs
//! and the arkworks cross-check on the CPU.

use ark_bn254::{Fr, G1Affine};
use ark_ec::AffineRepr;
use wasm_bindgen::prelude::*;

use crate::encoding;
use crate::js::js_error;

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

/// Seeded adversarial inputs of `n` points (n >= 10), one case per class
/// the tests run (identities, P and -P, repeated points, equal, zero and one
/// scalars, scalars near r, one bucket holding nearly everything...): an
/// array of `{ what, bases, scalars }` in the byte formats of `uploadBases`
/// and `msm`.
#[wasm_bindgen(js_name = adversarialInputs, unchecked_return_type = "AdversarialInput[]")]
pub fn adversarial_inputs(n: usize, seed: u64) -> Result<js_sys::Array, JsError> {
    if !(10..=1 << 16).contains(&n) {
        return Err(js_error(format!("adversarial inputs: n = {n} is outside 10..=65536")));
    }
    let out = js_sys::Array::new();
    for (what, bases, scalars) in msm_core::sample::adversarial(n, seed) {
        let case = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&case, &k.into(), v).expect("a plain object");
        set("what", &what.into());
        set(
            "bases",
            &js_sys::Uint8Array::from(&encoding::points_arkworks(&bases)[..]).into(),
        );
        set(
            "scalars",
            &js_sys::Uint8Array::from(&encoding::scalars_bytes(&scalars)[..]).into(),
        );
        out.push(&case);
    }
    Ok(out)
}
