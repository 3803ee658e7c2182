//! Answers right or refused, never a hang or a panic: concurrent first
//! calls where one waiter gives up, compiles that outlast their timeout, an
//! engine handed another engine's GPU bases, a device lost just before a
//! call writes its upload memory, a refused table rebuild and a batch
//! larger than the device (each test fails on the code before its fix).

use std::sync::mpsc;
use std::time::Duration;

use ark_ec::CurveGroup;
use msm_core::{
    cpu, Backend, BaseFormat, Bn254, ContextOptions, Engine, EngineOptions, GpuContext, HostBytes, MsmConfig, MsmError,
};

/// Runs `f` on its own thread; a result later than `secs` fails the test.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what} did not return within {secs} s"))
}

fn fresh() -> GpuContext {
    GpuContext::new_blocking(&ContextOptions::default()).expect("GPU context")
}

/// Three first MSMs on a fresh context, each its own task; the second gives
/// up after 10 ms while the first compiles. The third still completes (the
/// lock's one wake-up went to the dropped waiter before).
#[test]
fn a_waiter_that_gives_up_does_not_strand_the_next() {
    let ctx: &'static GpuContext = Box::leak(Box::new(fresh()));
    let (points, scalars) = msm_core::sample::inputs(256, 3);
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let bases: &'static msm_core::Bases = Box::leak(Box::new(ctx.upload_bases_blocking(&points).unwrap()));
    let scalars: &'static [ark_bn254::Fr] = scalars.leak();
    let results = within(300, "three first MSMs", move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let first = tokio::task::spawn_local(ctx.msm(bases, scalars));
            let second =
                tokio::task::spawn_local(tokio::time::timeout(Duration::from_millis(10), ctx.msm(bases, scalars)));
            let third = tokio::task::spawn_local(ctx.msm(bases, scalars));
            (first.await.unwrap(), second.await.unwrap(), third.await.unwrap())
        })
    });
    assert_eq!(results.0.unwrap().into_affine(), want);
    if let Ok(r) = results.1 {
        assert_eq!(r.unwrap().into_affine(), want, "the second finished within 10 ms");
    }
    assert_eq!(results.2.unwrap().into_affine(), want);
}

/// A compile that outlasts the context's compile timeout fails the call
/// with a typed timeout, for the bases kernel and the MSM's passes alike.
#[test]
fn compiles_past_their_timeout_fail() {
    let ctx = GpuContext::new_blocking(&ContextOptions {
        compile_timeout: Some(Duration::from_micros(1)),
        ..Default::default()
    })
    .unwrap();
    let (points, scalars) = msm_core::sample::inputs(64, 4);
    let bytes: Vec<u8> = points
        .iter()
        .flat_map(|p| cpu::bases::encode_point(p, BaseFormat::Arkworks))
        .collect();
    let is_compile_timeout = |e: &MsmError| matches!(e, MsmError::Timeout { what, .. } if what.contains("compil"));
    let ctx = std::sync::Arc::new(ctx);
    let c = ctx.clone();
    let up = within(300, "an upload", move || {
        c.upload_bases_bytes_blocking::<Bn254>(HostBytes::slice(&bytes), BaseFormat::Arkworks)
            .map(|_| ())
    });
    let e = up.expect_err("the bases kernel compiled within 1 us");
    assert!(is_compile_timeout(&e), "{e:?}");
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let e = ctx
        .msm_blocking(&bases, &scalars)
        .expect_err("the passes compiled within 1 us");
    assert!(is_compile_timeout(&e), "{e:?}");
}

