//! The JS boundary's plumbing: errors as JS exceptions, options objects in
//! and out through JSON, and the TypeScript types of the options.

#[cfg(target_arch = "wasm32")]
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

/// The knobs' TypeScript interface, `MsmOptions`: generated from msm-core's
/// knob table (`typescript_interface`, web defaults) into `knobs.d.ts`; a
/// test holds the file to the table (`MSM_BLESS=1` rewrites it).
#[wasm_bindgen(typescript_custom_section)]
const TS_KNOBS: &str = include_str!("knobs.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** A curve group: BN254's or BLS12-381's G1 (coordinates in Fq) or G2
 * (coordinates in Fq2). Points of each group come in arkworks' uncompressed
 * encoding of it (BN254 little-endian, BLS12-381 big-endian zcash; 64, 96,
 * 128 or 192 bytes) or raw little-endian coordinates; scalars are 32
 * little-endian bytes in every group. */
export interface GroupOptions {
  /** Default "bn254". */
  curve?: "bn254" | "bls12-381";
  /** Default "g1". */
  group?: "g1" | "g2";
}

export interface ContextOptions extends GroupOptions {
  /** Field limb layout; default "13x20" (WebGPU has no 64-bit integers). */
  fieldLayout?: "13x20" | "16x16" | "32x8-int64";
  /** Field multiplication code; default on a GPU "mixed" ("rows" for BLS12-381 G2), "looped" on SwiftShader, "unrolled" under a loop cap. */
  fieldCode?: "unrolled" | "looped" | "rows" | "mixed";
  /** Field inversion; default "safegcd" (Bernstein-Yang divsteps in 32-bit
   * integers), "fermat" under a loop cap; "gcd" is the binary GCD. */
  inversion?: "fermat" | "gcd" | "safegcd";
  /** Request timestamp-query when the adapter has it (default true). */
  timestamps?: boolean;
  /** Device limits: everything the adapter offers (default), or WebGPU's
   * defaults (128 MiB per binding), what a page gets that asks for nothing. */
  limits?: "adapter" | "default";
  /** Default knobs of this context's MSMs. */
  config?: MsmOptions;
  /** Compile the pipelines in the background from creation (default: on a
   * GPU; not on a software adapter such as SwiftShader, whose compiles take
   * the CPU the calls would run on):
   * until those a call needs are ready, calls of up to `cpuMaxPoints` run on
   * the CPU in wasm (`MsmResult.backend` says where). false: each call
   * compiles what it needs when it needs it. */
  warmUp?: boolean;
  /** The largest MSM the warm-up prepares for (default 2^20 points). */
  warmUpMaxPoints?: number;
  /** The largest MSM that runs on the CPU while the warm-up runs (default
   * 2^16 points); larger calls wait for their pipelines. */
  cpuMaxPoints?: number;
  /** Called as the warm-up advances (and when it fails). */
  onProgress?: (p: WarmUpProgress) => void;
}

/** Where a context's warm-up stands: steps compiled (the bases kernels,
 * then one per size class) of all. */
export interface WarmUpProgress {
  done: number;
  total: number;
  /** Every pipeline the warm-up prepares is compiled. */
  ready: boolean;
  /** Why a compile failed (the context's calls then compile on demand). */
  failed: string | null;
}

export interface BasesOptions {
  /** Also build the set's table of shifted bases for this window width
   * (2..=20, or "auto" from the set's length): every window then adds into
   * one row of buckets, at about 256 / c times the bases' GPU memory.
   * Omitted: no table. */
  tableBits?: number | "auto";
}

export interface SelfTestOptions {
  /** Every window width 4..=16 and larger inputs (default: a covering subset). */
  full?: boolean;
  /** Called with each case as it finishes (progress). */
  onCase?: (c: SelfTestCase) => void;
}

/** One case of a self-test: an MSM (or a refused upload) against arkworks. */
export interface SelfTestCase {
  name: string;
  passed: boolean;
  /** Why it failed; empty when it passed. */
  detail: string;
  ms: number;
}

/** `ctx.selfTest()`: this adapter's answers in the context's group. */
export interface SelfTestReport {
  group: GroupOptions;
  /** The adapter, driver and field module the test ran on. */
  adapter: string;
  passed: boolean;
  ms: number;
  cases: SelfTestCase[];
}

export interface AdversarialInput {
  /** The input class, e.g. "P and -P". */
  what: string;
  /** Bases in the arkworks uncompressed format of the group. */
  bases: Uint8Array;
  /** Scalars, 32 little-endian bytes each. */
  scalars: Uint8Array;
}

/** Where an MSM's time went (ms). Host times are wall clock; GPU times come
 * from timestamp queries when `timing` was on and the adapter has them. */
export interface MsmTimings {
  /** Chunking, plans and pipeline lookups before the first upload. */
  prepareMs: number;
  /** Writing the scalars to the GPU (queued writes of the caller's bytes). */
  uploadMs: number;
  /** Recording and submitting the passes. */
  submitMs: number;
  /** Waiting for the results after the last submission. */
  waitMs: number;
  /** First submission until the window sums were read back. */
  gpuWallMs: number;
  /** Horner over the window sums on the CPU. */
  hostCombineMs: number;
  /** First kernel's start to last kernel's end on the GPU. */
  gpuSpanMs: number | null;
  /** GPU time per pass, in the order of `passes()`. */
  gpuPassMs: number[] | null;
  /** GPU time per kernel ("pass.entry"). */
  gpuKernelMs: Record<string, number>;
}

/** The device limits an MSM plans with. */
export interface DeviceLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

export interface AdapterDescription {
  name: string;
  backend: string;
  deviceType: string;
  driver: string;
  /** What the adapter is, judged from its description: lavapipe (a loop cap),
   * SwiftShader (looped field code, host reduce), another CPU adapter, or a GPU. */
  adapterClass: "lavapipe" | "swiftshader" | "cpu" | "gpu";
  fieldLayout: string;
  fieldCode: "unrolled" | "looped" | "rows" | "mixed";
  /** The field inversion the shaders use. */
  inversion: "fermat" | "gcd" | "bingcd" | "safegcd" | "safegcd64";
  /** Where buckets become window sums with this context's knobs. */
  reduce: "gpu" | "host";
  /** Per-pass GPU timings are available. */
  timestamps: boolean;
  /** A CPU implementation of WebGPU (e.g. SwiftShader): timings are not a GPU's. */
  software: boolean;
}
"#;

pub(crate) fn js_error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// `value` as `T`; `undefined` and `null` give `T::default()`. Goes through
/// JSON so that serde sees every key and refuses unknown ones (a misspelt knob
/// must not be ignored).
#[cfg(target_arch = "wasm32")]
pub(crate) fn from_js<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    let json = js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| js_error(format!("{what}: expected a plain object")))?;
    serde_json::from_str(&json).map_err(|e| js_error(format!("{what}: {e}")))
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn to_js<T: serde::Serialize>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|s| js_sys::JSON::parse(&s).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

#[cfg(test)]
mod tests {
    /// The TypeScript knob types say what the knob table says.
    #[test]
    fn typescript_knobs_are_the_tables() {
        let want = msm_core::knobs::typescript_interface(&msm_core::MsmConfig::web());
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/knobs.d.ts");
        if std::env::var_os("MSM_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        assert!(
            include_str!("knobs.d.ts") == want,
            "msm-wasm/src/knobs.d.ts is stale: rerun this test with MSM_BLESS=1"
        );
    }
}
