//! Limb layouts of a curve's base field on the GPU and the constants derived
//! from ark-ff's modulus.
//!
//! Every layout stores a field element in memory as little-endian `u32` words
//! (8 for BN254's 254-bit Fq, 12 for BLS12-381's 381-bit Fq) holding its
//! Montgomery form `a * R mod p` (R depends on the layout), and unpacks it into
//! `N` limbs of `W` bits in registers.

use ark_bn254::Fq;
use ark_ff::{BigInteger, PrimeField};
use num_bigint::BigUint;

/// The base field a module is generated for (a curve's Fq).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BaseField {
    /// BN254's 254-bit Fq.
    #[default]
    Bn254,
    /// BLS12-381's 381-bit Fq.
    Bls12_381,
}

impl BaseField {
    pub const ALL: [BaseField; 2] = [BaseField::Bn254, BaseField::Bls12_381];

    /// Short stable name, used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            BaseField::Bn254 => "bn254",
            BaseField::Bls12_381 => "bls12-381",
        }
    }

    /// The curve's scalar-field modulus r, from ark-ff.
    pub fn scalar_modulus(self) -> BigUint {
        match self {
            BaseField::Bn254 => scalar_modulus(),
            BaseField::Bls12_381 => BigUint::from_bytes_le(&ark_bls12_381::Fr::MODULUS.to_bytes_le()),
        }
    }

    /// The modulus p, from ark-ff.
    pub fn modulus(self) -> BigUint {
        match self {
            BaseField::Bn254 => modulus(),
            BaseField::Bls12_381 => BigUint::from_bytes_le(&ark_bls12_381::Fq::MODULUS.to_bytes_le()),
        }
    }
}

impl std::fmt::Display for BaseField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The field a group's point coordinates live in: Fq for G1, Fq2 =
/// Fq[u]/(u^2 + 1) for G2 (the quadratic extension of both BN254 and
/// BLS12-381, whose non-residue is -1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Coords {
    #[default]
    Fq,
    Fq2,
}

impl Coords {
    /// Fq elements per coordinate.
    pub const fn degree(self) -> usize {
        match self {
            Coords::Fq => 1,
            Coords::Fq2 => 2,
        }
    }

    /// The group whose coordinates these are ("g1" or "g2").
    pub const fn group(self) -> &'static str {
        match self {
            Coords::Fq => "g1",
            Coords::Fq2 => "g2",
        }
    }
}

/// How Fq is split into limbs inside a shader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldLayout {
    /// 20 limbs of 13 bits, R = 2^260. Products are 26 bits, so a whole Montgomery
    /// multiplication accumulates its columns in `u32` without carries (lazy
    /// reduction) and normalises once. Portable (u32 only).
    #[default]
    Limbs13x20,
    /// 16 limbs of 16 bits, R = 2^256, CIOS with a carry every step. Portable.
    Limbs16x16,
    /// 8 limbs of 32 bits, R = 2^256, CIOS with 64-bit products. Native only:
    /// needs `SHADER_INT64`.
    Limbs32x8,
}

impl FieldLayout {
    /// Every layout, portable ones first.
    pub const ALL: [FieldLayout; 3] = [FieldLayout::Limbs13x20, FieldLayout::Limbs16x16, FieldLayout::Limbs32x8];

    /// Bits per limb (W).
    pub const fn limb_bits(self) -> u32 {
        match self {
            FieldLayout::Limbs13x20 => 13,
            FieldLayout::Limbs16x16 => 16,
            FieldLayout::Limbs32x8 => 32,
        }
    }

    /// Limbs of an element of a `bits`-bit modulus: enough that R = 2^(W N)
    /// exceeds 4p (13-bit lazy reduction), or whole 32-bit words (CIOS).
    pub const fn limbs_for(self, bits: u32) -> usize {
        match self {
            FieldLayout::Limbs13x20 => (bits + 2).div_ceil(13) as usize,
            FieldLayout::Limbs16x16 => 2 * bits.div_ceil(32) as usize,
            FieldLayout::Limbs32x8 => bits.div_ceil(32) as usize,
        }
    }

    /// Limbs per element of BN254's Fq (N).
    pub const fn limb_count(self) -> usize {
        match self {
            FieldLayout::Limbs13x20 => 20,
            FieldLayout::Limbs16x16 => 16,
            FieldLayout::Limbs32x8 => 8,
        }
    }

    /// log2 of the Montgomery radix R = 2^(W*N) for BN254's Fq.
    pub const fn r_bits(self) -> u32 {
        self.limb_bits() * self.limb_count() as u32
    }

