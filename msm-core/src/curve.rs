//! The curves and groups the pipeline runs: a runtime [`Curve`] (what a
//! context's shaders are generated for, what its plans and buffers are sized
//! by) and the typed [`GpuCurve`], arkworks' short-Weierstrass config of each
//! group, which fixes the points, scalars and results of the typed API.

use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ff::{BigInt, Field, PrimeField};
use msm_wgsl::{BaseField, Coords};

/// A curve group the GPU pipeline runs: G1 (coordinates in Fq) or G2
/// (coordinates in Fq2) of BN254 or BLS12-381.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Curve {
    /// BN254's G1: 254-bit Fq, 254-bit r.
    #[default]
    Bn254G1,
    /// BLS12-381's G1: 381-bit Fq, 255-bit r.
    Bls12_381G1,
    /// BN254's G2: coordinates in Fq2, the same r.
    Bn254G2,
    /// BLS12-381's G2: coordinates in Fq2, the same r.
    Bls12_381G2,
}

impl Curve {
    pub const ALL: [Curve; 4] = [Curve::Bn254G1, Curve::Bls12_381G1, Curve::Bn254G2, Curve::Bls12_381G2];

    /// Short stable name (reports, file headers): the curve's name for G1
    /// (`bn254`, `bls12-381`), with `-g2` for G2.
    pub const fn name(self) -> &'static str {
        match self {
            Curve::Bn254G1 => "bn254",
            Curve::Bls12_381G1 => "bls12-381",
            Curve::Bn254G2 => "bn254-g2",
            Curve::Bls12_381G2 => "bls12-381-g2",
        }
    }

    /// The group of `name` (as [`Curve::name`] writes it; `-g1` is accepted).
    pub fn from_name(name: &str) -> Option<Curve> {
        let name = name.to_ascii_lowercase();
        let name = name.strip_suffix("-g1").unwrap_or(&name);
        Curve::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The group of `field`'s curve whose coordinates are `coords`.
    pub const fn of(field: BaseField, coords: Coords) -> Curve {
        match (field, coords) {
            (BaseField::Bn254, Coords::Fq) => Curve::Bn254G1,
            (BaseField::Bls12_381, Coords::Fq) => Curve::Bls12_381G1,
            (BaseField::Bn254, Coords::Fq2) => Curve::Bn254G2,
            (BaseField::Bls12_381, Coords::Fq2) => Curve::Bls12_381G2,
        }
    }

    /// The same curve's group with coordinates in `coords` (G1 or G2).
    pub const fn with_coords(self, coords: Coords) -> Curve {
        Curve::of(self.field(), coords)
    }

    /// The prime field under the coordinates (the one the generator emits).
    pub const fn field(self) -> BaseField {
        match self {
            Curve::Bn254G1 | Curve::Bn254G2 => BaseField::Bn254,
            Curve::Bls12_381G1 | Curve::Bls12_381G2 => BaseField::Bls12_381,
        }
    }

    /// The coordinates' field: Fq for G1, Fq2 for G2.
    pub const fn coords(self) -> Coords {
        match self {
            Curve::Bn254G1 | Curve::Bls12_381G1 => Coords::Fq,
            Curve::Bn254G2 | Curve::Bls12_381G2 => Coords::Fq2,
        }
    }

    /// Bits of the scalar field's modulus r.
    pub const fn scalar_bits(self) -> u32 {
        match self.field() {
            BaseField::Bn254 => 254,
            BaseField::Bls12_381 => 255,
        }
    }

    /// Bits the signed digits must cover: a scalar below 2^b recodes into
    /// digits in [-2^(c-1), 2^(c-1)] whose last carry needs one bit more.
    pub const fn digit_bits(self) -> u32 {
        self.scalar_bits() + 1
    }

    /// Digit windows of width `c`, T = ceil((b + 1) / c).
    pub const fn windows(self, c: u32) -> u32 {
        self.digit_bits().div_ceil(c)
    }

    /// Bits of a scalar (< r < 2^b) that land in the top window of width `c`.
    pub const fn top_window_bits(self, c: u32) -> u32 {
        self.scalar_bits().saturating_sub((self.windows(c) - 1) * c)
    }

    /// Packed words of one coordinate (the same in every layout: 8 for
    /// BN254's Fq, 12 for BLS12-381's, twice that over Fq2; the generator's
    /// `FieldConstants::words` times the degree, a constant here because
    /// every MSM call sizes its buffers with it).
    pub const fn coord_words(self) -> u32 {
        let base = match self.field() {
            BaseField::Bn254 => 8,
            BaseField::Bls12_381 => 12,
        };
        base * self.coords().degree() as u32
    }

    /// Bytes of one packed coordinate.
    pub const fn coord_bytes(self) -> u64 {
        4 * self.coord_words() as u64
    }

    /// Bytes of an XYZZ point (four coordinates).
    pub const fn xyzz_bytes(self) -> u64 {
        4 * self.coord_bytes()
    }

    /// Bytes of a WGSL `PointRecord`: x, y and four words.
    pub const fn record_bytes(self) -> u64 {
        2 * self.coord_bytes() + 16
    }

    /// Bytes of one point in caller memory, x then y: arkworks'
    /// uncompressed encoding and the raw format alike (64 for BN254's G1, 96
    /// for BLS12-381's, 128 and 192 for the G2s).
    pub const fn point_bytes(self) -> usize {
        let base = match self.field() {
            BaseField::Bn254 => 32,
            BaseField::Bls12_381 => 48,
        };
        2 * base * self.coords().degree()
    }

    /// GPU bytes of one resident point: x and y planes and its identity flag.
    pub const fn base_bytes(self) -> u64 {
        2 * self.coord_bytes() + 4
    }

    /// GPU bytes of a table of shifted bases ([`crate::GpuContext::build_table`])
    /// for `n` points at window width `c`: ceil(scalar bits / c) copies of
    /// the points.
    pub fn table_bytes(self, n: usize, c: u32) -> u64 {
        n as u64 * (self.windows(c) as u64 * (self.base_bytes() - 4) + 4)
    }
}

