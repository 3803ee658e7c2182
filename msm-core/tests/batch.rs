//! Batch MSMs: k vectors against one resident base set in one submission,
//! each equal to arkworks' MSM of its own prefix of the bases, whatever the
//! mix of lengths, scalar forms, chunking and base parts.

mod common;

use ark_bn254::Fr;
use ark_ec::CurveGroup;
use ark_ff::Zero;
use common::ctx;
use msm_core::{cpu, FieldLayout, GpuContext, MsmConfig, ReduceOn, Scalars};

fn fastest_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}

/// One test, so nothing else runs on the shared context while the object
/// counts are compared.
#[test]
fn batches() {
    agrees_with_single_calls_and_stays_warm();
    results_equal_arkworks();
    joint_batches_equal_arkworks();
}

/// Equal-length vectors run as joint plans (one row of buckets per vector
/// and window): every result equals arkworks with identity bases or P and
/// -P among the bases, adversarial scalars, groups that leave a remainder,
/// a prefix of the bases, bases in parts, canonical words, the host reduce,
/// narrow windows, and joint batches turned off.
fn joint_batches_equal_arkworks() {
    let ctx = fastest_ctx();
    let n = 600;
    let cases = msm_core::sample::adversarial(n, 44);
    let find = |name: &str| cases.iter().find(|c| c.0 == name).unwrap();
    let classes = [
        "identity bases",
        "zero scalars",
        "scalars r - 1",
        "some r - 1",
        "all-equal scalars",
        "P and -P, equal scalars",
    ];
    let vectors: Vec<Vec<Fr>> = classes.iter().map(|c| find(c).2.clone()).collect();
    let k = vectors.len();
    for base_case in ["identity bases", "P and -P, random scalars"] {
        let bases = &find(base_case).1;
        let whole = ctx.upload_bases_blocking(bases).unwrap();
        let parts = ctx.upload_bases_in_parts(bases, 500);
        for len in [n, 400] {
            let views: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::Fr(&v[..len])).collect();
            let want: Vec<_> = vectors
                .iter()
                .map(|v| cpu::msm_reference(&bases[..len], &v[..len]).into_affine())
                .collect();
            let with = |f: fn(&mut MsmConfig, usize)| {
                let mut c = MsmConfig::default();
                f(&mut c, len);
                c
            };
            let runs = [
                ("defaults", &whole, MsmConfig::default(), k),
                ("pairs", &whole, with(|c, len| c.joint_points = 2 * len as u32), 2),
                ("off", &whole, with(|c, _| c.joint_points = 0), 1),
                (
                    "chunks of 3 vectors",
                    &whole,
                    with(|c, len| c.max_chunk_points = Some(3 * len as u32)),
                    3,
                ),
                (
                    "chunks of one vector",
                    &whole,
                    with(|c, len| c.max_chunk_points = Some(len as u32)),
                    1,
                ),
                (
                    "a wave a vector",
                    &whole,
                    with(|c, _| {
                        c.joint_points = 0;
                        c.wave_points = 1;
                    }),
                    1,
                ),
                (
                    "waves of two joint jobs",
                    &whole,
                    with(|c, len| {
                        c.max_chunk_points = Some(2 * len as u32);
                        c.wave_points = 3 * len as u32;
                    }),
                    2,
                ),
                ("host reduce", &whole, with(|c, _| c.reduce = ReduceOn::Host), k),
                ("c = 5", &whole, with(|c, _| c.window_bits = Some(5)), k),
                // rounds ending inside a row of a joint plan's vector x window rows
                ("scatter in rounds", &whole, with(|c, _| c.scatter_buckets = 1000), k),
                (
                    "parts of 500",
                    &parts,
                    MsmConfig::default(),
                    if len > 500 { 1 } else { k },
                ),
            ];
            for (what, resident, config, joint) in runs {
                let run = pollster::block_on(ctx.msm_batch_with(resident, &views, &config)).unwrap();
                let got: Vec<_> = run.results.iter().map(|p| p.into_affine()).collect();
                assert_eq!(got, want, "{base_case}, {len} points, {what}");
                assert_eq!(run.plan.unwrap().vectors as usize, joint, "{what}: vectors per job");
            }
        }
        let words: Vec<Vec<ark_ff::BigInt<4>>> = vectors
            .iter()
            .map(|v| v.iter().map(|s| ark_ff::PrimeField::into_bigint(*s)).collect())
            .collect();
        let views: Vec<Scalars<'_>> = words.iter().map(|w| Scalars::Canonical(w)).collect();
        let run = pollster::block_on(ctx.msm_batch_with(&whole, &views, &MsmConfig::default())).unwrap();
        for (v, got) in vectors.iter().zip(&run.results) {
            assert_eq!(
                got.into_affine(),
                cpu::msm_reference(bases, v).into_affine(),
                "canonical words"
            );
        }
        assert_eq!(run.plan.unwrap().vectors as usize, k);
    }
}

