//! The WGSL field and G1 primitives generated for BLS12-381 (a 381-bit Fq:
//! 12 packed words) against ark-bls12-381, in every layout (and, for the
//! field, every inversion), on seeded random and edge values; and the
//! scalar module of both curves against their arkworks Fr.

mod common;

use ark_bls12_381::{Fq, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{AdditiveGroup, BigInteger, Field, PrimeField, UniformRand};
use common::{ctx, ctx_with, field_reference, operand_pairs_of, rng};
use msm_core::diagnostics::{BaseField, CurveOp, FieldOp, ScalarOp};
use msm_core::repr::{canonical_words, from_canonical_words, limb_words, words_mod, FieldCodec};
use msm_core::{FieldLayout, Inversion};

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

#[test]
fn bls12_381_field_ops_match_arkworks() {
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
                pollster::block_on(ctx.field_op_in(BaseField::Bls12_381, op, x, y)).unwrap()
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

/// x, y, zz, zzz of `p` scaled by z (the identity: zz = 0), packed.
fn pack_xyzz(repr: &FieldCodec<Fq>, p: &G1Affine, z: Fq) -> Vec<u32> {
    let c = if p.is_zero() {
        [Fq::ONE, Fq::ONE, Fq::ZERO, Fq::ZERO]
    } else {
        let zz = z.square();
        [p.x * zz, p.y * zz * z, zz, zz * z]
    };
    c.iter().flat_map(|v| repr.encode(*v)).collect()
}

fn pack_affine(repr: &FieldCodec<Fq>, p: &G1Affine) -> Vec<u32> {
    [p.x, p.y, Fq::ZERO, Fq::ZERO]
        .iter()
        .flat_map(|v| repr.encode(*v))
        .collect()
}

/// A GPU XYZZ point as affine, checking ZZ^3 = ZZZ^2 and the curve equation.
fn unpack(repr: &FieldCodec<Fq>, w: &[u32]) -> G1Affine {
    let c: Vec<Fq> = w
        .chunks(WORDS)
        .map(|v| repr.decode(v).expect("reduced output"))
        .collect();
    if c[2] == Fq::ZERO {
        return G1Affine::zero();
    }
    assert_eq!(c[2].pow([3]), c[3].square(), "ZZ^3 != ZZZ^2");
    let p = G1Affine::new_unchecked(c[0] / c[2], c[1] / c[3]);
    assert!(p.is_on_curve(), "result off the curve");
    p
}

/// Every G1 operation of the curve module on BLS12-381 in the 64-bit
/// layout (the portable ones: [`bls12_381_g1_ops_portable_layouts`]).
#[test]
fn bls12_381_g1_ops_match_arkworks() {
    check_g1_ops(&[FieldLayout::Limbs32x8]);
}

/// [`bls12_381_g1_ops_match_arkworks`] in 13x30 and 16x24: lavapipe compiles
/// their unrolled curve code for about 4 minutes each, so CI leaves them
/// out (`cargo test -p msm-core --test bls12_381 -- --ignored`; the result
/// is in docs/benchmarks.md).
#[test]
#[ignore]
fn bls12_381_g1_ops_portable_layouts() {
    check_g1_ops(&[FieldLayout::Limbs13x20, FieldLayout::Limbs16x16]);
}

/// Affine add and double given an inverse, XYZZ add / mixed add / double /
/// negation over random points with random scales, and the special cases
/// (identity on either side, P + P, P + (-P), G + 2G), against arkworks.
fn check_g1_ops(layouts: &[FieldLayout]) {
    let mut r = rng(12381);
    let p: Vec<G1Affine> = (0..40).map(|_| G1Projective::rand(&mut r).into_affine()).collect();
    let q: Vec<G1Affine> = (0..40).map(|_| G1Projective::rand(&mut r).into_affine()).collect();
    let zero = G1Affine::zero();
    let g = G1Affine::generator();
    let mut cases: Vec<(G1Affine, G1Affine)> = p.iter().copied().zip(q.iter().copied()).collect();
    for i in 0..6 {
        cases.extend([(p[i], p[i]), (p[i], -p[i]), (zero, p[i]), (p[i], zero)]);
    }
    cases.extend([(zero, zero), (g, (g + g).into_affine())]);
    for &layout in layouts {
        let Some(ctx) = ctx(layout) else { continue };
        let repr = codec(layout);
        let run = |op, a: &[Vec<u32>], b: &[Vec<u32>]| -> Vec<G1Affine> {
            let out = pollster::block_on(ctx.curve_op_in(BaseField::Bls12_381, op, a, b)).unwrap();
            out.iter().map(|w| unpack(&repr, w)).collect()
        };
        // affine formulas: distinct x (the random pairs and G + 2G)
        let affine: Vec<(G1Affine, G1Affine)> = cases
            .iter()
            .copied()
            .filter(|(x, y)| !x.is_zero() && !y.is_zero() && x.x != y.x)
            .collect();
        let aa: Vec<Vec<u32>> = affine.iter().map(|(x, _)| pack_affine(&repr, x)).collect();
        let ab: Vec<Vec<u32>> = affine.iter().map(|(_, y)| pack_affine(&repr, y)).collect();
        let sum = run(CurveOp::AffineAddWithInv, &aa, &ab);
        let dbl = run(CurveOp::AffineDoubleWithInv, &aa, &ab);
        let neg = run(CurveOp::AffineNeg, &aa, &ab);
        for (i, (x, y)) in affine.iter().enumerate() {
            assert_eq!(sum[i], (*x + *y).into_affine(), "{layout} affine add {i}");
            assert_eq!(dbl[i], (*x + *x).into_affine(), "{layout} affine double {i}");
            assert_eq!(neg[i], -*x, "{layout} affine neg {i}");
        }
        // XYZZ formulas with random scales
        let a: Vec<Vec<u32>> = cases
            .iter()
            .map(|(x, _)| pack_xyzz(&repr, x, Fq::rand(&mut r)))
            .collect();
        let b: Vec<Vec<u32>> = cases
            .iter()
            .map(|(_, y)| pack_xyzz(&repr, y, Fq::rand(&mut r)))
            .collect();
        let add = run(CurveOp::XyzzAdd, &a, &b);
        let dbl = run(CurveOp::XyzzDouble, &a, &b);
        let neg = run(CurveOp::XyzzNeg, &a, &b);
        for (i, (x, y)) in cases.iter().enumerate() {
            assert_eq!(add[i], (*x + *y).into_affine(), "{layout} xyzz add {i}");
            assert_eq!(dbl[i], (*x + *x).into_affine(), "{layout} xyzz double {i}");
            assert_eq!(neg[i], -*x, "{layout} xyzz neg {i}");
        }
        let mixed: Vec<usize> = (0..cases.len()).filter(|&i| !cases[i].1.is_zero()).collect();
        let ma: Vec<Vec<u32>> = mixed.iter().map(|&i| a[i].clone()).collect();
        let mb: Vec<Vec<u32>> = mixed.iter().map(|&i| pack_affine(&repr, &cases[i].1)).collect();
        let madd = run(CurveOp::XyzzAddAffine, &ma, &mb);
        for (k, &i) in mixed.iter().enumerate() {
            let (x, y) = cases[i];
            assert_eq!(madd[k], (x + y).into_affine(), "{layout} xyzz madd {i}");
        }
    }
}

/// `fr_from_mont` on arkworks' Montgomery words and `fr_reduce_words` on any
/// 256-bit value (up to 2^256 - 1, several times r), for Fr of `field`.
fn check_scalar_module<F: PrimeField>(field: BaseField) {
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
    check_scalar_module::<ark_bn254::Fr>(BaseField::Bn254);
    check_scalar_module::<ark_bls12_381::Fr>(BaseField::Bls12_381);
}
