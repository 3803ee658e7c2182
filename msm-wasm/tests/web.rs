//! Browser tests: the JS-facing API on WebGPU in headless Chromium (SwiftShader
//! in CI), checked against arkworks computed in the same wasm instance.
//! Run with `scripts/test-web.sh`.
#![cfg(target_arch = "wasm32")]

mod common;

use ark_bn254::{Fr, G1Affine};
use common::{context, error_message, js, run, upload, upload_raw, upload_with, NO_WARM_UP};
use msm_wasm::encoding::{points_arkworks, scalars_bytes};
use msm_wasm::{cpu_msm, MsmContext, SampleInputs};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The MSM of arkworks-format bytes on the GPU, checked against arkworks.
async fn check(ctx: &MsmContext, bases: &[u8], scalars: &[u8], options: &str, what: &str) {
    let b = upload(ctx, bases).await.unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = run(ctx, &b, scalars, js(options))
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = cpu_msm(bases, scalars, JsValue::UNDEFINED).unwrap();
    assert_eq!(got.point(), want, "{what} ({options})");
}

#[wasm_bindgen_test]
async fn sizes_match_arkworks() {
    let ctx = context().await;
    for logn in [8u32, 10, 12] {
        let inputs = SampleInputs::new(1 << logn, logn as u64, JsValue::UNDEFINED).unwrap();
        let (b, s) = (inputs.bases(), inputs.scalars());
        let t0 = js_sys::Date::now();
        let bases = upload(&ctx, &b).await.unwrap();
        let first = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
        let t1 = js_sys::Date::now();
        let again = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
        let t2 = js_sys::Date::now();
        assert_eq!(first.point(), cpu_msm(&b, &s, JsValue::UNDEFINED).unwrap(), "2^{logn}");
        assert_eq!(again.point(), first.point(), "2^{logn}, second run");
        console_log!("2^{logn}: first {:.0} ms, again {:.0} ms", t1 - t0, t2 - t1);
    }
}

/// In CI under Dawn (msm-wasm/node's suite, the same wasm); here with
/// `scripts/test-web.sh --include-ignored`.
#[wasm_bindgen_test]
#[ignore]
async fn adversarial_inputs_match_arkworks() {
    let ctx = context().await;
    for (what, bases, scalars) in msm_core::sample::adversarial(24, 3) {
        check(&ctx, &points_arkworks(&bases), &scalars_bytes(&scalars), "{}", what).await;
    }
    // n = 0: the identity, without touching the GPU
    let empty = upload(&ctx, &[]).await.unwrap();
    assert!(run(&ctx, &empty, &[], JsValue::UNDEFINED).await.unwrap().is_identity());
}

