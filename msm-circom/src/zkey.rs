//! snarkjs's Groth16 proving key (`.zkey`): its header, verifying key,
//! the constraint coefficients the prover evaluates A and B from, and the
//! five point queries its MSMs run over.
//!
//! Sections: 1 protocol, 2 header and verifying key, 3 IC (the public
//! inputs' points), 4 coefficients, 5 A, 6 B in G1, 7 B in G2, 8 C (the
//! private signals'), 9 H (one per domain point), 10 contributions.

use ark_bn254::{Fq, Fr, G1Affine, G2Affine};
use rayon::prelude::*;

use crate::binfile::{BinFile, Reader};
use crate::error::{CircomError, FileKind};
use crate::field;

/// The verifying key's points, as `snarkjs zkey export verificationkey`
/// writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    pub alpha_g1: G1Affine,
    pub beta_g1: G1Affine,
    pub beta_g2: G2Affine,
    pub gamma_g2: G2Affine,
    pub delta_g1: G1Affine,
    pub delta_g2: G2Affine,
    /// One point per public input, after the constant signal's.
    pub ic: Vec<G1Affine>,
}

/// One non-zero entry of the QAP's A (matrix 0) or B (matrix 1): the
/// coefficient of `signal` in `constraint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Coef {
    pub matrix: u32,
    pub constraint: u32,
    pub signal: u32,
    pub value: Fr,
}

/// A Groth16 proving key over BN254.
pub struct ZKey {
    /// Signals, the constant 1 included (the witness's length).
    pub n_vars: usize,
    /// Public signals (outputs, then public inputs).
    pub n_public: usize,
    /// The evaluation domain's size (a power of two).
    pub domain_size: usize,
    pub vk: VerifyingKey,
    pub(crate) coefs: Vec<Coef>,
    /// Σ w_i·A_i over the witness gives π_A's MSM term (one per signal).
    pub a: Vec<G1Affine>,
    pub b_g1: Vec<G1Affine>,
    pub b_g2: Vec<G2Affine>,
    /// The private signals' (n_vars - n_public - 1).
    pub c: Vec<G1Affine>,
    /// One per domain point, over the odd coset's evaluations of A·B - C.
    pub h: Vec<G1Affine>,
}

const G1_BYTES: usize = 64;
const G2_BYTES: usize = 128;

/// A key without its point queries: its sizes, verifying key and
/// coefficients, and where each query's bytes lie in the file. What a
/// prover that uploads the queries as the file holds them reads (the
/// browser package, whose GPU converts and checks ffjavascript's layout).
pub struct KeyHead {
    pub n_vars: usize,
    pub n_public: usize,
    pub domain_size: usize,
    pub vk: VerifyingKey,
    pub(crate) coefs: Vec<Coef>,
    /// A, B in G1, B in G2, C and H: byte ranges of the file, each point in
    /// ffjavascript's layout (x then y, Montgomery form, Fq2 as c0 then c1).
    pub queries: [std::ops::Range<usize>; 5],
}

impl KeyHead {
    /// Reads and checks everything but the queries' points (their counts
    /// and lengths are checked).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CircomError> {
        let file = BinFile::parse(FileKind::Zkey, bytes, &[1])?;
        let (n_vars, n_public, domain_size, vk) = header(&file)?;
        let range = |section: u32, count: usize, size: usize| -> Result<std::ops::Range<usize>, CircomError> {
            let items = file.section(section)?.items(count, size)?;
            let start = items.as_ptr() as usize - bytes.as_ptr() as usize;
            Ok(start..start + items.len())
        };
        let queries = [
            range(5, n_vars, G1_BYTES)?,
            range(6, n_vars, G1_BYTES)?,
            range(7, n_vars, G2_BYTES)?,
            range(8, n_vars - n_public - 1, G1_BYTES)?,
            range(9, domain_size, G1_BYTES)?,
        ];
        Ok(KeyHead {
            n_vars,
            n_public,
            domain_size,
            vk,
            coefs: coefficients(&file, n_vars, domain_size)?,
            queries,
        })
    }
}

