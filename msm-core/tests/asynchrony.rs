//! Waiting for the GPU never blocks the caller's thread, and never forever:
//! an MSM awaited on a one-thread tokio runtime leaves that thread to the
//! runtime's other tasks, and a wait longer than the context's timeout
//! fails with a typed error, after which the context still works.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ark_ec::CurveGroup;
use common::ctx;
use msm_core::{cpu, ContextOptions, FieldLayout, GpuContext, MsmError};

#[test]
fn an_msm_leaves_a_tokio_runtime_free() {
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let (points, scalars) = msm_core::sample::inputs(1 << 12, 31);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    // the pipelines compile first, off this test's clock
    assert_eq!(ctx.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ticks = Arc::new(AtomicU32::new(0));
    let (got, elapsed) = rt.block_on(async {
        let t = ticks.clone();
        // on the same (only) thread as the MSM's future
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
                t.fetch_add(1, Ordering::Relaxed);
            }
        });
        tokio::task::yield_now().await;
        let start = Instant::now();
        let got = ctx.msm(&bases, &scalars).await;
        let elapsed = start.elapsed();
        ticker.abort();
        (got, elapsed)
    });
    assert_eq!(got.unwrap().into_affine(), want);
    let ticks = ticks.load(Ordering::Relaxed);
    // A future that blocked its thread would let the ticker run only after
    // it returned: no ticks at all. Allow for coarse timers.
    let possible = elapsed.as_millis() as u32;
    assert!(
        ticks >= possible / 10 && ticks > 0,
        "{ticks} ticks of 1 ms while the MSM took {elapsed:?}"
    );
}

/// A software adapter compiles at a pipeline's first dispatch, inside the
/// wait for the GPU (a cold BN254 G2 MSM on lavapipe passed 300 s): its
/// default wait has the compile timeout on top.
#[test]
fn the_default_wait_covers_a_software_adapters_compiles() {
    let ctx = GpuContext::new_blocking(&ContextOptions::default()).unwrap();
    let gpu = Duration::from_secs(300);
    let want = if ctx.is_software() {
        gpu + Duration::from_secs(900)
    } else {
        gpu
    };
    assert_eq!(ctx.gpu_timeout(), want);
}

#[test]
fn a_wait_past_the_timeout_fails_and_the_context_goes_on() {
    let mut ctx = GpuContext::new_blocking(&ContextOptions {
        field_layout: Some(FieldLayout::Limbs13x20),
        gpu_timeout: Some(Duration::from_micros(1)),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(ctx.gpu_timeout(), Duration::from_micros(1));
    let (points, scalars) = msm_core::sample::inputs(1 << 12, 32);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    match ctx.msm_blocking(&bases, &scalars) {
        Err(MsmError::Timeout { what, after }) => {
            assert_eq!(after, Duration::from_micros(1));
            assert!(what.contains("readback"), "{what}");
        }
        other => panic!("expected a timeout: {other:?}"),
    }
    ctx.set_gpu_timeout(Duration::from_secs(300));
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    assert_eq!(ctx.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
}

/// A call whose pipelines are compiled waits on no compile of other ones
/// running beside it (an engine's warm-up compiling its next size class).
#[test]
fn a_warm_call_waits_on_no_other_compile() {
    let ctx = Arc::new(GpuContext::new_blocking(&ContextOptions::default()).unwrap());
    let (points, scalars) = msm_core::sample::inputs(512, 71);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    pollster::block_on(ctx.warm_up(&ctx.config_for(512), 512)).unwrap();
    let other = 1 << 16;
    assert!(
        !ctx.is_warm(&ctx.config_for(other), other),
        "another size, other pipelines"
    );
    let background = {
        let ctx = ctx.clone();
        std::thread::spawn(move || pollster::block_on(ctx.warm_up(&ctx.config_for(other), other)))
    };
    let t = Instant::now();
    while !ctx.is_compiling() && !background.is_finished() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the background compile never started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let got = ctx.msm_blocking(&bases, &scalars);
    let compiling_after = ctx.is_compiling();
    background.join().unwrap().unwrap();
    assert_eq!(got.unwrap().into_affine(), want);
    assert!(
        compiling_after,
        "the warm call returned while the other compile still ran"
    );
}
