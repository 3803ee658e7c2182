//! Chained jobs (`chain_jobs`): a vector's jobs of one plan add their
//! bucket sums into one running sum and only the last reduces. Over a table
//! in parts, over bases cut into chunks, in one submission and a wave a
//! job, for batches whose vectors each form a chain on one scratch: every
//! result equals arkworks, and the chained plan really ran.

use crate::common;

use ark_bn254::Fr;
use ark_ec::CurveGroup;
use common::ctx;
use msm_core::{cpu, FieldLayout, GpuContext, MsmConfig, ReduceOn, Scalars};

fn fastest_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}

fn chained(f: impl FnOnce(&mut MsmConfig)) -> MsmConfig {
    let mut c = MsmConfig {
        chain_jobs: 2,
        ..Default::default()
    };
    f(&mut c);
    c
}

/// Every adversarial class over a table in parts of 128 (bases in parts of
/// 300: two chains of two parts, each followed by a lone part of 44),
/// chained at once and a wave a job, against the parts reduced one by one.
#[test]
fn chained_table_parts_equal_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 600;
    for (name, pts, scalars) in msm_core::sample::adversarial(n, 71) {
        let mut bases = ctx.upload_bases_in_parts(&pts, 300);
        pollster::block_on(ctx.build_table_in_parts(&mut bases, Some(7), 128)).unwrap();
        let want = cpu::msm_reference(&pts, &scalars).into_affine();
        for (what, config, chain) in [
            ("unchained", MsmConfig { chain_jobs: 0, ..Default::default() }, false),
            ("chained", chained(|_| {}), true),
            ("chained, a wave a job", chained(|c| c.wave_points = 1), true),
        ] {
            let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
            let plan = run.plan.unwrap();
            assert!(plan.table, "{name}, {what}");
            // two parts of 128 or more (some classes are shorter)
            let parts = chain && scalars.len() >= 256;
            assert_eq!(plan.chain, parts, "{name}, {what}: the first job's plan");
            assert_eq!(run.result.into_affine(), want, "{name}, {what}");
        }
    }
}

/// Plain bases cut into chunks: equal chunks chain (a last shorter chunk
/// runs alone), batches chain each vector in turn on one scratch, one wave
/// a job or all at once; the host reduce, single jobs and runs shorter than
/// the threshold never chain.
#[test]
fn chained_chunks_and_batches_equal_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 700;
    let (pts, _) = msm_core::sample::inputs(n, 72);
    let vectors: Vec<Vec<Fr>> = (0..3).map(|k| msm_core::sample::inputs(n, 73 + k).1).collect();
    let bases = ctx.upload_bases_blocking(&pts).unwrap();
    let parts = ctx.upload_bases_in_parts(&pts, 200);
    for len in [n, 400] {
        let views: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::Fr(&v[..len])).collect();
        let want: Vec<_> = vectors
            .iter()
            .map(|v| cpu::msm_reference(&pts[..len], &v[..len]).into_affine())
            .collect();
        for (what, resident, config, chain) in [
            ("chunks of 150", &bases, chained(|c| c.max_chunk_points = Some(150)), true),
            (
                "chunks of 150, a wave a job",
                &bases,
                chained(|c| {
                    c.max_chunk_points = Some(150);
                    c.wave_points = 1;
                }),
                true,
            ),
            ("parts of 200", &parts, chained(|c| c.joint_points = 0), true),
            (
                "host reduce",
                &bases,
                chained(|c| {
                    c.max_chunk_points = Some(150);
                    c.reduce = ReduceOn::Host;
                }),
                false,
            ),
            ("one job a vector", &bases, chained(|c| c.joint_points = 0), false),
            // the built-in threshold: four chunks of 150 at 700, two at 400
            (
                "built-in chain_jobs, chunks of 150",
                &bases,
                MsmConfig {
                    max_chunk_points: Some(150),
                    ..Default::default()
                },
                len == n,
            ),
        ] {
            let run = pollster::block_on(ctx.msm_batch_with(resident, &views, &config)).unwrap();
            assert_eq!(run.plan.unwrap().chain, chain, "{len} points, {what}");
            let got: Vec<_> = run.results.iter().map(|p| p.into_affine()).collect();
            assert_eq!(got, want, "{len} points, {what}");
            let one = ctx.msm_blocking_with(resident, &vectors[1][..len], &config).unwrap();
            assert_eq!(one.result.into_affine(), want[1], "{len} points, {what}, alone");
        }
    }
}
