//! Helpers and test bodies shared by the browser test binaries: `web.rs` (on
//! the page's main thread) and `worker.rs` (in a dedicated Web Worker).
// Each binary uses a subset.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use ark_bn254::Fr;
use msm_wasm::encoding::scalars_bytes;
use msm_wasm::{cpu_msm, Bases, MsmContext, MsmResult, SampleInputs};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::console_log;

thread_local! {
    static CTX: RefCell<Option<Rc<MsmContext>>> = const { RefCell::new(None) };
}

/// One context for every test of this binary: pipelines compile once, on
/// demand (no background warm-up: every call runs on the GPU).
pub async fn context() -> Rc<MsmContext> {
    if let Some(c) = CTX.with(|c| c.borrow().clone()) {
        return c;
    }
    let ctx = Rc::new(MsmContext::create(js(NO_WARM_UP)).await.expect("a WebGPU context"));
    CTX.with(|c| *c.borrow_mut() = Some(ctx.clone()));
    ctx
}

/// Context options for calls that must run on the GPU.
pub const NO_WARM_UP: &str = r#"{"warmUp": false}"#;

pub fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).expect("valid JSON")
}

pub fn message(e: JsValue) -> String {
    e.dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|v| format!("{v:?}"))
}

pub fn error_message(e: JsError) -> String {
    message(JsValue::from(e))
}

pub async fn run(ctx: &MsmContext, bases: &Bases, scalars: &[u8], options: JsValue) -> Result<MsmResult, String> {
    let array = js_sys::Uint8Array::from(scalars);
    match JsFuture::from(ctx.msm(bases, array.into(), options)).await {
        Ok(v) => Ok(MsmResult::try_from_js_value(v).expect("an MsmResult")),
        Err(e) => Err(message(e)),
    }
}

/// `uploadBases` as JS calls it: arkworks bytes in a `Uint8Array`.
pub async fn upload(ctx: &MsmContext, bytes: &[u8]) -> Result<Bases, String> {
    bases_of(JsFuture::from(ctx.upload_bases(js_sys::Uint8Array::from(bytes).into(), JsValue::UNDEFINED)).await)
}

/// `uploadBases(bytes, options)` as JS calls it, with `options` as JSON.
pub async fn upload_with(ctx: &MsmContext, bytes: &[u8], options: &str) -> Result<Bases, String> {
    let options = js_sys::JSON::parse(options).expect("JSON");
    bases_of(JsFuture::from(ctx.upload_bases(js_sys::Uint8Array::from(bytes).into(), options)).await)
}

/// `uploadBasesRaw` as JS calls it.
pub async fn upload_raw(ctx: &MsmContext, bytes: &[u8]) -> Result<Bases, String> {
    bases_of(JsFuture::from(ctx.upload_bases_raw(js_sys::Uint8Array::from(bytes).into(), JsValue::UNDEFINED)).await)
}

fn bases_of(settled: Result<JsValue, JsValue>) -> Result<Bases, String> {
    match settled {
        Ok(v) => Ok(Bases::try_from_js_value(v).expect("Bases")),
        Err(e) => Err(message(e)),
    }
}

/// `msmBatch` as JS calls it: an array of `Uint8Array`s.
pub async fn run_batch(
    ctx: &MsmContext,
    bases: &Bases,
    vectors: &[Vec<u8>],
    options: JsValue,
) -> Result<Vec<MsmResult>, String> {
    let array: js_sys::Array = vectors.iter().map(|v| js_sys::Uint8Array::from(&v[..])).collect();
    batch_of(ctx, bases, array.into(), options).await
}

/// `msmBatch` with any JS value as its vectors.
pub async fn batch_of(
    ctx: &MsmContext,
    bases: &Bases,
    vectors: JsValue,
    options: JsValue,
) -> Result<Vec<MsmResult>, String> {
    match JsFuture::from(ctx.msm_batch(bases, vectors, options)).await {
        Ok(v) => Ok(js_sys::Array::from(&v)
            .iter()
            .map(|r| MsmResult::try_from_js_value(r).expect("an MsmResult"))
            .collect()),
        Err(e) => Err(message(e)),
    }
}

