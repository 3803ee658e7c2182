//! Memory on one context: the planned scratch bytes are what the context
//! really allocates, and over many MSMs after a warm-up the context makes no
//! new GPU object, holds the same live memory, wgpu's allocator reserves no
//! more, and the process's resident memory stays flat. One context for both
//! (its pipelines compile once); CI runs 60 MSMs, the recorded 1,000 are
//! `cargo test -p msm-core --test memory -- --ignored`.

use ark_ec::CurveGroup;
use msm_core::{cpu, ContextOptions, GpuContext, MsmConfig};

/// Resident set size of this process in bytes (Linux; 0 elsewhere).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn reserved(ctx: &GpuContext) -> Option<u64> {
    ctx.device().generate_allocator_report().map(|r| r.total_reserved_bytes)
}

/// A context of its own: counts and memory are per context.
fn own_context() -> GpuContext {
    GpuContext::new_blocking(&ContextOptions::default()).expect("GPU context")
}

fn many_msms_hold_memory_flat(ctx: &GpuContext, count: usize) {
    let (points, scalars) = msm_core::sample::inputs(1024, 3);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    // three sizes x two plans each (timing changes no plan): the six plans
    // the context caches; more would evict and remake scratch by design
    let sizes = [1usize, 100, 777];
    let expected: Vec<_> = sizes
        .iter()
        .map(|&n| cpu::msm_reference(&points[..n], &scalars[..n]).into_affine())
        .collect();
    let configs: Vec<MsmConfig> = ["", "timing=true", "window_bits=9,walker_split=buckets"]
        .iter()
        .map(|s| MsmConfig::default().with_knobs(s).unwrap())
        .collect();
    let run = |i: usize| {
        let k = i % sizes.len();
        let config = &configs[(i / sizes.len()) % configs.len()];
        let got = ctx.msm_blocking_with(&bases, &scalars[..sizes[k]], config).unwrap();
        assert_eq!(got.result.into_affine(), expected[k], "MSM {i}: {}", config.describe());
    };
    let warm_up = 2 * sizes.len() * configs.len();
    for i in 0..warm_up {
        run(i);
    }
    let (objects, live, gpu, rss) = (ctx.created_objects(), ctx.live_memory(), reserved(ctx), rss_bytes());
    for i in warm_up..warm_up + count {
        run(i);
    }
    assert_eq!(ctx.created_objects(), objects, "GPU objects made after the warm-up");
    assert_eq!(ctx.live_memory(), live, "live GPU memory changed");
    assert_eq!(reserved(ctx), gpu, "wgpu's allocator reserves more");
    let grown = rss_bytes().saturating_sub(rss);
    eprintln!(
        "{count} MSMs: rss {} -> {} MiB, live GPU memory {} KiB, allocator reserved {:?} MiB",
        rss >> 20,
        rss_bytes() >> 20,
        live.bytes() >> 10,
        gpu.map(|b| b >> 20)
    );
    // allocator noise; a leak of one small buffer per call would show
    assert!(
        grown < 16 << 20,
        "resident memory grew {} KiB over {count} MSMs",
        grown >> 10
    );
}

#[test]
fn planned_bytes_are_allocated_and_memory_stays_flat() {
    let ctx = own_context();
    planned_bytes_are_allocated_bytes(&ctx);
    many_msms_hold_memory_flat(&ctx, 60);
}

/// The recorded run (docs/hardening.md).
#[test]
#[ignore = "1,000 MSMs: minutes on a CPU adapter"]
fn thousand_msms_hold_memory_flat() {
    many_msms_hold_memory_flat(&own_context(), 1000);
}

