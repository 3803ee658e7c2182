//! The WGSL field primitives against ark-bn254, for every layout, on seeded
//! random and edge values; the row-loop field code through MSMs.

use crate::common;

use ark_bn254::Fq;
use ark_ff::{Field, PrimeField, UniformRand};
use common::{ctx, ctx_with, edge_values, field_reference, msms, operand_pairs_of, rng};
use msm_core::diagnostics::FieldOp;
use msm_core::repr::{bigint_to_words, FieldRepr, Words};
use msm_core::{ContextOptions, Curve, FieldCode, FieldLayout, GpuContext, GpuCurve, Inversion};
use proptest::prelude::*;

/// Every ordered pair of edge values plus seeded random pairs, a = b and a = -b.
fn operand_pairs(seed: u64) -> (Vec<Fq>, Vec<Fq>) {
    operand_pairs_of(&edge_values(), seed, 200)
}

fn check_ops(layout: FieldLayout, a: &[Fq], b: &[Fq]) {
    let Some(ctx) = ctx(layout) else { return };
    check_ops_on(ctx, layout, a, b);
}

fn check_ops_on(ctx: &GpuContext, layout: FieldLayout, a: &[Fq], b: &[Fq]) {
    let repr = FieldRepr::new(layout);
    let aw: Vec<Words> = a.iter().map(|x| repr.to_gpu(x)).collect();
    let bw: Vec<Words> = b.iter().map(|x| repr.to_gpu(x)).collect();
    for op in [
        FieldOp::Add,
        FieldOp::Sub,
        FieldOp::Neg,
        FieldOp::Mul,
        FieldOp::Sqr,
        FieldOp::Inv,
        FieldOp::Double,
    ] {
        let out = pollster::block_on(ctx.field_op(op, &aw, &bw)).unwrap();
        for i in 0..a.len() {
            let got = repr.from_gpu(&out[i]);
            assert_eq!(
                got,
                Some(field_reference(op, a[i], b[i])),
                "{layout} {op:?} a={} b={}",
                a[i],
                b[i]
            );
        }
    }
    let is_eq: fn(Fq, Fq) -> bool = |x, y| x == y;
    let is_zero: fn(Fq, Fq) -> bool = |x, _| x == Fq::from(0u64);
    for (op, want) in [(FieldOp::Eq, is_eq), (FieldOp::IsZero, is_zero)] {
        let out = pollster::block_on(ctx.field_op(op, &aw, &bw)).unwrap();
        for i in 0..a.len() {
            assert_eq!(out[i][0] == 1, want(a[i], b[i]), "{layout} {op:?} {}", a[i]);
        }
    }
}

#[test]
fn field_ops_match_arkworks() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs(1);
    for layout in FieldLayout::ALL {
        check_ops(layout, &a, &b);
    }
}

/// The row-loop multiplication (`FieldCode::Rows`) in every layout.
#[test]
fn rows_field_code_matches_arkworks() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs(5);
    for_code(FieldCode::Rows, |ctx, layout| check_ops_on(ctx, layout, &a, &b));
}

/// Straight-line field code (`FieldCode::Unrolled`: the walker's, and its
/// own squaring) in every layout, also where the adapter's default is
/// another (the 64-bit layout under a loop cap), raw forms included.
#[test]
fn unrolled_field_code_matches_arkworks() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs(9);
    for_code(FieldCode::Unrolled, |ctx, layout| {
        check_ops_on(ctx, layout, &a, &b);
        check_raw_on(ctx, layout, &a, &b);
    });
}

/// Runs `check` on a context of each layout with field code `code`, where
/// that is not the adapter's own (whose context the tests above check).
fn for_code(code: FieldCode, check: impl Fn(&GpuContext, FieldLayout)) {
    for layout in FieldLayout::ALL {
        if ctx(layout).is_some_and(|c| c.field_code() == code) {
            continue;
        }
        let opts = ContextOptions {
            field_layout: Some(layout),
            field_code: Some(code),
            ..Default::default()
        };
        match GpuContext::new_blocking(&opts) {
            Ok(ctx) => {
                assert_eq!(ctx.field_code(), code);
                check(&ctx, layout);
            }
            Err(msm_core::MsmError::LayoutUnsupported { .. }) => continue,
            Err(e) => panic!("{layout}: {e}"),
        }
    }
}

/// The unreduced product (`fq_mul_raw`, the walker's chains of products)
/// and square (`fq_sqr_raw`, written apart where the layout allows) take
/// operands below 2p and answer below 2p, congruent to the product: edge
/// and random pairs, each operand as itself and plus p.
#[test]
fn raw_products_stay_below_2p() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs(7);
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        check_raw_on(ctx, layout, &a, &b);
    }
}

fn check_raw_on(ctx: &GpuContext, layout: FieldLayout, a: &[Fq], b: &[Fq]) {
    common::raw::check_raw_products(ctx, Curve::Bn254G1, layout, a, b);
}

