//! BN254 multi-scalar multiplication for browser provers: msm-core's GPU
//! pipeline on WebGPU, behind a wasm-bindgen API.
//!
//! ```js
//! import init, { MsmContext } from "./pkg/msm_wasm.js";
//! await init();
//! const ctx = await MsmContext.create();
//! const srs = ctx.uploadBases(basesBytes);      // once per base set
//! const result = await ctx.msm(srs, scalarBytes); // MsmResult
//! const [a, b] = await ctx.msmBatch(srs, [aBytes, bBytes]); // one submission
//! ```
//!
//! Byte formats: [`encoding`]. Knobs: [`options`].

mod api;
#[cfg(target_arch = "wasm32")]
mod context;
pub mod encoding;
mod js;
pub mod options;
#[cfg(target_arch = "wasm32")]
mod result;

pub use api::{adversarial_inputs, cpu_msm, passes, SampleInputs};
#[cfg(target_arch = "wasm32")]
pub use context::{Bases, MsmContext};
#[cfg(target_arch = "wasm32")]
pub use result::MsmResult;

/// Panics (bugs) show their message in the browser console instead of a bare
/// `unreachable` trap.
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
