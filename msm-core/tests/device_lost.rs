//! Device loss and out-of-memory: a context whose device is destroyed (as a
//! driver reset or a removed GPU loses it) ends the MSM in flight and every
//! later call in `MsmError::DeviceLost` without hanging, says it is lost,
//! and a new context works; an MSM or a base set the device cannot hold is
//! a typed error with the sizes, before anything is allocated.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use ark_ec::CurveGroup;
use msm_core::{cpu, Bases, ContextOptions, GpuContext, MsmConfig, MsmError};

/// Runs `f` on its own thread; a result later than `secs` fails the test
/// (a hang must not stall the suite).
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what} did not return within {secs} s"))
}

fn new_context() -> Arc<GpuContext> {
    Arc::new(GpuContext::new_blocking(&ContextOptions::default()).expect("GPU context"))
}

#[test]
fn lost_device_fails_every_call_and_a_new_context_works() {
    let ctx = new_context();
    let (points, scalars) = msm_core::sample::inputs(1024, 21);
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let bases = Arc::new(ctx.upload_bases_blocking(&points).unwrap());
    assert_eq!(ctx.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
    assert!(!ctx.is_lost());

    // A worker runs MSMs until one fails; the device goes while one is in flight.
    let (started, running) = mpsc::channel();
    let worker = {
        let (ctx, bases, scalars) = (ctx.clone(), bases.clone(), scalars.clone());
        std::thread::spawn(move || {
            let mut done = 0usize;
            loop {
                let _ = started.send(());
                match ctx.msm_blocking(&bases, &scalars) {
                    Ok(r) => assert_eq!(r.into_affine(), want, "a result before the loss is exact"),
                    Err(e) => return (e, done),
                }
                done += 1;
            }
        })
    };
    running.recv().unwrap();
    std::thread::sleep(Duration::from_millis(30));
    ctx.destroy_device_for_test();
    let (err, done) = within(120, "the MSM in flight", move || worker.join().unwrap());
    assert!(
        matches!(err, MsmError::DeviceLost(_)),
        "in flight after {done} MSMs: {err:?}"
    );
    assert!(ctx.is_lost(), "the device-lost callback marks the context");

    // Every later call fails the same way, promptly.
    let c = ctx.clone();
    let s = scalars.clone();
    let later = within(60, "an MSM after the loss", move || c.msm_blocking(&bases, &s));
    assert!(matches!(later, Err(MsmError::DeviceLost(_))), "{later:?}");
    let c = ctx.clone();
    let p = points[..8].to_vec();
    let upload = within(60, "an upload after the loss", move || {
        let checked = c.upload_bases_blocking(&p).map(|_| ());
        // the unchecked upload does not panic; its bases fail at the MSM
        let unchecked: Bases = c.upload_bases_in_parts(&p, usize::MAX);
        (
            checked,
            c.msm_blocking(&unchecked, &[ark_bn254::Fr::from(1u64)]).map(|_| ()),
        )
    });
    assert!(matches!(upload.0, Err(MsmError::DeviceLost(_))), "{:?}", upload.0);
    assert!(matches!(upload.1, Err(MsmError::DeviceLost(_))), "{:?}", upload.1);

    // A new context on the same adapter works.
    let fresh = new_context();
    assert!(!fresh.is_lost());
    let b = fresh.upload_bases_blocking(&points).unwrap();
    assert_eq!(fresh.msm_blocking(&b, &scalars).unwrap().into_affine(), want);
}

/// One results slot per chunk must fit one buffer: chunks of one point past
/// that are refused with the sizes before any GPU object is made; and a base
/// set larger than the device's memory is refused before its upload.
#[test]
fn out_of_memory_is_typed_and_checked_before_allocation() {
    let ctx = new_context();
    let one = ctx.upload_bases_blocking(&msm_core::sample::inputs(1, 1).0).unwrap();
    let per_chunk = MsmConfig {
        max_chunk_points: Some(1),
        ..Default::default()
    };
    let stride = ctx.msm_memory(&one, 1, &per_chunk).unwrap().result_bytes;
    let max_buffer = ctx.limits().max_buffer_size;
    let n = (max_buffer / stride + 1) as usize;
    if n <= 1 << 18 {
        let (points, scalars) = msm_core::sample::inputs(n, 2);
        let bases = ctx.upload_bases_blocking(&points).unwrap();
        let before = ctx.created_objects();
        match ctx.msm_blocking_with(&bases, &scalars, &per_chunk) {
            Err(MsmError::OutOfMemory {
                needed,
                available: Some(a),
                ..
            }) => assert!(a == max_buffer && needed > a, "{needed} > {a}"),
            other => panic!("{n} one-point chunks: {other:?}"),
        }
        assert_eq!(ctx.created_objects(), before, "refused before allocating");
        // one chunk fewer fits: the check is not off by one
        let fits = ctx.msm_memory(&bases, n - 1, &per_chunk).unwrap();
        assert!(fits.result_bytes <= max_buffer);
    } else {
        eprintln!("max_buffer_size {max_buffer}: {n} one-point chunks would take too long here; skipped");
    }
    match ctx.device_memory() {
        Some(memory) => {
            let n = (memory / msm_core::BASE_BYTES + 1) as usize;
            match ctx.check_bases_fit(n) {
                Err(MsmError::OutOfMemory {
                    needed,
                    available: Some(a),
                    ..
                }) => assert!(a == memory && needed > memory),
                other => panic!("{n} bases on {memory} bytes: {other:?}"),
            }
            ctx.check_bases_fit(1000).unwrap();
        }
        None => eprintln!("the backend does not say how much memory the device has: no check before upload"),
    }
}
