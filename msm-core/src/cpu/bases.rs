//! CPU twin of the bases kernel (`msm-wgsl/shaders/bases.wgsl`): one point's
//! 64 bytes decoded and checked exactly as the GPU does, with the reason a
//! point is refused. The GPU reports only the first bad index; the host then
//! asks this twin why.

use ark_bn254::{Fq, G1Affine};
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, BigInt, BigInteger, Field, PrimeField, Zero};
use ark_serialize::CanonicalSerialize;

use msm_wgsl::BaseField;

use crate::curve::GpuCurve;

pub use crate::base_format::{BaseDefect, BaseFormat};

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
        BaseFormat::Raw | BaseFormat::Montgomery => 0,
    };
    let zero = bytes[..32].iter().chain(&y_bytes).all(|&b| b == 0);
    match format {
        BaseFormat::Raw | BaseFormat::Montgomery if zero => return Ok(None),
        BaseFormat::Arkworks if flags & FLAG_INFINITY != 0 => {
            return if zero && flags == FLAG_INFINITY {
                Ok(None)
            } else {
                Err(BaseDefect::Flags)
            };
        }
        _ => {}
    }
    let element = |b: &[u8; 32]| match format {
        BaseFormat::Montgomery => montgomery(b),
        _ => field(b),
    };
    let x = element(bytes[..32].try_into().unwrap()).ok_or(BaseDefect::NotCanonical)?;
    let y = element(&y_bytes).ok_or(BaseDefect::NotCanonical)?;
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

impl BaseFormat {
    /// One point of group `C` from its bytes in this format
    /// ([`crate::curve::Curve::point_bytes`] of them), `None` for the
    /// identity: on the CPU, the checks the GPU makes as it uploads bases
    /// (flags, canonical coordinates, the curve, the subgroup), with the
    /// reason for a refusal.
    pub fn decode<C: GpuCurve>(self, bytes: &[u8]) -> Result<Option<Affine<C>>, BaseDefect> {
        decode_point(bytes, self)
    }

    /// `p` in this format: the bytes [`BaseFormat::decode`] reads.
    pub fn encode<C: GpuCurve>(self, p: &Affine<C>) -> Vec<u8> {
        encode_point(p, self)
    }
}

/// One point of any group from its bytes ([`crate::Curve::point_bytes`]
/// of them), `None` for the identity; for BN254's G1 the same answer as
/// [`decode_base`], the GPU kernel's twin. The arkworks format is the
/// group's `serialize_uncompressed`: BN254's little-endian coordinates with
/// the sign and identity flags in the last byte, BLS12-381's big-endian
/// (zcash) ones with the compression, identity and sort flags in the first
/// byte and Fq2's c1 before c0. Raw (Montgomery: in Montgomery form): every coordinate's base-field elements
/// little-endian, c0 first; all zero bytes are the identity. Only the one
/// encoding arkworks writes passes, and only points of the prime-order
/// subgroup (as arkworks' validated deserialization).
pub fn decode_point<C: GpuCurve>(bytes: &[u8], format: BaseFormat) -> Result<Option<Affine<C>>, BaseDefect> {
    let curve = C::CURVE;
    assert_eq!(bytes.len(), curve.point_bytes(), "one {curve} point");
    let zcash = format == BaseFormat::Arkworks && curve.field() == BaseField::Bls12_381;
    // on the stack: the browser's `cpuMsm` and sampler decode every point
    let mut buf = [0u8; 192];
    let body = &mut buf[..bytes.len()];
    body.copy_from_slice(bytes);
    let flag_byte = match format {
        BaseFormat::Raw | BaseFormat::Montgomery => None,
        BaseFormat::Arkworks if zcash => Some(0),
        BaseFormat::Arkworks => Some(body.len() - 1),
    };
    // BN254: 0x80 y negative, 0x40 identity; BLS12-381: 0x80 compressed,
    // 0x40 identity, 0x20 sort (the top three bits of x's first byte).
    let mask = if zcash { 0xe0 } else { FLAG_Y_NEGATIVE | FLAG_INFINITY };
    let flags = flag_byte.map_or(0, |i| {
        let f = body[i] & mask;
        body[i] &= !mask;
        f
    });
    let zero = body.iter().all(|&b| b == 0);
    if matches!(format, BaseFormat::Raw | BaseFormat::Montgomery) && zero {
        return Ok(None);
    }
    if flags & FLAG_INFINITY != 0 {
        return if zero && flags == FLAG_INFINITY {
            Ok(None)
        } else {
            Err(BaseDefect::Flags)
        };
    }
    let degree = curve.coords().degree();
    let size = body.len() / (2 * degree);
    let mut elems = body.chunks_exact(size).map(|chunk| {
        // little-endian limbs, below p or refused (one Montgomery product)
        let mut b = <<C::BaseField as Field>::BasePrimeField as PrimeField>::BigInt::default();
        for (k, limb) in b.as_mut().iter_mut().enumerate() {
            let at = |i: usize| if zcash { chunk[size - 1 - (8 * k + i)] } else { chunk[8 * k + i] };
            *limb = u64::from_le_bytes(std::array::from_fn(at));
        }
        match format {
            BaseFormat::Montgomery => C::base_from_montgomery(b),
            _ => <C::BaseField as Field>::BasePrimeField::from_bigint(b),
        }
    });
    let mut coordinate = || -> Result<C::BaseField, BaseDefect> {
        let mut parts = [<C::BaseField as Field>::BasePrimeField::ZERO; 2];
        for part in &mut parts[..degree] {
            *part = elems.next().flatten().ok_or(BaseDefect::NotCanonical)?;
        }
        if zcash {
            parts[..degree].reverse(); // c1 first
        }
        let parts = parts[..degree].iter().copied();
        Ok(C::BaseField::from_base_prime_field_elems(parts).expect("the extension degree's elements"))
    };
    let (x, y) = (coordinate()?, coordinate()?);
    if y.square() != (x.square() + C::COEFF_A) * x + C::COEFF_B {
        return Err(BaseDefect::NotOnCurve);
    }
    // What arkworks writes for a point that is not the identity: no flag
    // (BLS12-381 uncompressed), or the sign of y (BN254: "negative" when
    // y > -y, arkworks' order of the field).
    match format {
        BaseFormat::Arkworks if zcash && flags != 0 => return Err(BaseDefect::Flags),
        BaseFormat::Arkworks if !zcash && (y > -y) != (flags == FLAG_Y_NEGATIVE) => return Err(BaseDefect::SignFlag),
        _ => {}
    }
    let p = Affine::<C>::new_unchecked(x, y);
    if !p.is_in_correct_subgroup_assuming_on_curve() {
        return Err(BaseDefect::NotInSubgroup);
    }
    Ok(Some(p))
}