/// A batch over one base set: full, prefix, empty and edge-valued vectors,
/// each equal to arkworks and to a single `msm` of the same vector, in order.
pub async fn batch_matches_single_and_arkworks(ctx: &MsmContext) {
    let n = 40;
    let inputs = SampleInputs::new(n, 21, JsValue::UNDEFINED).unwrap();
    let b = inputs.bases();
    let bases = upload(ctx, &b).await.unwrap();
    let other = SampleInputs::new(n, 22, JsValue::UNDEFINED).unwrap().scalars();
    let edges = scalars_bytes(&[
        Fr::from(0u64),
        Fr::from(1u64),
        -Fr::from(1u64),
        Fr::from(0u64),
        Fr::from(2u64),
    ]);
    let vectors = [
        inputs.scalars(),
        other[..17 * 32].to_vec(),
        Vec::new(),
        other[32..64].to_vec(),
        edges,
        other.clone(),
    ];
    let t0 = js_sys::Date::now();
    let results = run_batch(ctx, &bases, &vectors, JsValue::UNDEFINED).await.unwrap();
    let t1 = js_sys::Date::now();
    assert_eq!(results.len(), vectors.len());
    for (i, (v, got)) in vectors.iter().zip(&results).enumerate() {
        let want = cpu_msm(&b, v, JsValue::UNDEFINED).unwrap();
        assert_eq!(got.point(), want, "vector {i} against arkworks");
        assert_eq!(got.points(), v.len() / 32, "vector {i}");
        let single = run(ctx, &bases, v, JsValue::UNDEFINED).await.unwrap();
        assert_eq!(got.point(), single.point(), "vector {i} against msm");
    }
    assert!(results[2].is_identity(), "an empty vector gives the identity");
    assert_ne!(
        results[0].point(),
        results[5].point(),
        "distinct vectors, distinct results"
    );
    console_log!(
        "msmBatch of {} vectors over {n} bases: {:.0} ms",
        vectors.len(),
        t1 - t0
    );

    // A batch with the context's other knobs gives the same points.
    let chunked = run_batch(ctx, &bases, &vectors[..2], js(r#"{"maxChunkPoints": 16}"#))
        .await
        .unwrap();
    assert_eq!(chunked[0].point(), results[0].point(), "chunked batch");
    assert_eq!(chunked[1].point(), results[1].point(), "chunked batch, prefix");
    assert!(run_batch(ctx, &bases, &[], JsValue::UNDEFINED)
        .await
        .unwrap()
        .is_empty());
}

/// A mistake in any vector rejects the batch with a message naming it.
pub async fn batch_mistakes_are_js_exceptions(ctx: &MsmContext) {
    let inputs = SampleInputs::new(8, 3, JsValue::UNDEFINED).unwrap();
    let bases = upload(ctx, &inputs.bases()).await.unwrap();
    let ok = inputs.scalars();
    let mut long = ok.clone();
    long.extend_from_slice(&ok[..32]);
    let e = run_batch(ctx, &bases, &[ok.clone(), long], JsValue::UNDEFINED)
        .await
        .err()
        .expect("a vector longer than the bases is refused");
    assert!(e.starts_with("scalar vector 1: 9 scalars for 8 bases"), "{e}");
    // a word above r is taken mod r, as cpuMsm takes it
    let mut too_big = ok.clone();
    too_big[32 + 31] = 0xff;
    let got = run_batch(ctx, &bases, &[ok.clone(), too_big.clone()], JsValue::UNDEFINED)
        .await
        .unwrap();
    assert_eq!(
        got[1].point(),
        cpu_msm(&inputs.bases(), &too_big, JsValue::UNDEFINED).unwrap()
    );
    let e = run_batch(ctx, &bases, &[ok[..33].to_vec()], JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(
        e.starts_with("scalar vector 0:") && e.contains("not a whole number"),
        "{e}"
    );
    let one = js_sys::Uint8Array::from(&ok[..]);
    let e = batch_of(ctx, &bases, one.into(), JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(e.contains("expected an array"), "{e}");
    let mixed = js_sys::Array::of2(&js_sys::Uint8Array::from(&ok[..]), &js("[1, 2]"));
    let e = batch_of(ctx, &bases, mixed.into(), JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(e.contains("scalar vector 1: expected a Uint8Array"), "{e}");
    let e = run_batch(ctx, &bases, &[ok], js(r#"{"walkerSlots": 0}"#))
        .await
        .err()
        .unwrap();
    assert!(e.contains("walker_slots"), "{e}");
}

/// A context of the group `options` names (`{"curve": ..., "group": ...}`,
/// keys in that order): seeded MSMs in both base formats, a batch with a
/// prefix, every adversarial class, refusals; all against arkworks in wasm.
pub async fn group_matches_arkworks(options: &str) {
    let group = js(options);
    let ctx = MsmContext::create(js(&options.replace('}', r#", "warmUp": false}"#)))
        .await
        .unwrap_or_else(|e| panic!("{options}: {}", error_message(e)));
    let described = js_sys::JSON::stringify(&ctx.group()).unwrap();
    assert_eq!(String::from(described), options.replace(' ', ""));
    let size = ctx.point_bytes();
    let t0 = js_sys::Date::now();
    let inputs = SampleInputs::new(60, 5, group.clone()).unwrap();
    let (b, s) = (inputs.bases(), inputs.scalars());
    assert_eq!(b.len(), 60 * size);
    let want = cpu_msm(&b, &s, group.clone()).unwrap();
    let bases = upload(&ctx, &b).await.unwrap();
    let got = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
    assert_eq!(got.point(), want, "{options}");
    assert!(!got.is_identity() && got.x().starts_with("0x"));
    let t1 = js_sys::Date::now();
    let raw = upload_raw(&ctx, &inputs.bases_raw()).await.unwrap();
    let got = run(&ctx, &raw, &s, JsValue::UNDEFINED).await.unwrap();
    assert_eq!(got.point(), want, "{options}, raw bases");
    assert_eq!(got.raw().len(), size);
    let vectors = [s.clone(), s[..17 * 32].to_vec(), Vec::new()];
    let results = run_batch(&ctx, &bases, &vectors, JsValue::UNDEFINED).await.unwrap();
    for (i, (v, got)) in vectors.iter().zip(&results).enumerate() {
        assert_eq!(
            got.point(),
            cpu_msm(&b, v, group.clone()).unwrap(),
            "{options}: vector {i}"
        );
    }
    assert!(results[2].is_identity());
    for case in msm_wasm::adversarial_inputs(24, 3, group.clone()).unwrap().iter() {
        let field = |k: &str| js_sys::Reflect::get(&case, &k.into()).unwrap();
        let what = field("what").as_string().unwrap();
        let cb = js_sys::Uint8Array::from(field("bases")).to_vec();
        let cs = js_sys::Uint8Array::from(field("scalars")).to_vec();
        let bases = upload(&ctx, &cb)
            .await
            .unwrap_or_else(|e| panic!("{options} {what}: {e}"));
        let got = run(&ctx, &bases, &cs, JsValue::UNDEFINED).await.unwrap();
        assert_eq!(
            got.point(),
            cpu_msm(&cb, &cs, group.clone()).unwrap(),
            "{options}: {what}"
        );
    }
    // a point off the curve is named; another group's bases are refused
    let mut bad = b.clone();
    bad[2 * size + size / 2 - 2] ^= 1;
    let e = upload(&ctx, &bad).await.err().unwrap();
    assert!(e.starts_with("bases: point 2 is refused: "), "{options}: {e}");
    let e = upload(&ctx, &b[..size + 1]).await.err().unwrap();
    assert!(e.contains("not a whole number"), "{options}: {e}");
    // a point on the curve but outside the prime-order subgroup: refused by
    // the upload in both formats, and by cpuMsm
    for (raw, format) in [
        (false, msm_core::BaseFormat::Arkworks),
        (true, msm_core::BaseFormat::Raw),
    ] {
        let Some(point) = outside_subgroup_bytes(options, format) else {
            break;
        };
        let mut bad = if raw { inputs.bases_raw() } else { b.clone() };
        bad[7 * size..8 * size].copy_from_slice(&point);
        let e = if raw {
            upload_raw(&ctx, &bad).await
        } else {
            upload(&ctx, &bad).await
        }
        .err()
        .unwrap();
        assert!(
            e.ends_with("point 7 is refused: it is on the curve but not in the prime-order subgroup"),
            "{options}: {e}"
        );
        if !raw {
            let e = error_message(cpu_msm(&bad, &s, group.clone()).unwrap_err());
            assert!(e.contains("point 7 is refused"), "{options}: {e}");
        }
    }
    let bn254 = context().await;
    let g1 = SampleInputs::new(4, 1, JsValue::UNDEFINED).unwrap();
    let g1_bases = upload(&bn254, &g1.bases()).await.unwrap();
    let e = run(&ctx, &g1_bases, &g1.scalars(), JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(e.contains("this context runs"), "{options}: {e}");
    console_log!(
        "{options}: first MSM {:.0} ms (with its compiles), the rest {:.0} ms",
        t1 - t0,
        js_sys::Date::now() - t1
    );
}

/// The encoding of a point outside the prime-order subgroup of the group
/// `options` names (`None` for BN254's G1, whose cofactor is 1).
pub fn outside_subgroup_bytes(options: &str, format: msm_core::BaseFormat) -> Option<Vec<u8>> {
    fn of<C: msm_core::GpuCurve>(format: msm_core::BaseFormat) -> Option<Vec<u8>> {
        let p = msm_core::sample::outside_subgroup::<C>(1, 9).pop()?;
        Some(format.encode(&p))
    }
    match (options.contains("bls12-381"), options.contains("g2")) {
        (false, false) => of::<ark_bn254::g1::Config>(format),
        (true, false) => of::<ark_bls12_381::g1::Config>(format),
        (false, true) => of::<ark_bn254::g2::Config>(format),
        (true, true) => of::<ark_bls12_381::g2::Config>(format),
    }
}