    /// Whether shaders of this layout use 64-bit integers (`SHADER_INT64`).
    pub const fn needs_int64(self) -> bool {
        matches!(self, FieldLayout::Limbs32x8)
    }

    /// Short stable name, used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            FieldLayout::Limbs13x20 => "13x20",
            FieldLayout::Limbs16x16 => "16x16",
            FieldLayout::Limbs32x8 => "32x8-int64",
        }
    }

    /// Parses [`FieldLayout::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for FieldLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Constants of one layout, all derived from a modulus (`ark_bn254::Fq::MODULUS`
/// unless made with [`FieldConstants::for_modulus`]).
#[derive(Clone, Debug)]
pub struct FieldConstants {
    pub layout: FieldLayout,
    /// The modulus.
    pub modulus: BigUint,
    /// p split into W-bit limbs, least significant first.
    pub p: Vec<u32>,
    /// n0' = -p^(-1) mod 2^W (the Montgomery reduction factor).
    pub n0: u32,
    /// R mod p in W-bit limbs: the Montgomery form of one.
    pub one_mont: Vec<u32>,
    /// R^2 mod p in W-bit limbs: multiplying by it converts into Montgomery form.
    pub r2: Vec<u32>,
    /// Limbs per element (N).
    pub n: usize,
    /// u32 words of the packed form (8 for 254 bits, 12 for 381).
    pub words: usize,
    /// log2 of the Montgomery radix R = 2^(W N).
    pub r_bits: u32,
    /// The exponent p - 2 (Fermat inversion) as 4-bit windows, most significant first.
    pub inv_windows: Vec<u32>,
    /// p as `words` little-endian u32 words (the packed form's modulus).
    pub p_words: Vec<u32>,
    /// R^3 mod p in W-bit limbs: `fq_mul(x^(-1), R^3)` turns the plain inverse
    /// of a packed Montgomery value x = a R into a^(-1) R.
    pub r3: Vec<u32>,
    /// R^2 / 2^(32 words) mod p in W-bit limbs: `fq_mul(a, RMONT)` turns an
    /// element in ffjavascript's (and arkworks') Montgomery form, radix
    /// 2^(32 words), into this layout's (`BaseFormat::Montgomery`).
    pub rmont: Vec<u32>,
}

/// The BN254 base-field modulus p as a big integer.
pub fn modulus() -> BigUint {
    BigUint::from_bytes_le(&Fq::MODULUS.to_bytes_le())
}

/// The BN254 scalar-field modulus r as a big integer.
pub fn scalar_modulus() -> BigUint {
    BigUint::from_bytes_le(&ark_bn254::Fr::MODULUS.to_bytes_le())
}

/// u32 words of the packed form of values below `p`: 8 for 254 bits, 12 for 381.
pub fn packed_words(p: &BigUint) -> usize {
    (p.bits() as usize).div_ceil(32)
}

/// Splits `v` into `count` limbs of `bits` bits, least significant first.
pub fn to_limbs(v: &BigUint, bits: u32, count: usize) -> Vec<u32> {
    let mask = (BigUint::from(1u8) << bits) - 1u8;
    (0..count)
        .map(|i| {
            let limb: BigUint = (v >> (bits as usize * i)) & &mask;
            limb.to_u32_digits().first().copied().unwrap_or(0)
        })
        .collect()
}

impl FieldConstants {
    /// The constants of BN254's Fq in `layout`.
    pub fn new(layout: FieldLayout) -> Self {
        Self::for_modulus(layout, modulus())
    }

    /// The constants of `field` in `layout`.
    pub fn for_field(layout: FieldLayout, field: BaseField) -> Self {
        Self::for_modulus(layout, field.modulus())
    }

