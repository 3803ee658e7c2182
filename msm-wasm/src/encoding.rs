//! Byte formats at the JS boundary, per curve group (`ContextOptions.curve`
//! and `group`); sizes in [`msm_core::Curve::point_bytes`].
//!
//! Bases, either format:
//! - **arkworks**: each point as arkworks' `serialize_uncompressed` writes
//!   it, concatenated, or a whole `Vec` of points serialized uncompressed
//!   (the same with an 8-byte little-endian length in front). BN254: x then
//!   y little-endian (G1 64 bytes; G2 128, each Fq2 as c0 then c1), the
//!   flags in the top bits of the last byte. BLS12-381: the zcash encoding,
//!   big-endian (G1 96 bytes; G2 192, each Fq2 as c1 then c0), the flags in
//!   the top three bits of the first byte.
//! - **raw**: x then y, every base-field element little-endian and canonical
//!   (< p), Fq2 as c0 then c1; the identity is all zero bytes.
//!
//! Scalars: 32 little-endian bytes each, concatenated or as a serialized
//! `Vec<Fr>` (8-byte length in front): the arkworks and the raw format are
//! the same bytes. Any 256-bit value is accepted and taken mod r, so the MSM
//! is the sum of the integers reduced mod r times the points.
//!
//! Bases go to the GPU as they are and are checked there (`MsmContext`).
//! The decoders below (msm-core's CPU twin of the bases kernel) serve
//! `cpuMsm`, the sampler and the tests; they refuse exactly what an upload
//! refuses. Points off the curve
//! are refused; subgroup membership is the caller's.

use ark_bn254::{Fr, G1Affine};
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::CurveGroup;
use ark_ff::{BigInteger, Field, PrimeField};
use msm_core::{BaseDefect, BaseFormat, Bn254, GpuCurve};

/// Bytes of one uncompressed BN254 G1 point.
pub const POINT_BYTES: usize = 64;
/// Bytes of one scalar.
pub const SCALAR_BYTES: usize = 32;

/// Why bytes from JS could not be read; the message names the item.
#[derive(Debug, PartialEq, Eq)]
pub struct FormatError(pub String);

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where the items of `len` bytes (`size` bytes each) begin: after an
/// optional arkworks `Vec` length prefix (`prefix` reads its 8 bytes), which
/// must agree with the count.
pub fn body_start(len: usize, size: usize, prefix: impl FnOnce() -> [u8; 8], what: &str) -> Result<usize, FormatError> {
    if len % size == 8 % size && len >= 8 {
        let count = u64::from_le_bytes(prefix());
        if count != ((len - 8) / size) as u64 {
            return Err(FormatError(format!(
                "{what}: the 8-byte length prefix says {count} items but {} follow",
                (len - 8) / size
            )));
        }
        Ok(8)
    } else if len.is_multiple_of(size) {
        Ok(0)
    } else {
        Err(FormatError(format!(
            "{what}: {len} bytes is not a whole number of {size}-byte items (optionally after an 8-byte length)"
        )))
    }
}

/// The items of `bytes` (`size` bytes each), after an optional length prefix.
fn items<'a>(bytes: &'a [u8], size: usize, what: &str) -> Result<std::slice::ChunksExact<'a, u8>, FormatError> {
    let start = body_start(bytes.len(), size, || bytes[..8].try_into().unwrap(), what)?;
    Ok(bytes[start..].chunks_exact(size))
}

/// The message of a refused base point, as `uploadBases` reports it.
pub fn base_error(what: &str, index: usize, defect: BaseDefect) -> FormatError {
    FormatError(format!("{what}: point {index} is refused: {defect}"))
}

/// Points of the group `C` in `format` (an arkworks `Vec` prefix allowed in
/// that format only), each checked as an upload checks it; `what` names
/// them in errors.
pub fn points_of<C: GpuCurve>(bytes: &[u8], format: BaseFormat, what: &str) -> Result<Vec<Affine<C>>, FormatError> {
    let size = C::CURVE.point_bytes();
    let body = match format {
        BaseFormat::Arkworks => items(bytes, size, what)?,
        _ if bytes.len().is_multiple_of(size) => bytes.chunks_exact(size),
        BaseFormat::Raw | BaseFormat::Montgomery => {
            return Err(FormatError(format!(
                "{what}: {} bytes is not a whole number of {size}-byte points",
                bytes.len()
            )))
        }
    };
    body.enumerate()
        .map(|(i, b)| {
            let p = format.decode::<C>(b).map_err(|d| base_error(what, i, d))?;
            Ok(p.unwrap_or_default())
        })
        .collect()
}

