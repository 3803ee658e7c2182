//! `MsmContext.selfTest()`: msm-core's self-test (`GpuContext::self_test`)
//! on this page's adapter and driver, with the context's knobs: every
//! scalar form, the window widths, tables, adversarial inputs, batches,
//! bases from bytes and the subgroup check's refusals, each against
//! arkworks compiled to wasm. Drivers miscompile; run it before trusting
//! an adapter with real keys.

use msm_core::SelfTestCase;
use wasm_bindgen::prelude::*;

use crate::context::{group_description, MsmContext};
use crate::js::to_js;

#[derive(serde::Serialize)]
struct CaseJs<'a> {
    name: &'a str,
    passed: bool,
    detail: &'a str,
    ms: f64,
}

impl<'a> From<&'a SelfTestCase> for CaseJs<'a> {
    fn from(c: &'a SelfTestCase) -> Self {
        CaseJs {
            name: &c.name,
            passed: c.passed,
            detail: &c.detail,
            ms: c.ms,
        }
    }
}

#[wasm_bindgen]
impl MsmContext {
    /// Runs the self-test in this context's group (create a context per
    /// group to test every group). `options.full` takes every window width
    /// 4..=16 and larger inputs; `options.onCase` sees each case as it
    /// finishes. Resolves to the report (`passed`, and each case with why it
    /// failed); rejects only when the options are malformed.
    #[wasm_bindgen(js_name = selfTest, unchecked_return_type = "Promise<SelfTestReport>")]
    pub fn self_test(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SelfTestOptions")] options: JsValue,
    ) -> js_sys::Promise {
        let ctx = self.ctx.clone();
        let knobs = self.knobs.borrow().clone();
        let get = |key: &str| {
            if options.is_object() {
                js_sys::Reflect::get(&options, &key.into()).unwrap_or(JsValue::UNDEFINED)
            } else {
                JsValue::UNDEFINED
            }
        };
        let (full, on_case) = (get("full"), get("onCase"));
        wasm_bindgen_futures::future_to_promise(async move {
            if !(full.is_undefined() || full.as_bool().is_some()) {
                return Err(JsError::new("SelfTestOptions: full must be a boolean").into());
            }
            let on_case = match on_case {
                f if f.is_undefined() || f.is_null() => None,
                f => Some(
                    f.dyn_into::<js_sys::Function>()
                        .map_err(|_| JsError::new("SelfTestOptions: onCase must be a function"))?,
                ),
            };
            let report = ctx
                .self_test(Some(&knobs), full.as_bool().unwrap_or(false), |c| {
                    if let Some(f) = &on_case {
                        let _ = f.call1(&JsValue::NULL, &to_js(&CaseJs::from(c)));
                    }
                })
                .await;
            let cases: Vec<CaseJs> = report.cases.iter().map(CaseJs::from).collect();
            Ok(to_js(&serde_json::json!({
                "group": group_description(ctx.curve()),
                "adapter": report.adapter,
                "passed": report.passed(),
                "ms": report.ms,
                "cases": cases,
            })))
        })
    }
}
