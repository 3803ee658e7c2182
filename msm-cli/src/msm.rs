//! `msm-cli msm`: the GPU MSM of bases and scalars read from files (as written
//! by `msm-cli gen` or by arkworks), checked against arkworks.

use std::path::PathBuf;
use std::time::Instant;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use msm_core::GpuCurve;

use crate::error::CliError;
use crate::files;
use crate::knobs::{GpuArgs, KnobArgs};

#[derive(clap::Args)]
pub struct Args {
    /// Bases: arkworks uncompressed `Vec<Affine>` of the `--curve` and `--group`.
    #[arg(long)]
    bases: PathBuf,
    /// Scalars: arkworks uncompressed `Vec<Fr>` of the `--curve`, at most as many as bases.
    #[arg(long)]
    scalars: PathBuf,
    /// Write the result here as an uncompressed point of the group (default: hex of it on stdout).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Skip the check against arkworks' CPU MSM.
    #[arg(long)]
    no_check: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    knobs: KnobArgs,
}

pub fn run(args: &Args) -> Result<(), CliError> {
    crate::knobs::in_group!(args.gpu.curve()?, run_for(args))
}

fn run_for<C: GpuCurve>(args: &Args) -> Result<(), CliError> {
    // Files and knobs first: a bad input fails fast, before the device starts.
    let (bases_kind, scalars_kind) = files::kinds(C::CURVE);
    let bases: Vec<Affine<C>> = files::read_vec(&args.bases, bases_kind)?;
    let scalars: Vec<C::ScalarField> = files::read_vec(&args.scalars, scalars_kind)?;
    if bases.len() < scalars.len() {
        return Err(CliError::LengthMismatch {
            bases_path: args.bases.clone(),
            bases: bases.len(),
            scalars_path: args.scalars.clone(),
            scalars: scalars.len(),
        });
    }
    let ctx = args.gpu.context(args.knobs.overrides.clone())?;
    let config = ctx.config_for(scalars.len());
    let resident = ctx.upload_bases_blocking(&bases)?;
    eprintln!("compiling the GPU pipelines (a first-run cost: seconds on a GPU, up to a minute on a CPU adapter; cached afterwards where the driver allows)...");
    let t = Instant::now();
    let run = ctx.msm_blocking_with(&resident, &scalars, &config)?;
    let gpu_ms = t.elapsed().as_secs_f64() * 1e3;
    let result = run.result.into_affine();
    eprintln!(
        "msm of {} points on {} in {gpu_ms:.3} ms (first call: includes pipeline creation)",
        scalars.len(),
        ctx.adapter_info().name
    );
    if args.no_check {
        eprintln!("check: skipped (--no-check)");
    } else {
        let expected = Projective::<C>::msm(&bases[..scalars.len()], &scalars)
            .expect("equal lengths")
            .into_affine();
        if result != expected {
            eprintln!("check: WRONG (differs from arkworks)");
            return Err(CliError::Mismatch);
        }
        eprintln!("check: ok (= arkworks)");
    }
    match &args.out {
        Some(path) => {
            files::write(path, &result)?;
            eprintln!("wrote the result to {}", path.display());
        }
        None => {
            // labelled coordinates, then the arkworks serialization
            match (result.x(), result.y()) {
                (Some(x), Some(y)) => {
                    println!("x = {x}");
                    println!("y = {y}");
                }
                _ => println!("the identity (point at infinity)"),
            }
            println!("arkworks uncompressed (hex) = {}", files::hex(&result));
        }
    }
    Ok(())
}