/// The bases kernel's subgroup test (`subgroup.wgsl`, constants from
/// `msm_wgsl::fieldgen::subgroup_test`) on the CPU: true where the GPU lets `p` (on
/// the curve, not the identity) through. Held to arkworks'
/// `is_in_correct_subgroup_assuming_on_curve` by the tests.
pub fn subgroup_test_twin<C: GpuCurve>(p: &Affine<C>) -> bool {
    use ark_ec::{CurveGroup, PrimeGroup};
    let t = msm_wgsl::fieldgen::subgroup_test(C::CURVE.field(), C::CURVE.coords());
    if !t.checked {
        return true;
    }
    let coefficient = |(c0, c1): &(num_bigint::BigUint, num_bigint::BigUint)| {
        let f = |v: &num_bigint::BigUint| {
            <C::BaseField as Field>::BasePrimeField::from_le_bytes_mod_order(&v.to_bytes_le())
        };
        let parts = [f(c0), f(c1)];
        let degree = C::CURVE.coords().degree();
        C::BaseField::from_base_prime_field_elems(parts[..degree].iter().copied()).expect("the degree's elements")
    };
    let (cx, cy) = (coefficient(&t.endo_x), coefficient(&t.endo_y));
    let endo = |q: Projective<C>| {
        let (mut x, mut y, mut z) = (q.x, q.y, q.z);
        for c in [&mut x, &mut y, &mut z] {
            c.frobenius_map_in_place(1);
        }
        Projective::<C>::new_unchecked(x * cx, y * cy, z)
    };
    let k = [t.k as u64, (t.k >> 64) as u64];
    let mut a = p.mul_bigint(k);
    if t.psi_sum {
        // A + psi(A + psi(A)) + P = psi^3(2A), equal summands refusing
        let b = (a, endo(a));
        let c = (a, endo(b.0 + b.1));
        let l = (c.0 + c.1, Projective::<C>::from(*p));
        let distinct = [b, c, l].iter().all(|(u, v)| u.is_zero() || v.is_zero() || u != v);
        return distinct && l.0 + l.1 == endo(endo(endo(a.double())));
    }
    let mut ok = true;
    if t.two_step {
        ok = a.into_affine() != *p;
        a = a.mul_bigint(k);
    }
    let mut image = endo((*p).into()).into_affine();
    if t.negate {
        image.y = -image.y;
    }
    ok && a.into_affine() == image
}

/// `p` in `format` ([`crate::Curve::point_bytes`] bytes), the encoding
/// [`decode_point`] reads.
pub fn encode_point<C: GpuCurve>(p: &Affine<C>, format: BaseFormat) -> Vec<u8> {
    let mut out = Vec::with_capacity(C::CURVE.point_bytes());
    match (format, p.xy()) {
        (BaseFormat::Arkworks, _) => p.serialize_uncompressed(&mut out).expect("writing to a Vec cannot fail"),
        (BaseFormat::Raw | BaseFormat::Montgomery, None) => out.resize(C::CURVE.point_bytes(), 0),
        (BaseFormat::Raw, Some((x, y))) => {
            for e in x.to_base_prime_field_elements().chain(y.to_base_prime_field_elements()) {
                out.extend(e.into_bigint().to_bytes_le());
            }
        }
        (BaseFormat::Montgomery, Some((x, y))) => {
            for e in x.to_base_prime_field_elements().chain(y.to_base_prime_field_elements()) {
                out.extend(C::base_to_montgomery(e).to_bytes_le());
            }
        }
    }
    out
}

