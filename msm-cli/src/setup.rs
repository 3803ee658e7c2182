//! `msm-cli setup`: a Groth16 key for a circom circuit's `.r1cs` from a
//! seed, written as snarkjs's `.zkey` — for benchmarks and tests of
//! circuits whose powers of tau snarkjs would take hours to make. Its
//! secrets follow from the seed: never prove anything real with it.

use std::path::PathBuf;
use std::time::Instant;

use msm_circom::{R1cs, ZKey};

use crate::error::CliError;
use crate::prove::circom;

#[derive(clap::Args)]
pub struct Args {
    /// The circuit's constraint system (`circom --r1cs`, BN254).
    #[arg(long)]
    r1cs: PathBuf,
    /// Write the proving key here (snarkjs's .zkey; `snarkjs zkey export
    /// verificationkey` reads its verifying key).
    #[arg(long)]
    zkey: PathBuf,
    /// The seed the key's secrets (tau, alpha, beta, gamma, delta) come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    let t = Instant::now();
    let r1cs = R1cs::read(&args.r1cs).map_err(circom(&args.r1cs))?;
    eprintln!(
        "{}: {} constraints, {} signals ({} public), a domain of 2^{}",
        args.r1cs.display(),
        r1cs.constraints.len(),
        r1cs.n_vars,
        r1cs.n_public,
        r1cs.domain_size().trailing_zeros()
    );
    eprintln!(
        "INSECURE: the key's secrets follow from --seed {}; for tests and benchmarks only",
        args.seed
    );
    let key = ZKey::insecure_setup(&r1cs, args.seed);
    key.write(&args.zkey).map_err(circom(&args.zkey))?;
    eprintln!("wrote {} in {:.1} s", args.zkey.display(), t.elapsed().as_secs_f64());
    Ok(())
}