/// Vectors of several lengths (full, prefixes across a part boundary, empty),
/// in both scalar forms, with and without chunking and with the host reduce
/// (which submits job by job): every result equals arkworks.
fn results_equal_arkworks() {
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(1200, 40);
    let adversarial = msm_core::sample::adversarial(1200, 41);
    let edge = &adversarial.iter().find(|c| c.0 == "some r - 1").unwrap().2;
    let other = msm_core::sample::inputs(1200, 42).1;
    let words: Vec<ark_ff::BigInt<4>> = other.iter().map(|s| ark_ff::PrimeField::into_bigint(*s)).collect();
    let vectors = [
        Scalars::Fr(&scalars),
        Scalars::Fr(&other[..700]),
        Scalars::Fr(&[]),
        Scalars::Canonical(&words[..501]),
        Scalars::Fr(edge),
        Scalars::Fr(&scalars[..1]),
    ];
    let want: Vec<_> = [&scalars[..], &other[..700], &[], &other[..501], edge, &scalars[..1]]
        .iter()
        .map(|s| cpu::msm_reference(&bases[..s.len()], s).into_affine())
        .collect();
    let configs = [
        ("defaults", MsmConfig::default()),
        (
            "chunks of 256",
            MsmConfig {
                max_chunk_points: Some(256),
                ..Default::default()
            },
        ),
        (
            "host reduce",
            MsmConfig {
                reduce: ReduceOn::Host,
                ..Default::default()
            },
        ),
    ];
    for resident in [
        ctx.upload_bases_blocking(&bases).unwrap(),
        ctx.upload_bases_in_parts(&bases, 500),
    ] {
        for (what, config) in &configs {
            let run = pollster::block_on(ctx.msm_batch_with(&resident, &vectors, config)).unwrap();
            let got: Vec<_> = run.results.iter().map(|p| p.into_affine()).collect();
            assert_eq!(got, want, "{what}, {} parts", resident.parts());
            assert!(run.results[2].is_zero());
        }
    }
}

/// The `&[&[Fr]]` entry point agrees with single calls, a warm batch creates
/// no GPU object, and a vector longer than the bases is an error naming both
/// lengths.
fn agrees_with_single_calls_and_stays_warm() {
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(900, 43);
    let resident = ctx.upload_bases_blocking(&bases).unwrap();
    let vectors: Vec<&[_]> = vec![&scalars, &scalars[100..], &scalars[..300]];
    let single: Vec<_> = vectors
        .iter()
        .map(|v| ctx.msm_blocking(&resident, v).unwrap().into_affine())
        .collect();
    let batch = ctx.msm_batch_blocking(&resident, &vectors).unwrap();
    let before = ctx.created_objects();
    let again = ctx.msm_batch_blocking(&resident, &vectors).unwrap();
    assert_eq!(ctx.created_objects(), before, "a warm batch created GPU objects");
    for (k, want) in single.iter().enumerate() {
        assert_eq!(batch[k].into_affine(), *want, "vector {k}");
        assert_eq!(again[k].into_affine(), *want, "vector {k}, warm");
    }
    let mut longer = scalars.clone();
    longer.push(scalars[0]);
    let e = ctx
        .msm_batch_blocking(&resident, &[&scalars, &longer])
        .unwrap_err()
        .to_string();
    assert!(e.contains("901 scalars for 900 bases"), "{e}");
}