/// Conversions into Montgomery form accept any 256-bit input, reduced or not,
/// and come back out unchanged.
#[test]
fn montgomery_conversions() {
    common::fast_lavapipe_compile();
    let mut raw: Vec<Words> = edge_values()
        .iter()
        .map(|x| bigint_to_words(&x.into_bigint()))
        .collect();
    raw.push([u32::MAX; 8]);
    raw.push(bigint_to_words(&Fq::MODULUS));
    let mut p_plus_one = Fq::MODULUS;
    p_plus_one.0[0] += 1;
    raw.push(bigint_to_words(&p_plus_one));
    let mut r = rng(2);
    for _ in 0..100 {
        raw.push(std::array::from_fn(|_| rand::Rng::gen(&mut r)));
    }
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        let repr = FieldRepr::new(layout);
        let mont = pollster::block_on(ctx.field_op(FieldOp::ToMont, &raw, &raw)).unwrap();
        let back = pollster::block_on(ctx.field_op(FieldOp::FromMont, &mont, &mont)).unwrap();
        for i in 0..raw.len() {
            let bytes: Vec<u8> = raw[i].iter().flat_map(|w| w.to_le_bytes()).collect();
            let want = Fq::from_le_bytes_mod_order(&bytes);
            assert_eq!(repr.from_gpu(&mont[i]), Some(want), "{layout} to_mont {:x?}", raw[i]);
            assert_eq!(back[i], bigint_to_words(&want.into_bigint()), "{layout} from_mont");
        }
    }
}

