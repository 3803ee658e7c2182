//! Multi-scalar multiplication for browser provers (BN254 and BLS12-381, G1
//! and G2): msm-core's GPU pipeline on WebGPU, behind a wasm-bindgen API.
//!
//! ```js
//! import init, { MsmContext } from "./pkg/msm_wasm.js";
//! await init();
//! const ctx = await MsmContext.create();
//! const srs = ctx.uploadBases(basesBytes);      // once per base set
//! const result = await ctx.msm(srs, scalarBytes); // MsmResult
//! const [a, b] = await ctx.msmBatch(srs, [aBytes, bBytes]); // one submission
//! const g2 = await MsmContext.create({ curve: "bls12-381", group: "g2" });
//! ```
//!
//! Byte formats: [`encoding`]. Knobs: [`options`].

/// `$f::<C>($args)` for the arkworks config `C` of the group `$curve`.
macro_rules! for_group {
    ($curve:expr, $f:ident($($arg:expr),* $(,)?).await) => {
        match $curve {
            msm_core::Curve::Bn254G1 => $f::<ark_bn254::g1::Config>($($arg),*).await,
            msm_core::Curve::Bls12_381G1 => $f::<ark_bls12_381::g1::Config>($($arg),*).await,
            msm_core::Curve::Bn254G2 => $f::<ark_bn254::g2::Config>($($arg),*).await,
            msm_core::Curve::Bls12_381G2 => $f::<ark_bls12_381::g2::Config>($($arg),*).await,
        }
    };
    ($curve:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $curve {
            msm_core::Curve::Bn254G1 => $f::<ark_bn254::g1::Config>($($arg),*),
            msm_core::Curve::Bls12_381G1 => $f::<ark_bls12_381::g1::Config>($($arg),*),
            msm_core::Curve::Bn254G2 => $f::<ark_bn254::g2::Config>($($arg),*),
            msm_core::Curve::Bls12_381G2 => $f::<ark_bls12_381::g2::Config>($($arg),*),
        }
    };
}

mod api;
#[cfg(target_arch = "wasm32")]
mod bases;
#[cfg(target_arch = "wasm32")]
mod context;
pub mod encoding;
#[cfg(target_arch = "wasm32")]
mod groth16;
mod js;
pub mod options;
#[cfg(target_arch = "wasm32")]
mod result;
#[cfg(target_arch = "wasm32")]
mod selftest;
#[cfg(target_arch = "wasm32")]
mod warm;

pub use api::{adversarial_inputs, cpu_msm, passes, SampleInputs};
#[cfg(target_arch = "wasm32")]
pub use bases::Bases;
#[cfg(target_arch = "wasm32")]
pub use context::MsmContext;
#[cfg(target_arch = "wasm32")]
pub use groth16::{Groth16Key, Groth16Witness};
#[cfg(target_arch = "wasm32")]
pub use result::MsmResult;

/// Panics (bugs) show their message in the browser console instead of a bare
/// `unreachable` trap.
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
