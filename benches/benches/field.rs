//! Criterion: chained Montgomery multiplications on the GPU (`mul_chain`, the
//! default field layout for the adapter), timed to the results on the host.
//! Throughput counts multiplications.

use ark_bn254::Fq;
use ark_ff::{Field, UniformRand};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msm_benches::{context, SEED};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Threads, each one dependent chain.
const INVOCATIONS: usize = 1 << 14;
/// Multiplications per chain: well under lavapipe's 65,535-iteration loop cap.
const ITERS: u32 = 256;

fn mul_chain(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    let mut rng = ChaCha20Rng::seed_from_u64(SEED);
    let a: Vec<Fq> = (0..INVOCATIONS).map(|_| Fq::rand(&mut rng)).collect();
    let b: Vec<Fq> = (0..INVOCATIONS).map(|_| Fq::rand(&mut rng)).collect();
    // Untimed first call: compiles the pipeline and checks it against arkworks.
    let got = pollster::block_on(ctx.mul_chain(&a, &b, ITERS)).expect("mul_chain");
    assert!(
        got.iter()
            .zip(a.iter().zip(&b))
            .all(|(g, (x, y))| *g == *x * y.pow([ITERS as u64])),
        "mul_chain differs from arkworks"
    );
    let mut group = c.benchmark_group("field");
    group.throughput(Throughput::Elements(INVOCATIONS as u64 * ITERS as u64));
    let id = BenchmarkId::new("mul_chain", format!("{}/{INVOCATIONS}x{ITERS}", ctx.field_layout()));
    group.bench_function(id, |bench| {
        bench.iter(|| pollster::block_on(ctx.mul_chain(&a, &b, ITERS)).expect("mul_chain"))
    });
    group.finish();
}

criterion_group!(benches, mul_chain);
criterion_main!(benches);
