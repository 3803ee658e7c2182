//! BLS12-381 G1 MSMs on the GPU against ark-bls12-381: seeded inputs of
//! several sizes, every adversarial class, batches with prefixes, the table
//! of shifted bases, the host reduce, and the typed refusals of another
//! curve's inputs.

use crate::common;

use ark_ff::Zero;
use common::msms::{self, reference};
use msm_core::sample::inputs_of;
use msm_core::{ContextOptions, Curve, FieldLayout, GpuContext, MsmError, Scalars};

type Bls = ark_bls12_381::g1::Config;

/// The BLS12-381 context in the adapter's default layout, built once for
/// the binary (its pipelines compile once: the 381-bit shaders take a
/// minute or two on lavapipe).
fn bls_ctx() -> &'static GpuContext {
    static CTX: std::sync::OnceLock<GpuContext> = std::sync::OnceLock::new();
    CTX.get_or_init(|| msms::context_of(Curve::Bls12_381G1))
}

#[test]
fn bls12_381_msms_match_arkworks() {
    common::fast_lavapipe_compile();
    msms::check_sizes_and_scalars_near_r::<Bls>(bls_ctx(), &[1, 2, 3, 100, 1000, 4096]);
}

#[test]
fn bls12_381_adversarial_classes_are_exact() {
    common::fast_lavapipe_compile();
    msms::check_adversarial::<Bls>(bls_ctx(), 200);
}

/// (The table at c = 11: 24 windows of 256 digit bits.)
#[test]
fn bls12_381_batches_tables_and_host_reduce() {
    common::fast_lavapipe_compile();
    msms::check_batches_tables_and_host_reduce::<Bls>(bls_ctx(), 2048, Some(11));
}

/// BLS12-381's encodings (arkworks' big-endian zcash one, raw).
#[test]
fn bls12_381_bases_from_bytes() {
    common::fast_lavapipe_compile();
    msms::check_bases_from_bytes::<Bls>(bls_ctx(), 300);
}

#[test]
fn another_curves_inputs_are_refused() {
    common::fast_lavapipe_compile();
    let ctx = bls_ctx();
    let (bn_bases, bn_scalars) = msm_core::sample::inputs(8, 1);
    let wrong = |e: &MsmError| matches!(e, MsmError::WrongCurve { .. });
    assert!(wrong(&ctx.upload_bases_blocking(&bn_bases).unwrap_err()));
    let (bases, _) = inputs_of::<Bls>(8, 1);
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    let config = ctx.config_for(8);
    let e = pollster::block_on(ctx.msm_scalars_with(&b, Scalars::Fr(&bn_scalars), &config)).unwrap_err();
    assert!(wrong(&e));
    // and a BN254 context refuses BLS12-381 points
    let bn = common::ctx(FieldLayout::Limbs32x8)
        .or_else(|| common::ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let e = bn.upload_bases_blocking(&bases).unwrap_err();
    assert!(wrong(&e), "{e}");
    assert!(e.to_string().contains("bls12-381"), "{e}");
    assert!(ctx.msm_blocking(&b, &[]).unwrap().is_zero());
}

#[test]
fn the_engine_routes_bls12_381() {
    common::fast_lavapipe_compile();
    use msm_core::{Backend, Engine, EngineOptions};
    let (bases, scalars) = inputs_of::<Bls>(100, 3);
    let want = reference(&bases, &scalars);
    let cpu = Engine::new_blocking(&EngineOptions {
        backend: Backend::Cpu,
        ..Default::default()
    })
    .unwrap();
    let b = cpu.upload_bases_blocking(&bases).unwrap();
    assert_eq!(cpu.msm_blocking(&b, &scalars).unwrap(), want);
    let gpu = Engine::new_blocking(&EngineOptions {
        backend: Backend::Gpu,
        context: ContextOptions {
            curve: Curve::Bls12_381G1,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let b = gpu.upload_bases_blocking(&bases).unwrap();
    let got = gpu.msm_batch_blocking(&b, &[&scalars, &scalars[..10]]).unwrap();
    assert_eq!(got, vec![want, reference(&bases, &scalars[..10])]);
    // a BN254 engine keeps BLS12-381 points on the host under Auto, and
    // refuses them under Gpu
    let bn = Engine::new_blocking(&EngineOptions {
        backend: Backend::Gpu,
        ..Default::default()
    })
    .unwrap();
    assert!(matches!(
        bn.upload_bases_blocking(&bases),
        Err(MsmError::WrongCurve { .. })
    ));
}
