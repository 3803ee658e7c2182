//! MSM inputs and results on disk: arkworks' uncompressed serialization
//! (`Vec<G1Affine>`, `Vec<Fr>`: a little-endian u64 count, then the elements;
//! a result: one `G1Affine`), so files interchange with any arkworks program.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use rayon::prelude::*;

use crate::error::CliError;

/// Writes `value` uncompressed to `path` (created or truncated).
pub fn write<T: CanonicalSerialize>(path: &Path, value: &T) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::file(path, format!("cannot write: {e}"));
    let mut w = BufWriter::new(File::create(path).map_err(io)?);
    value
        .serialize_uncompressed(&mut w)
        .map_err(|e| CliError::file(path, format!("cannot write: {e}")))?;
    w.flush().map_err(io)
}

/// What the files of one kind hold, for messages.
pub struct Kind {
    /// The elements, plural ("bases").
    pub what: &'static str,
    /// What each element must be to be valid.
    pub valid: &'static str,
}

pub const BASES: Kind = Kind {
    what: "bases",
    valid: "a BN254 G1 point (on the curve, flags clear)",
};

pub const SCALARS: Kind = Kind {
    what: "scalars",
    valid: "a canonical BN254 scalar (below the field modulus, flags clear)",
};

/// Reads a `Vec<T>` written by [`write`], validating every element (points on
/// the curve and in the subgroup, field elements canonical).
///
/// The size is checked against the count prefix first, and elements are
/// parsed one by one, so a truncated file, a file of the other kind or one bad
/// element gets a message that says which instead of a bare "invalid data".
pub fn read_vec<T>(path: &Path, kind: &Kind) -> Result<Vec<T>, CliError>
where
    T: CanonicalDeserialize + CanonicalSerialize + Default + Send,
{
    let what = kind.what;
    let bytes = std::fs::read(path).map_err(|e| CliError::file(path, format!("cannot read: {e}")))?;
    let elem = T::default().uncompressed_size();
    let Some((prefix, body)) = bytes.split_first_chunk::<8>() else {
        return Err(CliError::file(
            path,
            format!(
                "{} bytes is too short for a file of {what}: it must start with an 8-byte count",
                bytes.len()
            ),
        ));
    };
    let count = u64::from_le_bytes(*prefix);
    let expected = count.checked_mul(elem as u64);
    if expected != Some(body.len() as u64) {
        let why = if expected.is_some_and(|need| need > body.len() as u64) {
            "truncated, or not a file of"
        } else {
            "not a file of"
        };
        return Err(CliError::file(
            path,
            format!(
                "the header says {count} {what} of {elem} bytes each but {} bytes follow: {why} {what} \
                 (arkworks uncompressed serialization of a Vec)",
                body.len()
            ),
        ));
    }
    body.par_chunks_exact(elem)
        .enumerate()
        .map(|(i, chunk)| {
            T::deserialize_uncompressed(chunk)
                .map_err(|e| CliError::file(path, format!("element {i} of {count} is not {}: {e}", kind.valid)))
        })
        .collect()
}

/// Lower-case hex of `value`'s uncompressed serialization.
pub fn hex<T: CanonicalSerialize>(value: &T) -> String {
    let mut bytes = Vec::new();
    value
        .serialize_uncompressed(&mut bytes)
        .expect("serialising into a Vec cannot fail");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
