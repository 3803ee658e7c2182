//! BLS12-381 G1 MSMs on the GPU against ark-bls12-381: seeded inputs of
//! several sizes, every adversarial class, batches with prefixes, the table
//! of shifted bases, the host reduce, and the typed refusals of another
//! curve's inputs.

mod common;

use ark_bls12_381::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::{BigInteger, PrimeField, Zero};
use msm_core::sample::{adversarial_of, inputs_of};
use msm_core::{ContextOptions, Curve, FieldLayout, GpuContext, MsmConfig, MsmError, ReduceOn, Scalars};

type Bls = ark_bls12_381::g1::Config;

/// The BLS12-381 context in the adapter's default layout, built once for
/// the binary (its pipelines compile once: the 381-bit shaders take a
/// minute or two on lavapipe).
fn bls_ctx() -> &'static GpuContext {
    static CTX: std::sync::OnceLock<GpuContext> = std::sync::OnceLock::new();
    CTX.get_or_init(|| {
        GpuContext::new_blocking(&ContextOptions {
            curve: Curve::Bls12_381G1,
            ..Default::default()
        })
        .expect("a BLS12-381 context")
    })
}

fn reference(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    G1Projective::msm(&bases[..scalars.len()], scalars).unwrap()
}

#[test]
fn bls12_381_msms_match_arkworks() {
    let ctx = bls_ctx();
    assert_eq!(ctx.curve(), Curve::Bls12_381G1);
    for (i, n) in [1usize, 2, 3, 100, 1000, 4096].into_iter().enumerate() {
        let (bases, scalars) = inputs_of::<Bls>(n, 40 + i as u64);
        let b = ctx.upload_bases_blocking(&bases).unwrap();
        let run = ctx.msm_blocking_with(&b, &scalars, &ctx.config_for(n)).unwrap();
        let plan = run.plan.unwrap();
        assert!(plan.windows * plan.c >= 256, "n = {n}: {plan:?}");
        assert_eq!(run.result, reference(&bases, &scalars), "n = {n}");
    }
    // scalars near r, as field elements and as integers (any 256-bit value
    // reduces mod r on the GPU)
    let (bases, _) = inputs_of::<Bls>(64, 9);
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    let near: Vec<Fr> = (1..=64u64).map(|k| -Fr::from(k)).collect();
    assert_eq!(ctx.msm_blocking(&b, &near).unwrap(), reference(&bases, &near));
    let mut big: Vec<ark_ff::BigInt<4>> = near.iter().map(|s| s.into_bigint()).collect();
    for (k, v) in big.iter_mut().enumerate().step_by(3) {
        // v + r < 2^256: the same scalar mod r
        v.add_with_carry(&Fr::MODULUS);
        assert!(v.num_bits() <= 256, "{k}");
    }
    let config = ctx.config_for(64);
    let run = pollster::block_on(ctx.msm_scalars_with(&b, Scalars::Canonical(&big), &config)).unwrap();
    assert_eq!(run.result, reference(&bases, &near));
}

#[test]
fn bls12_381_adversarial_classes_are_exact() {
    let ctx = bls_ctx();
    for (name, bases, scalars) in adversarial_of::<Bls>(200, 5) {
        let b = ctx.upload_bases_blocking(&bases).unwrap();
        let got = ctx.msm_blocking(&b, &scalars).unwrap();
        assert_eq!(got, reference(&bases, &scalars), "{name}");
    }
}

#[test]
fn bls12_381_batches_tables_and_host_reduce() {
    let ctx = bls_ctx();
    let n = 2048;
    let (bases, scalars) = inputs_of::<Bls>(n, 77);
    let mut b = ctx.upload_bases_blocking(&bases).unwrap();
    // a batch with a prefix vector, then equal vectors (joint jobs)
    let short = &scalars[..700];
    let got = ctx.msm_batch_blocking(&b, &[&scalars, short]).unwrap();
    assert_eq!(got, vec![reference(&bases, &scalars), reference(&bases, short)]);
    let halves: Vec<&[Fr]> = scalars.chunks(512).collect();
    let got = ctx.msm_batch_blocking(&b, &halves).unwrap();
    let want: Vec<G1Projective> = halves.iter().map(|v| reference(&bases, v)).collect();
    assert_eq!(got, want);
    // the host reduce (SwiftShader's route), and base parts of 300 points
    let host = MsmConfig {
        reduce: ReduceOn::Host,
        ..ctx.config_for(n)
    };
    let run = ctx.msm_blocking_with(&b, &scalars, &host).unwrap();
    assert_eq!(run.result, reference(&bases, &scalars), "host reduce");
    let parts = ctx.upload_bases_in_parts(&bases, 300);
    assert_eq!(parts.parts(), 7);
    assert_eq!(
        ctx.msm_blocking(&parts, &scalars).unwrap(),
        reference(&bases, &scalars),
        "parts"
    );
    // a table of shifted bases (c = 11: 24 windows of 256 digit bits)
    ctx.build_table_blocking(&mut b, Some(11)).unwrap();
    let table = MsmConfig {
        bases_table: true,
        ..ctx.config_for(n)
    };
    let run = ctx.msm_blocking_with(&b, &scalars, &table).unwrap();
    assert!(run.plan.unwrap().table);
    assert_eq!(run.result, reference(&bases, &scalars), "table");
    let got = pollster::block_on(ctx.msm_batch_with(&b, &[Scalars::from(short)], &table)).unwrap();
    assert_eq!(got.results, vec![reference(&bases, short)], "table prefix");
}

#[test]
fn another_curves_inputs_are_refused() {
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
