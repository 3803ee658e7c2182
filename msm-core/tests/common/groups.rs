//! The curve module's operations on any group against arkworks: shared by
//! the BLS12-381 G1 test and the G2 tests.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{AdditiveGroup, Field, UniformRand, Zero};
use ark_ff::{BigInteger, PrimeField};
use msm_core::diagnostics::CurveOp;
use msm_core::repr::FieldCodec;
use msm_core::{FieldLayout, GpuCurve};
use num_bigint::BigUint;

use super::{ctx, rng};

/// The GPU's packed form of `C`'s coordinates in `layout`.
pub fn codec_of<C: GpuCurve>(layout: FieldLayout) -> FieldCodec<C::BaseField> {
    let c = FieldCodec::new(layout, C::CURVE.field());
    assert_eq!(c.words(), C::CURVE.coord_words() as usize);
    c
}

/// x, y, zz, zzz of `p` scaled by z (the identity: zz = 0), packed.
fn pack_xyzz<C: GpuCurve>(codec: &FieldCodec<C::BaseField>, p: &Affine<C>, z: C::BaseField) -> Vec<u32> {
    type F<C> = <C as ark_ec::CurveConfig>::BaseField;
    let c = match p.xy() {
        None => [F::<C>::ONE, F::<C>::ONE, F::<C>::ZERO, F::<C>::ZERO],
        Some((x, y)) => {
            let zz = z.square();
            [x * zz, y * zz * z, zz, zz * z]
        }
    };
    c.iter().flat_map(|v| codec.encode(*v)).collect()
}

fn pack_affine<C: GpuCurve>(codec: &FieldCodec<C::BaseField>, p: &Affine<C>) -> Vec<u32> {
    let (x, y) = p.xy().expect("not the identity");
    [x, y, C::BaseField::ZERO, C::BaseField::ZERO]
        .iter()
        .flat_map(|v| codec.encode(*v))
        .collect()
}

/// A GPU XYZZ point as affine, checking ZZ^3 = ZZZ^2 and the curve equation.
fn unpack<C: GpuCurve>(codec: &FieldCodec<C::BaseField>, w: &[u32]) -> Affine<C> {
    let c: Vec<C::BaseField> = w
        .chunks(codec.words())
        .map(|v| codec.decode(v).expect("reduced output"))
        .collect();
    if c[2].is_zero() {
        return Affine::zero();
    }
    assert_eq!(c[2].pow([3]), c[3].square(), "ZZ^3 != ZZZ^2");
    let p = Affine::new_unchecked(c[0] / c[2], c[1] / c[3]);
    assert!(p.is_on_curve(), "result off the curve");
    p
}

