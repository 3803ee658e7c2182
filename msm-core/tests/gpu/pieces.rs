//! MSMs cut into pieces that share their buckets (`pieces`): equal to
//! arkworks on every adversarial class, plain and over a table, in both
//! layouts, with pieces of unequal length; buckets carried from piece to
//! piece in each state a record can hold (affine, XYZZ, both, cancelled);
//! and the plan really cut.

use crate::common;

use ark_bn254::{Fr, G1Affine};
use ark_ec::CurveGroup;
use common::ctx;
use msm_core::{cpu, FieldLayout, GpuContext, MsmConfig};

fn pieces(pieces: u32) -> MsmConfig {
    MsmConfig {
        pieces,
        ..Default::default()
    }
}

/// One MSM under `config`, checked against arkworks, with its plan's pieces.
fn check(ctx: &GpuContext, bases: &msm_core::Bases, pts: &[G1Affine], scalars: &[Fr], config: &MsmConfig, what: &str) {
    let want = cpu::msm_reference(pts, scalars).into_affine();
    let run = ctx.msm_blocking_with(bases, scalars, config).unwrap();
    // a piece keeps at least 256 points
    let expect = config.pieces.min(scalars.len() as u32 / 256).max(1);
    assert_eq!(run.plan.unwrap().pieces, expect, "{what}: the plan's pieces");
    assert_eq!(run.result.into_affine(), want, "{what}, {} pieces", config.pieces);
}

/// Every adversarial class in 2, 3 and 4 pieces (1,100 points: the last
/// piece shorter), plain; the 13-bit layout on two classes.
#[test]
fn pieces_equal_arkworks() {
    common::fast_lavapipe_compile();
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        let cases = msm_core::sample::adversarial(1100, 61);
        let wide = layout == FieldLayout::Limbs32x8;
        for (name, pts, scalars) in cases.iter().filter(|c| wide || c.0.contains("equal")) {
            let bases = ctx.upload_bases_blocking(pts).unwrap();
            for k in [2, 3, 4] {
                check(ctx, &bases, pts, scalars, &pieces(k), &format!("{layout:?}, {name}"));
            }
        }
    }
}

/// Inputs built so that buckets cross the pieces' boundary in every state:
/// a run of equal scalars in the first piece only (its buckets split across
/// walker tasks: XYZZ records, which the second piece meets whole or split),
/// bases repeated and negated across the boundary with equal scalars (a
/// bucket opened from the first piece's sum doubles or cancels), over the
/// plain bases and a table, with few walker threads (long buckets split).
#[test]
fn buckets_carry_across_pieces_in_every_state() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let n = 2048;
    let half = n / 2;
    let (mut pts, mut scalars) = msm_core::sample::inputs(n, 62);
    for i in 0..200 {
        pts[half + i] = -pts[i];
        scalars[half + i] = scalars[i];
        pts[half + 200 + i] = pts[200 + i];
        scalars[half + 200 + i] = scalars[200 + i];
    }
    let run = scalars[0] + Fr::from(7u64);
    scalars[500..900].fill(run);
    let mut bases = ctx.upload_bases_blocking(&pts).unwrap();
    for threads in [None, Some(64)] {
        let config = MsmConfig {
            walker_threads: threads,
            ..pieces(2)
        };
        check(ctx, &bases, &pts, &scalars, &config, &format!("plain, threads {threads:?}"));
    }
    ctx.build_table_blocking(&mut bases, Some(8)).unwrap();
    for k in [2, 3] {
        let run = ctx.msm_blocking_with(&bases, &scalars, &pieces(k)).unwrap();
        assert!(run.plan.unwrap().table, "the table's plan");
        check(ctx, &bases, &pts, &scalars, &pieces(k), "table");
    }
}

/// A piece keeps at least 256 points, and joint batches are not cut.
#[test]
fn pieces_keep_their_floor() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let (pts, scalars) = msm_core::sample::inputs(600, 63);
    let bases = ctx.upload_bases_blocking(&pts).unwrap();
    let run = ctx.msm_blocking_with(&bases, &scalars, &pieces(4)).unwrap();
    assert_eq!(run.plan.unwrap().pieces, 2, "600 points: two pieces of 300");
    assert_eq!(run.result.into_affine(), cpu::msm_reference(&pts, &scalars).into_affine());
    let views = [&scalars[..300], &scalars[300..]].map(msm_core::Scalars::from);
    let run = pollster::block_on(ctx.msm_batch_with(&bases, &views, &pieces(4))).unwrap();
    let plan = run.plan.unwrap();
    assert!(plan.vectors == 2 && plan.pieces == 1, "a joint job is one piece");
    for (k, v) in [&scalars[..300], &scalars[300..]].iter().enumerate() {
        assert_eq!(run.results[k].into_affine(), cpu::msm_reference(&pts[..300], v).into_affine());
    }
}
