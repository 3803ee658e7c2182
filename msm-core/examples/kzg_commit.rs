//! KZG commitments on the GPU over one resident SRS: blobs of 4096
//! coefficients (an Ethereum blob's size) on BLS12-381 (or BN254), committed
//! as one batch and one by one, beside arkworks' MSM of each. Every
//! commitment is checked twice: against arkworks, and against p(tau) G.
//!
//!     cargo run --release -p msm-core --example kzg_commit [-- --curve bn254 --blobs 16 --reps 5]

use std::error::Error;
use std::time::Instant;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{Field, UniformRand};
use clap::Parser;
use msm_core::{Bls12_381, Bn254, ContextOptions, Curve, GpuContext, GpuCurve};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

#[derive(Parser)]
struct Args {
    /// bls12-381 or bn254.
    #[arg(long, default_value = "bls12-381")]
    curve: String,
    /// Coefficients of each polynomial (the SRS's length).
    #[arg(long, default_value_t = 4096)]
    coefficients: usize,
    /// Polynomials committed together.
    #[arg(long, default_value_t = 16)]
    blobs: usize,
    /// Timed repetitions (medians are printed).
    #[arg(long, default_value_t = 5)]
    reps: usize,
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in main, before any thread starts.
    unsafe { msm_core::headless::skip_display_probe() };
    let args = Args::parse();
    match Curve::from_name(&args.curve).ok_or("--curve: expected bls12-381 or bn254")? {
        Curve::Bn254G1 => run::<Bn254>(&args),
        Curve::Bls12_381G1 => run::<Bls12_381>(&args),
        _ => Err("--curve: expected bls12-381 or bn254 (KZG commits in G1)".into()),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Milliseconds of each of `reps` calls of `f`.
fn timed(reps: usize, mut f: impl FnMut() -> Result<(), Box<dyn Error>>) -> Result<f64, Box<dyn Error>> {
    let mut ms = Vec::new();
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        f()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(ms))
}

fn run<C: GpuCurve>(args: &Args) -> Result<(), Box<dyn Error>> {
    let (n, k) = (args.coefficients, args.blobs.max(1));
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    // A toy SRS: powers of a secret tau times the generator (a real SRS comes
    // from a ceremony; only its shape matters here).
    let tau = C::ScalarField::rand(&mut rng);
    let g = Projective::<C>::generator();
    let srs: Vec<Projective<C>> = (0..n).into_par_iter().map(|i| g * tau.pow([i as u64])).collect();
    let srs: Vec<Affine<C>> = Projective::<C>::normalize_batch(&srs);
    let blobs: Vec<Vec<C::ScalarField>> = (0..k)
        .map(|_| (0..n).map(|_| C::ScalarField::rand(&mut rng)).collect())
        .collect();
    let views: Vec<&[C::ScalarField]> = blobs.iter().map(|b| b.as_slice()).collect();

    let ctx = GpuContext::new_blocking(&ContextOptions {
        curve: C::CURVE,
        ..Default::default()
    })?;
    println!(
        "{} G1, {k} polynomials of {n} coefficients; adapter {} ({:?}), field layout {}",
        C::CURVE,
        ctx.adapter_info().name,
        ctx.adapter_info().backend,
        ctx.field_layout()
    );
    let t = Instant::now();
    let resident = ctx.upload_bases_blocking(&srs)?;
    println!("SRS uploaded once: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let commitments = ctx.msm_batch_blocking(&resident, &views)?;
    println!(
        "first batch (compiles the pipelines): {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let reference: Vec<Projective<C>> = views.iter().map(|b| Projective::<C>::msm(&srs, b).unwrap()).collect();
    for ((c, want), blob) in commitments.iter().zip(&reference).zip(&blobs) {
        // p(tau) by Horner: the commitment is p(tau) G
        let p_tau = blob
            .iter()
            .rev()
            .fold(C::ScalarField::from(0u64), |acc, c| acc * tau + c);
        assert_eq!(
            c.into_affine(),
            want.into_affine(),
            "a commitment differs from arkworks"
        );
        assert_eq!(
            c.into_affine(),
            (g * p_tau).into_affine(),
            "a commitment is not p(tau) G"
        );
    }
    println!("all {k} commitments equal arkworks' and p(tau) G");

    let check = |got: &[Projective<C>]| -> Result<(), Box<dyn Error>> {
        (got == reference.as_slice())
            .then_some(())
            .ok_or("a commitment differs from arkworks".into())
    };
    let batch = timed(args.reps, || check(&ctx.msm_batch_blocking(&resident, &views)?))?;
    let singles = timed(args.reps, || {
        let got: Result<Vec<_>, _> = views.iter().map(|b| ctx.msm_blocking(&resident, b)).collect();
        check(&got?)
    })?;
    let arkworks = timed(args.reps, || {
        let got: Vec<_> = views.iter().map(|b| Projective::<C>::msm(&srs, b).unwrap()).collect();
        check(&got)
    })?;
    let per = |ms: f64| ms / k as f64;
    println!(
        "warm medians over {} repetitions, {k} commitments each:",
        args.reps.max(1)
    );
    println!(
        "  GPU, one batch       {batch:9.2} ms  ({:.3} ms a commitment)",
        per(batch)
    );
    println!(
        "  GPU, one by one      {singles:9.2} ms  ({:.3} ms a commitment)",
        per(singles)
    );
    println!(
        "  arkworks ({} threads) {arkworks:9.2} ms  ({:.3} ms a commitment); the batch is {:.1}x arkworks",
        rayon::current_num_threads(),
        per(arkworks),
        arkworks / batch
    );
    Ok(())
}
