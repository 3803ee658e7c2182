//! walker_combine and reduce kernel by kernel against their twins
//! (`cpu::combine::combine_stages`, `cpu::reduce::reduce_stages`): block
//! levels and owners from the GPU's own walker partials; segments, groups
//! and windows from its own bucket sums; on seeded and adversarial inputs
//! and plans with no, one and two block levels, one and several groups.

use crate::common;

use ark_bn254::G1Affine;
use ark_ec::CurveGroup;
use ark_ff::Zero;
use common::ctx;
use msm_core::cpu;
use msm_core::msm::bucket_point;
use msm_core::repr::FieldRepr;
use msm_core::{FieldLayout, MsmConfig, MsmStages, ReduceOn};

/// walker_combine's levels and owners against the twin on the GPU's own
/// walker partials (the walker twin runs on the GPU's entry stream).
fn check_combine_stages(st: &MsmStages, bases: &[G1Affine], what: &str) {
    let repr = FieldRepr::new(ctx(FieldLayout::Limbs13x20).unwrap().field_layout());
    let w = cpu::stream_walker(&st.plan, bases, &st.l0_index, &st.offsets);
    let twin = cpu::combine::combine_stages(&w);
    assert_eq!(st.chain_levels.len(), twin.levels.len(), "{what}: levels");
    for (l, (got, want)) in st.chain_levels.iter().zip(&twin.levels).enumerate() {
        assert_eq!(got.len(), want.len(), "{what}: level {}", l + 1);
        for (b, ((p, flags), e)) in got.iter().zip(want).enumerate() {
            let wf = u32::from(e.in_chain) | (u32::from(e.through) << 1);
            assert_eq!(*flags, wf, "{what}: level {} block {b} flags", l + 1);
            assert_eq!(
                p.into_affine(),
                e.sum.into_affine(),
                "{what}: level {} block {b}",
                l + 1
            );
        }
    }
    for (k, bucket, sum) in &twin.owners {
        let rec = &st.bucket_sums[*bucket as usize];
        let got = bucket_point(&repr, rec, &st.split_sums).unwrap();
        let want: Option<G1Affine> = (!sum.is_zero()).then(|| sum.into_affine());
        assert_eq!(got, want, "{what}: owner {k}, bucket {bucket}");
    }
    assert_eq!(
        cpu::combine::walker_combine(&w),
        cpu::combine::walker_combine_direct(&w)
    );
}

#[test]
fn every_walker_combine_kernel_matches_its_twin() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    // all-equal scalars and tiny tasks: chains over thousands of tasks
    // (levels 1 and 2); random scalars: short chains, no level
    let n = 4096;
    let (bases, random) = msm_core::sample::inputs(n, 61);
    let equal = vec![random[0]; n];
    // 64 tasks keep n = 1024 under lavapipe's loop cap
    let short = random[..1024].to_vec();
    for (what, scalars, threads, levels) in [("all equal", &equal, 8192u32, 2usize), ("random", &short, 64, 0)] {
        let config = MsmConfig {
            window_bits: Some(10),
            walker_slots: 1,
            walker_threads: Some(threads),
            ..Default::default()
        };
        let b = ctx.upload_bases_blocking(&bases).unwrap();
        let st = pollster::block_on(ctx.msm_stages(&b, scalars, &config)).unwrap();
        assert_eq!(
            st.chain_levels.len(),
            levels,
            "{what}: the plan should build {levels} levels"
        );
        check_combine_stages(&st, &bases, what);
        assert_eq!(
            st.result,
            cpu::msm_reference(&bases[..scalars.len()], scalars),
            "{what}"
        );
    }
}

#[test]
fn every_reduce_kernel_matches_its_twin() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let repr = FieldRepr::new(ctx.field_layout());
    let n = 600;
    let mut cases = msm_core::sample::adversarial(n, 51);
    cases.retain(|c| {
        [
            "P and -P, random scalars",
            "all-equal scalars",
            "zero scalars",
            "identity bases",
        ]
        .contains(&c.0)
    });
    cases.push((
        "random",
        msm_core::sample::inputs(n, 52).0,
        msm_core::sample::inputs(n, 53).1,
    ));
    // c = 5: one group a window; c = 14: 8,192 buckets, several groups
    for c in [5, 14] {
        for (what, bases, scalars) in &cases {
            let config = MsmConfig {
                window_bits: Some(c),
                reduce: ReduceOn::Gpu,
                ..Default::default()
            };
            let b = ctx.upload_bases_blocking(bases).unwrap();
            let st = pollster::block_on(ctx.msm_stages(&b, scalars, &config)).unwrap();
            let buckets: Vec<Option<G1Affine>> = (0..st.plan.total_buckets() as usize)
                .map(|k| {
                    if st.counts[k] == 0 {
                        None
                    } else {
                        bucket_point(&repr, &st.bucket_sums[k], &st.split_sums).unwrap()
                    }
                })
                .collect();
            if c == 14 {
                assert!(
                    msm_core::passes::reduce::groups_per_window(&st.plan) > 1,
                    "{what}: one group"
                );
            }
            common::check_reduce_stages(&st, &buckets);
            let want = msm_core::cpu::msm_reference(bases, scalars);
            assert_eq!(st.result, want, "{what}, c = {c}");
        }
    }
}
