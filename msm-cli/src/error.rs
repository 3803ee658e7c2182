//! The CLI's error: the core's errors plus what can go wrong with the files the
//! user hands in, each naming the file so the message says what to fix.

use std::path::{Path, PathBuf};

use msm_core::MsmError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Msm(#[from] MsmError),
    /// A file that could not be read, written or parsed; `what` says why.
    #[error("{}: {what}", path.display())]
    File { path: PathBuf, what: String },
    #[error(
        "{} holds {scalars} scalars for the {bases} bases of {}: at most one scalar per base \
         (a shorter scalar file uses the first bases)",
        scalars_path.display(),
        bases_path.display()
    )]
    LengthMismatch {
        bases_path: PathBuf,
        bases: usize,
        scalars_path: PathBuf,
        scalars: usize,
    },
    #[error("the GPU result differs from arkworks' MSM of the same inputs")]
    Mismatch,
    #[error("{0} variant(s) failed while running (see their rows)")]
    VariantsFailed(usize),
    #[error("soak: {mismatches} result(s) differ from arkworks and {errors} run(s) failed (see FAILED lines)")]
    SoakFailed { mismatches: u64, errors: u64 },
    #[error("no variant can run at this size on this adapter (see the reasons above)")]
    NothingRan,
    #[error("selftest: {0} case(s) failed on this adapter (see the FAIL lines)")]
    SelfTestFailed(usize),
}

impl CliError {
    pub fn file(path: &Path, what: impl Into<String>) -> Self {
        CliError::File {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}
