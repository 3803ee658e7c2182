//! A circuit's constraint system (`.r1cs`, circom's `--r1cs` output):
//! section 1 the header (the field, the signal counts, the constraint
//! count), section 2 the constraints, each three linear combinations
//! A, B, C of (signal, coefficient) with coefficients 32 plain
//! little-endian bytes. Only what a Groth16 key is made from is read.

use ark_bn254::Fr;

use crate::binfile::{BinFile, Reader};
use crate::error::{CircomError, FileKind};
use crate::field;

/// One linear combination: (signal, coefficient) terms.
pub type Lc = Vec<(u32, Fr)>;

/// A rank-1 constraint system over BN254's scalar field: every constraint
/// says A·w × B·w = C·w for the witness w.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1cs {
    /// Signals, the constant 1 included (a witness's length).
    pub n_vars: usize,
    /// Public signals: the outputs, then the public inputs.
    pub n_public: usize,
    /// (A, B, C) per constraint.
    pub constraints: Vec<[Lc; 3]>,
}

impl R1cs {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CircomError> {
        let file = BinFile::parse(FileKind::R1cs, bytes, &[1])?;
        let mut h = file.section(1)?;
        field::check_modulus::<Fr>(&mut h, FileKind::R1cs)?;
        let n_vars = h.u32()? as usize;
        let n_outputs = h.u32()? as usize;
        let n_public_inputs = h.u32()? as usize;
        let _n_private_inputs = h.u32()?;
        let _n_labels = h.u64()?;
        let count = h.u32()? as usize;
        let n_public = n_outputs + n_public_inputs;
        if n_vars == 0 || n_public >= n_vars {
            return Err(malformed(format!("{n_vars} signals, {n_public} public")));
        }
        let mut s = file.section(2)?;
        let mut constraints = Vec::with_capacity(count.min(1 << 28));
        for k in 0..count {
            constraints.push([lc(&mut s, k, n_vars)?, lc(&mut s, k, n_vars)?, lc(&mut s, k, n_vars)?]);
        }
        if !s.rest().is_empty() {
            return Err(malformed(format!(
                "{} bytes after the {count} constraints",
                s.rest().len()
            )));
        }
        Ok(R1cs {
            n_vars,
            n_public,
            constraints,
        })
    }

    /// Reads the constraint system at `path`.
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<Self, CircomError> {
        Self::from_bytes(&crate::binfile::read_path(path.as_ref())?)
    }

    /// The evaluation domain's size snarkjs's `groth16 setup` picks: the
    /// power of two above the constraints and one more per public signal.
    pub fn domain_size(&self) -> usize {
        let m = self.constraints.len() + self.n_public;
        2usize << m.max(1).ilog2()
    }
}

fn lc(s: &mut Reader, constraint: usize, n_vars: usize) -> Result<Lc, CircomError> {
    let terms = s.u32()? as usize;
    let mut out = Vec::with_capacity(terms.min(n_vars));
    for _ in 0..terms {
        let signal = s.u32()?;
        let value = field::fr_plain(s.take(32)?);
        match value {
            Some(value) if (signal as usize) < n_vars => out.push((signal, value)),
            _ => {
                return Err(malformed(format!(
                    "constraint {constraint}: signal {signal} outside the circuit or a coefficient not below r"
                )))
            }
        }
    }
    Ok(out)
}

fn malformed(detail: String) -> CircomError {
    CircomError::Malformed {
        kind: FileKind::R1cs,
        detail,
    }
}
