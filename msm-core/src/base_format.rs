//! How callers write base points as bytes, and why a point's bytes are
//! refused: shared by the bases kernel's host side, its CPU twin and the
//! error type.

use msm_wgsl::BaseField;

/// How base points are written in caller bytes ([`crate::curve::Curve::point_bytes`]
/// a point, x then y; for BN254's G1 64 bytes, 32 little-endian a coordinate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaseFormat {
    /// arkworks' uncompressed encoding (`serialize_uncompressed`): flags in
    /// the top two bits of y; only the one encoding arkworks writes passes.
    #[default]
    Arkworks,
    /// Plain coordinates below p; 64 zero bytes are the identity.
    Raw,
    /// As [`BaseFormat::Raw`] with each base-field element in Montgomery
    /// form, R = 2^(64·limbs) (2^256 for BN254, 2^384 for BLS12-381):
    /// ffjavascript's layout, which snarkjs's `.zkey` files and
    /// `multiExpAffine` use. Zero bytes are the identity.
    Montgomery,
}

impl BaseFormat {
    /// The kernel's `format` parameter.
    /// The bases kernel's `format` for points of `curve` (arkworks'
    /// encoding of BLS12-381 is the big-endian zcash one).
    pub(crate) fn code(self, curve: crate::curve::Curve) -> u32 {
        match (self, curve.field()) {
            (BaseFormat::Arkworks, BaseField::Bn254) => 0,
            (BaseFormat::Raw, _) => 1,
            (BaseFormat::Montgomery, _) => 3,
            (BaseFormat::Arkworks, BaseField::Bls12_381) => 2,
        }
    }
}

/// Why a point's bytes were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseDefect {
    /// Both flag bits set, or the identity flag over non-zero coordinates.
    Flags,
    /// A coordinate is not below the field modulus p.
    NotCanonical,
    /// (x, y) is not on the curve (y^2 = x^3 + b).
    NotOnCurve,
    /// The sign flag disagrees with y (not the encoding arkworks writes).
    SignFlag,
    /// On the curve but outside the prime-order subgroup (arkworks'
    /// validated deserialization refuses it; an MSM over it would depend
    /// on how each scalar is represented).
    NotInSubgroup,
}

impl std::fmt::Display for BaseDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BaseDefect::Flags => "its flag bits are not an encoding arkworks writes",
            BaseDefect::NotCanonical => "a coordinate is not below the field modulus p",
            BaseDefect::NotOnCurve => "it is not on the curve",
            BaseDefect::SignFlag => "its sign flag disagrees with y (not an encoding arkworks writes)",
            BaseDefect::NotInSubgroup => "it is on the curve but not in the prime-order subgroup",
        })
    }
}
