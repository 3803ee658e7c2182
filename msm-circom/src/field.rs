//! snarkjs's encodings of BN254 elements: field elements as 32
//! little-endian bytes, in Montgomery form (R = 2^256, as arkworks') for
//! the key's points and coefficients, plain for witnesses; points as x then
//! y (Fq2 as c0 then c1), the identity as zeros.

use ark_bn254::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, PrimeField};

use crate::binfile::Reader;
use crate::error::{CircomError, FileKind};

/// 32 little-endian bytes as four limbs.
pub(crate) fn limbs(b: &[u8]) -> BigInt<4> {
    let mut l = [0u64; 4];
    for (k, c) in b.chunks_exact(8).enumerate() {
        l[k] = u64::from_le_bytes(c.try_into().expect("8 bytes"));
    }
    BigInt(l)
}

/// The modulus of a field as 32 little-endian bytes (the files' headers).
pub(crate) fn modulus_bytes<F: PrimeField<BigInt = BigInt<4>>>() -> Vec<u8> {
    F::MODULUS.0.iter().flat_map(|l| l.to_le_bytes()).collect()
}

/// An Fq element in Montgomery form (its limbs are arkworks' own), or
/// `None` when not below q.
fn fq_mont(b: &[u8]) -> Option<Fq> {
    let v = limbs(b);
    (v < Fq::MODULUS).then(|| Fq::new_unchecked(v))
}

/// Why a point's bytes were refused.
const NOT_CANONICAL: &str = "a coordinate is not below the field modulus q";
const NOT_ON_CURVE: &str = "it is not on the curve";
const NOT_IN_SUBGROUP: &str = "it is not in the prime-order subgroup";

/// A G1 point of 64 bytes (the subgroup is the whole curve: cofactor 1).
pub(crate) fn g1(b: &[u8]) -> Result<G1Affine, &'static str> {
    if b.iter().all(|&x| x == 0) {
        return Ok(G1Affine::identity());
    }
    let (x, y) = (fq_mont(&b[..32]), fq_mont(&b[32..64]));
    let p = G1Affine::new_unchecked(x.ok_or(NOT_CANONICAL)?, y.ok_or(NOT_CANONICAL)?);
    p.is_on_curve().then_some(p).ok_or(NOT_ON_CURVE)
}

/// A G2 point of 128 bytes. `subgroup`: check membership here (the
/// verifying key's few points); the proving key's are checked on the GPU.
pub(crate) fn g2(b: &[u8], subgroup: bool) -> Result<G2Affine, &'static str> {
    if b.iter().all(|&x| x == 0) {
        return Ok(G2Affine::identity());
    }
    let c = |k: usize| fq_mont(&b[32 * k..32 * k + 32]).ok_or(NOT_CANONICAL);
    let p = G2Affine::new_unchecked(Fq2::new(c(0)?, c(1)?), Fq2::new(c(2)?, c(3)?));
    if !p.is_on_curve() {
        return Err(NOT_ON_CURVE);
    }
    if subgroup && !p.is_in_correct_subgroup_assuming_on_curve() {
        return Err(NOT_IN_SUBGROUP);
    }
    Ok(p)
}

/// A plain (not Montgomery) scalar, or `None` when not below r.
pub(crate) fn fr_plain(b: &[u8]) -> Option<Fr> {
    Fr::from_bigint(limbs(b))
}

/// A key coefficient: snarkjs stores c·R² mod r (`zkey new` multiplies the
/// R1CS's plain coefficient by R² in Montgomery form); one Montgomery
/// reduction of those limbs gives c·R, arkworks' form of c.
pub(crate) fn fr_coef(b: &[u8]) -> Option<Fr> {
    let v = limbs(b);
    (v < Fr::MODULUS).then(|| Fr::new_unchecked(v) * Fr::new_unchecked(BigInt::one()))
}

/// Reads a modulus (its byte length, then the bytes) and checks it is
/// BN254's `F`.
pub(crate) fn check_modulus<F>(r: &mut Reader, kind: FileKind) -> Result<(), CircomError>
where
    F: ark_ff::PrimeField<BigInt = ark_ff::BigInt<4>>,
{
    let n8 = r.u32()? as usize;
    let bytes = r.take(n8)?;
    if bytes != modulus_bytes::<F>().as_slice() {
        let modulus = num_bigint::BigUint::from_bytes_le(bytes).to_string();
        return Err(CircomError::WrongCurve { kind, modulus });
    }
    Ok(())
}

/// An Fq element's 32 bytes in Montgomery form (the key's points).
fn fq_mont_bytes(x: &Fq, out: &mut Vec<u8>) {
    out.extend(x.0 .0.iter().flat_map(|l| l.to_le_bytes()));
}

/// A G1 point's 64 bytes (the identity as zeros), as [`g1`] reads them.
pub(crate) fn g1_bytes(p: &G1Affine, out: &mut Vec<u8>) {
    match p.xy() {
        Some((x, y)) => [x, y].iter().for_each(|c| fq_mont_bytes(c, out)),
        None => out.extend([0u8; 64]),
    }
}

/// A G2 point's 128 bytes, as [`g2`] reads them.
pub(crate) fn g2_bytes(p: &G2Affine, out: &mut Vec<u8>) {
    match p.xy() {
        Some((x, y)) => [x.c0, x.c1, y.c0, y.c1].iter().for_each(|c| fq_mont_bytes(c, out)),
        None => out.extend([0u8; 128]),
    }
}

/// A key coefficient's 32 bytes, c·R² mod r, as [`fr_coef`] reads them:
/// the limbs arkworks keeps for c·R.
pub(crate) fn fr_coef_bytes(c: &Fr, out: &mut Vec<u8>) {
    let c_r = *c * Fr::new_unchecked(Fr::R2);
    out.extend(c_r.0 .0.iter().flat_map(|l| l.to_le_bytes()));
}
