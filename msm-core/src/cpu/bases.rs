//! CPU twin of the bases kernel (`msm-wgsl/shaders/bases.wgsl`): one point's
//! 64 bytes decoded and checked exactly as the GPU does, with the reason a
//! point is refused. The GPU reports only the first bad index; the host then
//! asks this twin why.

use ark_bn254::{Fq, G1Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, Field, PrimeField};

/// How base points are written in caller bytes (64 bytes a point, x then y,
/// 32 little-endian bytes each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaseFormat {
    /// arkworks' uncompressed encoding (`serialize_uncompressed`): flags in
    /// the top two bits of y; only the one encoding arkworks writes passes.
    #[default]
    Arkworks,
    /// Plain coordinates below p; 64 zero bytes are the identity.
    Raw,
}

impl BaseFormat {
    /// The kernel's `format` parameter.
    pub(crate) fn code(self) -> u32 {
        match self {
            BaseFormat::Arkworks => 0,
            BaseFormat::Raw => 1,
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
    /// (x, y) is not on y^2 = x^3 + 3.
    NotOnCurve,
    /// The sign flag disagrees with y (not the encoding arkworks writes).
    SignFlag,
}

impl std::fmt::Display for BaseDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BaseDefect::Flags => "its flag bits are not an encoding arkworks writes",
            BaseDefect::NotCanonical => "a coordinate is not below the field modulus p",
            BaseDefect::NotOnCurve => "it is not on the BN254 curve",
            BaseDefect::SignFlag => "its sign flag disagrees with y (not an encoding arkworks writes)",
        })
    }
}

const FLAG_Y_NEGATIVE: u8 = 0x80;
const FLAG_INFINITY: u8 = 0x40;

/// One point from its 64 bytes: `None` for the identity.
pub fn decode_base(bytes: &[u8; 64], format: BaseFormat) -> Result<Option<G1Affine>, BaseDefect> {
    let mut y_bytes: [u8; 32] = bytes[32..].try_into().unwrap();
    let flags = match format {
        BaseFormat::Arkworks => {
            let f = y_bytes[31] & (FLAG_Y_NEGATIVE | FLAG_INFINITY);
            y_bytes[31] &= !(FLAG_Y_NEGATIVE | FLAG_INFINITY);
            f
        }
        BaseFormat::Raw => 0,
    };
    let zero = bytes[..32].iter().chain(&y_bytes).all(|&b| b == 0);
    match format {
        BaseFormat::Raw if zero => return Ok(None),
        BaseFormat::Arkworks if flags & FLAG_INFINITY != 0 => {
            return if zero && flags == FLAG_INFINITY {
                Ok(None)
            } else {
                Err(BaseDefect::Flags)
            };
        }
        _ => {}
    }
    let x = field(bytes[..32].try_into().unwrap()).ok_or(BaseDefect::NotCanonical)?;
    let y = field(&y_bytes).ok_or(BaseDefect::NotCanonical)?;
    // Not `is_on_curve`: arkworks holds BN254's identity as (0, 0) and calls
    // it on the curve; the equation refuses it.
    if !on_curve(&x, &y) {
        return Err(BaseDefect::NotOnCurve);
    }
    let p = G1Affine::new_unchecked(x, y);
    if format == BaseFormat::Arkworks {
        // arkworks writes the "negative" flag when y > -y, i.e. y > (p - 1) / 2.
        let negative = y > -y;
        if negative != (flags == FLAG_Y_NEGATIVE) {
            return Err(BaseDefect::SignFlag);
        }
    }
    debug_assert!(!p.is_zero());
    Ok(Some(p))
}

/// A canonical little-endian field element (`None` when >= p).
fn field(bytes: &[u8; 32]) -> Option<Fq> {
    let limbs: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()));
    Fq::from_bigint(BigInt(limbs))
}

/// Whether y is the larger of y and -y (the arkworks "negative" flag).
pub fn y_is_negative(y: &Fq) -> bool {
    *y > -*y
}

/// `y^2 = x^3 + 3`.
pub fn on_curve(x: &Fq, y: &Fq) -> bool {
    y.square() == x.square() * x + Fq::from(3u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_serialize::CanonicalSerialize;

    fn arkworks_bytes(p: &G1Affine) -> [u8; 64] {
        let mut v = Vec::new();
        p.serialize_uncompressed(&mut v).unwrap();
        v.try_into().unwrap()
    }

    #[test]
    fn accepts_exactly_what_arkworks_writes() {
        let (points, _) = crate::sample::inputs(64, 9);
        for p in points.iter().chain([&G1Affine::zero()]) {
            let b = arkworks_bytes(p);
            let want = (!p.is_zero()).then_some(*p);
            assert_eq!(decode_base(&b, BaseFormat::Arkworks), Ok(want));
            // flipping the sign flag, or adding the identity flag, is refused
            let mut flipped = b;
            flipped[63] ^= FLAG_Y_NEGATIVE;
            assert!(decode_base(&flipped, BaseFormat::Arkworks).is_err());
            let mut inf = b;
            inf[63] |= FLAG_INFINITY;
            let expect = if p.is_zero() { Ok(None) } else { Err(BaseDefect::Flags) };
            assert_eq!(decode_base(&inf, BaseFormat::Arkworks), expect);
        }
        assert!(on_curve(&points[0].x, &points[0].y));
        assert_eq!(y_is_negative(&points[0].y), points[0].y > -points[0].y);
    }

    #[test]
    fn refuses_off_curve_and_non_canonical() {
        let (points, _) = crate::sample::inputs(4, 3);
        let mut b = arkworks_bytes(&points[0]);
        b[0] ^= 1;
        assert_eq!(decode_base(&b, BaseFormat::Arkworks), Err(BaseDefect::NotOnCurve));
        let mut big = [0xffu8; 64];
        big[63] = 0x3f;
        assert_eq!(decode_base(&big, BaseFormat::Arkworks), Err(BaseDefect::NotCanonical));
        assert_eq!(decode_base(&[0u8; 64], BaseFormat::Raw), Ok(None));
        // 64 zero bytes are not the arkworks identity, which carries its flag
        assert_eq!(
            decode_base(&[0u8; 64], BaseFormat::Arkworks),
            Err(BaseDefect::NotOnCurve)
        );
    }
}
