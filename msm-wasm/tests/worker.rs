//! The browser API off the main thread: inside a dedicated Web Worker (where a
//! browser prover runs so that the page stays responsive; Chromium offers
//! WebGPU there too), checked against arkworks in the same wasm instance.
//! wasm-bindgen-test runs every test of a binary in one place, hence this
//! second binary. Small inputs: SwiftShader compiles pipelines slowly.
//! Run with `scripts/test-web.sh`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{context, run, upload};
use msm_wasm::{cpu_msm, SampleInputs};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// The name of the global object's class, e.g. `DedicatedWorkerGlobalScope`.
fn global_scope() -> String {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"constructor".into())
        .and_then(|c| js_sys::Reflect::get(&c, &"name".into()))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn msm_in_a_worker_matches_arkworks() {
    // A misconfigured runner would pass these tests on the main thread.
    assert_eq!(global_scope(), "DedicatedWorkerGlobalScope");
    let t0 = js_sys::Date::now();
    let ctx = context().await;
    let inputs = SampleInputs::new(100, 7, JsValue::UNDEFINED).unwrap();
    let (b, s) = (inputs.bases(), inputs.scalars());
    let bases = upload(&ctx, &b).await.unwrap();
    let got = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
    assert_eq!(got.point(), cpu_msm(&b, &s, JsValue::UNDEFINED).unwrap());
    console_log!(
        "worker: context and the first MSM in {:.0} ms",
        js_sys::Date::now() - t0
    );
}

#[wasm_bindgen_test]
async fn batch_in_a_worker_matches_single_msm_and_arkworks() {
    assert_eq!(global_scope(), "DedicatedWorkerGlobalScope");
    let ctx = context().await;
    common::batch_matches_single_and_arkworks(&ctx).await;
    common::batch_mistakes_are_js_exceptions(&ctx).await;
}
