//! Browser tests: the JS-facing API on WebGPU in headless Chromium (SwiftShader
//! here), checked against arkworks computed in the same wasm instance.
#![cfg(target_arch = "wasm32")]

use msm_wasm::{cpu_msm, MsmContext, MsmResult, SampleInputs};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn context() -> MsmContext {
    MsmContext::create(JsValue::UNDEFINED).await.expect("WebGPU context")
}

async fn run(ctx: &MsmContext, bases: &msm_wasm::Bases, scalars: &[u8], options: JsValue) -> Result<MsmResult, String> {
    let promise = ctx.msm(bases, scalars, options);
    match JsFuture::from(promise).await {
        Ok(v) => Ok(MsmResult::try_from_js_value(v).expect("an MsmResult")),
        Err(e) => Err(e
            .dyn_into::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_default()),
    }
}

#[wasm_bindgen_test]
async fn sizes_match_arkworks() {
    let ctx = context().await;
    for logn in [8] {
        let t0 = js_sys::Date::now();
        let inputs = SampleInputs::new(1 << logn, logn as u64).unwrap();
        let (b, s) = (inputs.bases(), inputs.scalars());
        let bases = ctx.upload_bases(&b).unwrap();
        let got = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
        let t1 = js_sys::Date::now();
        let warm = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
        let t2 = js_sys::Date::now();
        assert_eq!(got.point(), cpu_msm(&b, &s).unwrap(), "2^{logn}");
        assert_eq!(warm.point(), got.point());
        web_sys_log(&format!("2^{logn}: cold {} ms, warm {} ms", t1 - t0, t2 - t1));
    }
}

fn web_sys_log(s: &str) {
    wasm_bindgen_test::console_log!("{}", s);
}