/// Affine add and double given an inverse, XYZZ add / mixed add / double /
/// negation over random points with random scales, and the special cases
/// (identity on either side, P + P, P + (-P), G + 2G), on `C` against
/// arkworks, in each of `layouts`.
pub fn check_curve_ops<C: GpuCurve>(layouts: &[FieldLayout], seed: u64) {
    let mut r = rng(seed);
    let p: Vec<Affine<C>> = (0..40).map(|_| Projective::<C>::rand(&mut r).into_affine()).collect();
    let q: Vec<Affine<C>> = (0..40).map(|_| Projective::<C>::rand(&mut r).into_affine()).collect();
    let (zero, g) = (Affine::<C>::zero(), Affine::<C>::generator());
    let mut cases: Vec<(Affine<C>, Affine<C>)> = p.iter().copied().zip(q.iter().copied()).collect();
    for i in 0..6 {
        cases.extend([(p[i], p[i]), (p[i], -p[i]), (zero, p[i]), (p[i], zero)]);
    }
    cases.extend([(zero, zero), (g, (g + g).into_affine())]);
    let curve = C::CURVE;
    for &layout in layouts {
        let Some(ctx) = ctx(layout) else { continue };
        let codec = codec_of::<C>(layout);
        let run = |op, a: &[Vec<u32>], b: &[Vec<u32>]| -> Vec<Affine<C>> {
            let out = pollster::block_on(ctx.curve_op_in(curve, op, a, b)).unwrap();
            out.iter().map(|w| unpack(&codec, w)).collect()
        };
        // affine formulas: distinct x (the random pairs and G + 2G)
        let affine: Vec<(Affine<C>, Affine<C>)> = cases
            .iter()
            .copied()
            .filter(|(x, y)| !x.is_zero() && !y.is_zero() && x.x != y.x)
            .collect();
        let aa: Vec<Vec<u32>> = affine.iter().map(|(x, _)| pack_affine(&codec, x)).collect();
        let ab: Vec<Vec<u32>> = affine.iter().map(|(_, y)| pack_affine(&codec, y)).collect();
        let sum = run(CurveOp::AffineAddWithInv, &aa, &ab);
        let dbl = run(CurveOp::AffineDoubleWithInv, &aa, &ab);
        let neg = run(CurveOp::AffineNeg, &aa, &ab);
        for (i, (x, y)) in affine.iter().enumerate() {
            assert_eq!(sum[i], (*x + *y).into_affine(), "{curve} {layout} affine add {i}");
            assert_eq!(dbl[i], (*x + *x).into_affine(), "{curve} {layout} affine double {i}");
            assert_eq!(neg[i], -*x, "{curve} {layout} affine neg {i}");
        }
        // XYZZ formulas with random scales
        let a: Vec<Vec<u32>> = cases
            .iter()
            .map(|(x, _)| pack_xyzz(&codec, x, C::BaseField::rand(&mut r)))
            .collect();
        let b: Vec<Vec<u32>> = cases
            .iter()
            .map(|(_, y)| pack_xyzz(&codec, y, C::BaseField::rand(&mut r)))
            .collect();
        let add = run(CurveOp::XyzzAdd, &a, &b);
        let dbl = run(CurveOp::XyzzDouble, &a, &b);
        let neg = run(CurveOp::XyzzNeg, &a, &b);
        for (i, (x, y)) in cases.iter().enumerate() {
            assert_eq!(add[i], (*x + *y).into_affine(), "{curve} {layout} xyzz add {i}");
            assert_eq!(dbl[i], (*x + *x).into_affine(), "{curve} {layout} xyzz double {i}");
            assert_eq!(neg[i], -*x, "{curve} {layout} xyzz neg {i}");
        }
        // affine p (flagged) plus XYZZ q: every case whose p has an affine form
        let first: Vec<usize> = (0..cases.len()).filter(|&i| !cases[i].0.is_zero()).collect();
        let fa: Vec<Vec<u32>> = first.iter().map(|&i| pack_affine(&codec, &cases[i].0)).collect();
        let fb: Vec<Vec<u32>> = first.iter().map(|&i| b[i].clone()).collect();
        let general = run(CurveOp::AffinePlusXyzz, &fa, &fb);
        for (k, &i) in first.iter().enumerate() {
            let (x, y) = cases[i];
            assert_eq!(general[k], (x + y).into_affine(), "{curve} {layout} affine + xyzz {i}");
        }
        // both affine: every case but the identity's (no affine form), P + P
        // and P + (-P) among them
        let both: Vec<usize> = (0..cases.len())
            .filter(|&i| !cases[i].0.is_zero() && !cases[i].1.is_zero())
            .collect();
        let ba: Vec<Vec<u32>> = both.iter().map(|&i| pack_affine(&codec, &cases[i].0)).collect();
        let bb: Vec<Vec<u32>> = both.iter().map(|&i| pack_affine(&codec, &cases[i].1)).collect();
        let sum2 = run(CurveOp::XyzzAddBothAffine, &ba, &bb);
        for (k, &i) in both.iter().enumerate() {
            let (x, y) = cases[i];
            assert_eq!(
                sum2[k],
                (x + y).into_affine(),
                "{curve} {layout} affine + affine into xyzz {i}"
            );
        }
        let mixed: Vec<usize> = (0..cases.len()).filter(|&i| !cases[i].1.is_zero()).collect();
        let ma: Vec<Vec<u32>> = mixed.iter().map(|&i| a[i].clone()).collect();
        let mb: Vec<Vec<u32>> = mixed.iter().map(|&i| pack_affine(&codec, &cases[i].1)).collect();
        let madd = run(CurveOp::XyzzAddAffine, &ma, &mb);
        for (k, &i) in mixed.iter().enumerate() {
            let (x, y) = cases[i];
            assert_eq!(madd[k], (x + y).into_affine(), "{curve} {layout} xyzz madd {i}");
        }
    }
}

/// The cofactor h of `C`'s group.
pub fn cofactor_of<C: GpuCurve>() -> BigUint {
    BigUint::from_slice(
        &C::COFACTOR
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

/// A point of each prime order q < 2^23 dividing the cofactor h: the
/// q-part [r h / q^v] of a point outside, multiplied by q while that is
/// not the identity.
pub fn small_order_points<C: GpuCurve>(outside: &[Affine<C>]) -> Vec<Affine<C>> {
    let h = cofactor_of::<C>();
    let r = BigUint::from_bytes_le(&C::ScalarField::MODULUS.to_bytes_le());
    let digits = h.to_u32_digits();
    let divides = |q: u64| digits.iter().rev().fold(0u64, |acc, d| ((acc << 32) | *d as u64) % q) == 0;
    let mut rest = h.clone();
    let mut out = Vec::new();
    for q in (2u32..1 << 23).filter(|q| divides(*q as u64)) {
        let mut q_part = BigUint::from(1u8);
        while (&rest % q).is_zero() {
            rest /= q;
            q_part *= q;
        }
        if q_part > BigUint::from(1u8) {
            let m = (&h / &q_part * &r).to_u64_digits();
            if let Some(mut t) = outside.iter().map(|o| o.mul_bigint(&m)).find(|t| !t.is_zero()) {
                while !t.mul_bigint([q as u64]).is_zero() {
                    t = t.mul_bigint([q as u64]);
                }
                out.push(t.into_affine());
            }
        }
    }
    out
}
