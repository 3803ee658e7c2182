//! The WGSL field and G1 primitives generated for BLS12-381 (a 381-bit Fq:
//! 12 packed words) against ark-bls12-381, in every layout (and, for the
//! field, every inversion), on seeded random and edge values; and the
//! scalar module of both curves against their arkworks Fr.

use crate::common;

use ark_bls12_381::Fq;
use ark_ff::{AdditiveGroup, BigInteger, Field, PrimeField, UniformRand};
use common::{ctx, ctx_with, field_reference, operand_pairs_of, rng};
use msm_core::diagnostics::{BaseField, FieldOp, ScalarOp};
use msm_core::repr::{canonical_words, from_canonical_words, limb_words, words_mod, FieldCodec};
use msm_core::{ContextOptions, Curve, FieldCode, FieldLayout, GpuContext, Inversion};

const WORDS: usize = 12;

/// The GPU's packed Montgomery form of BLS12-381's Fq in `layout`.
fn codec(layout: FieldLayout) -> FieldCodec<Fq> {
    let c = FieldCodec::new(layout, BaseField::Bls12_381);
    assert_eq!(c.words(), WORDS);
    c
}

/// 0, 1, 2, p - 1, p - 2, (p -+ 1) / 2, 2^380, 2^384 and the layouts' radixes.
fn edge_values() -> Vec<Fq> {
    let mut half = Fq::MODULUS;
    half.div2();
    let half = Fq::from_bigint(half).unwrap();
    let mut v = vec![
        Fq::ZERO,
        Fq::ONE,
        Fq::from(2u64),
        -Fq::ONE,
        -Fq::from(2u64),
        half,
        half + Fq::ONE,
    ];
    for bits in [380u64, 384, 390] {
        v.push(Fq::from(2u64).pow([bits]));
    }
    v
}

/// `fq_mul_raw` and `fq_sqr_raw` in BLS12-381's Fq: operands below 2p
/// (each as itself and plus p) give a product below 2p congruent to a b
/// (or a^2), in every layout.
#[test]
fn bls12_381_raw_products_stay_below_2p() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs_of(&edge_values(), 382, 50);
    // the adapter's field code in each layout, and straight-line code (the
    // walker's, with its own squaring) where that is another
    let unrolled = |layout| {
        let opts = ContextOptions {
            field_layout: Some(layout),
            field_code: Some(FieldCode::Unrolled),
            ..Default::default()
        };
        GpuContext::new_blocking(&opts).ok().map(|c| &*Box::leak(Box::new(c)))
    };
    let contexts = FieldLayout::ALL.into_iter().flat_map(|layout| {
        let default = ctx(layout);
        let other = default
            .filter(|c| c.field_code() != FieldCode::Unrolled)
            .and_then(|_| unrolled(layout));
        [default, other].into_iter().flatten().map(move |c| (layout, c))
    });
    for (layout, ctx) in contexts {
        assert_eq!(codec(layout).words(), WORDS);
        common::raw::check_raw_products(ctx, Curve::Bls12_381G1, layout, &a, &b);
    }
}

#[test]
fn bls12_381_field_ops_match_arkworks() {
    common::fast_lavapipe_compile();
    let (a, b) = operand_pairs_of(&edge_values(), 381, 100);
    for layout in FieldLayout::ALL {
        for inversion in Inversion::ALL.into_iter().filter(|i| i.supports(layout)) {
            let Some(ctx) = ctx_with(layout, Some(inversion)) else {
                continue;
            };
            let repr = codec(layout);
            let aw: Vec<Vec<u32>> = a.iter().map(|x| repr.encode(*x)).collect();
            let bw: Vec<Vec<u32>> = b.iter().map(|x| repr.encode(*x)).collect();
            let run = |op, x: &[Vec<u32>], y: &[Vec<u32>]| {
                pollster::block_on(ctx.field_op_in(Curve::Bls12_381G1, op, x, y)).unwrap()
            };
            let ops = [
                FieldOp::Add,
                FieldOp::Sub,
                FieldOp::Neg,
                FieldOp::Mul,
                FieldOp::Sqr,
                FieldOp::Double,
            ];
            // every inversion once; the other ops with the default one
            let ops: &[FieldOp] = if Some(inversion) == Inversion::ALL.into_iter().find(|i| i.supports(layout)) {
                &[ops.as_slice(), &[FieldOp::Inv]].concat()
            } else {
                &[FieldOp::Inv]
            };
            for &op in ops {
                let out = run(op, &aw, &bw);
                for i in 0..a.len() {
                    assert_eq!(
                        repr.decode(&out[i]),
                        Some(field_reference(op, a[i], b[i])),
                        "{layout} {inversion} {op:?} a={} b={}",
                        a[i],
                        b[i]
                    );
                }
            }
            let eq = run(FieldOp::Eq, &aw, &bw);
            let zero = run(FieldOp::IsZero, &aw, &bw);
            for i in 0..a.len() {
                assert_eq!(eq[i][0], u32::from(a[i] == b[i]), "{layout} eq {i}");
                assert_eq!(zero[i][0], u32::from(a[i] == Fq::ZERO), "{layout} is_zero {i}");
            }
            // Montgomery form in and out: raw words up to 2^384 - 1 (above p too).
            let mut raws: Vec<Vec<u32>> = vec![vec![u32::MAX; WORDS], canonical_words(-Fq::ONE), vec![0; WORDS]];
            let mut r = rng(7);
            for _ in 0..64 {
                raws.push((0..WORDS).map(|_| u32::rand(&mut r)).collect());
            }
            let to = run(FieldOp::ToMont, &raws, &raws);
            for (raw, got) in raws.iter().zip(&to) {
                assert_eq!(repr.decode(got), Some(words_mod::<Fq>(raw)), "{layout} to_mont");
            }
            let from = run(FieldOp::FromMont, &aw, &aw);
            for (x, got) in a.iter().zip(&from) {
                assert_eq!(from_canonical_words::<Fq>(got), Some(*x), "{layout} from_mont");
            }
        }
    }
}

