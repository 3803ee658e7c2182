//! Byte formats at the JS boundary.
//!
//! Bases, either format:
//! - **arkworks**: each point as `G1Affine::serialize_uncompressed` writes it
//!   (64 bytes: x then y, 32 little-endian bytes each, flags in the top bits
//!   of y's last byte), concatenated, or a whole `Vec<G1Affine>` serialized
//!   uncompressed (the same with an 8-byte little-endian length in front).
//! - **raw**: x then y, 32 little-endian bytes each, canonical (< p), 64 bytes
//!   a point; the identity is 64 zero bytes.
//!
//! Scalars: 32 little-endian bytes each, concatenated or as a serialized
//! `Vec<Fr>` (8-byte length in front): the arkworks and the raw format are
//! the same bytes. Any 256-bit value is accepted and taken mod r, so the MSM
//! is the sum of the integers times the points (arkworks' `msm_bigint`).
//!
//! The GPU reads bases and scalars as they are (`MsmContext`): here only the
//! length prefix is read, and the CPU decoders below serve `cpuMsm`, the
//! sampler and the tests; they refuse exactly what the GPU refuses.

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::CanonicalSerialize;
use msm_core::cpu::bases::decode_base;
use msm_core::{BaseDefect, BaseFormat};

/// Bytes of one uncompressed point.
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

fn decode_points(bytes: &[u8], format: BaseFormat, what: &str) -> Result<Vec<G1Affine>, FormatError> {
    items(bytes, POINT_BYTES, what)?
        .enumerate()
        .map(|(i, b)| {
            let p = decode_base(b.try_into().unwrap(), format).map_err(|d| base_error(what, i, d))?;
            Ok(p.unwrap_or_default())
        })
        .collect()
}

/// Bases in the arkworks uncompressed format, checked on the curve, each in
/// the one encoding arkworks writes: arkworks itself reads any coordinates
/// under the infinity flag as the identity and ignores the sign flag, so a
/// damaged flag would otherwise pass as another point.
pub fn bases_arkworks(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    decode_points(bytes, BaseFormat::Arkworks, "bases")
}

/// Bases as raw little-endian coordinates, checked canonical and on the curve.
pub fn bases_raw(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    if !bytes.len().is_multiple_of(POINT_BYTES) {
        return Err(FormatError(format!(
            "raw bases: {} bytes is not a whole number of 64-byte points",
            bytes.len()
        )));
    }
    decode_points(bytes, BaseFormat::Raw, "raw bases")
}

/// Scalars, 32 little-endian bytes each, any value (taken mod r).
pub fn scalars(bytes: &[u8]) -> Result<Vec<Fr>, FormatError> {
    Ok(items(bytes, SCALAR_BYTES, "scalars")?
        .map(Fr::from_le_bytes_mod_order)
        .collect())
}

/// `p` in the arkworks uncompressed format (64 bytes).
pub fn point_arkworks(p: &G1Projective) -> Vec<u8> {
    let mut out = Vec::with_capacity(POINT_BYTES);
    p.into_affine()
        .serialize_uncompressed(&mut out)
        .expect("writing to a Vec cannot fail");
    out
}

/// `p` as raw little-endian x then y (64 zero bytes for the identity).
pub fn point_raw(p: &G1Projective) -> Vec<u8> {
    let a = p.into_affine();
    let mut out = vec![0u8; POINT_BYTES];
    if let Some((x, y)) = a.xy() {
        out[..32].copy_from_slice(&x.into_bigint().to_bytes_le());
        out[32..].copy_from_slice(&y.into_bigint().to_bytes_le());
    }
    out
}

/// Points in the arkworks uncompressed format, concatenated (no length prefix).
pub fn points_arkworks(points: &[G1Affine]) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * POINT_BYTES);
    for p in points {
        p.serialize_uncompressed(&mut out)
            .expect("writing to a Vec cannot fail");
    }
    out
}

/// Scalars as 32 little-endian bytes each, concatenated.
pub fn scalars_bytes(scalars: &[Fr]) -> Vec<u8> {
    scalars.iter().flat_map(|s| s.into_bigint().to_bytes_le()).collect()
}

/// A field element as 0x-prefixed big-endian hex.
pub fn hex(x: &Fq) -> String {
    let bytes = x.into_bigint().to_bytes_be();
    let mut s = String::from("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{AdditiveGroup, Field, UniformRand, Zero};
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
            "raw bases: point 0 is refused: it is not on the BN254 curve"
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