    /// The constants of the field of odd modulus `p` in `layout`.
    pub fn for_modulus(layout: FieldLayout, p: BigUint) -> Self {
        let w = layout.limb_bits();
        let bits = p.bits() as u32;
        let n = layout.limbs_for(bits);
        let words = packed_words(&p);
        let r_bits = w * n as u32;
        let r = BigUint::from(1u8) << r_bits;
        let r_mod_p = &r % &p;
        let r2 = (&r_mod_p * &r_mod_p) % &p;
        let r3 = (&r2 * &r_mod_p) % &p;
        // 2^(32 words) is invertible mod the odd p: its inverse by Fermat
        let radix_in = (BigUint::from(1u8) << (32 * words)) % &p;
        let rmont = (&r2 * radix_in.modpow(&(&p - 2u8), &p)) % &p;
        // -p^(-1) mod 2^W: p is odd, so p^(2^W - 1 ... ) inverse exists; compute by Newton.
        let two_w = 1u64 << w;
        let p0 = to_limbs(&p, w, 1)[0] as u64;
        let mut inv = 1u64;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv))) % two_w;
        }
        let n0 = ((two_w - inv) % two_w) as u32;
        let e = &p - 2u8;
        let inv_windows = (0..8 * words)
            .rev()
            .map(|i| to_limbs(&(&e >> (4 * i)), 4, 1)[0])
            .collect();
        FieldConstants {
            layout,
            p: to_limbs(&p, w, n),
            n0,
            one_mont: to_limbs(&r_mod_p, w, n),
            r2: to_limbs(&r2, w, n),
            n,
            words,
            r_bits,
            inv_windows,
            p_words: to_limbs(&p, 32, words),
            r3: to_limbs(&r3, w, n),
            rmont: to_limbs(&rmont, w, n),
            modulus: p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_limbs(l: &[u32], bits: u32) -> BigUint {
        l.iter().rev().fold(BigUint::from(0u8), |acc, &x| (acc << bits) + x)
    }

    /// Every constant of `field` in every layout, against ark-ff's arithmetic in `F`.
    fn check_constants<F: PrimeField>(field: BaseField) {
        let p = field.modulus();
        assert_eq!(p, BigUint::from_bytes_le(&F::MODULUS.to_bytes_le()));
        for layout in FieldLayout::ALL {
            let c = FieldConstants::for_field(layout, field);
            let w = layout.limb_bits();
            assert_eq!(c.r_bits, w * c.n as u32);
            assert_eq!(from_limbs(&c.p, w), p);
            // n0' * p == -1 (mod 2^W)
            let prod = (c.n0 as u64 * c.p[0] as u64) % (1u64 << w);
            assert_eq!(prod, (1u64 << w) - 1, "{layout}");
            // R mod p, R^2 and R^3 agree with ark's field arithmetic.
            let r = F::from(2u64).pow([c.r_bits as u64]);
            let big = |x: F| BigUint::from_bytes_le(&x.into_bigint().to_bytes_le());
            assert_eq!(from_limbs(&c.one_mont, w), big(r));
            assert_eq!(from_limbs(&c.r2, w), big(r * r));
            assert_eq!(from_limbs(&c.r3, w), big(r * r * r));
            // RMONT * 2^(32 words) = R^2: a Montgomery product with it takes
            // radix 2^(32 words) to R
            let radix_in = F::from(2u64).pow([32 * c.words as u64]);
            assert_eq!(from_limbs(&c.rmont, w), big(r * r / radix_in));
            assert_eq!(from_limbs(&c.p_words, 32), p);
            assert_eq!(c.p_words.len(), c.words);
            // Windows rebuild p - 2.
            let e = c
                .inv_windows
                .iter()
                .fold(BigUint::from(0u8), |acc, &x| (acc << 4u32) + x);
            assert_eq!(e, &p - 2u8);
            // Lazy 13-bit reduction needs R > 4p and its columns to fit u32;
            // the CIOS layouts rely on the top limb of p leaving headroom
            // (no-carry CIOS).
            assert!(BigUint::from(1u8) << c.r_bits > &p * 4u8 || w >= 16);
            assert!(w >= 16 || 2 * c.n as u64 * (1u64 << 26) < 1u64 << 32);
            assert!(c.p[c.n - 1] < (1u32 << (w - 1)) - 1);
        }
    }

    #[test]
    fn constants_recompute_from_ark() {
        check_constants::<Fq>(BaseField::Bn254);
        check_constants::<ark_bls12_381::Fq>(BaseField::Bls12_381);
        // BN254 keeps its historical shapes: 20, 16 and 8 limbs in 8 words.
        for layout in FieldLayout::ALL {
            let c = FieldConstants::new(layout);
            assert_eq!((c.n, c.words, c.r_bits), (layout.limb_count(), 8, layout.r_bits()));
        }
        let c = FieldConstants::for_field(FieldLayout::Limbs13x20, BaseField::Bls12_381);
        assert_eq!((c.n, c.words), (30, 12));
    }

    #[test]
    fn names_round_trip() {
        for l in FieldLayout::ALL {
            assert_eq!(FieldLayout::from_name(l.name()), Some(l));
        }
        assert_eq!(FieldLayout::from_name("nope"), None);
    }
}