/// `passes::scratch_bytes` (what the docs' memory table and the checks before
/// allocation use) equals what the context allocates for a new plan, and
/// `live_memory` counts bases, scratch and results as they come and go.
fn planned_bytes_are_allocated_bytes(ctx: &GpuContext) {
    let (points, scalars) = msm_core::sample::inputs(3000, 4);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let live = ctx.live_memory();
    assert_eq!((live.base_sets, live.base_bytes), (1, 3000 * msm_core::BASE_BYTES));
    for (n, knobs) in [
        (3000, ""),
        (1, ""),
        (700, "window_bits=5,walker_slots=3"),
        (2048, "max_chunk_points=1000"),
        // four chained chunks (their plan's chained twin) and a lone one
        (2047, "max_chunk_points=500"),
    ] {
        let config = MsmConfig::default().with_knobs(knobs).unwrap();
        let need = ctx.msm_memory(&bases, n, &config).unwrap();
        let before = ctx.created_objects().buffer_bytes;
        let live_before = ctx.live_memory();
        let run = ctx.msm_blocking_with(&bases, &scalars[..n], &config).unwrap();
        assert_eq!(run.result, cpu::msm_reference(&points[..n], &scalars[..n]));
        let made = ctx.created_objects().buffer_bytes - before;
        let live = ctx.live_memory();
        // pooled buffers are made only when none in the pool is large enough
        let results = live.result_bytes - live_before.result_bytes;
        let staging = live.staging_bytes - live_before.staging_bytes;
        assert_eq!(
            made - results - staging,
            need.scratch_bytes,
            "n = {n} {knobs}: planned vs allocated scratch"
        );
        assert!(
            results == 0 || results == need.result_bytes,
            "n = {n}: results {results} vs {need:?}"
        );
        assert!(
            staging == 0 || staging >= need.staging_bytes,
            "n = {n}: staging {staging} vs {need:?}"
        );
    }
    drop(bases);
    let live = ctx.live_memory();
    assert_eq!((live.base_sets, live.base_bytes), (0, 0));
    assert!(live.scratch_plans > 0 && live.scratch_bytes > 0 && live.result_bytes > 0);
}

/// Peak GPU memory of one MSM of 2^k resident points (bases, the scratch of
/// its chunk plans, results and upload staging) from the plans alone, on the
/// bounds of lavapipe and of the H200; `--nocapture` prints the table that
/// docs/hardening.md quotes. 2^26 points on the H200's 2 GiB bindings are
/// two base parts of 2^25 in chunks of one plan.
#[test]
fn peak_gpu_memory_per_logn() {
    use msm_core::plan::AdapterBounds;
    use msm_core::{base_part_points, msm_memory_on, Inversion};
    let lavapipe = (
        AdapterBounds {
            curve: msm_core::Curve::Bn254G1,
            max_workgroup_size_x: 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_storage: 32 << 10,
            max_binding_size: 128 << 20,
            loop_capped: true,
            inversion_loops: Inversion::Fermat.max_loop_iterations(),
            // the default mixed code: row loops beside a straight-line walker
            mul_loops: 4,
            walker_mul_loops: 0,
            field_int64: true,
        },
        (1u64 << 31) - 1,
    );
    let h200 = (
        AdapterBounds {
            curve: msm_core::Curve::Bn254G1,
            max_workgroup_size_x: 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_storage: 48 << 10,
            max_binding_size: (1 << 31) - 1,
            loop_capped: false,
            inversion_loops: Inversion::Safegcd64.max_loop_iterations(),
            mul_loops: 4,
            walker_mul_loops: 4,
            field_int64: true,
        },
        4u64 << 30,
    );
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!("| logn | adapter | base parts | chunks | bases MiB | scratch MiB | results + staging MiB | peak MiB |");
    for logn in (10..=26).step_by(2) {
        let n = 1usize << logn;
        for (name, (bounds, max_buffer)) in [("lavapipe", lavapipe), ("H200", h200)] {
            let part = base_part_points(32, bounds.max_binding_size, max_buffer);
            let parts: Vec<(usize, usize)> = (0..n).step_by(part).map(|s| (s, part.min(n - s))).collect();
            let m = msm_memory_on(&bounds, &parts, n, &MsmConfig::default()).unwrap();
            let bases = parts
                .iter()
                .map(|&(_, len)| msm_core::BaseSet::bytes_for(len))
                .sum::<u64>();
            println!(
                "| {logn} | {name} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
                parts.len(),
                m.chunks,
                mib(bases),
                mib(m.scratch_bytes),
                mib(m.result_bytes + m.staging_bytes),
                mib(bases + m.bytes())
            );
            if name == "H200" && logn == 26 {
                assert_eq!(parts.len(), 2, "2^26 points pass one 2 GiB binding: two parts");
                assert!(m.chunks >= 2 && m.chunks.is_multiple_of(2), "{m:?}");
                assert!(bases + m.bytes() < 100 << 30, "fits the H200's 141 GB");
            }
        }
    }
}
