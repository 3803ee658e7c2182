//! The WGSL field and G1 primitives generated for BLS12-381 (a 381-bit Fq:
//! 12 packed words) against ark-bls12-381, in every layout (and, for the
//! field, every inversion), on seeded random and edge values.

mod common;

use ark_bls12_381::{Fq, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{AdditiveGroup, BigInteger, Field, PrimeField, UniformRand};
use common::{ctx, ctx_with, rng};
use msm_core::diagnostics::{BaseField, CurveOp, FieldOp};
use msm_core::{FieldLayout, Inversion};
use msm_wgsl::FieldConstants;

const WORDS: usize = 12;

/// A value's 12 little-endian words (canonical).
fn words(x: Fq) -> Vec<u32> {
    x.into_bigint()
        .0
        .iter()
        .flat_map(|l| [*l as u32, (*l >> 32) as u32])
        .collect()
}

/// The element whose canonical words are `w` (None when not below p).
fn from_words(w: &[u32]) -> Option<Fq> {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let v = Fq::from_le_bytes_mod_order(&bytes);
    (words(v) == w).then_some(v)
}

/// The GPU's packed Montgomery form in `layout` (R = 2^(W N)) and back.
struct Repr {
    r: Fq,
    r_inv: Fq,
}

impl Repr {
    fn new(layout: FieldLayout) -> Self {
        let c = FieldConstants::for_field(layout, BaseField::Bls12_381);
        assert_eq!(c.words, WORDS);
        let r = Fq::from(2u64).pow([c.r_bits as u64]);
        Repr {
            r,
            r_inv: r.inverse().unwrap(),
        }
    }
    fn encode(&self, x: Fq) -> Vec<u32> {
        words(x * self.r)
    }
    fn decode(&self, w: &[u32]) -> Option<Fq> {
        from_words(w).map(|m| m * self.r_inv)
    }
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

fn operands(seed: u64) -> (Vec<Fq>, Vec<Fq>) {
    let edges = edge_values();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in &edges {
        for y in &edges {
            a.push(*x);
            b.push(*y);
        }
    }
    let mut r = rng(seed);
    for _ in 0..100 {
        let (x, y) = (Fq::rand(&mut r), Fq::rand(&mut r));
        a.extend([x, x, x]);
        b.extend([y, x, -x]);
    }
    (a, b)
}

fn reference(op: FieldOp, a: Fq, b: Fq) -> Fq {
    match op {
        FieldOp::Add => a + b,
        FieldOp::Sub => a - b,
        FieldOp::Neg => -a,
        FieldOp::Mul => a * b,
        FieldOp::Sqr => a.square(),
        FieldOp::Inv => a.inverse().unwrap_or(Fq::ZERO),
        FieldOp::Double => a.double(),
        _ => unreachable!("not a field-valued op"),
    }
}

#[test]
fn bls12_381_field_ops_match_arkworks() {
    let (a, b) = operands(381);
    for layout in FieldLayout::ALL {
        for inversion in Inversion::ALL.into_iter().filter(|i| i.supports(layout)) {
            let Some(ctx) = ctx_with(layout, Some(inversion)) else {
                continue;
            };
            let repr = Repr::new(layout);
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
                        Some(reference(op, a[i], b[i])),
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
            let mut raws: Vec<Vec<u32>> = vec![vec![u32::MAX; WORDS], words(-Fq::ONE), vec![0; WORDS]];
            let mut r = rng(7);
            for _ in 0..64 {
                raws.push((0..WORDS).map(|_| u32::rand(&mut r)).collect());
            }
            let to = run(FieldOp::ToMont, &raws, &raws);
            for (raw, got) in raws.iter().zip(&to) {
                let bytes: Vec<u8> = raw.iter().flat_map(|x| x.to_le_bytes()).collect();
                assert_eq!(
                    repr.decode(got),
                    Some(Fq::from_le_bytes_mod_order(&bytes)),
                    "{layout} to_mont"
                );
            }
            let from = run(FieldOp::FromMont, &aw, &aw);
            for (x, got) in a.iter().zip(&from) {
                assert_eq!(from_words(got), Some(*x), "{layout} from_mont");
            }
        }
    }
}

/// x, y, zz, zzz of `p` scaled by z (the identity: zz = 0), packed.
fn pack_xyzz(repr: &Repr, p: &G1Affine, z: Fq) -> Vec<u32> {
    let c = if p.is_zero() {
        [Fq::ONE, Fq::ONE, Fq::ZERO, Fq::ZERO]
    } else {
        let zz = z.square();
        [p.x * zz, p.y * zz * z, zz, zz * z]
    };
    c.iter().flat_map(|v| repr.encode(*v)).collect()
}

fn pack_affine(repr: &Repr, p: &G1Affine) -> Vec<u32> {
    [p.x, p.y, Fq::ZERO, Fq::ZERO]
        .iter()
        .flat_map(|v| repr.encode(*v))
        .collect()
}

/// A GPU XYZZ point as affine, checking ZZ^3 = ZZZ^2 and the curve equation.
fn unpack(repr: &Repr, w: &[u32]) -> G1Affine {
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
        let repr = Repr::new(layout);
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
