//! A circuit's witness (`.wtns`): section 1 the field (its modulus, r) and
//! the count, section 2 the values, 32 plain little-endian bytes each, the
//! constant 1 first, then the public signals, then the private ones.

use ark_bn254::Fr;
use rayon::prelude::*;

use crate::binfile::BinFile;
use crate::error::{CircomError, FileKind};
use crate::field;

/// A full assignment of a circuit's signals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness(pub Vec<Fr>);

impl Witness {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CircomError> {
        let values = Self::value_bytes(bytes)?;
        let w: Vec<Fr> = values
            .par_chunks_exact(32)
            .enumerate()
            .map(|(index, b)| field::fr_plain(b).ok_or(CircomError::WitnessValue { index }))
            .collect::<Result<_, _>>()?;
        if w.first() != Some(&Fr::from(1u64)) {
            return Err(CircomError::Malformed {
                kind: FileKind::Wtns,
                detail: "the first value (the constant signal) is not 1".into(),
            });
        }
        Ok(Witness(w))
    }

    /// The values' bytes in a `.wtns` (32 plain little-endian bytes each,
    /// as MSM scalars are given), without converting them.
    pub fn value_bytes(bytes: &[u8]) -> Result<&[u8], CircomError> {
        let file = BinFile::parse(FileKind::Wtns, bytes, &[1, 2])?;
        let mut h = file.section(1)?;
        field::check_modulus::<Fr>(&mut h, FileKind::Wtns)?;
        let count = h.u32()? as usize;
        file.section(2)?.items(count, 32)
    }

    /// Reads the witness at `path`.
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<Self, CircomError> {
        Self::from_bytes(&crate::binfile::read_path(path.as_ref())?)
    }

    /// The public signals (after the constant), as snarkjs's public.json lists them.
    pub fn public(&self, n_public: usize) -> &[Fr] {
        &self.0[1..=n_public]
    }
}
