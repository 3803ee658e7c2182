//! G2 of BN254 and BLS12-381 (coordinates in Fq2 = Fq[u]/(u^2 + 1)): the
//! generated Fq2 field and the curve module on it against arkworks, then
//! MSMs, every adversarial class, batches, tables and the host reduce, and
//! the typed refusals between G1 and G2.

use crate::common;

use ark_ff::{AdditiveGroup, Field, UniformRand, Zero};
use common::groups::{check_curve_ops, codec_of};
use common::msms;
use common::{ctx, field_reference, operand_pairs_of, rng};
use msm_core::diagnostics::FieldOp;
use msm_core::repr::{from_canonical_words, words_mod};
use msm_core::sample::inputs_of;
use msm_core::{Curve, FieldLayout, GpuContext, GpuCurve, MsmError};

type Bn254G2 = ark_bn254::g2::Config;
type Bls12_381G2 = ark_bls12_381::g2::Config;

/// 0, 1, -1, u, 1 + u, -1 - u, (p - 1) / 2 (1 + u) and 2^k u: the carries
/// and reductions of each half and their cross terms.
fn fq2_edges<F: Field>() -> Vec<F> {
    let base = |k: u64| F::BasePrimeField::from(2u64).pow([k]);
    let e = |c0: F::BasePrimeField, c1: F::BasePrimeField| F::from_base_prime_field_elems([c0, c1]).unwrap();
    let (zero, one) = (F::BasePrimeField::ZERO, F::BasePrimeField::ONE);
    let half = -one / F::BasePrimeField::from(2u64);
    vec![
        F::ZERO,
        F::ONE,
        -F::ONE,
        e(zero, one),
        e(one, one),
        -e(one, one),
        e(half, half),
        e(zero, base(250)),
        e(base(253), -one),
    ]
}

/// Every field-valued op, eq and is_zero, and Montgomery form in and out of
/// raw words (each half any value below 2^(32 words)), on `C`'s Fq2 in
/// `layouts` (those the adapter runs).
fn check_fq2_ops<C: GpuCurve>(layouts: &[FieldLayout], seed: u64) {
    for &layout in layouts {
        let Some(ctx) = ctx(layout) else { continue };
        check_fq2_ops_on::<C>(ctx, layout, seed);
    }
}

/// [`check_fq2_ops`] on one context of `layout`.
fn check_fq2_ops_on<C: GpuCurve>(ctx: &GpuContext, layout: FieldLayout, seed: u64) {
    let curve = C::CURVE;
    let (a, b) = operand_pairs_of(&fq2_edges::<C::BaseField>(), seed, 60);
    {
        let codec = codec_of::<C>(layout);
        let words = codec.words();
        let enc = |v: &[C::BaseField]| -> Vec<Vec<u32>> { v.iter().map(|x| codec.encode(*x)).collect() };
        let (aw, bw) = (enc(&a), enc(&b));
        let run = |op, x: &[Vec<u32>], y: &[Vec<u32>]| pollster::block_on(ctx.field_op_in(curve, op, x, y)).unwrap();
        use FieldOp::*;
        for op in [Add, Sub, Neg, Mul, Sqr, Double, Inv] {
            let out = run(op, &aw, &bw);
            for i in 0..a.len() {
                let want = field_reference(op, a[i], b[i]);
                assert_eq!(codec.decode(&out[i]), Some(want), "{curve} {layout} {op:?} {i}");
            }
        }
        let eq = run(Eq, &aw, &bw);
        let zero = run(IsZero, &aw, &bw);
        for i in 0..a.len() {
            assert_eq!(eq[i][0], u32::from(a[i] == b[i]), "{curve} {layout} eq {i}");
            assert_eq!(zero[i][0], u32::from(a[i].is_zero()), "{curve} {layout} is_zero {i}");
        }
        let mut r = rng(seed + 1);
        let mut raws: Vec<Vec<u32>> = vec![vec![u32::MAX; words], vec![0; words]];
        raws.extend((0..32).map(|_| (0..words).map(|_| u32::rand(&mut r)).collect::<Vec<u32>>()));
        let half = words / 2;
        let to = run(ToMont, &raws, &raws);
        for (raw, got) in raws.iter().zip(&to) {
            let want = C::BaseField::from_base_prime_field_elems([
                words_mod::<<C::BaseField as Field>::BasePrimeField>(&raw[..half]),
                words_mod(&raw[half..]),
            ]);
            assert_eq!(codec.decode(got), want, "{curve} {layout} to_mont");
        }
        let from = run(FromMont, &aw, &aw);
        for (x, got) in a.iter().zip(&from) {
            let halves =
                [&got[..half], &got[half..]].map(from_canonical_words::<<C::BaseField as Field>::BasePrimeField>);
            let want: Vec<_> = x.to_base_prime_field_elements().map(Some).collect();
            assert_eq!(halves.to_vec(), want, "{curve} {layout} from_mont");
        }
    }
}