fn fq_strategy() -> impl Strategy<Value = Fq> {
    prop_oneof![
        1 => proptest::sample::select(edge_values()),
        3 => any::<[u8; 32]>().prop_map(|b| Fq::from_le_bytes_mod_order(&b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    #[test]
    fn field_ops_property(pairs in proptest::collection::vec((fq_strategy(), fq_strategy()), 1..100)) {
        common::fast_lavapipe_compile();
        let (a, b): (Vec<Fq>, Vec<Fq>) = pairs.into_iter().unzip();
        for layout in FieldLayout::ALL {
            check_ops(layout, &a, &b);
        }
    }
}

/// Chained inversions x <- y / x (the shape `field-bench --op inv` times)
/// agree with arkworks on every layout, with either inversion.
#[test]
fn inversion_chain_matches_arkworks() {
    common::fast_lavapipe_compile();
    use msm_core::diagnostics::ChainOp;
    for layout in FieldLayout::ALL {
        for inversion in Inversion::ALL.into_iter().filter(|i| i.supports(layout)) {
            let Some(ctx) = ctx_with(layout, Some(inversion)) else {
                continue;
            };
            for iters in [5, 6] {
                let t = pollster::block_on(ctx.field_throughput(64, iters, 1, ChainOp::Inv)).unwrap();
                assert!(t.correct, "{layout} {inversion} inversion chain of {iters}");
            }
        }
    }
}

/// The GCD inversions (and every other primitive beside them) on edge and
/// random values, for every layout they run on; then 20,000 more random
/// inversions, values near 2^k and small values.
#[test]
fn gcd_inversions_match_arkworks() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs(3);
    let mut r = rng(4);
    let mut many: Vec<Fq> = (0..20_000).map(|_| Fq::rand(&mut r)).collect();
    let two = Fq::from(2u64);
    for k in 0..256u64 {
        let p = two.pow([k]);
        many.extend([p, p - Fq::from(1u64), -p, Fq::from(k + 1)]);
    }
    for layout in FieldLayout::ALL {
        for inversion in [
            Inversion::BinaryGcd,
            Inversion::Bingcd,
            Inversion::Safegcd,
            Inversion::Safegcd64,
        ] {
            if !inversion.supports(layout) {
                continue;
            }
            let Some(ctx) = ctx_with(layout, Some(inversion)) else {
                continue;
            };
            check_ops_on(ctx, layout, &a, &b);
            let repr = FieldRepr::new(layout);
            let w: Vec<Words> = many.iter().map(|x| repr.to_gpu(x)).collect();
            let out = pollster::block_on(ctx.field_op(FieldOp::Inv, &w, &w)).unwrap();
            for (x, o) in many.iter().zip(&out) {
                let want = x.inverse().unwrap_or(Fq::from(0u64));
                assert_eq!(repr.from_gpu(o), Some(want), "{layout} {inversion} inverse of {x}");
            }
        }
    }
}

// The row-loop field code (`FieldCode::Rows`, and `Mixed`: row loops beside
// a straight-line walker) against arkworks: MSMs of both curves' G1 through
// every pass in the layouts the defaults pick (mixed is lavapipe's own
// default in the 64-bit layout). Row loops in the walker are refused under
// a loop cap, whose budget they would spend uncounted.

type Bls12_381G1 = ark_bls12_381::g1::Config;
type Bn254G1 = ark_bn254::g1::Config;

/// A context of `curve` with `code` in `layout`, or none where the adapter
/// lacks the layout's 64-bit integers.
fn context(curve: Curve, layout: FieldLayout, code: FieldCode) -> Option<GpuContext> {
    let opts = ContextOptions {
        curve,
        field_layout: Some(layout),
        field_code: Some(code),
        gpu_timeout: Some(std::time::Duration::from_secs(1800)),
        ..Default::default()
    };
    match GpuContext::new_blocking(&opts) {
        Ok(ctx) => {
            assert_eq!((ctx.field_code(), ctx.field_layout()), (code, layout));
            Some(ctx)
        }
        Err(msm_core::MsmError::LayoutUnsupported { .. }) => None,
        Err(e) => panic!("{curve} {layout} {code}: {e}"),
    }
}

fn check<C: GpuCurve>(layout: FieldLayout, code: FieldCode) {
    common::fast_lavapipe_compile();
    let Some(ctx) = context(C::CURVE, layout, code) else {
        eprintln!("skipping {layout}: the adapter lacks SHADER_INT64");
        return;
    };
    msms::check_sizes_and_scalars_near_r::<C>(&ctx, &[1, 3, 100, 1000]);
    msms::check_adversarial::<C>(&ctx, 100);
}

/// The 64-bit layout's default under a loop cap.
#[test]
fn bn254_mixed() {
    common::fast_lavapipe_compile();
    check::<Bn254G1>(FieldLayout::Limbs32x8, FieldCode::Mixed);
}

/// The portable layout's default on GPUs (and in browsers).
#[test]
fn bn254_mixed_portable() {
    common::fast_lavapipe_compile();
    check::<Bn254G1>(FieldLayout::Limbs13x20, FieldCode::Mixed);
}

/// BLS12-381's 12 limbs of 32 bits: six iterations of two rows.
#[test]
fn bls12_381_mixed() {
    common::fast_lavapipe_compile();
    check::<Bls12_381G1>(FieldLayout::Limbs32x8, FieldCode::Mixed);
}

/// The longest reduce segment the loop budget allows mixed code (256
/// buckets with BN254's 8 limbs), one past it refused: exact at the bound,
/// so a loop cap's truncation would show.
#[test]
fn mixed_longest_reduce_segment() {
    common::fast_lavapipe_compile();
    let Some(ctx) = context(Curve::Bn254G1, FieldLayout::Limbs32x8, FieldCode::Mixed) else {
        return;
    };
    let longest = ctx.bounds().reduce_max_segment();
    let per = longest.min(4096);
    let (bases, scalars) = msm_core::sample::inputs_of::<Bn254G1>(3000, 11);
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    let knobs = format!("window_bits=12,reduce_segment={per}");
    let config = ctx.config_for(3000).with_knobs(&knobs).unwrap();
    let run = ctx.msm_blocking_with(&b, &scalars, &config).unwrap();
    assert_eq!(run.result, msms::reference(&bases, &scalars), "{knobs}");
    if ctx.has_loop_cap() {
        assert_eq!(longest, 256);
        let past = config.with_knobs("reduce_segment=512").unwrap();
        match ctx.msm_blocking_with(&b, &scalars, &past) {
            Err(msm_core::MsmError::InvalidConfig { knob, .. }) => assert_eq!(knob, "reduce_segment"),
            other => panic!("a segment past the loop budget: {:?}", other.map(|r| r.result)),
        }
    }
}

/// Row loops everywhere, the GPUs' default in the 64-bit layout: exact
/// off a loop cap, refused (`field_code`) under one unless the walker's
/// code is straight-line (`walker_straight`), and then exact.
#[test]
fn bn254_row_loops() {
    common::fast_lavapipe_compile();
    let Some(ctx) = context(Curve::Bn254G1, FieldLayout::Limbs32x8, FieldCode::Rows) else {
        return;
    };
    if !ctx.has_loop_cap() {
        msms::check_sizes_and_scalars_near_r::<Bn254G1>(&ctx, &[3, 1000]);
        return;
    }
    let (bases, scalars) = msm_core::sample::inputs_of::<Bn254G1>(100, 3);
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    match ctx.msm_blocking(&b, &scalars) {
        Err(msm_core::MsmError::InvalidConfig { knob, .. }) => assert_eq!(knob, "field_code"),
        other => panic!("row loops in the walker under a loop cap: {other:?}"),
    }
    // a straight-line walker beside row loops elsewhere keeps the budget
    let straight = ctx.config_for(100).with_knobs("walker_straight=true").unwrap();
    let run = ctx.msm_blocking_with(&b, &scalars, &straight).unwrap();
    assert_eq!(run.result, msms::reference(&bases, &scalars));
}

/// Issue 39's limb-product diagnostic: each style's chains (u32 columns of
/// 13- and 11-bit limbs, f32 FMA pairs of 11-bit limbs) equal the CPU twin,
/// the first chain on all-ones limbs (the largest columns and FMA sums).
#[test]
fn limb_product_styles_equal_the_twin() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    for style in msm_core::diagnostics::ProductStyle::ALL {
        let rate = pollster::block_on(ctx.limb_products(style, 300, 12, 1)).unwrap();
        assert!(rate.correct, "{}", style.name());
    }
}
