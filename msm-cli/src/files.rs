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

pub const BLS12_381_BASES: Kind = Kind {
    what: "bases",
    valid: "a BLS12-381 G1 point (on the curve, in the subgroup, in arkworks' uncompressed encoding)",
};

pub const BLS12_381_SCALARS: Kind = Kind {
    what: "scalars",
    valid: "a canonical BLS12-381 scalar (below the field modulus)",
};

pub const BN254_G2_BASES: Kind = Kind {
    what: "bases",
    valid: "a BN254 G2 point (on the twist, in the subgroup, in arkworks' uncompressed encoding)",
};

pub const BLS12_381_G2_BASES: Kind = Kind {
    what: "bases",
    valid: "a BLS12-381 G2 point (on the twist, in the subgroup, in arkworks' uncompressed encoding)",
};

/// The kinds of bases and scalars files of `curve`.
pub fn kinds(curve: msm_core::Curve) -> (&'static Kind, &'static Kind) {
    match curve {
        msm_core::Curve::Bn254G1 => (&BASES, &SCALARS),
        msm_core::Curve::Bls12_381G1 => (&BLS12_381_BASES, &BLS12_381_SCALARS),
        msm_core::Curve::Bn254G2 => (&BN254_G2_BASES, &SCALARS),
        msm_core::Curve::Bls12_381G2 => (&BLS12_381_G2_BASES, &BLS12_381_SCALARS),
    }
}

/// Reads a `Vec<T>` written by [`write`], validating every element (points on
/// the curve and in the subgroup, field elements canonical, each in the one
/// encoding `write` gives it).
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
            let v = T::deserialize_uncompressed(chunk)
                .map_err(|e| CliError::file(path, format!("element {i} of {count} is not {}: {e}", kind.valid)))?;
            // arkworks reads any coordinates under the infinity flag as the
            // identity and ignores the sign flag: only the encoding `write`
            // produces is taken, so a damaged flag is not read as a point
            let mut again = Vec::with_capacity(elem);
            v.serialize_uncompressed(&mut again)
                .expect("serialising into a Vec cannot fail");
            if again != chunk {
                return Err(CliError::file(
                    path,
                    format!(
                        "element {i} of {count} is not {}: its flag bits disagree with its value (not an \
                         encoding arkworks writes)",
                        kind.valid
                    ),
                ));
            }
            Ok(v)
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

/// Fuzzing of the decoder: arbitrary bytes and damaged valid files end in
/// `Ok` or a `CliError::File` naming the file, never a panic; and what is
/// accepted is exactly what `write` would write (no second encoding of a
/// value is taken). Cases: `PROPTEST_CASES` (default 64); failures are kept
/// in `proptest-regressions/files.txt`.
#[cfg(test)]
mod fuzz {
    use std::sync::atomic::{AtomicU64, Ordering};

    use ark_bn254::{Fr, G1Affine};
    use proptest::prelude::*;

