//! Plans at the edges: the default plan at 2^16 (which must respect the
//! adapter's loop budget by itself), a walker run right at the loop budget,
//! tasks aligned to buckets, and the binary GCD inversion in the MSM.

use crate::common;

use ark_bn254::{Fr, G1Affine};
use ark_ec::CurveGroup;
use common::{ctx, ctx_with};
use msm_core::{cpu, FieldLayout, GpuContext, Inversion, MsmConfig, TaskSplit};

fn check(ctx: &GpuContext, bases: &[G1Affine], scalars: &[Fr], config: &MsmConfig, what: &str) {
    let b = ctx.upload_bases_blocking(bases).unwrap();
    let run = pollster::block_on(ctx.msm_with(&b, scalars, config)).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        run.result.into_affine(),
        cpu::msm_reference(bases, scalars).into_affine(),
        "{what} (n = {}, {})",
        bases.len(),
        config.describe()
    );
}

fn fastest_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}

/// What a new user runs: 2^16 points, every knob at its default, on the
/// default adapter and layout.
#[test]
fn defaults_at_2_16_match_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(1 << 16, 16);
    check(ctx, &bases, &scalars, &MsmConfig::default(), "defaults at 2^16");
}

/// Walker slots exactly as long as the loop budget allows: if the plan's
/// count of loop iterations per walker step were short, lavapipe's cap would
/// cut the walk and the sum would be wrong.
#[test]
fn walker_at_the_loop_budget_is_exact() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 4096;
    let config = MsmConfig {
        window_bits: Some(8),
        walker_slots: 4,
        ..Default::default()
    };
    let bounds = ctx.bounds();
    let steps = if bounds.loop_capped {
        // c = 8: 32 windows of 128 buckets
        bounds.walker_max_steps(&config, 32 * 128)
    } else {
        555
    };
    let entries = n as u64 * 32;
    let threads = entries.div_ceil(4 * steps) as u32;
    let config = MsmConfig {
        walker_threads: Some(threads),
        ..config
    };
    let plan = ctx.plan(n, &config).unwrap();
    assert!(
        plan.max_task_len() <= steps && plan.max_task_len() + 8 >= steps,
        "{plan:?}"
    );
    let (bases, scalars) = msm_core::sample::inputs(n, 17);
    check(ctx, &bases, &scalars, &config, "walk at the loop budget");
    if bounds.loop_capped {
        let over = MsmConfig {
            walker_threads: Some(threads / 2),
            ..config
        };
        let e = ctx.plan(n, &over).unwrap_err().to_string();
        assert!(e.contains("walker_threads"), "{e}");
    }
}

/// Tasks aligned to bucket starts: random inputs, adversarial classes, and
/// tasks shorter than the buckets (every bucket oversized).
#[test]
fn bucket_aligned_tasks_match_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let aligned = MsmConfig {
        walker_split: TaskSplit::Buckets,
        ..Default::default()
    };
    let (bases, scalars) = msm_core::sample::inputs(3000, 18);
    check(ctx, &bases, &scalars, &aligned, "aligned, random");
    let short = MsmConfig {
        window_bits: Some(6),
        walker_threads: Some(4000),
        walker_slots: 2,
        ..aligned.clone()
    };
    check(ctx, &bases, &scalars, &short, "aligned, short tasks");
    for (what, bases, scalars) in msm_core::sample::adversarial(301, 19) {
        check(ctx, &bases, &scalars, &aligned, &format!("aligned, {what}"));
    }
}

/// The default GCD inversions inside the walker's batches (the loop cap
/// gives lavapipe Fermat): safegcd on the portable layout, safegcd64 where
/// 64-bit integers exist.
#[test]
fn gcd_inversions_in_the_msm_match_arkworks() {
    common::fast_lavapipe_compile();
    let mut cases = vec![(FieldLayout::Limbs13x20, Inversion::Safegcd)];
    if ctx(FieldLayout::Limbs32x8).is_some() {
        cases.push((FieldLayout::Limbs32x8, Inversion::Safegcd64));
    }
    for (layout, inversion) in cases {
        let ctx = ctx_with(layout, Some(inversion)).unwrap();
        let (bases, scalars) = msm_core::sample::inputs(2000, 20);
        check(
            ctx,
            &bases,
            &scalars,
            &MsmConfig::default(),
            &format!("{inversion}, random"),
        );
        for (what, bases, scalars) in msm_core::sample::adversarial(101, 21).into_iter().step_by(3) {
            check(
                ctx,
                &bases,
                &scalars,
                &MsmConfig::default(),
                &format!("{inversion}, {what}"),
            );
        }
    }
}

/// The walker with its slot loops written out on random inputs and the
/// adversarial classes: one slot, and four fused (CI); every shape with
/// `--ignored`.
#[test]
fn unrolled_walker_matches_arkworks() {
    common::fast_lavapipe_compile();
    unrolled_walker_shapes(&[(1, false), (4, true)]);
}

/// Each unrolled walker shape is a pipeline of its own: minutes on a
/// software adapter.
#[test]
#[ignore = "every unrolled walker shape (minutes on a software adapter): --ignored"]
fn unrolled_walker_every_shape() {
    common::fast_lavapipe_compile();
    unrolled_walker_shapes(&[(1, false), (4, false), (4, true), (8, false)]);
}

fn unrolled_walker_shapes(shapes: &[(u32, bool)]) {
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(3000, 22);
    let cases = msm_core::sample::adversarial(101, 23);
    for &(slots, fused) in shapes {
        let config = MsmConfig {
            walker_unroll: true,
            walker_slots: slots,
            walker_fused: fused,
            ..Default::default()
        };
        check(ctx, &bases, &scalars, &config, "unrolled, random");
        for (what, b, s) in cases.iter().step_by(2) {
            check(ctx, b, s, &config, &format!("unrolled, {what}"));
        }
    }
}

/// scatter in rounds of a range of buckets each (`scatter_buckets`):
/// ranges that end inside a row, one row, one bucket (a 2-D grid), and more than a row,
/// over the plain bases (identity bases skipped) and over a table; each
/// plan has the rounds asked for.
#[test]
fn scatter_in_rounds_matches_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(1000, 24);
    let (_, id_bases, id_scalars) = msm_core::sample::adversarial(500, 25)
        .into_iter()
        .find(|c| c.0 == "identity bases")
        .unwrap();
    // c = 8: 32 rows of 128 buckets; one bucket a round is 4,096 rounds of
    // 16 workgroups, past 65,535 (a 2-D grid)
    for span in [1u32, 7, 100, 128, 1000] {
        let config = MsmConfig {
            window_bits: Some(8),
            scatter_buckets: span,
            ..Default::default()
        };
        let plan = ctx.plan(bases.len(), &config).unwrap();
        assert_eq!((plan.scatter_span, plan.scatter_rounds()), (span, 4096u32.div_ceil(span)));
        check(ctx, &bases, &scalars, &config, &format!("{span} buckets a round"));
        check(ctx, &id_bases, &id_scalars, &config, &format!("{span} buckets a round, identities"));
    }
    let mut resident = ctx.upload_bases_blocking(&bases).unwrap();
    ctx.build_table_blocking(&mut resident, Some(8)).unwrap();
    let want = cpu::msm_reference(&bases, &scalars).into_affine();
    for span in [1u32, 100] {
        let config = MsmConfig {
            scatter_buckets: span,
            ..Default::default()
        };
        let run = pollster::block_on(ctx.msm_with(&resident, &scalars, &config)).unwrap();
        assert_eq!(run.result.into_affine(), want, "{span} buckets a round over a table");
    }
}