/// The Fq2 layer is the same text over every layout's Fq module (each of
/// which its own tests cover): CI runs it over the 64-bit layout for both
/// curves and over 13x20 for BN254 ([`fq2_ops_every_layout`] has the rest).
#[test]
fn fq2_ops_match_arkworks_on_both_curves() {
    common::fast_lavapipe_compile();
    check_fq2_ops::<Bn254G2>(&[FieldLayout::Limbs13x20, FieldLayout::Limbs32x8], 2);
    check_fq2_ops::<Bls12_381G2>(&[FieldLayout::Limbs32x8], 3);
}

/// Fq2 over row-loop Fq code (three Fq products, not the 64-bit layout's
/// lazy Karatsuba), the GPUs' default, on both curves (a context with row
/// loops in the walker too: field ops plan no MSM).
#[test]
fn fq2_ops_over_row_loops() {
    common::fast_lavapipe_compile();
    for (curve, layouts) in [
        (Curve::Bn254G1, &[FieldLayout::Limbs13x20, FieldLayout::Limbs32x8][..]),
        (Curve::Bls12_381G1, &[FieldLayout::Limbs32x8][..]),
    ] {
        for &layout in layouts {
            let opts = msm_core::ContextOptions {
                curve,
                field_layout: Some(layout),
                field_code: Some(msm_core::FieldCode::Rows),
                ..Default::default()
            };
            let ctx = match GpuContext::new_blocking(&opts) {
                Err(MsmError::LayoutUnsupported { .. }) => continue,
                c => c.unwrap(),
            };
            match curve {
                Curve::Bn254G1 => check_fq2_ops_on::<Bn254G2>(&ctx, layout, 4),
                _ => check_fq2_ops_on::<Bls12_381G2>(&ctx, layout, 5),
            }
        }
    }
}

/// [`fq2_ops_match_arkworks_on_both_curves`] in every layout
/// (`cargo test -p msm-core --test gpu g2:: -- --ignored`).
#[test]
#[ignore]
fn fq2_ops_every_layout() {
    common::fast_lavapipe_compile();
    check_fq2_ops::<Bn254G2>(&FieldLayout::ALL, 2);
    check_fq2_ops::<Bls12_381G2>(&FieldLayout::ALL, 3);
}

/// The curve module over Fq2 against arkworks, every op and special case,
/// in the 64-bit layout. Its one shader of every curve op compiles for
/// about 20 minutes on lavapipe (both curves), so CI leaves it out and
/// covers the same formulas through [`bn254_g2_msms_are_exact`]'s
/// adversarial classes (`cargo test -p msm-core --test gpu g2:: -- --ignored`;
/// the result is in docs/benchmarks.md).
#[test]
#[ignore]
fn g2_ops_match_arkworks_on_both_curves() {
    common::fast_lavapipe_compile();
    check_curve_ops::<Bn254G2>(&[FieldLayout::Limbs32x8], 254);
    check_curve_ops::<Bls12_381G2>(&[FieldLayout::Limbs32x8], 381);
}