/// Sections 1 and 2: the protocol, the fields, the sizes, the verifying
/// key's points (section 3 holds its IC).
fn header(file: &BinFile) -> Result<(usize, usize, usize, VerifyingKey), CircomError> {
    let protocol = file.section(1)?.u32()?;
    if protocol != 1 {
        return Err(CircomError::NotGroth16(protocol));
    }
    let mut h = file.section(2)?;
    field::check_modulus::<Fq>(&mut h, FileKind::Zkey)?;
    field::check_modulus::<Fr>(&mut h, FileKind::Zkey)?;
    let n_vars = h.u32()? as usize;
    let n_public = h.u32()? as usize;
    let domain_size = h.u32()? as usize;
    if !domain_size.is_power_of_two() || n_public >= n_vars {
        return Err(malformed(format!(
            "{n_vars} signals, {n_public} public, a domain of {domain_size}"
        )));
    }
    let power = domain_size.trailing_zeros();
    if power >= 27 {
        return Err(CircomError::DomainTooLarge(power));
    }
    let vk_g1 = |h: &mut Reader, what| point(h.take(G1_BYTES)?, what, 0, field::g1);
    let vk_g2 = |h: &mut Reader, what| point(h.take(G2_BYTES)?, what, 0, |b| field::g2(b, true));
    let alpha_g1 = vk_g1(&mut h, "alpha")?;
    let beta_g1 = vk_g1(&mut h, "beta (G1)")?;
    let beta_g2 = vk_g2(&mut h, "beta (G2)")?;
    let gamma_g2 = vk_g2(&mut h, "gamma")?;
    let delta_g1 = vk_g1(&mut h, "delta (G1)")?;
    let delta_g2 = vk_g2(&mut h, "delta (G2)")?;
    let ic = points(
        file.section(3)?.items(n_public + 1, G1_BYTES)?,
        G1_BYTES,
        "IC",
        field::g1,
    )?;
    let vk = VerifyingKey {
        alpha_g1,
        beta_g1,
        beta_g2,
        gamma_g2,
        delta_g1,
        delta_g2,
        ic,
    };
    Ok((n_vars, n_public, domain_size, vk))
}

impl ZKey {
    /// Reads and checks a key: every point canonical and on its curve (G2's
    /// queries' subgroup membership is checked on the GPU as they are
    /// uploaded: the native prover's `check_subgroup` option), every
    /// coefficient's indices inside the key.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CircomError> {
        let head = KeyHead::from_bytes(bytes)?;
        let [a, b_g1, b_g2, c, h] = head.queries.clone().map(|r| &bytes[r]);
        Ok(ZKey {
            a: points(a, G1_BYTES, "A", field::g1)?,
            b_g1: points(b_g1, G1_BYTES, "B (G1)", field::g1)?,
            b_g2: points(b_g2, G2_BYTES, "B (G2)", |b| field::g2(b, false))?,
            c: points(c, G1_BYTES, "C", field::g1)?,
            h: points(h, G1_BYTES, "H", field::g1)?,
            n_vars: head.n_vars,
            n_public: head.n_public,
            domain_size: head.domain_size,
            vk: head.vk,
            coefs: head.coefs,
        })
    }

    /// Reads the key at `path`.
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<Self, CircomError> {
        Self::from_bytes(&crate::binfile::read_path(path.as_ref())?)
    }

    /// log2 of the domain's size.
    pub fn power(&self) -> u32 {
        self.domain_size.trailing_zeros()
    }
}

fn malformed(detail: String) -> CircomError {
    CircomError::Malformed {
        kind: FileKind::Zkey,
        detail,
    }
}

fn point<P>(
    b: &[u8],
    what: &'static str,
    index: usize,
    parse: impl Fn(&[u8]) -> Result<P, &'static str>,
) -> Result<P, CircomError> {
    parse(b).map_err(|defect| CircomError::InvalidPoint { what, index, defect })
}

/// The points of `bytes` (`size` each, a section's whole items), parsed
/// on every core.
fn points<P: Send>(
    bytes: &[u8],
    size: usize,
    what: &'static str,
    parse: impl Fn(&[u8]) -> Result<P, &'static str> + Sync,
) -> Result<Vec<P>, CircomError> {
    bytes
        .par_chunks_exact(size)
        .enumerate()
        .map(|(index, b)| point(b, what, index, &parse))
        .collect()
}

/// Section 4: a count, then (matrix, constraint, signal, c·R² mod r).
fn coefficients(file: &BinFile, n_vars: usize, domain_size: usize) -> Result<Vec<Coef>, CircomError> {
    const SIZE: usize = 12 + 32;
    let mut s = file.section(4)?;
    let count = s.u32()? as usize;
    let bytes = s.items(count, SIZE)?;
    bytes
        .par_chunks_exact(SIZE)
        .enumerate()
        .map(|(k, b)| {
            let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().expect("4 bytes"));
            let (matrix, constraint, signal) = (word(0), word(1), word(2));
            let value = field::fr_coef(&b[12..]);
            match value {
                Some(value) if matrix < 2 && (constraint as usize) < domain_size && (signal as usize) < n_vars => {
                    Ok(Coef {
                        matrix,
                        constraint,
                        signal,
                        value,
                    })
                }
                _ => Err(malformed(format!(
                    "coefficient {k} (matrix {matrix}, constraint {constraint}, signal {signal}) is outside the key \
                     or not below r"
                ))),
            }
        })
        .collect()
}