/// Every G1 operation of the curve module on BLS12-381 in the 64-bit
/// layout (the portable ones: [`bls12_381_g1_ops_portable_layouts`]).
#[test]
fn bls12_381_g1_ops_match_arkworks() {
    common::fast_lavapipe_compile();
    check_g1_ops(&[FieldLayout::Limbs32x8]);
}

/// [`bls12_381_g1_ops_match_arkworks`] in 13x30 and 16x24: lavapipe compiles
/// their unrolled curve code for about 4 minutes each, so CI leaves them
/// out (`cargo test -p msm-core --test gpu bls12_381:: -- --ignored`; the result
/// is in docs/benchmarks.md).
#[test]
#[ignore]
fn bls12_381_g1_ops_portable_layouts() {
    common::fast_lavapipe_compile();
    check_g1_ops(&[FieldLayout::Limbs13x20, FieldLayout::Limbs16x16]);
}

/// The curve module's operations on BLS12-381's G1 in `layouts`.
fn check_g1_ops(layouts: &[FieldLayout]) {
    common::groups::check_curve_ops::<ark_bls12_381::g1::Config>(layouts, 12381);
}

/// `fr_from_mont` on arkworks' Montgomery words and `fr_reduce_words` on any
/// 256-bit value (up to 2^256 - 1, several times r), for Fr of `field`.
fn check_scalar_module<F: PrimeField>(field: Curve) {
    let Some(ctx) = ctx(FieldLayout::Limbs13x20) else {
        return;
    };
    let mut r = rng(255);
    let mut xs: Vec<F> = vec![F::ZERO, F::ONE, -F::ONE, F::from(2u64).inverse().unwrap()];
    xs.extend((0..200).map(|_| F::rand(&mut r)));
    // arkworks' Montgomery form: x R with R = 2^256
    let r256 = F::from(2u64).pow([256u64]);
    let mont: Vec<Vec<u32>> = xs.iter().map(|x| canonical_words(*x * r256)).collect();
    let plain = pollster::block_on(ctx.scalar_op_in(field, ScalarOp::FromMont, &mont)).unwrap();
    for (x, got) in xs.iter().zip(&plain) {
        assert_eq!(from_canonical_words::<F>(got), Some(*x), "{field} from_mont");
    }
    let mut raws: Vec<Vec<u32>> = vec![vec![u32::MAX; 8], vec![0; 8], canonical_words(-F::ONE)];
    raws.extend((0..200).map(|_| (0..8).map(|_| u32::rand(&mut r)).collect::<Vec<u32>>()));
    // every multiple of r below 2^256
    let r_big = F::MODULUS;
    let mut k_r = r_big;
    raws.push(limb_words(k_r.as_ref()));
    while !k_r.add_with_carry(&r_big) {
        raws.push(limb_words(k_r.as_ref()));
    }
    let reduced = pollster::block_on(ctx.scalar_op_in(field, ScalarOp::ReduceWords, &raws)).unwrap();
    for (raw, got) in raws.iter().zip(&reduced) {
        assert_eq!(
            from_canonical_words::<F>(got),
            Some(words_mod::<F>(raw)),
            "{field} reduce_words {raw:x?}"
        );
    }
}

#[test]
fn scalar_module_matches_arkworks_on_both_curves() {
    common::fast_lavapipe_compile();
    check_scalar_module::<ark_bn254::Fr>(Curve::Bn254G1);
    check_scalar_module::<ark_bls12_381::Fr>(Curve::Bls12_381G1);
}
