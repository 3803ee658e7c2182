//! Criterion: the GPU MSM (bases resident, `msm_blocking`: scalars uploaded,
//! passes run, result on the host) beside arkworks' CPU MSM, per size, for
//! BN254's G1 (group `msm`), BLS12-381's (group `msm-bls12-381`) and, when
//! `MSM_BENCH_GROUPS` names them, the G2s (`msm-bn254-g2`,
//! `msm-bls12-381-g2`: minutes of pipeline compilation on a CPU adapter).
//! Sizes: `MSM_BENCH_LOGN="10,12,16"` (default 2^8, 2^10, 2^12); groups:
//! `MSM_BENCH_GROUPS="bn254,bls12-381,bn254-g2,bls12-381-g2"` (default the
//! two G1s).

use ark_ec::short_weierstrass::Projective;
use ark_ec::{CurveGroup, VariableBaseMSM};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msm_benches::{bench_logn, context_for, SEED};
use msm_core::{Bls12_381, Bn254, Curve, GpuCurve};

/// The group `name`: every size on the GPU (where the default plan is
/// valid) and with arkworks.
fn msm_of<C: GpuCurve>(c: &mut Criterion, name: &str) {
    let sizes = bench_logn();
    let max = 1usize << sizes.iter().max().expect("at least one size");
    // One input set at the largest size, sliced: every size sees a prefix of the same data.
    let (bases, scalars) = msm_core::sample::inputs_of::<C>(max, SEED);
    let reference = |n: usize| Projective::<C>::msm(&bases[..n], &scalars[..n]).expect("equal lengths");
    let ctx = context_for(C::CURVE);
    let mut group = c.benchmark_group(name);
    for &logn in &sizes {
        let n = 1usize << logn;
        let (b, s) = (&bases[..n], &scalars[..n]);
        let size = format!("2^{logn}");
        group.throughput(Throughput::Elements(n as u64));
        if let Some(ctx) = &ctx {
            match ctx.plan(n, &ctx.config()) {
                Err(e) => eprintln!("{name}/gpu/{size}: skipped, the default plan is invalid here: {e}"),
                Ok(_) => {
                    let resident = ctx.upload_bases_blocking(b).unwrap();
                    // Untimed first call: compiles the pipelines, allocates scratch, and
                    // proves the timed thing computes the right answer.
                    let got = ctx.msm_blocking(&resident, s).expect("GPU MSM");
                    assert_eq!(
                        got.into_affine(),
                        reference(n).into_affine(),
                        "GPU MSM differs from arkworks at {size}"
                    );
                    group.bench_with_input(BenchmarkId::new("gpu", &size), &n, |bench, _| {
                        bench.iter(|| ctx.msm_blocking(&resident, s).expect("GPU MSM"))
                    });
                }
            }
        }
        group.bench_with_input(BenchmarkId::new("arkworks", &size), &n, |bench, _| {
            bench.iter(|| reference(n))
        });
    }
    group.finish();
}

fn msm(c: &mut Criterion) {
    let groups = std::env::var("MSM_BENCH_GROUPS").unwrap_or_else(|_| "bn254,bls12-381".into());
    for name in groups.split(',').map(str::trim).filter(|g| !g.is_empty()) {
        match Curve::from_name(name) {
            Some(Curve::Bn254G1) => msm_of::<Bn254>(c, "msm"),
            Some(Curve::Bls12_381G1) => msm_of::<Bls12_381>(c, "msm-bls12-381"),
            Some(Curve::Bn254G2) => msm_of::<ark_bn254::g2::Config>(c, "msm-bn254-g2"),
            Some(Curve::Bls12_381G2) => msm_of::<ark_bls12_381::g2::Config>(c, "msm-bls12-381-g2"),
            None => panic!("MSM_BENCH_GROUPS: unknown group {name:?} (bn254, bls12-381, bn254-g2, bls12-381-g2)"),
        }
    }
}

criterion_group!(benches, msm);
criterion_main!(benches);