/// Bases a GPU engine holds only on its GPU are foreign to an engine
/// without that GPU: refused, not a panic.
#[test]
fn another_engines_gpu_bases_are_foreign() {
    let gpu = Engine::new_blocking(&EngineOptions {
        backend: Backend::Gpu,
        ..Default::default()
    })
    .unwrap();
    let cpu_engine = Engine::new_blocking(&EngineOptions {
        backend: Backend::Cpu,
        ..Default::default()
    })
    .unwrap();
    let auto = Engine::new_blocking(&EngineOptions {
        crossover: Some(1),
        ..Default::default()
    })
    .unwrap();
    let (points, scalars) = msm_core::sample::inputs(64, 5);
    let mut bases = gpu.upload_bases_blocking(&points).unwrap();
    for engine in [&cpu_engine, &auto] {
        let got = engine.msm_blocking(&bases, &scalars);
        assert!(matches!(got, Err(MsmError::ForeignBases)), "{got:?}");
        let got = engine.msm_batch_blocking(&bases, &[&scalars, &scalars[..7]]);
        assert!(matches!(got, Err(MsmError::ForeignBases)), "{got:?}");
    }
    let got = cpu_engine.build_table_blocking(&mut bases, Some(8));
    assert!(matches!(got, Err(MsmError::ForeignBases)), "{got:?}");
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    assert_eq!(gpu.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
}

/// A device destroyed right before a call (its lost callback not yet run,
/// so the call's own check passes) fails the call with `DeviceLost`.
#[test]
fn a_device_lost_before_the_upload_write_is_typed() {
    for host_reduce in [false, true] {
        let ctx = fresh();
        let (points, scalars) = msm_core::sample::inputs(512, 6);
        let bases = ctx.upload_bases_blocking(&points).unwrap();
        let config = MsmConfig {
            reduce: if host_reduce {
                msm_core::ReduceOn::Host
            } else {
                msm_core::ReduceOn::Gpu
            },
            ..ctx.config_for(512)
        };
        ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
        ctx.destroy_device_for_test();
        let got = within(120, "an MSM on a destroyed device", move || {
            ctx.msm_blocking_with(&bases, &scalars, &config).map(|r| r.result)
        });
        assert!(
            matches!(got, Err(MsmError::DeviceLost(_))),
            "host reduce {host_reduce}: {got:?}"
        );
    }
}

/// A table rebuild the device memory cannot hold is refused and the old
/// table stays (its MSMs still exact).
#[test]
fn a_refused_table_rebuild_keeps_the_table() {
    let mut ctx = fresh();
    let (points, scalars) = msm_core::sample::inputs(64, 7);
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let mut bases = ctx.upload_bases_blocking(&points).unwrap();
    ctx.build_table_blocking(&mut bases, Some(8)).unwrap();
    let resident = ctx.live_memory().base_bytes;
    ctx.set_device_memory_for_test(Some(resident + 1024));
    let got = ctx.build_table_blocking(&mut bases, Some(2));
    assert!(matches!(got, Err(MsmError::OutOfMemory { .. })), "{got:?}");
    assert_eq!(bases.table_bits(), Some(8), "the refused rebuild dropped the table");
    ctx.set_device_memory_for_test(None);
    assert_eq!(ctx.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
    ctx.build_table_blocking(&mut bases, Some(2)).unwrap();
    assert_eq!(bases.table_bits(), Some(2));
    assert_eq!(ctx.msm_blocking(&bases, &scalars).unwrap().into_affine(), want);
}

/// `table_after` builds a table only where it fits half the device's
/// memory beside the resident sets (or the device does not say): past that
/// the calls run over the plain bases, exact, until it fits.
#[test]
fn a_table_past_half_the_memory_is_not_built() {
    let mut ctx = fresh();
    let n = 1024;
    let (points, scalars) = msm_core::sample::inputs(n, 9);
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let config = MsmConfig {
        table_after: 1,
        ..MsmConfig::default()
    };
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let c = msm_core::auto_table_bits(n, msm_core::Curve::Bn254G1);
    let table = msm_core::table_bytes(n, c, msm_core::Curve::Bn254G1);
    let resident = ctx.live_memory().base_bytes;
    let scratch = ctx.msm_memory(&bases, n, &config).unwrap().bytes();
    // the plain MSM fits, the table does not fit half
    let memory = resident + scratch;
    assert!(memory / 2 < resident + table, "{resident} {scratch} {table}");
    ctx.set_device_memory_for_test(Some(memory));
    for _ in 0..2 {
        let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
        assert_eq!((bases.table_bits(), run.result.into_affine()), (None, want));
    }
    ctx.set_device_memory_for_test(None);
    let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
    assert_eq!((bases.table_bits(), run.result.into_affine()), (Some(c), want));
}

/// Where `table_after` builds a table, the warm-up compiles the table's
/// kernel and the plan over it beside the plain plan: the call that builds
/// the table compiles nothing, and `is_warm` waits for all of them.
#[test]
fn the_warm_up_compiles_what_the_table_call_runs() {
    let ctx = fresh();
    let n = 300;
    let (points, scalars) = msm_core::sample::inputs(n, 10);
    let config = MsmConfig {
        table_after: 2,
        ..MsmConfig::default()
    };
    let plain = MsmConfig::default();
    pollster::block_on(ctx.warm_up(&plain, n)).unwrap();
    assert!(ctx.is_warm(&plain, n) && !ctx.is_warm(&config, n));
    pollster::block_on(ctx.warm_up(&config, n)).unwrap();
    assert!(ctx.is_warm(&config, n));
    let compiled = ctx.compile_log().len();
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    for call in 1..=3 {
        let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
        assert_eq!(run.result.into_affine(), want, "call {call}");
    }
    assert!(bases.table_bits().is_some());
    assert_eq!(ctx.compile_log().len(), compiled, "a call compiled a pipeline");
}

/// While a background warm-up runs, the call `table_after` names neither
/// compiles the table's pipelines nor waits for them: it and the calls
/// after it run plain until they are compiled, and the next call builds.
#[test]
fn a_table_build_waits_for_the_background_warm_up() {
    let ctx = fresh();
    let n = 300;
    let (points, scalars) = msm_core::sample::inputs(n, 11);
    let config = MsmConfig {
        table_after: 2,
        ..MsmConfig::default()
    };
    pollster::block_on(ctx.warm_up(&MsmConfig::default(), n)).unwrap();
    assert!(!ctx.is_warm(&config, n));
    let compiled = ctx.compile_log().len();
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let background = ctx.background_warm_up();
    for call in 1..=3 {
        let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
        assert_eq!(run.result.into_affine(), want, "call {call}");
    }
    assert_eq!(
        bases.table_bits(),
        None,
        "built before the warm-up compiled its pipelines"
    );
    assert_eq!(ctx.compile_log().len(), compiled, "a call compiled a pipeline");
    pollster::block_on(ctx.warm_up(&config, n)).unwrap();
    let compiled = ctx.compile_log().len();
    let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
    assert_eq!(run.result.into_affine(), want, "the building call");
    assert!(bases.table_bits().is_some());
    assert_eq!(
        ctx.compile_log().len(),
        compiled,
        "the building call compiled a pipeline"
    );
    drop(background);
}

/// A batch of vectors run one by one needs the memory of all of them: one
/// vector that fits does not let a batch of two through.
#[test]
fn a_batch_is_checked_with_every_vector() {
    let mut ctx = fresh();
    let (points, scalars) = msm_core::sample::inputs(256, 8);
    let bases = ctx.upload_bases_blocking(&points).unwrap();
    let config = ctx.config_for(256);
    let one = ctx.msm_memory(&bases, 256, &config).unwrap().bytes();
    let resident = ctx.live_memory().base_bytes;
    ctx.set_device_memory_for_test(Some(resident + one + one / 4));
    let want = cpu::msm_reference(&points, &scalars).into_affine();
    let single = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
    assert_eq!(single.result.into_affine(), want);
    let before = ctx.created_objects();
    let vectors = [msm_core::Scalars::Fr(&scalars), msm_core::Scalars::Fr(&scalars[..255])];
    let got = ctx.msm_batch_blocking_with(&bases, &vectors, &config);
    match got {
        Err(MsmError::OutOfMemory { what, .. }) => assert!(what.contains("batch of 2"), "{what}"),
        other => panic!("a batch of two past the memory: {:?}", other.map(|r| r.results)),
    }
    assert_eq!(ctx.created_objects(), before, "refused before allocating");
    ctx.set_device_memory_for_test(None);
    let run = ctx.msm_batch_blocking_with(&bases, &vectors, &config).unwrap();
    let want_short = cpu::msm_reference(&points[..255], &scalars[..255]).into_affine();
    assert_eq!(run.results[0].into_affine(), want);
    assert_eq!(run.results[1].into_affine(), want_short);
}
