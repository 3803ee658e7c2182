//! One context shared by many threads: it is `Send + Sync`, and threads
//! running MSMs of mixed sizes and knob sets at once (so their plans,
//! scratch and pipelines differ and are made concurrently) all get
//! arkworks' sums, with nothing deadlocked and no pipeline compiled twice. CI runs 8 threads x 4 MSMs; the
//! full 8 x 50 is `cargo test -p msm-core --test concurrency -- --ignored`.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use ark_bn254::G1Affine;
use ark_ec::{AffineRepr, CurveGroup};
use msm_core::{cpu, Bases, FieldLayout, GpuContext, MsmConfig};

/// Compile-time: a context and its resident bases can be shared across threads.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<GpuContext>();
    shared::<Bases>();
    shared::<MsmConfig>();
};

/// Sizes up to 2^10 (plans differ by size), odd and edge sizes included.
const SIZES: [usize; 9] = [1, 2, 17, 100, 255, 256, 513, 1000, 1024];

fn knob_sets() -> Vec<MsmConfig> {
    let d = MsmConfig::default();
    [
        "",
        "walker_tpb=128,walker_slots=2",
        "window_bits=7,walker_split=buckets",
        "max_chunk_points=300,timing=true",
    ]
    .iter()
    .map(|spec| d.with_knobs(spec).unwrap())
    .collect()
}

fn threads_share_one_context(threads: usize, per_thread: usize) {
    let ctx: &'static GpuContext = common::ctx(FieldLayout::Limbs32x8)
        .or_else(|| common::ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let (mut points, scalars) = msm_core::sample::inputs(1024, 77);
    points[5] = G1Affine::zero();
    let expected: Vec<G1Affine> = SIZES
        .iter()
        .map(|&n| cpu::msm_reference(&points[..n], &scalars[..n]).into_affine())
        .collect();
    let bases: &'static Bases = Box::leak(Box::new(ctx.upload_bases_blocking(&points).unwrap()));
    let scalars: &'static [ark_bn254::Fr] = scalars.leak();
    let expected: &'static [G1Affine] = expected.leak();
    let configs: &'static [MsmConfig] = knob_sets().leak();
    let (tx, rx) = mpsc::channel();
    for t in 0..threads {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for i in 0..per_thread {
                // each thread walks sizes and knob sets in its own order
                let k = (t * 5 + i * 3) % SIZES.len();
                let config = &configs[(t + i) % configs.len()];
                let n = SIZES[k];
                let got = ctx.msm_blocking_with(bases, &scalars[..n], config);
                let ok = matches!(&got, Ok(r) if r.result.into_affine() == expected[k]);
                let _ = tx.send((t, i, n, config.describe(), got.err().map(|e| e.to_string()), ok));
            }
        });
    }
    drop(tx);
    let mut done = 0;
    while done < threads * per_thread {
        // a deadlock shows as no progress at all for minutes
        let (t, i, n, knobs, err, ok) = rx
            .recv_timeout(Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("no MSM finished for 300 s after {done}: deadlock?"));
        assert!(ok, "thread {t}, MSM {i}: n = {n}, {knobs}: {err:?} (not arkworks' sum)");
        done += 1;
    }
    // threads that met cold pipelines together waited for one compilation
    let log = ctx.compile_log();
    let distinct: std::collections::HashSet<String> = log
        .iter()
        .map(|r| format!("{}.{} {:?}", r.shader, r.entry, r.overrides))
        .collect();
    assert_eq!(distinct.len(), log.len(), "a pipeline compiled more than once");
}

#[test]
fn eight_threads_share_one_context() {
    threads_share_one_context(8, 4);
}

/// The recorded run: 8 threads x 50 MSMs (docs/hardening.md).
#[test]
#[ignore = "400 MSMs: minutes on a CPU adapter"]
fn eight_threads_by_fifty_msms() {
    threads_share_one_context(8, 50);
}