impl std::fmt::Display for Curve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for ark_bn254::g1::Config {}
    impl Sealed for ark_bls12_381::g1::Config {}
    impl Sealed for ark_bn254::g2::Config {}
    impl Sealed for ark_bls12_381::g2::Config {}
}

/// A group the typed API takes, named by arkworks' config of it:
/// `ark_bn254::g1::Config`, `ark_bls12_381::g1::Config` and their `g2`
/// siblings. Points are `Affine<C>`, scalars `C::ScalarField`, results
/// `Projective<C>`.
///
/// Subgroup membership is the caller's: the pipeline adds whatever points it
/// is given (the byte decoders refuse points off the curve, not points
/// outside the prime-order subgroup, which only matters for BLS12-381's
/// cofactor).
pub trait GpuCurve: SWCurveConfig<ScalarField: PrimeField<BigInt = BigInt<4>>> + sealed::Sealed + Send + Sync {
    /// The runtime curve a context runs.
    const CURVE: Curve;

    /// The scalars as the one slice type of their field (the upload copies
    /// their Montgomery limbs as they are; `Scalars::from` takes it).
    #[doc(hidden)]
    fn fr_slice(s: &[Self::ScalarField]) -> FrSlice<'_>;

    /// The base prime field's element whose Montgomery limbs (R = 2^64·limbs,
    /// arkworks' and ffjavascript's) are `limbs`, or `None` when not below p.
    #[doc(hidden)]
    fn base_from_montgomery(limbs: BaseBigInt<Self>) -> Option<BasePrime<Self>>;

    /// The Montgomery limbs of `e` ([`GpuCurve::base_from_montgomery`]'s inverse).
    #[doc(hidden)]
    fn base_to_montgomery(e: BasePrime<Self>) -> BaseBigInt<Self>;
}

/// The base prime field of a group's coordinates (Fq, also under Fq2).
#[doc(hidden)]
pub type BasePrime<C> = <<C as ark_ec::CurveConfig>::BaseField as Field>::BasePrimeField;
/// Its elements' limbs.
#[doc(hidden)]
pub type BaseBigInt<C> = <BasePrime<C> as PrimeField>::BigInt;

/// Field elements of one of the curves' scalar fields.
#[derive(Clone, Copy, Debug)]
pub enum FrSlice<'a> {
    Bn254(&'a [ark_bn254::Fr]),
    Bls12_381(&'a [ark_bls12_381::Fr]),
}

impl GpuCurve for ark_bn254::g1::Config {
    const CURVE: Curve = Curve::Bn254G1;

    fn fr_slice(s: &[ark_bn254::Fr]) -> FrSlice<'_> {
        FrSlice::Bn254(s)
    }

    fn base_from_montgomery(limbs: BaseBigInt<Self>) -> Option<ark_bn254::Fq> {
        (limbs < <ark_bn254::Fq as PrimeField>::MODULUS).then(|| ark_bn254::Fq::new_unchecked(limbs))
    }

    fn base_to_montgomery(e: ark_bn254::Fq) -> BaseBigInt<Self> {
        e.0
    }
}

impl GpuCurve for ark_bls12_381::g1::Config {
    const CURVE: Curve = Curve::Bls12_381G1;

    fn fr_slice(s: &[ark_bls12_381::Fr]) -> FrSlice<'_> {
        FrSlice::Bls12_381(s)
    }

    fn base_from_montgomery(limbs: BaseBigInt<Self>) -> Option<ark_bls12_381::Fq> {
        (limbs < <ark_bls12_381::Fq as PrimeField>::MODULUS).then(|| ark_bls12_381::Fq::new_unchecked(limbs))
    }

    fn base_to_montgomery(e: ark_bls12_381::Fq) -> BaseBigInt<Self> {
        e.0
    }
}

impl GpuCurve for ark_bn254::g2::Config {
    const CURVE: Curve = Curve::Bn254G2;

