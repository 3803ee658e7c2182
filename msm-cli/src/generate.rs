//! `msm-cli gen`: seeded MSM inputs written to files, for `msm-cli msm` and for
//! any other arkworks program to run the same MSM.

use std::path::PathBuf;

use msm_core::{GpuCurve, MsmError};

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
    /// Curve: bn254 or bls12-381.
    #[arg(long, default_value = "bn254")]
    curve: String,
    /// Group of the curve: g1 or g2.
    #[arg(long, default_value = "g1")]
    group: String,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    if args.logn > 26 {
        return Err(MsmError::invalid_config("--logn", format!("{}: at most 26", args.logn)).into());
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::file(&args.out, format!("cannot create the directory: {e}")))?;
    let curve = crate::knobs::curve_group(&args.curve, &args.group)?;
    let n = 1usize << args.logn;
    let bases_path = args.out.join("bases.bin");
    let scalars_path = args.out.join("scalars.bin");
    crate::knobs::in_group!(curve, write_inputs(args, &bases_path, &scalars_path))?;
    eprintln!(
        "wrote {n} {curve} bases to {} and {n} scalars to {} (seed {})",
        bases_path.display(),
        scalars_path.display(),
        args.seed
    );
    Ok(())
}

/// The seeded inputs of the group `C`, written to the two files.
fn write_inputs<C: GpuCurve>(args: &Args, bases: &std::path::Path, scalars: &std::path::Path) -> Result<(), CliError> {
    let (b, s) = crate::inputs::generate_of::<C>(1usize << args.logn, args.seed, args.logn >= 18);
    files::write(bases, &b)?;
    files::write(scalars, &s)
}
