//! The WGSL field primitives generated for BLS12-381's 381-bit Fq (12
//! packed words) against ark-bls12-381, in every layout and inversion, on
//! seeded random and edge values.

mod common;

use ark_bls12_381::Fq;
use ark_ff::{AdditiveGroup, BigInteger, Field, PrimeField, UniformRand};
use common::{ctx_with, rng};
use msm_core::diagnostics::{BaseField, FieldOp};
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
