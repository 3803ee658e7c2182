//! `msm-cli gen`: seeded MSM inputs written to files, for `msm-cli msm` and for
//! any other arkworks program to run the same MSM.

use std::path::PathBuf;

use msm_core::MsmError;

use crate::error::CliError;
use crate::files;

#[derive(clap::Args)]
pub struct Args {
    /// log2 of the number of points.
    #[arg(long)]
    logn: u32,
    /// Seed of the inputs (the same seed as `bench --seed` gives the same inputs).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory for bases.bin and scalars.bin (created if missing).
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    if args.logn > 26 {
        return Err(MsmError::invalid_config("--logn", format!("{}: at most 26", args.logn)).into());
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::file(&args.out, format!("cannot create the directory: {e}")))?;
    let n = 1usize << args.logn;
    let (bases, scalars) = crate::inputs::generate(n, args.seed, args.logn >= 18);
    let bases_path = args.out.join("bases.bin");
    let scalars_path = args.out.join("scalars.bin");
    files::write(&bases_path, &bases)?;
    files::write(&scalars_path, &scalars)?;
    eprintln!(
        "wrote {n} bases to {} and {n} scalars to {} (seed {})",
        bases_path.display(),
        scalars_path.display(),
        args.seed
    );
    Ok(())
}
