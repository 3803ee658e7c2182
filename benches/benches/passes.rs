//! Criterion: per-pass cost of the GPU MSM. Each bench runs the first k passes
//! (preprocess; + stream_walker; + walker_combine; + reduce) and waits for the
//! GPU on the host; a pass's cost is the difference between consecutive
//! prefixes. Sizes: `MSM_BENCH_LOGN` (default 2^8, 2^10, 2^12).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msm_benches::{bench_logn, context, inputs, SEED};
use msm_core::Pass;

fn passes(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    let sizes = bench_logn();
    let max = 1usize << sizes.iter().max().expect("at least one size");
    let (bases, scalars) = inputs(max, SEED);
    let mut group = c.benchmark_group("passes");
    for &logn in &sizes {
        let n = 1usize << logn;
        let config = ctx.config().clone();
        if let Err(e) = ctx.plan(n, &config) {
            eprintln!("passes/2^{logn}: skipped, the default plan is invalid here: {e}");
            continue;
        }
        let resident = ctx.upload_bases_blocking(&bases[..n]).unwrap();
        let s = &scalars[..n];
        group.throughput(Throughput::Elements(n as u64));
        for k in 1..=Pass::ALL.len() {
            // untimed first call compiles the pipelines
            pollster::block_on(ctx.run_pass_prefix(&resident, s, &config, k)).expect("passes");
            let id = BenchmarkId::new(format!("through_{}", Pass::ALL[k - 1].name()), format!("2^{logn}"));
            group.bench_function(id, |b| {
                b.iter(|| pollster::block_on(ctx.run_pass_prefix(&resident, s, &config, k)).expect("passes"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, passes);
criterion_main!(benches);
