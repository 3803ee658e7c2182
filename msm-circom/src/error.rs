//! Why a key, a witness or a proof was refused.

use msm_core::MsmError;

/// Which of snarkjs's files an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A Groth16 proving key (`snarkjs groth16 setup`, `zkey contribute`).
    Zkey,
    /// A witness (`snarkjs wtns calculate`, a circuit's `generate_witness.js`).
    Wtns,
    /// A constraint system (`circom --r1cs`).
    R1cs,
}

impl FileKind {
    pub(crate) fn magic(self) -> &'static [u8; 4] {
        match self {
            FileKind::Zkey => b"zkey",
            FileKind::Wtns => b"wtns",
            FileKind::R1cs => b"r1cs",
        }
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Zkey => "zkey",
            FileKind::Wtns => "wtns",
            FileKind::R1cs => "r1cs",
        })
    }
}

/// Everything [`crate::Prover`] and the readers refuse, with what to do.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum CircomError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("not a .{kind} file: it starts with {found:?} (snarkjs's .{kind} files start with {:?})", String::from_utf8_lossy(kind.magic()))]
    Magic { kind: FileKind, found: [u8; 4] },
    #[error(".{kind} version {version} is not one snarkjs 0.7 writes")]
    Version { kind: FileKind, version: u32 },
    #[error(".{kind} file truncated: {what} needs {needed} bytes, {left} are left")]
    Truncated {
        kind: FileKind,
        what: String,
        needed: u64,
        left: u64,
    },
    #[error(".{kind} file has no section {section}")]
    MissingSection { kind: FileKind, section: u32 },
    #[error(".{kind} file malformed: {detail}")]
    Malformed { kind: FileKind, detail: String },
    #[error("the zkey is for protocol {0}, not Groth16 (snarkjs's PLONK and FFLONK keys are not supported)")]
    NotGroth16(u32),
    #[error(
        ".{kind} file is over a field of modulus {modulus}, not BN254's (snarkjs's bn128): only BN254 is supported"
    )]
    WrongCurve { kind: FileKind, modulus: String },
    #[error("zkey point {index} of {what}: {defect}")]
    InvalidPoint {
        what: &'static str,
        index: usize,
        defect: &'static str,
    },
    #[error("the witness has {witness} values and the circuit {circuit}: a witness of another circuit?")]
    WitnessLength { witness: usize, circuit: usize },
    #[error("witness value {index} is not below the scalar field's modulus r")]
    WitnessValue { index: usize },
    #[error("the zkey's domain of 2^{0} points is beyond what this prover computes (2^27 at most)")]
    DomainTooLarge(u32),
    #[error(transparent)]
    Msm(#[from] MsmError),
}