/// BN254 G1 bases in the arkworks uncompressed format, checked on the curve,
/// each in the one encoding arkworks writes: arkworks itself reads any
/// coordinates under the infinity flag as the identity and ignores the sign
/// flag, so a damaged flag would otherwise pass as another point.
pub fn bases_arkworks(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    points_of::<Bn254>(bytes, BaseFormat::Arkworks, "bases")
}

/// BN254 G1 bases as raw little-endian coordinates, checked canonical and
/// on the curve.
pub fn bases_raw(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    points_of::<Bn254>(bytes, BaseFormat::Raw, "raw bases")
}

/// Scalars of any field, 32 little-endian bytes each, any value (taken mod r).
pub fn scalars_of<F: PrimeField>(bytes: &[u8]) -> Result<Vec<F>, FormatError> {
    Ok(items(bytes, SCALAR_BYTES, "scalars")?
        .map(F::from_le_bytes_mod_order)
        .collect())
}

/// BN254 scalars (see [`scalars_of`]).
pub fn scalars(bytes: &[u8]) -> Result<Vec<Fr>, FormatError> {
    scalars_of(bytes)
}

/// `p` in the arkworks uncompressed format.
pub fn point_arkworks<C: GpuCurve>(p: &Projective<C>) -> Vec<u8> {
    BaseFormat::Arkworks.encode(&p.into_affine())
}

/// `p` in the raw format (all zero bytes for the identity).
pub fn point_raw<C: GpuCurve>(p: &Projective<C>) -> Vec<u8> {
    BaseFormat::Raw.encode(&p.into_affine())
}

/// Points in `format`, concatenated (no length prefix).
pub fn points_in<C: GpuCurve>(points: &[Affine<C>], format: BaseFormat) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * C::CURVE.point_bytes());
    for p in points {
        out.extend(format.encode(p));
    }
    out
}

/// Points in the arkworks uncompressed format, concatenated (no length prefix).
pub fn points_arkworks<C: GpuCurve>(points: &[Affine<C>]) -> Vec<u8> {
    points_in(points, BaseFormat::Arkworks)
}

/// Scalars as 32 little-endian bytes each, concatenated.
pub fn scalars_bytes<F: PrimeField>(scalars: &[F]) -> Vec<u8> {
    scalars.iter().flat_map(|s| s.into_bigint().to_bytes_le()).collect()
}