    use super::*;

    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64)
    }

    /// Reads `bytes` as a file of `T` and checks the properties.
    fn decode<T>(bytes: &[u8], kind: &Kind) -> Result<(), TestCaseError>
    where
        T: CanonicalDeserialize + CanonicalSerialize + Default + Send,
    {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "msm-cli-fuzz-{}-{}.bin",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).unwrap();
        let got = read_vec::<T>(&path, kind);
        std::fs::remove_file(&path).unwrap();
        match got {
            Ok(v) => {
                let mut again = Vec::new();
                v.serialize_uncompressed(&mut again).unwrap();
                prop_assert_eq!(&again[..], bytes, "accepted bytes that write() would not produce");
            }
            Err(CliError::File { path: p, what }) => {
                prop_assert_eq!(p, path);
                prop_assert!(what.contains(kind.what) || what.contains("element"), "{}", what);
            }
            Err(e) => prop_assert!(false, "not a file error: {e:?}"),
        }
        Ok(())
    }

    /// A valid file of `n` seeded bases or scalars.
    fn valid(n: usize, seed: u64, bases: bool) -> Vec<u8> {
        let (b, s) = msm_core::sample::inputs(n, seed);
        let mut bytes = Vec::new();
        if bases {
            b.serialize_uncompressed(&mut bytes).unwrap();
        } else {
            s.serialize_uncompressed(&mut bytes).unwrap();
        }
        bytes
    }

    /// Damage: byte flips, a new count, truncation, trailing bytes.
    #[derive(Clone, Debug)]
    enum Damage {
        Flip(usize, u8),
        Count(u64),
        Truncate(usize),
        Append(Vec<u8>),
    }

    fn damage() -> impl Strategy<Value = Damage> {
        prop_oneof![
            4 => (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Damage::Flip(i, x)),
            2 => prop_oneof![any::<u64>(), 0u64..40, Just(u64::MAX), Just(1 << 58)].prop_map(Damage::Count),
            1 => any::<usize>().prop_map(Damage::Truncate),
            1 => proptest::collection::vec(any::<u8>(), 1..80).prop_map(Damage::Append),
        ]
    }

    fn apply(mut bytes: Vec<u8>, damage: &[Damage]) -> Vec<u8> {
        for d in damage {
            match d {
                Damage::Flip(i, x) if !bytes.is_empty() => {
                    let at = i % bytes.len();
                    bytes[at] ^= x;
                }
                Damage::Count(c) if bytes.len() >= 8 => bytes[..8].copy_from_slice(&c.to_le_bytes()),
                Damage::Truncate(i) => bytes.truncate(i % (bytes.len() + 1)),
                Damage::Append(extra) => bytes.extend(extra),
                _ => {}
            }
        }
        bytes
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400), count in 0u64..8) {
            decode::<G1Affine>(&bytes, &BASES)?;
            decode::<Fr>(&bytes, &SCALARS)?;
            // the same noise behind a count that could match
            let mut framed = count.to_le_bytes().to_vec();
            framed.extend(&bytes);
            decode::<G1Affine>(&framed, &BASES)?;
            decode::<Fr>(&framed, &SCALARS)?;
        }

        #[test]
        fn damaged_files(n in 0usize..12, seed in any::<u64>(), bases in any::<bool>(),
                         damage in proptest::collection::vec(damage(), 0..4)) {
            let bytes = apply(valid(n, seed, bases), &damage);
            if bases {
                decode::<G1Affine>(&bytes, &BASES)?;
            } else {
                decode::<Fr>(&bytes, &SCALARS)?;
            }
        }
    }

    /// Kept corpus: the shapes that once needed care (counts that overflow
    /// the size check, the infinity flag over coordinates and a flipped sign
    /// flag, both once read as points, coordinates at p, flags on scalars).
    #[test]
    fn corpus() {
        let one_base = valid(1, 1, true);
        let one_scalar = valid(1, 1, false);
        let mut cases: Vec<Vec<u8>> = vec![vec![], vec![0; 7], vec![0; 8], vec![0xff; 8], one_base.clone()];
        let mut overflow = u64::MAX.to_le_bytes().to_vec();
        overflow.extend(&one_base[8..]);
        cases.push(overflow);
        let mut wraps = ((1u64 << 58) + 1).to_le_bytes().to_vec(); // 2^58 + 1 points of 64 bytes wrap to 64
        wraps.extend(&one_base[8..]);
        cases.push(wraps);
        for last in [0x40u8, 0x80, 0xc0] {
            let mut flagged = one_base.clone();
            *flagged.last_mut().unwrap() |= last;
            cases.push(flagged);
            let mut flagged = one_scalar.clone();
            *flagged.last_mut().unwrap() |= last;
            cases.push(flagged);
        }
        let mut at_p = one_base.clone();
        at_p[8..40].copy_from_slice(&[0xff; 32]);
        cases.push(at_p);
        for flag in [0x40u8, 0x80] {
            let mut flipped = one_base.clone();
            *flipped.last_mut().unwrap() ^= flag;
            let path = std::env::temp_dir().join(format!("msm-cli-flag-{}-{flag}.bin", std::process::id()));
            std::fs::write(&path, &flipped).unwrap();
            let read = read_vec::<G1Affine>(&path, &BASES);
            std::fs::remove_file(&path).unwrap();
            assert!(read.is_err(), "a flipped flag bit {flag:#x} was read as a point");
            cases.push(flipped);
        }
        for bytes in cases {
            decode::<G1Affine>(&bytes, &BASES).unwrap();
            decode::<Fr>(&bytes, &SCALARS).unwrap();
        }
    }
}