fn bn254_g2() -> &'static GpuContext {
    static CTX: std::sync::OnceLock<GpuContext> = std::sync::OnceLock::new();
    CTX.get_or_init(|| msms::context_of(Curve::Bn254G2))
}

fn bls12_381_g2() -> &'static GpuContext {
    static CTX: std::sync::OnceLock<GpuContext> = std::sync::OnceLock::new();
    CTX.get_or_init(|| msms::context_of(Curve::Bls12_381G2))
}

/// BN254's G2: sizes, scalars near r, every adversarial class, batches,
/// the host reduce and base parts. (The table's shader is one more Fq2
/// compile of minutes on lavapipe: [`g2_tables_and_bls12_381_g2`].)
#[test]
fn bn254_g2_msms_are_exact() {
    common::fast_lavapipe_compile();
    let ctx = bn254_g2();
    msms::check_sizes_and_scalars_near_r::<Bn254G2>(ctx, &[1, 2, 3, 100, 1000]);
    msms::check_adversarial::<Bn254G2>(ctx, 100);
    msms::check_batches_tables_and_host_reduce::<Bn254G2>(ctx, 1024, None);
    msms::check_bases_from_bytes::<Bn254G2>(ctx, 200);
}

/// BLS12-381 G2's subgroup test on the GPU, from bytes and on typed
/// points (only the bases and subgroup kernels compile: no MSM runs).
#[test]
fn bls12_381_g2_points_outside_the_subgroup_are_refused() {
    common::fast_lavapipe_compile();
    msms::check_subgroup_refusals::<Bls12_381G2>(bls12_381_g2());
}

/// BN254 G2's table, and everything on BLS12-381's G2: lavapipe compiles
/// its pipelines (24-word coordinates) for about 15 minutes, which CI does
/// not pay (`cargo test -p msm-core --test gpu g2:: -- --ignored`; the result is
/// in docs/benchmarks.md; the H200's benches check every BLS12-381 G2
/// result against arkworks).
#[test]
#[ignore]
fn g2_tables_and_bls12_381_g2() {
    common::fast_lavapipe_compile();
    msms::check_batches_tables_and_host_reduce::<Bn254G2>(bn254_g2(), 1024, Some(11));
    let ctx = bls12_381_g2();
    msms::check_sizes_and_scalars_near_r::<Bls12_381G2>(ctx, &[1, 2, 3, 100, 1000]);
    msms::check_adversarial::<Bls12_381G2>(ctx, 100);
    msms::check_batches_tables_and_host_reduce::<Bls12_381G2>(ctx, 1024, Some(11));
    msms::check_bases_from_bytes::<Bls12_381G2>(ctx, 200);
}

/// A G2 context refuses G1 points and G1 bytes; a G1 context
/// refuses G2 points.
#[test]
fn g1_and_g2_inputs_are_refused_across() {
    common::fast_lavapipe_compile();
    let ctx = bn254_g2();
    let wrong = |e: &MsmError| matches!(e, MsmError::WrongCurve { .. });
    let (g1, _) = msm_core::sample::inputs(8, 1);
    let e = ctx.upload_bases_blocking(&g1).unwrap_err();
    assert!(wrong(&e) && e.to_string().contains("bn254-g2"), "{e}");
    let bytes = vec![0u8; 64 * 8];
    let e = pollster::block_on(
        ctx.upload_bases_bytes::<msm_core::Bn254>(msm_core::HostBytes::slice(&bytes), msm_core::BaseFormat::default()),
    )
    .unwrap_err();
    assert!(wrong(&e), "{e}");
    let (g2, _) = inputs_of::<Bn254G2>(8, 1);
    let g1_ctx = ctx_any_g1();
    assert!(wrong(&g1_ctx.upload_bases_blocking(&g2).unwrap_err()));
}

fn ctx_any_g1() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}