/// A covering subset of TPB {64, 96, 128, 256} x pref {private, workgroup} x
/// S {2, 4, 8} x dx-cache x fused: every value of every knob, and every pair
/// of the boolean knobs (the full matrix runs natively on lavapipe; here each
/// walker variant costs seconds of SwiftShader compilation).
#[wasm_bindgen_test]
async fn knob_matrix_subset_matches_arkworks() {
    let ctx = context().await;
    let inputs = SampleInputs::new(100, 11, JsValue::UNDEFINED).unwrap();
    let (b, s) = (inputs.bases(), inputs.scalars());
    for (tpb, pref, slots, cache_dx, fused) in [
        (64, "private", 2, true, false),
        (96, "workgroup", 4, false, true),
        (128, "private", 8, false, false),
        (256, "workgroup", 1, true, true),
    ] {
        let options = format!(
            r#"{{"walkerTpb": {tpb}, "walkerPrefMem": "{pref}", "walkerSlots": {slots}, "walkerCacheDx": {cache_dx}, "walkerFused": {fused}, "walkerThreads": 64}}"#
        );
        check(&ctx, &b, &s, &options, "knobs").await;
    }
    check(&ctx, &b, &s, r#"{"reduce": "gpu", "windowBits": 4}"#, "GPU reduce").await;
    check(&ctx, &b, &s, r#"{"maxChunkPoints": 33}"#, "chunks").await;
}

/// Every combination of TPB {64, 96, 128, 256} x pref {private, workgroup} x
/// S {2, 4, 8} x dx-cache x fused, on a small input with few walker threads
/// (long walks, split buckets); each walker variant compiles once. About 9
/// minutes on SwiftShader, so CI runs the covering subset above;
/// `scripts/test-web.sh --include-ignored` runs this too.
#[wasm_bindgen_test]
#[ignore]
async fn knob_matrix_matches_arkworks() {
    let ctx = context().await;
    let inputs = SampleInputs::new(40, 11, JsValue::UNDEFINED).unwrap();
    let (b, s) = (inputs.bases(), inputs.scalars());
    let bases = upload(&ctx, &b).await.unwrap();
    let want = cpu_msm(&b, &s, JsValue::UNDEFINED).unwrap();
    // WebGPU's guaranteed minimum; the test adapter has exactly this.
    let workgroup_memory = 16384 * 2;
    let t0 = js_sys::Date::now();
    for tpb in [64, 96, 128, 256] {
        for pref in ["private", "workgroup"] {
            for slots in [2, 4, 8] {
                for cache_dx in [true, false] {
                    for fused in [false, true] {
                        let options = format!(
                            r#"{{"walkerTpb": {tpb}, "walkerPrefMem": "{pref}", "walkerSlots": {slots}, "walkerCacheDx": {cache_dx}, "walkerFused": {fused}, "walkerThreads": 16}}"#
                        );
                        let result = run(&ctx, &bases, &s, js(&options)).await;
                        // pref scratch, the inversion tree (2 x TPB rounded up to a
                        // power of two, 32 bytes each) and two flag words
                        let tree = (2 * (tpb as u32).next_power_of_two() as i32 - 1) * 32;
                        if pref == "workgroup" && tpb * slots * 32 + tree + 8 > workgroup_memory {
                            let e = result.err().unwrap_or_else(|| panic!("{options}: accepted"));
                            assert!(e.contains("workgroup memory"), "{options}: {e}");
                            continue;
                        }
                        let got = result.unwrap_or_else(|e| panic!("{options}: {e}"));
                        assert_eq!(got.point(), want, "{options}");
                    }
                }
            }
        }
    }
    console_log!("the knob matrix in {:.0} s", (js_sys::Date::now() - t0) / 1e3);
    check(&ctx, &b, &s, r#"{"reduce": "gpu", "windowBits": 4}"#, "GPU reduce").await;
    check(&ctx, &b, &s, r#"{"maxChunkPoints": 13}"#, "chunks").await;
}

#[wasm_bindgen_test]
async fn batch_matches_single_msm_and_arkworks() {
    common::batch_matches_single_and_arkworks(&*context().await).await;
}

#[wasm_bindgen_test]
async fn batch_mistakes_are_js_exceptions() {
    common::batch_mistakes_are_js_exceptions(&*context().await).await;
}

/// Scalar words at and above r (r - 1, r, r + 1, 2^254, 2^255, 2^256 - 1)
/// are taken mod r (as `cpuMsm` takes them), beside ordinary scalars.
/// In CI under Dawn (msm-wasm/node's suite, the same wasm); here with
/// `scripts/test-web.sh --include-ignored`.
#[wasm_bindgen_test]
#[ignore]
async fn words_above_r_are_taken_mod_r() {
    use ark_ff::{BigInteger, PrimeField};
    let ctx = context().await;
    let inputs = SampleInputs::new(30, 9, JsValue::UNDEFINED).unwrap();
    let mut s = inputs.scalars();
    let r = Fr::MODULUS.to_bytes_le();
    let mut r_minus_1 = Fr::MODULUS;
    r_minus_1.sub_with_borrow(&1u64.into());
    let mut r_plus_1 = Fr::MODULUS;
    r_plus_1.add_with_carry(&1u64.into());
    let pow = |bit: usize| {
        let mut w = [0u8; 32];
        w[bit / 8] = 1 << (bit % 8);
        w.to_vec()
    };
    let words = [
        r_minus_1.to_bytes_le(),
        r,
        r_plus_1.to_bytes_le(),
        pow(254),
        pow(255),
        vec![0xff; 32],
    ];
    for (i, w) in words.iter().enumerate() {
        s[64 * i..64 * i + 32].copy_from_slice(w);
    }
    check(&ctx, &inputs.bases(), &s, "{}", "words above r").await;
    check(&ctx, &inputs.bases(), &s, r#"{"windowBits": 5}"#, "words above r").await;
}

/// `uploadBases(bytes, { tableBits })` builds the table of shifted bases;
/// MSMs over it (whole and prefix) equal arkworks; a bad width is refused.
/// In CI under Dawn (msm-wasm/node's suite, the same wasm); here with
/// `scripts/test-web.sh --include-ignored`.
#[wasm_bindgen_test]
#[ignore]
async fn tables_match_arkworks() {
    let ctx = context().await;
    let inputs = SampleInputs::new(300, 9, JsValue::UNDEFINED).unwrap();
    let (b, s) = (inputs.bases(), inputs.scalars());
    for options in [r#"{"tableBits": 9}"#, r#"{"tableBits": "auto"}"#] {
        let bases = upload_with(&ctx, &b, options).await.unwrap();
        assert!(bases.table_bits().is_some(), "{options}");
        let got = run(&ctx, &bases, &s, JsValue::UNDEFINED).await.unwrap();
        assert_eq!(got.point(), cpu_msm(&b, &s, JsValue::UNDEFINED).unwrap(), "{options}");
        let prefix = run(&ctx, &bases, &s[..100 * 32], JsValue::UNDEFINED).await.unwrap();
        assert_eq!(
            prefix.point(),
            cpu_msm(&b[..100 * 64], &s[..100 * 32], JsValue::UNDEFINED).unwrap(),
            "{options}, prefix"
        );
    }
    assert_eq!(upload(&ctx, &b).await.unwrap().table_bits(), None);
    let e = upload_with(&ctx, &b, r#"{"tableBits": 40}"#).await.err().unwrap();
    assert!(e.contains("window_bits"), "{e}");
}

/// In CI under Dawn (msm-wasm/node's suite, the same wasm); here with
/// `scripts/test-web.sh --include-ignored`.
#[wasm_bindgen_test]
#[ignore]
async fn raw_coordinates_match_arkworks() {
    let ctx = context().await;
    let inputs = SampleInputs::new(77, 5, JsValue::UNDEFINED).unwrap();
    let bases = upload_raw(&ctx, &inputs.bases_raw()).await.unwrap();
    assert_eq!(bases.length(), 77);
    let got = run(&ctx, &bases, &inputs.scalars(), JsValue::UNDEFINED).await.unwrap();
    assert_eq!(
        got.point(),
        cpu_msm(&inputs.bases(), &inputs.scalars(), JsValue::UNDEFINED).unwrap()
    );
    let want = msm_wasm::encoding::bases_arkworks(&got.point()).unwrap()[0];
    assert_eq!(msm_wasm::encoding::bases_raw(&got.raw()).unwrap()[0], want);
    assert_eq!(got.points(), 77);
}

#[wasm_bindgen_test]
async fn timing_reports_every_pass() {
    let ctx = context().await;
    let inputs = SampleInputs::new(64, 2, JsValue::UNDEFINED).unwrap();
    let bases = upload(&ctx, &inputs.bases()).await.unwrap();
    let r = run(&ctx, &bases, &inputs.scalars(), js(r#"{"timing": true}"#))
        .await
        .unwrap();
    let adapter = ctx.adapter();
    let timestamps = js_sys::Reflect::get(&adapter, &"timestamps".into())
        .unwrap()
        .is_truthy();
    assert_eq!(r.gpu_pass_ms().map(|p| p.len()), timestamps.then_some(4));
    assert!(r.gpu_wall_ms() > 0.0 && r.window_bits() > 0);
}

#[wasm_bindgen_test]
async fn mistakes_are_js_exceptions() {
    let ctx = context().await;
    let inputs = SampleInputs::new(4, 1, JsValue::UNDEFINED).unwrap();
    let b = inputs.bases();
    let bases = upload(&ctx, &b).await.unwrap();
    let e = upload(&ctx, &b[..100]).await.err().unwrap();
    assert!(e.contains("not a whole number"), "{e}");
    let mut bad_point = b.clone();
    bad_point[64] ^= 1;
    let e = upload(&ctx, &bad_point).await.err().unwrap();
    assert_eq!(e, "bases: point 1 is refused: it is not on the curve");
    bad_point[64] ^= 1;
    bad_point[127] ^= 0x80;
    let e = upload(&ctx, &bad_point).await.err().unwrap();
    assert!(e.starts_with("bases: point 1 is refused: its sign flag"), "{e}");
    let not_an_array = JsFuture::from(ctx.upload_bases(js("[1, 2]"), JsValue::UNDEFINED))
        .await
        .err()
        .unwrap();
    assert!(common::message(not_an_array).contains("expected a Uint8Array"));
    let e = run(&ctx, &bases, &b[..33], JsValue::UNDEFINED).await.err().unwrap();
    assert!(e.contains("not a whole number of 32-byte"), "{e}");
    let mut extra = inputs.scalars();
    extra.extend_from_slice(&inputs.scalars()[..32]);
    let e = run(&ctx, &bases, &extra, JsValue::UNDEFINED).await.err().unwrap();
    assert!(e.contains("at most one scalar per base"), "{e}");
    let e = run(&ctx, &bases, &inputs.scalars(), js(r#"{"walkerSlots": 0}"#))
        .await
        .err()
        .unwrap();
    assert!(e.contains("walker_slots"), "{e}");
    let e = run(&ctx, &bases, &inputs.scalars(), js(r#"{"walkerTbp": 64}"#))
        .await
        .err()
        .unwrap();
    assert!(e.contains("walkerTbp"), "{e}");
    let e = run(&ctx, &bases, &inputs.scalars(), js(r#"{"walkerTpb": 4096}"#))
        .await
        .err()
        .unwrap();
    assert!(e.contains("walker_tpb"), "{e}");
    let other = MsmContext::create(js(NO_WARM_UP)).await.unwrap();
    let e = run(&other, &bases, &inputs.scalars(), JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(e.contains("another context"), "{e}");
    let e = match MsmContext::create(js(r#"{"fieldLayout": "32x8-int64"}"#)).await {
        Err(e) => error_message(e),
        Ok(_) => panic!("WebGPU has no 64-bit integers"),
    };
    assert!(e.contains("64-bit"), "{e}");
    let _: G1Affine = msm_wasm::encoding::bases_arkworks(&b).unwrap()[0];
}

/// BLS12-381's G1 through the browser API (its 381-bit pipelines compile
/// once on SwiftShader): see `common::group_matches_arkworks`.
#[wasm_bindgen_test]
async fn bls12_381_g1_matches_arkworks() {
    common::group_matches_arkworks(r#"{"curve": "bls12-381", "group": "g1"}"#).await;
}

/// The G2s through the browser API: each group's pipelines are minutes of
/// SwiftShader compilation, so they run with `scripts/test-web.sh
/// --include-ignored` (the result is in docs/benchmarks.md).
#[wasm_bindgen_test]
#[ignore]
async fn g2_groups_match_arkworks() {
    common::group_matches_arkworks(r#"{"curve": "bn254", "group": "g2"}"#).await;
    common::group_matches_arkworks(r#"{"curve": "bls12-381", "group": "g2"}"#).await;
}
