//! A KZG-style commitment on the GPU: commit to a polynomial's coefficients
//! over a resident SRS [tau^i] G, several times against the same bases, and
//! check each commitment against arkworks.
//!
//!     cargo run --release -p msm-core --example kzg_commit

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::UniformRand;
use msm_core::{cpu, ContextOptions, GpuContext, MsmError};

fn main() -> Result<(), MsmError> {
    // SAFETY: first thing in main, before any thread starts.
    unsafe { msm_core::headless::skip_display_probe() };
    let degree = 1 << 12;
    let mut rng = ark_std::test_rng();
    // A toy SRS: powers of a secret tau times the generator (a real SRS comes
    // from a ceremony; only its shape matters here).
    let tau = Fr::rand(&mut rng);
    let g = G1Projective::generator();
    let mut power = Fr::from(1u64);
    let srs: Vec<G1Projective> = (0..degree)
        .map(|_| {
            let p = g * power;
            power *= tau;
            p
        })
        .collect();
    let srs: Vec<G1Affine> = G1Projective::normalize_batch(&srs);

    let ctx = GpuContext::new_blocking(&ContextOptions::default())?;
    println!(
        "adapter: {} ({:?}), field layout {}",
        ctx.adapter_info().name,
        ctx.adapter_info().backend,
        ctx.field_layout()
    );
    let resident = ctx.upload_bases_blocking(&srs)?;
    for round in 0..3 {
        let coefficients: Vec<Fr> = (0..degree).map(|_| Fr::rand(&mut rng)).collect();
        let commitment = ctx.msm_blocking(&resident, &coefficients)?.into_affine();
        // The commitment is p(tau) G: check it two ways.
        let p_tau = coefficients.iter().rev().fold(Fr::from(0u64), |acc, c| acc * tau + c);
        assert_eq!(commitment, (g * p_tau).into_affine(), "commitment != p(tau) G");
        assert_eq!(commitment, cpu::msm_reference(&srs, &coefficients).into_affine());
        println!(
            "round {round}: commitment to a degree-{} polynomial matches arkworks",
            degree - 1
        );
    }
    Ok(())
}
