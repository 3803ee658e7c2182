//! Groth16 proofs of circom circuits over snarkjs's files, every MSM on
//! the GPU through msm-core's engines: the `.zkey` read once and its
//! queries kept resident, a `.wtns` per proof, the proof and public signals
//! written as snarkjs's JSON. The prover is snarkjs's term for term, so
//! with the same randomness its proof is snarkjs's byte for byte, and
//! `snarkjs groth16 verify` accepts it.
//!
//! ```no_run
//! use msm_circom::{Prover, ProverOptions, Witness, ZKey};
//! let prover = Prover::new(ZKey::read("circuit.zkey")?, &ProverOptions::default())?;
//! let witness = Witness::read("witness.wtns")?;
//! let (proof, _times) = prover.prove(&witness)?;
//! println!("{}", msm_circom::proof_json(&proof));
//! # Ok::<(), msm_circom::CircomError>(())
//! ```

mod binfile;
mod error;
mod field;
mod json;
mod proof;
#[cfg(not(target_arch = "wasm32"))]
mod prover;
mod qap;
mod r1cs;
mod setup;
mod write;
mod wtns;
mod zkey;

pub use error::{CircomError, FileKind};
pub use json::{proof_json, public_json};
pub use proof::{Proof, QuerySums};
#[cfg(not(target_arch = "wasm32"))]
pub use prover::{ProofTimes, Prover, ProverOptions};
pub use qap::h_scalars;
pub use r1cs::{Lc, R1cs};
pub use wtns::Witness;
pub use zkey::{KeyHead, VerifyingKey, ZKey};
