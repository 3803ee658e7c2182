//! The `subgroup_params` module: the constants of each group's test for
//! membership in the prime-order subgroup (`shaders/subgroup.wgsl`), the
//! endomorphism tests arkworks' validated deserialization applies:
//!
//! - BLS12-381 G1 (Scott, eprint 2021/1130, section 6): A = [|u|]P, then
//!   P is in G1 iff A != P and [|u|]A = -phi(P), phi(x, y) = (beta x, y);
//! - BLS12-381 G2 (ibid., section 4): [|u|]P = -psi(P), since u < 0;
//! - BN254 G2 (Dai, Lin, Zhao, Zhou, eprint 2022/348, sections 3 and 5.1):
//!   A = [x]P, then P is in G2 iff A + P + psi(A) + psi^2(A) = psi^3(2A),
//!   63 doublings where eprint 2022/352's [6 x^2]P = psi(P) takes 126;
//! - BN254 G1: cofactor 1, every point of the curve is in the group.
//!
//! psi(x, y) = (conj(x) c_x, conj(y) c_y) is the untwist-Frobenius-twist map
//! (c_x = xi^((p - 1) / 3), c_y = xi^((p - 1) / 2) for the twist's xi:
//! 9 + u for BN254, 1 / (1 + u) for BLS12-381).

use ark_ff::{BigInteger, Field, PrimeField};
use num_bigint::BigUint;

use super::array_lit;
use crate::layout::{packed_words, BaseField, Coords};

/// BN254's curve parameter x (the BN family's u).
pub const BN254_X: u64 = 4965661367192848881;
/// |u| of BLS12-381 (u = -0xd201000000010000).
pub const BLS12_381_ABS_U: u64 = 0xd201_0000_0001_0000;

/// One group's subgroup test, as the kernel runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgroupTest {
    /// Whether the group has a cofactor to test at all.
    pub checked: bool,
    /// The scalar k of [k]P (at most 128 bits).
    pub k: u128,
    /// [k]P once more before the comparison (BLS12-381 G1: [u^2]P, with the
    /// early refusal of [|u|]P = P).
    pub two_step: bool,
    /// The endomorphism's coefficients of x and y, plain (c0, c1; c1 is 0
    /// over Fq), applied after the Frobenius (conjugation over Fq2).
    pub endo_x: (BigUint, BigUint),
    pub endo_y: (BigUint, BigUint),
    /// The target is the endomorphism's image negated.
    pub negate: bool,
    /// The comparison is A + P + psi(A) + psi^2(A) = psi^3(2A) for A = [k]P
    /// (BN254 G2), not [k]P = (-)endo(P).
    pub psi_sum: bool,
}

fn big<F: PrimeField>(f: F) -> BigUint {
    BigUint::from_bytes_le(&f.into_bigint().to_bytes_le())
}

fn big2<P: ark_ff::Fp2Config>(f: ark_ff::Fp2<P>) -> (BigUint, BigUint) {
    (big(f.c0), big(f.c1))
}

/// psi's coefficients for the twist element `xi`.
fn psi<P: ark_ff::Fp2Config>(xi: ark_ff::Fp2<P>) -> ((BigUint, BigUint), (BigUint, BigUint))
where
    P::Fp: PrimeField,
{
    let p_minus_1 = BigUint::from_bytes_le(&P::Fp::MODULUS.to_bytes_le()) - 1u8;
    let pow = |d: u8| xi.pow((&p_minus_1 / d).to_u64_digits());
    (big2(pow(3)), big2(pow(2)))
}

/// The test of the group with base field `field` and coordinates `coords`.
pub fn subgroup_test(field: BaseField, coords: Coords) -> SubgroupTest {
    let one = (BigUint::from(1u8), BigUint::ZERO);
    match (field, coords) {
        (BaseField::Bn254, Coords::Fq) => SubgroupTest {
            checked: false,
            k: 0,
            two_step: false,
            endo_x: one.clone(),
            endo_y: one,
            negate: false,
            psi_sum: false,
        },
        (BaseField::Bls12_381, Coords::Fq) => SubgroupTest {
            checked: true,
            k: BLS12_381_ABS_U as u128,
            two_step: true,
            endo_x: (big(ark_bls12_381::g1::BETA), BigUint::ZERO),
            endo_y: one,
            negate: true,
            psi_sum: false,
        },
        (BaseField::Bn254, Coords::Fq2) => {
            let (endo_x, endo_y) = psi(ark_bn254::Fq2::new(9u64.into(), 1u64.into()));
            SubgroupTest {
                checked: true,
                k: BN254_X as u128,
                two_step: false,
                endo_x,
                endo_y,
                negate: false,
                psi_sum: true,
            }
        }
        (BaseField::Bls12_381, Coords::Fq2) => {
            let xi = ark_bls12_381::Fq2::new(1u64.into(), 1u64.into())
                .inverse()
                .expect("1 + u is not zero");
            let (endo_x, endo_y) = psi(xi);
            SubgroupTest {
                checked: true,
                k: BLS12_381_ABS_U as u128,
                two_step: false,
                endo_x,
                endo_y,
                negate: true,
                psi_sum: false,
            }
        }
    }
}

/// The `subgroup_params` module of a group: its test's constants and the
/// Frobenius map of its coordinates (the identity over Fq).
pub fn subgroup_params_module(field: BaseField, coords: Coords) -> String {
    let t = subgroup_test(field, coords);
    let base = packed_words(&field.modulus());
    let words = |(c0, c1): &(BigUint, BigUint)| {
        let mut w = crate::layout::to_limbs(c0, 32, base);
        if coords == Coords::Fq2 {
            w.extend(crate::layout::to_limbs(c1, 32, base));
        }
        array_lit(&w)
    };
    let k: Vec<u32> = (0..4).map(|i| (t.k >> (32 * i)) as u32).collect();
    let frobenius = match coords {
        Coords::Fq => "return a;",
        Coords::Fq2 => "return Fq(a.c0, fp_neg(a.c1));",
    };
    format!(
        "// The subgroup test's constants ({field} {}). Generated by msm-wgsl's\n\
         // fieldgen (subgroup.rs); do not edit.\n\
         const SUBGROUP_CHECKED: bool = {};\n\
         // k of [k]P, little-endian words, and its bit length\n\
         const SUBGROUP_K: array<u32, 4> = {};\n\
         const SUBGROUP_K_BITS: u32 = {}u;\n\
         const SUBGROUP_TWO_STEP: bool = {};\n\
         const SUBGROUP_NEGATE: bool = {};\n\
         // BN254 G2's comparison of sums of psi's images\n\
         const SUBGROUP_PSI_SUM: bool = {};\n\
         // the endomorphism's coefficients, plain\n\
         const SUBGROUP_ENDO_X: FqWords = {};\n\
         const SUBGROUP_ENDO_Y: FqWords = {};\n\
         fn subgroup_frobenius(a: Fq) -> Fq {{\n    {frobenius}\n}}\n",
        coords.group().to_uppercase(),
        t.checked,
        array_lit(&k),
        // at least 1: a group without the test still validates (`j % bits`)
        (128 - t.k.leading_zeros()).max(1),
        t.two_step,
        t.negate,
        t.psi_sum,
        words(&t.endo_x),
        words(&t.endo_y),
    )
}
