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
//! Scalars: 32 little-endian bytes each, canonical (< r), concatenated or as a
//! serialized `Vec<Fr>` (8-byte length in front): the arkworks and the raw
//! format are the same bytes.

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};

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

/// The items of `bytes` (`size` bytes each), with an optional arkworks
/// `Vec` length prefix that must agree with the count.
fn items<'a>(bytes: &'a [u8], size: usize, what: &str) -> Result<std::slice::ChunksExact<'a, u8>, FormatError> {
    let body = if bytes.len() % size == 8 % size && bytes.len() >= 8 {
        let (prefix, body) = bytes.split_at(8);
        let count = u64::from_le_bytes(prefix.try_into().unwrap());
        if count != (body.len() / size) as u64 {
            return Err(FormatError(format!(
                "{what}: the 8-byte length prefix says {count} items but {} follow",
                body.len() / size
            )));
        }
        body
    } else if bytes.len().is_multiple_of(size) {
        bytes
    } else {
        return Err(FormatError(format!(
            "{what}: {} bytes is not a whole number of {size}-byte items (optionally after an 8-byte length)",
            bytes.len()
        )));
    };
    Ok(body.chunks_exact(size))
}

/// Bases in the arkworks uncompressed format, checked on the curve, each in
/// the one encoding arkworks writes: arkworks itself reads any coordinates
/// under the infinity flag as the identity and ignores the sign flag, so a
/// damaged flag would otherwise pass as another point.
pub fn bases_arkworks(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    items(bytes, POINT_BYTES, "bases")?
        .enumerate()
        .map(|(i, b)| {
            let p = G1Affine::deserialize_with_mode(b, Compress::No, Validate::Yes).map_err(|e| {
                FormatError(format!(
                    "bases: point {i} is not an uncompressed arkworks BN254 G1 point ({e})"
                ))
            })?;
            if points_arkworks(&[p]) != b {
                return Err(FormatError(format!(
                    "bases: point {i}'s flag bits disagree with its coordinates (not an encoding arkworks writes)"
                )));
            }
            Ok(p)
        })
        .collect()
}

/// Bases as raw little-endian coordinates, checked canonical and on the curve.
pub fn bases_raw(bytes: &[u8]) -> Result<Vec<G1Affine>, FormatError> {
    if !bytes.len().is_multiple_of(POINT_BYTES) {
        return Err(FormatError(format!(
            "raw bases: {} bytes is not a whole number of 64-byte points",
            bytes.len()
        )));
    }
    bytes
        .chunks_exact(POINT_BYTES)
        .enumerate()
        .map(|(i, b)| {
            if b.iter().all(|&v| v == 0) {
                return Ok(G1Affine::zero());
            }
            let coord = |c: &[u8], name: &str| {
                field_le::<Fq>(c).ok_or_else(|| {
                    FormatError(format!(
                        "raw bases: {name} of point {i} is not below the field modulus p"
                    ))
                })
            };
            let p = G1Affine::new_unchecked(coord(&b[..32], "x")?, coord(&b[32..], "y")?);
            if !p.is_on_curve() {
                return Err(FormatError(format!("raw bases: point {i} is not on the BN254 curve")));
            }
            Ok(p)
        })
        .collect()
}

/// Scalars, 32 canonical little-endian bytes each.
pub fn scalars(bytes: &[u8]) -> Result<Vec<Fr>, FormatError> {
    items(bytes, SCALAR_BYTES, "scalars")?
        .enumerate()
        .map(|(i, b)| {
            field_le::<Fr>(b).ok_or_else(|| FormatError(format!("scalars: scalar {i} is not below the group order r")))
        })
        .collect()
}

/// A canonical little-endian field element (`None` when >= the modulus).
/// Scalars as canonical words for the GPU, as they are: each checked below r
/// by comparison, with no field arithmetic.
pub fn scalar_words(bytes: &[u8]) -> Result<Vec<[u32; 8]>, FormatError> {
    let r: Vec<u32> = Fr::MODULUS
        .0
        .iter()
        .flat_map(|l| [*l as u32, (*l >> 32) as u32])
        .collect();
    items(bytes, SCALAR_BYTES, "scalars")?
        .enumerate()
        .map(|(i, b)| {
            let w: [u32; 8] = std::array::from_fn(|k| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap()));
            if w.iter().rev().cmp(r.iter().rev()) == std::cmp::Ordering::Less {
                Ok(w)
            } else {
                Err(FormatError(format!(
                    "scalars: scalar {i} is not below the group order r"
                )))
            }
        })
        .collect()
}

fn field_le<F: PrimeField>(bytes: &[u8]) -> Option<F> {
    let mut repr = F::BigInt::default();
    let mut limbs = [0u64; 4];
    for (limb, b) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        *limb = u64::from_le_bytes(b.try_into().unwrap());
    }
    let n = repr.as_ref().len();
    repr.as_mut().copy_from_slice(&limbs[..n]);
    F::from_bigint(repr)
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
    use ark_ff::{Field, UniformRand, Zero};
    use ark_serialize::CanonicalSerialize;

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
        assert_eq!(field_le::<Fq>(&raw[..32]), Some(g.x));
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
            "raw bases: point 0 is not on the BN254 curve"
        );
        raw[..32].fill(0xff);
        assert!(bases_raw(&raw).unwrap_err().0.contains("x of point 0 is not below"));
        let mut sb = scalars_bytes(&s);
        sb[32..64].copy_from_slice(&(-Fr::ONE).into_bigint().to_bytes_le());
        assert_eq!(scalars(&sb).unwrap()[1], -Fr::ONE);
        let words = scalar_words(&sb).unwrap();
        assert_eq!(words[1], msm_core::cpu::scalar_words(&-Fr::ONE));
        let mut at_r = sb.clone();
        at_r[32..64].copy_from_slice(&Fr::MODULUS.to_bytes_le());
        assert!(scalar_words(&at_r).unwrap_err().0.contains("scalar 1"));
        sb[63] = 0xff;
        assert_eq!(
            scalars(&sb).unwrap_err().0,
            "scalars: scalar 1 is not below the group order r"
        );
        let mut prefixed = 5u64.to_le_bytes().to_vec();
        prefixed.extend(scalars_bytes(&s));
        assert!(scalars(&prefixed).unwrap_err().0.contains("prefix says 5"));
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