/// A coordinate as 0x-prefixed big-endian hex; over Fq2 "c0,c1".
pub fn hex<F: Field>(x: &F) -> String {
    let hex_of = |e: F::BasePrimeField| {
        let mut s = String::from("0x");
        for b in e.into_bigint().to_bytes_be() {
            s.push_str(&format!("{b:02x}"));
        }
        s
    };
    x.to_base_prime_field_elements()
        .map(hex_of)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{Fq, G1Projective};
    use ark_ec::AffineRepr;
    use ark_ff::{AdditiveGroup, UniformRand, Zero};
    use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

    fn sample(n: usize) -> (Vec<G1Affine>, Vec<Fr>) {
        let (mut b, s) = msm_core::sample::inputs(n, 5);
        b[1] = G1Affine::zero();
        (b, s)
    }

    #[test]
    fn arkworks_round_trip_with_and_without_prefix() {
        let (b, s) = sample(9);
        assert_eq!(bases_arkworks(&points_arkworks(&b)).unwrap(), b);
        let mut vec_bytes = Vec::new();
        b.serialize_uncompressed(&mut vec_bytes).unwrap();
        assert_eq!(bases_arkworks(&vec_bytes).unwrap(), b);
        assert_eq!(scalars(&scalars_bytes(&s)).unwrap(), s);
        let mut vec_bytes = Vec::new();
        s.serialize_uncompressed(&mut vec_bytes).unwrap();
        assert_eq!(scalars(&vec_bytes).unwrap(), s);
        assert!(bases_arkworks(&[]).unwrap().is_empty());
    }

    #[test]
    fn raw_round_trip() {
        let (b, _) = sample(9);
        let bytes: Vec<u8> = b.iter().flat_map(|p| point_raw(&(*p).into())).collect();
        assert_eq!(bases_raw(&bytes).unwrap(), b);
        // raw x, y agree with arkworks' field encoding
        let g = G1Affine::generator();
        let raw = point_raw(&g.into());
        assert_eq!(&raw[..32], &g.x.into_bigint().to_bytes_le()[..]);
    }

    #[test]
    fn rejects_bad_input_with_the_item_named() {
        let (b, s) = sample(3);
        let mut bytes = points_arkworks(&b);
        assert!(bases_arkworks(&bytes[..100])
            .unwrap_err()
            .0
            .contains("not a whole number"));
        bytes[64 + 64] ^= 1; // point 2's x
        assert!(bases_arkworks(&bytes).unwrap_err().0.contains("point 2"));
        let mut raw: Vec<u8> = b.iter().flat_map(|p| point_raw(&(*p).into())).collect();
        raw[5] ^= 1;
        assert_eq!(
            bases_raw(&raw).unwrap_err().0,
            "raw bases: point 0 is refused: it is not on the curve"
        );
        raw[..32].fill(0xff);
        assert!(bases_raw(&raw).unwrap_err().0.contains("not below the field modulus"));
        // any 256-bit scalar is taken mod r
        let mut sb = scalars_bytes(&s);
        sb[32..64].copy_from_slice(&(-Fr::ONE).into_bigint().to_bytes_le());
        assert_eq!(scalars(&sb).unwrap()[1], -Fr::ONE);
        sb[32..64].copy_from_slice(&Fr::MODULUS.to_bytes_le());
        assert_eq!(scalars(&sb).unwrap()[1], Fr::ZERO);
        sb[32..64].fill(0xff);
        let max = Fr::from_le_bytes_mod_order(&[0xff; 32]);
        assert_eq!(scalars(&sb).unwrap()[1], max);
        let mut prefixed = 5u64.to_le_bytes().to_vec();
        prefixed.extend(scalars_bytes(&s));
        assert!(scalars(&prefixed).unwrap_err().0.contains("prefix says 5"));
        assert_eq!(body_start(8 + 64, 32, || 2u64.to_le_bytes(), "x"), Ok(8));
        assert_eq!(body_start(64, 32, || unreachable!(), "x"), Ok(0));
    }

    fn round_trip<C: GpuCurve>() {
        let (mut b, s) = msm_core::sample::inputs_of::<C>(5, 2);
        b[2] = Affine::<C>::identity();
        let mut vec_bytes = Vec::new();
        b.serialize_uncompressed(&mut vec_bytes).unwrap();
        assert_eq!(points_of::<C>(&vec_bytes, BaseFormat::Arkworks, "bases").unwrap(), b);
        let raw = points_in(&b, BaseFormat::Raw);
        assert_eq!(raw.len(), 5 * C::CURVE.point_bytes());
        assert_eq!(points_of::<C>(&raw, BaseFormat::Raw, "raw bases").unwrap(), b);
        assert!(points_of::<C>(&raw[1..], BaseFormat::Raw, "raw bases")
            .unwrap_err()
            .0
            .contains("whole number"));
        assert_eq!(scalars_of::<C::ScalarField>(&scalars_bytes(&s)).unwrap(), s);
    }

    #[test]
    fn every_group_round_trips() {
        round_trip::<Bn254>();
        round_trip::<ark_bls12_381::g1::Config>();
        round_trip::<ark_bn254::g2::Config>();
        round_trip::<ark_bls12_381::g2::Config>();
        let x = ark_bn254::Fq2::new(Fq::from(1u64), Fq::from(2u64));
        let zeros = "0".repeat(63);
        assert_eq!(hex(&x), format!("0x{zeros}1,0x{zeros}2"));
    }

    #[test]
    fn outputs() {
        let mut rng = ark_std::test_rng();
        let p = G1Projective::rand(&mut rng);
        let ark = point_arkworks(&p);
        assert_eq!(G1Affine::deserialize_uncompressed(&ark[..]).unwrap(), p.into_affine());
        assert_eq!(bases_raw(&point_raw(&p)).unwrap()[0], p.into_affine());
        assert_eq!(point_raw(&G1Projective::zero()), vec![0u8; 64]);
        assert!(
            G1Affine::deserialize_uncompressed(&point_arkworks(&G1Projective::zero())[..])
                .unwrap()
                .is_zero()
        );
        assert_eq!(hex(&Fq::from(255u64)), format!("0x{}ff", "0".repeat(62)));
    }
}