    fn fr_slice(s: &[ark_bn254::Fr]) -> FrSlice<'_> {
        FrSlice::Bn254(s)
    }

    fn base_from_montgomery(limbs: BaseBigInt<Self>) -> Option<ark_bn254::Fq> {
        (limbs < <ark_bn254::Fq as PrimeField>::MODULUS).then(|| ark_bn254::Fq::new_unchecked(limbs))
    }

    fn base_to_montgomery(e: ark_bn254::Fq) -> BaseBigInt<Self> {
        e.0
    }
}

impl GpuCurve for ark_bls12_381::g2::Config {
    const CURVE: Curve = Curve::Bls12_381G2;

    fn fr_slice(s: &[ark_bls12_381::Fr]) -> FrSlice<'_> {
        FrSlice::Bls12_381(s)
    }

    fn base_from_montgomery(limbs: BaseBigInt<Self>) -> Option<ark_bls12_381::Fq> {
        (limbs < <ark_bls12_381::Fq as PrimeField>::MODULUS).then(|| ark_bls12_381::Fq::new_unchecked(limbs))
    }

    fn base_to_montgomery(e: ark_bls12_381::Fq) -> BaseBigInt<Self> {
        e.0
    }
}

/// BN254's G1, the default of every generic type here.
pub type Bn254 = ark_bn254::g1::Config;

/// BLS12-381's G1.
pub type Bls12_381 = ark_bls12_381::g1::Config;

/// A point's coordinates, or `None` for the identity.
pub(crate) fn affine_xy<C: GpuCurve>(p: &Affine<C>) -> Option<(C::BaseField, C::BaseField)> {
    ark_ec::AffineRepr::xy(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_windows_follow_the_curve() {
        use msm_wgsl::{FieldConstants, FieldLayout};
        for c in Curve::ALL {
            for layout in FieldLayout::ALL {
                let words = FieldConstants::for_field(layout, c.field()).words * c.coords().degree();
                assert_eq!(c.coord_words() as usize, words, "{c} {layout}");
            }
            let bits = c.field().scalar_modulus().bits() as u32;
            assert_eq!(c.scalar_bits(), bits, "{c}");
        }
        let (bn, bls) = (Curve::Bn254G1, Curve::Bls12_381G1);
        // the loop budget's inversion bound: BN254's unchanged, BLS12-381's larger
        for inv in msm_wgsl::Inversion::ALL {
            assert_eq!(inv.max_loop_iterations_in(bn.field()), inv.max_loop_iterations());
            assert!(
                inv.max_loop_iterations_in(bls.field()) * 10 >= 14 * inv.max_loop_iterations(),
                "{inv}"
            );
        }
        assert_eq!((bn.coord_words(), bls.coord_words()), (8, 12));
        assert_eq!(
            (Curve::Bn254G2.coord_words(), Curve::Bls12_381G2.coord_words()),
            (16, 24)
        );
        assert_eq!(Curve::Bls12_381G2.xyzz_bytes(), 384);
        assert_eq!(Curve::Bn254G2.windows(16), bn.windows(16));
        assert_eq!(Curve::from_name("BLS12-381-g1"), Some(bls));
        assert_eq!(bn.with_coords(Coords::Fq2), Curve::Bn254G2);
        assert_eq!(bn.record_bytes(), 80);
        assert_eq!(bls.record_bytes(), 112);
        assert_eq!(bn.base_bytes(), 68);
        assert_eq!(bls.xyzz_bytes(), 192);
        // BN254's windows are unchanged: T = ceil(255 / c)
        for c in 4..=20 {
            assert_eq!(bn.windows(c), 255u32.div_ceil(c));
            assert!(bls.windows(c) * c >= 256);
        }
        assert_eq!(bls.windows(16), 16);
        assert_eq!(bls.top_window_bits(16), 15);
        assert_eq!(bn.top_window_bits(16), 14);
        for c in Curve::ALL {
            assert_eq!(Curve::from_name(c.name()), Some(c));
        }
    }

    /// The generated `curve_params` carry each group's b as arkworks has it
    /// (G2's: the twist's, over Fq2).
    #[test]
    fn curve_params_b_is_arkworks() {
        fn words_of<F: ark_ff::Field>(b: F) -> Vec<u32> {
            b.to_base_prime_field_elements()
                .flat_map(crate::repr::canonical_words)
                .collect()
        }
        fn generated(c: Curve) -> Vec<u32> {
            let text = msm_wgsl::fieldgen::curve_params_module(c.field(), c.coords());
            let line = text.lines().find(|l| l.starts_with("const CURVE_B")).unwrap();
            let inner = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
            inner
                .split(", ")
                .map(|w| u32::from_str_radix(w.trim_start_matches("0x").trim_end_matches('u'), 16).unwrap())
                .collect()
        }
        assert_eq!(generated(Curve::Bn254G1), words_of(ark_bn254::g1::Config::COEFF_B));
        assert_eq!(
            generated(Curve::Bls12_381G1),
            words_of(ark_bls12_381::g1::Config::COEFF_B)
        );
        assert_eq!(generated(Curve::Bn254G2), words_of(ark_bn254::g2::Config::COEFF_B));
        assert_eq!(
            generated(Curve::Bls12_381G2),
            words_of(ark_bls12_381::g2::Config::COEFF_B)
        );
    }
}
