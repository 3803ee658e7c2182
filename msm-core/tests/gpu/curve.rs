//! The WGSL G1 primitives against ark-bn254: affine add/double given an inverse,
//! XYZZ double/add/mixed add, negation and identity handling, for every layout.

use crate::common;

use ark_bn254::{Fq, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{Field, UniformRand, Zero};
use common::{ctx, rng};
use msm_core::diagnostics::{CurveOp, PointWords};
use msm_core::repr::FieldRepr;
use msm_core::FieldLayout;

/// A point in XYZZ with a random scale z (or the identity, ZZ = 0).
#[derive(Clone, Copy, Debug)]
struct Xyzz {
    x: Fq,
    y: Fq,
    zz: Fq,
    zzz: Fq,
}

fn xyzz_of(p: &G1Affine, z: Fq) -> Xyzz {
    if p.is_zero() {
        return Xyzz {
            x: Fq::from(1u64),
            y: Fq::from(1u64),
            zz: Fq::zero(),
            zzz: Fq::zero(),
        };
    }
    let zz = z.square();
    let zzz = zz * z;
    Xyzz {
        x: p.x * zz,
        y: p.y * zzz,
        zz,
        zzz,
    }
}

fn pack(repr: &FieldRepr, c: [Fq; 4]) -> PointWords {
    let mut w = [0u32; 32];
    for (k, v) in c.iter().enumerate() {
        w[8 * k..8 * k + 8].copy_from_slice(&repr.to_gpu(v));
    }
    w
}

fn pack_xyzz(repr: &FieldRepr, p: &Xyzz) -> PointWords {
    pack(repr, [p.x, p.y, p.zz, p.zzz])
}

fn pack_affine(repr: &FieldRepr, p: &G1Affine) -> PointWords {
    pack(repr, [p.x, p.y, Fq::zero(), Fq::zero()])
}

/// Reads a GPU XYZZ point back as affine, checking ZZ^3 = ZZZ^2 on the way.
fn unpack(repr: &FieldRepr, w: &PointWords) -> G1Affine {
    let c: Vec<Fq> = (0..4)
        .map(|k| {
            repr.from_gpu(w[8 * k..8 * k + 8].try_into().unwrap())
                .expect("reduced output")
        })
        .collect();
    if c[2].is_zero() {
        return G1Affine::zero();
    }
    assert_eq!(c[2].pow([3]), c[3].square(), "ZZ^3 != ZZZ^2");
    let p = G1Affine::new_unchecked(c[0] / c[2], c[1] / c[3]);
    assert!(p.is_on_curve(), "result off the curve");
    p
}

fn run(layout: FieldLayout, op: CurveOp, a: &[PointWords], b: &[PointWords]) -> Option<Vec<G1Affine>> {
    let ctx = ctx(layout)?;
    let repr = FieldRepr::new(layout);
    let out = pollster::block_on(ctx.curve_op(op, a, b)).unwrap();
    Some(out.iter().map(|w| unpack(&repr, w)).collect())
}

fn random_points(seed: u64, n: usize) -> Vec<G1Affine> {
    let mut r = rng(seed);
    (0..n).map(|_| G1Projective::rand(&mut r).into_affine()).collect()
}

#[test]
fn affine_formulas_with_inverse() {
    common::fast_lavapipe_compile();
    let p = random_points(10, 64);
    let q = random_points(11, 64);
    let g = G1Affine::generator();
    for layout in FieldLayout::ALL {
        let repr = FieldRepr::new(layout);
        let mut a: Vec<PointWords> = p.iter().map(|x| pack_affine(&repr, x)).collect();
        let mut b: Vec<PointWords> = q.iter().map(|x| pack_affine(&repr, x)).collect();
        // the generator and its double (small coordinates)
        a.push(pack_affine(&repr, &g));
        b.push(pack_affine(&repr, &(g + g).into_affine()));
        let Some(sum) = run(layout, CurveOp::AffineAddWithInv, &a, &b) else {
            continue;
        };
        let dbl = run(layout, CurveOp::AffineDoubleWithInv, &a, &b).unwrap();
        let neg = run(layout, CurveOp::AffineNeg, &a, &b).unwrap();
        let (pa, qa): (Vec<G1Affine>, Vec<G1Affine>) = (
            p.iter().copied().chain([g]).collect(),
            q.iter().copied().chain([(g + g).into_affine()]).collect(),
        );
        for i in 0..pa.len() {
            assert_eq!(sum[i], (pa[i] + qa[i]).into_affine(), "{layout} add {i}");
            assert_eq!(dbl[i], (pa[i] + pa[i]).into_affine(), "{layout} double {i}");
            assert_eq!(neg[i], -pa[i], "{layout} neg {i}");
        }
    }
}

/// XYZZ operations over random points with random scales, plus the special
/// cases: identity on either side, P + P, P + (-P), scales that differ for the
/// same point.
#[test]
fn xyzz_formulas_and_special_cases() {
    common::fast_lavapipe_compile();
    let p = random_points(20, 48);
    let q = random_points(21, 48);
    let mut r = rng(22);
    let zero = G1Affine::zero();
    let mut cases: Vec<(G1Affine, G1Affine)> = p.iter().copied().zip(q.iter().copied()).collect();
    for i in 0..8 {
        cases.extend([(p[i], p[i]), (p[i], -p[i]), (zero, p[i]), (p[i], zero)]);
    }
    cases.push((zero, zero));
    for layout in FieldLayout::ALL {
        let repr = FieldRepr::new(layout);
        let mut a = Vec::new();
        let mut b = Vec::new();
        let mut b_aff = Vec::new();
        for (x, y) in &cases {
            a.push(pack_xyzz(&repr, &xyzz_of(x, Fq::rand(&mut r))));
            b.push(pack_xyzz(&repr, &xyzz_of(y, Fq::rand(&mut r))));
            b_aff.push(pack_affine(&repr, y));
        }
        let Some(add) = run(layout, CurveOp::XyzzAdd, &a, &b) else {
            continue;
        };
        let dbl = run(layout, CurveOp::XyzzDouble, &a, &b).unwrap();
        let neg = run(layout, CurveOp::XyzzNeg, &a, &b).unwrap();
        // `op` over the cases `keep` selects, operands from `a_of` and `b_of`,
        // against arkworks' x + y
        let check_sums = |op: CurveOp,
                          keep: &dyn Fn(&(G1Affine, G1Affine)) -> bool,
                          a_of: &dyn Fn(usize) -> PointWords,
                          b_of: &dyn Fn(usize) -> PointWords,
                          what: &str| {
            let picked: Vec<usize> = (0..cases.len()).filter(|&i| keep(&cases[i])).collect();
            let pa: Vec<PointWords> = picked.iter().map(|&i| a_of(i)).collect();
            let pb: Vec<PointWords> = picked.iter().map(|&i| b_of(i)).collect();
            let got = run(layout, op, &pa, &pb).unwrap();
            for (k, &i) in picked.iter().enumerate() {
                let (x, y) = cases[i];
                assert_eq!(got[k], (x + y).into_affine(), "{layout} {what} {i}");
            }
        };
        let affine_a = |i: usize| pack_affine(&repr, &cases[i].0);
        // mixed addition takes a non-identity affine operand
        check_sums(CurveOp::XyzzAddAffine, &|c| !c.1.is_zero(), &|i| a[i], &|i| b_aff[i], "xyzz madd");
        // xyzz_add_pq with both points affine (walker_combine's owners' first
        // step; P + P and P + (-P) among them), and with p alone affine (an
        // owner's tail plus a block's sum)
        let both = |c: &(G1Affine, G1Affine)| !c.0.is_zero() && !c.1.is_zero();
        check_sums(CurveOp::XyzzAddBothAffine, &both, &affine_a, &|i| b_aff[i], "affine + affine into xyzz");
        check_sums(CurveOp::AffinePlusXyzz, &|c| !c.0.is_zero(), &affine_a, &|i| b[i], "affine + xyzz");
        for (i, (x, y)) in cases.iter().enumerate() {
            let want = (*x + *y).into_affine();
            assert_eq!(add[i], want, "{layout} xyzz add {i}: {x} + {y}");
            assert_eq!(dbl[i], (*x + *x).into_affine(), "{layout} xyzz double {i}");
            assert_eq!(neg[i], -*x, "{layout} xyzz neg {i}");
        }
    }
}

#[test]
fn doubling_chain_matches_scalar_multiplication() {
    common::fast_lavapipe_compile();
    let g = G1Affine::generator();
    for layout in FieldLayout::ALL {
        let repr = FieldRepr::new(layout);
        let Some(ctx) = ctx(layout) else { continue };
        let mut cur = vec![pack_xyzz(&repr, &xyzz_of(&g, Fq::from(1u64)))];
        for _ in 0..5 {
            cur = pollster::block_on(ctx.curve_op(CurveOp::XyzzDouble, &cur, &cur)).unwrap();
        }
        let want = (G1Projective::generator() * ark_bn254::Fr::from(32u64)).into_affine();
        assert_eq!(unpack(&repr, &cur[0]), want, "{layout}");
    }
}
