//! Criterion: the GPU MSM (bases resident, `msm_blocking`: scalars uploaded,
//! passes run, result on the host) beside arkworks' CPU MSM, per size.
//! Sizes: `MSM_BENCH_LOGN="10,12,16"` (default 2^8, 2^10, 2^12).

use ark_ec::CurveGroup;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msm_benches::{bench_logn, context, inputs, SEED};
use msm_core::cpu;

fn msm(c: &mut Criterion) {
    let sizes = bench_logn();
    let max = 1usize << sizes.iter().max().expect("at least one size");
    // One input set at the largest size, sliced: every size sees a prefix of the same data.
    let (bases, scalars) = inputs(max, SEED);
    let ctx = context();
    let mut group = c.benchmark_group("msm");
    for &logn in &sizes {
        let n = 1usize << logn;
        let (b, s) = (&bases[..n], &scalars[..n]);
        let size = format!("2^{logn}");
        group.throughput(Throughput::Elements(n as u64));
        if let Some(ctx) = &ctx {
            match ctx.plan(n, &ctx.config()) {
                Err(e) => eprintln!("msm/gpu/{size}: skipped, the default plan is invalid here: {e}"),
                Ok(_) => {
                    let resident = ctx.upload_bases_blocking(b).unwrap();
                    // Untimed first call: compiles the pipelines, allocates scratch, and
                    // proves the timed thing computes the right answer.
                    let got = ctx.msm_blocking(&resident, s).expect("GPU MSM");
                    assert_eq!(
                        got.into_affine(),
                        cpu::msm_reference(b, s).into_affine(),
                        "GPU MSM differs from arkworks at {size}"
                    );
                    group.bench_with_input(BenchmarkId::new("gpu", &size), &n, |bench, _| {
                        bench.iter(|| ctx.msm_blocking(&resident, s).expect("GPU MSM"))
                    });
                }
            }
        }
        group.bench_with_input(BenchmarkId::new("arkworks", &size), &n, |bench, _| {
            bench.iter(|| cpu::msm_reference(b, s))
        });
    }
    group.finish();
}

criterion_group!(benches, msm);
criterion_main!(benches);