/// A field element from its Montgomery limbs (`None` when >= p).
fn montgomery(bytes: &[u8; 32]) -> Option<Fq> {
    use crate::curve::GpuCurve;
    let mut limbs = [0u64; 4];
    for (k, l) in limbs.iter_mut().enumerate() {
        *l = u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap());
    }
    ark_bn254::g1::Config::base_from_montgomery(BigInt(limbs))
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
    use crate::curve::Bn254;

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

    /// Every group: arkworks' and the raw encodings round-trip, flags,
    /// coordinates and the curve equation are checked as for BN254's G1.
    fn check_group<C: GpuCurve>() {
        let curve = C::CURVE;
        let (mut points, _) = crate::sample::inputs_of::<C>(24, 4);
        points.push(Affine::<C>::zero());
        // the negation of each point flips BN254's sign flag
        points.extend(points.clone().iter().map(|p| -*p));
        for format in [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery] {
            for p in &points {
                let b = encode_point(p, format);
                assert_eq!(b.len(), curve.point_bytes());
                let want = (!p.is_zero()).then_some(*p);
                assert_eq!(decode_point::<C>(&b, format), Ok(want), "{curve} {format:?}");
                // any one bit changed: refused, or the encoding of another point
                for bit in (0..8 * b.len()).step_by(5) {
                    let mut m = b.clone();
                    m[bit / 8] ^= 1 << (bit % 8);
                    if let Ok(q) = decode_point::<C>(&m, format) {
                        let q = q.unwrap_or_default();
                        assert_eq!(encode_point(&q, format), m, "{curve} {format:?}: bit {bit}");
                    }
                }
                // one bit of x changed: off the curve (or, rarely, not canonical)
                if !p.is_zero() {
                    let mut off = b.clone();
                    let at = if format == BaseFormat::Arkworks && curve.field() == BaseField::Bls12_381 { 40 } else { 3 };
                    off[at] ^= 4;
                    let e = decode_point::<C>(&off, format).unwrap_err();
                    assert!(matches!(e, BaseDefect::NotOnCurve | BaseDefect::NotCanonical), "{curve}: {e:?}");
                }
            }
            // every coordinate element at p or above is refused
            let size = if curve.field() == BaseField::Bn254 { 32 } else { 48 };
            let b = encode_point(&points[0], format);
            for k in 0..b.len() / size {
                let mut big = b.clone();
                let modulus = <C::BaseField as Field>::BasePrimeField::MODULUS.to_bytes_le();
                let zcash = format == BaseFormat::Arkworks && curve.field() == BaseField::Bls12_381;
                let mut e = modulus.clone();
                if zcash {
                    e.reverse();
                }
                big[k * size..(k + 1) * size].copy_from_slice(&e);
                assert_eq!(decode_point::<C>(&big, format), Err(BaseDefect::NotCanonical), "{curve} element {k}");
            }
        }
        // the flags: only what arkworks writes
        let zcash = curve.field() == BaseField::Bls12_381;
        let flag_at = if zcash { 0 } else { curve.point_bytes() - 1 };
        for p in &points {
            let b = encode_point(p, BaseFormat::Arkworks);
            let bits: &[u8] = if zcash { &[0x80, 0x40, 0x20] } else { &[0x80, 0x40] };
            for &bit in bits {
                let mut bad = b.clone();
                bad[flag_at] ^= bit;
                let got = decode_point::<C>(&bad, BaseFormat::Arkworks);
                assert!(got.is_err(), "{curve}: flag {bit:#x} flipped on {p}: {got:?}");
            }
        }
        // all zero bytes are the raw identity, not arkworks' (which has its flag)
        let zero = vec![0u8; curve.point_bytes()];
        assert_eq!(decode_point::<C>(&zero, BaseFormat::Raw), Ok(None));
        assert_eq!(decode_point::<C>(&zero, BaseFormat::Arkworks), Err(BaseDefect::NotOnCurve));
    }

    #[test]
    fn every_group_decodes_what_arkworks_writes() {
        check_group::<ark_bn254::g1::Config>();
        check_group::<ark_bls12_381::g1::Config>();
        check_group::<ark_bn254::g2::Config>();
        check_group::<ark_bls12_381::g2::Config>();
    }

    /// For BN254's G1 the generic decoder is the GPU twin, bit flip by bit flip.
    #[test]
    fn bn254_g1_decoders_agree() {
        let (points, _) = crate::sample::inputs(8, 11);
        for (i, p) in points.iter().enumerate() {
            for format in [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery] {
                let b: [u8; 64] = encode_point(p, format).try_into().unwrap();
                for bit in (0..512).step_by(7 + i) {
                    let mut m = b;
                    m[bit / 8] ^= 1 << (bit % 8);
                    assert_eq!(decode_point::<Bn254>(&m, format), decode_base(&m, format), "bit {bit}");
                }
            }
        }
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
