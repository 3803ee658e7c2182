//! The engine a prover holds: routing by size, the CPU backend, and tuned
//! profiles (applied where the caller gave no knobs, ignored with a reason
//! when corrupt or made for another adapter).

use ark_ec::CurveGroup;
use msm_core::{
    cpu, Backend, ContextOptions, Curve, Engine, EngineOptions, GpuContext, MsmConfig, Profile, ProfileChoice,
    ProfileSource, Route,
};

/// Auto runs below the crossover on the CPU and above it on the GPU, in one
/// batch too; the CPU backend opens no adapter; all equal arkworks.
#[test]
fn routes_by_size_and_agrees_with_arkworks() {
    let (bases, scalars) = msm_core::sample::inputs(1000, 50);
    let want = |n: usize| cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine();
    let auto = Engine::new_blocking(&EngineOptions {
        crossover: Some(600),
        ..Default::default()
    })
    .unwrap();
    assert!(auto.gpu().is_some(), "an adapter exists here");
    assert_eq!((auto.route(599), auto.route(600)), (Route::Cpu, Route::Gpu));
    let cpu_only = Engine::new_blocking(&EngineOptions {
        backend: Backend::Cpu,
        ..Default::default()
    })
    .unwrap();
    assert!(cpu_only.gpu().is_none());
    for engine in [&auto, &cpu_only] {
        let resident = engine.upload_bases_blocking(&bases).unwrap();
        for n in [1000, 100] {
            assert_eq!(
                engine.msm_blocking(&resident, &scalars[..n]).unwrap().into_affine(),
                want(n)
            );
        }
        let batch = engine
            .msm_batch_blocking(&resident, &[&scalars[..700], &scalars[..10], &scalars])
            .unwrap();
        assert_eq!(
            batch.iter().map(|p| p.into_affine()).collect::<Vec<_>>(),
            vec![want(700), want(10), want(1000)]
        );
        let mut longer = scalars.clone();
        longer.push(scalars[0]);
        assert!(engine.msm_blocking(&resident, &longer).is_err());
    }
    assert_eq!("gpu".parse::<Backend>().unwrap(), Backend::Gpu);
    assert!("fast".parse::<Backend>().is_err());
}

fn context(profile: ProfileChoice, config: MsmConfig) -> GpuContext {
    GpuContext::new_blocking(&ContextOptions {
        profile,
        knobs: config.into(),
        ..Default::default()
    })
    .unwrap()
}

/// A profile for this adapter fills in the knobs per size range; explicit
/// knobs win; a corrupt profile and another adapter's are ignored with the
/// reason, never an error.
#[test]
fn profiles_apply_only_where_they_fit() {
    let dir = std::env::temp_dir().join(format!("msm-profile-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let probe = context(ProfileChoice::Off, MsmConfig::default());
    assert!(matches!(
        probe.profile_source(),
        ProfileSource::BuiltIn { ignored: None, .. }
    ));
    let layout = probe.field_layout().to_string();
    let mut profile = Profile::new(probe.adapter_info(), &layout, Curve::Bn254G1);
    profile.crossover = Some(12345);
    profile.ranges.push(msm_core::plan::profile::ProfileRange {
        min_logn: 10,
        max_logn: 12,
        knobs: [("walker_slots".to_string(), "8".to_string())].into(),
    });
    let good = dir.join("good.json");
    profile.save(&good).unwrap();

    let tuned = context(ProfileChoice::File(good.clone()), MsmConfig::default());
    assert_eq!(tuned.profile_source(), &ProfileSource::Tuned(good.clone()));
    assert!(tuned.profile_source().to_string().contains("tuned profile"));
    assert_eq!(tuned.config_for(2000).walker_slots, 8);
    assert_eq!(tuned.config_for(100), MsmConfig::default());
    assert_eq!(tuned.crossover(), Some(12345));

    let explicit = MsmConfig {
        walker_slots: 2,
        ..Default::default()
    };
    let mine = context(ProfileChoice::File(good.clone()), explicit.clone());
    assert_eq!(mine.config_for(2000), explicit, "explicit knobs win");
    // knob by knob: a knob given leaves the profile's other knobs alone
    let timing = MsmConfig {
        timing: true,
        ..Default::default()
    };
    let timed = context(ProfileChoice::File(good.clone()), timing);
    let c = timed.config_for(2000);
    assert_eq!((c.walker_slots, c.timing), (8, true), "{c:?}");
    assert_eq!(timed.config_for(100), timed.config());
    // compiled ahead: the profile's walker shapes that fit; a caller's
    // walker too large for the adapter is refused when it runs, never
    // compiled ahead (an invalid pipeline would fail the first call)
    assert_eq!(tuned.walker_configs(), vec![tuned.config_for(2000)]);
    let huge = MsmConfig {
        walker_tpb: 1 << 16,
        ..Default::default()
    };
    assert!(context(ProfileChoice::File(good.clone()), huge)
        .walker_configs()
        .is_empty());

    let corrupt = dir.join("corrupt.json");
    std::fs::write(&corrupt, "{ not json").unwrap();
    let mut other = profile.clone();
    other.adapter = "Some Other GPU".into();
    let foreign = dir.join("foreign.json");
    other.save(&foreign).unwrap();
    let mut bad_knob = profile.clone();
    bad_knob.ranges[0].knobs.insert("walker_slots".into(), "many".into());
    let bad = dir.join("bad.json");
    bad_knob.save(&bad).unwrap();
    for (path, why) in [(corrupt, "corrupt.json"), (foreign, "Some Other GPU"), (bad, "many")] {
        let ctx = context(ProfileChoice::File(path), MsmConfig::default());
        match ctx.profile_source() {
            ProfileSource::BuiltIn {
                ignored: Some(reason), ..
            } => assert!(reason.contains(why), "{reason}"),
            other => panic!("{why}: expected the profile to be ignored, got {other:?}"),
        }
        assert_eq!(ctx.config_for(2000), MsmConfig::default());
    }
    // a file written before profiles named their group is BN254 G1's
    let mut unnamed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    unnamed.as_object_mut().unwrap().remove("curve");
    let old = dir.join("old.json");
    std::fs::write(&old, unnamed.to_string()).unwrap();
    let ctx = context(ProfileChoice::File(old), MsmConfig::default());
    assert!(matches!(ctx.profile_source(), ProfileSource::Tuned(_)));
    assert_eq!(ctx.crossover(), Some(12345));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each group has its own profile and crossover: BN254 G1's profile is
/// refused by a BLS12-381 G1 context (naming the group), BLS12-381 G1's
/// own applies there and sets the engine's crossover, and the default file
/// names differ by group.
#[test]
fn profiles_and_crossovers_are_per_group() {
    let dir = std::env::temp_dir().join(format!("msm-profile-group-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let options = |profile: ProfileChoice| ContextOptions {
        curve: Curve::Bls12_381G1,
        profile,
        ..Default::default()
    };
    let probe = GpuContext::new_blocking(&options(ProfileChoice::Off)).unwrap();
    let (info, layout) = (probe.adapter_info(), probe.field_layout().to_string());
    let paths: Vec<_> = Curve::ALL
        .iter()
        .map(|&c| Profile::default_path(info, &layout, c))
        .collect();
    for (k, p) in paths.iter().enumerate() {
        assert!(paths[..k].iter().all(|q| q != p), "{p:?} named twice");
    }
    let mut theirs = Profile::new(info, &layout, Curve::Bn254G1);
    theirs.crossover = Some(777);
    let mut ours = Profile::new(info, &layout, Curve::Bls12_381G1);
    ours.crossover = Some(333);
    ours.ranges.push(msm_core::plan::profile::ProfileRange {
        min_logn: 10,
        max_logn: 12,
        knobs: [("walker_slots".to_string(), "2".to_string())].into(),
    });
    let (theirs_path, ours_path) = (dir.join("bn254.json"), dir.join("bls12-381.json"));
    theirs.save(&theirs_path).unwrap();
    ours.save(&ours_path).unwrap();

    let refused = GpuContext::new_blocking(&options(ProfileChoice::File(theirs_path))).unwrap();
    match refused.profile_source() {
        ProfileSource::BuiltIn {
            ignored: Some(reason), ..
        } => assert!(
            reason.contains("curve group") && reason.contains("bls12-381"),
            "{reason}"
        ),
        other => panic!("expected BN254 G1's profile to be ignored, got {other:?}"),
    }
    assert_eq!(refused.crossover(), probe.crossover(), "the built-in one");
    let engine = Engine::new_blocking(&EngineOptions {
        context: options(ProfileChoice::File(ours_path)),
        ..Default::default()
    })
    .unwrap();
    let gpu = engine.gpu().unwrap();
    assert!(matches!(gpu.profile_source(), ProfileSource::Tuned(_)));
    assert_eq!(gpu.config_for(2000).walker_slots, 2);
    assert_eq!(engine.crossover(), Some(333));
    assert_eq!((engine.route(332), engine.route(333)), (Route::Cpu, Route::Gpu));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The engine checks subgroup membership where it holds the points: on the
/// GPU for GPU bases, with arkworks for host-only ones; foreign GPU-only
/// bases are refused.
#[test]
fn the_engine_checks_subgroup_membership_where_the_points_are() {
    type Bls = ark_bls12_381::g1::Config;
    let (mut points, _) = msm_core::sample::inputs_of::<Bls>(64, 3);
    let good = points.clone();
    points[21] = msm_core::sample::outside_subgroup::<Bls>(1, 4)[0];
    let context = ContextOptions {
        curve: Curve::Bls12_381G1,
        ..Default::default()
    };
    let gpu = Engine::new_blocking(&EngineOptions {
        backend: Backend::Gpu,
        context,
        ..Default::default()
    })
    .unwrap();
    let cpu_only = Engine::new_blocking(&EngineOptions {
        backend: Backend::Cpu,
        ..Default::default()
    })
    .unwrap();
    for engine in [&gpu, &cpu_only] {
        let bad = engine.upload_bases_blocking(&points).unwrap();
        match pollster::block_on(engine.check_subgroup(&bad)) {
            Err(msm_core::MsmError::InvalidBase {
                index: 21,
                defect: msm_core::BaseDefect::NotInSubgroup,
            }) => {}
            other => panic!("{:?}: {other:?}", engine.backend()),
        }
        pollster::block_on(engine.check_subgroup(&engine.upload_bases_blocking(&good).unwrap())).unwrap();
    }
    let gpu_only = gpu.upload_bases_blocking(&good).unwrap();
    let got = pollster::block_on(cpu_only.check_subgroup(&gpu_only));
    assert!(matches!(got, Err(msm_core::MsmError::ForeignBases)), "{got:?}");
}

/// With a warm-up, Auto runs on the CPU every MSM whose pipelines are not
/// compiled yet (the first call waits on no compile: it compiles nothing),
/// and after `warm_up` on the GPU without compiling; all equal arkworks.
#[test]
fn the_warm_up_keeps_calls_off_compiles() {
    let (bases, scalars) = msm_core::sample::inputs(512, 70);
    let want = cpu::msm_reference(&bases, &scalars).into_affine();
    Engine::hold_warm_ups_for_test(true);
    let engine = Engine::new_blocking(&EngineOptions {
        crossover: Some(256),
        warm_up: Some(true),
        max_points: Some(512),
        ..Default::default()
    });
    let engine = engine.inspect_err(|_| Engine::hold_warm_ups_for_test(false)).unwrap();
    let gpu = engine.gpu().unwrap();
    let resident = engine.upload_bases_blocking(&bases).unwrap();
    let (route, ready, progress) = (engine.route(512), engine.is_ready(), engine.warm_up_progress());
    let early = engine.msm_blocking(&resident, &scalars).map(|p| p.into_affine());
    let compiled_early = gpu.compile_log().len();
    Engine::hold_warm_ups_for_test(false);
    assert_eq!((route, ready, progress), (Route::Cpu, false, Some((0, 2))));
    assert_eq!(engine.placement(512), Route::Gpu, "the bases went to the GPU");
    assert_eq!(early.unwrap(), want);
    assert_eq!(compiled_early, 0, "the call before the warm-up compiled nothing");
    assert!(!gpu.is_warm(&gpu.config_for(512), 512));

    pollster::block_on(engine.warm_up()).unwrap();
    assert!(engine.is_ready());
    assert!(gpu.is_warm(&gpu.config_for(512), 512));
    // what the browser package's warm-up compiles first: the bytes kernels
    assert!(!gpu.bases_are_warm());
    pollster::block_on(gpu.warm_up_bases()).unwrap();
    assert!(gpu.bases_are_warm());
    assert_eq!(engine.warm_up_progress(), Some((2, 2)));
    assert_eq!(engine.route(512), Route::Gpu);
    let compiled = gpu.compile_log().len();
    assert!(compiled > 0);
    for n in [512, 300] {
        let got = engine.msm_blocking(&resident, &scalars[..n]).unwrap().into_affine();
        assert_eq!(
            got,
            cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine(),
            "n = {n}"
        );
    }
    assert_eq!(
        gpu.compile_log().len(),
        compiled,
        "calls after the warm-up compiled nothing"
    );
    assert_eq!(engine.fallback_reason(), None);
}

/// A size routes to the GPU once its plain plan is compiled: the table's
/// kernel and plan, which the warm-up compiles after every size's plan,
/// do not hold it on the CPU.
#[test]
fn a_size_routes_to_the_gpu_before_its_tables_kernels() {
    Engine::hold_warm_ups_for_test(true);
    let engine = Engine::new_blocking(&EngineOptions {
        crossover: Some(256),
        warm_up: Some(true),
        max_points: Some(512),
        context: ContextOptions {
            knobs: MsmConfig {
                table_after: 2,
                ..MsmConfig::default()
            }
            .into(),
            ..Default::default()
        },
        ..Default::default()
    });
    let engine = engine.inspect_err(|_| Engine::hold_warm_ups_for_test(false)).unwrap();
    let gpu = engine.gpu().unwrap();
    let config = gpu.config_for(512);
    let before = engine.route(512);
    let plain = MsmConfig {
        table_after: 0,
        ..config.clone()
    };
    let compiled = pollster::block_on(gpu.warm_up(&plain, 512));
    let (route, warm) = (engine.route(512), gpu.is_warm(&config, 512));
    Engine::hold_warm_ups_for_test(false);
    compiled.unwrap();
    assert_eq!(config.table_after, 2);
    assert_eq!((before, route, warm), (Route::Cpu, Route::Gpu, false));
    pollster::block_on(engine.warm_up()).unwrap();
    assert!(gpu.is_warm(&config, 512));
}

/// While the warm-up has not compiled the GPU's subgroup test, Auto checks
/// a base set on the CPU (the caller waits on no compile); once warm, on
/// the GPU without compiling. Both name the same point.
#[test]
fn the_subgroup_check_waits_on_no_compile() {
    type Bls = ark_bls12_381::g1::Config;
    let (mut points, _) = msm_core::sample::inputs_of::<Bls>(64, 5);
    points[37] = msm_core::sample::outside_subgroup::<Bls>(1, 6)[0];
    let refused = |got: Result<(), msm_core::MsmError>| {
        matches!(
            got,
            Err(msm_core::MsmError::InvalidBase {
                index: 37,
                defect: msm_core::BaseDefect::NotInSubgroup,
            })
        )
    };
    Engine::hold_warm_ups_for_test(true);
    let engine = Engine::new_blocking(&EngineOptions {
        crossover: Some(32),
        warm_up: Some(true),
        max_points: Some(64),
        context: ContextOptions {
            curve: Curve::Bls12_381G1,
            ..Default::default()
        },
        ..Default::default()
    });
    let engine = engine.inspect_err(|_| Engine::hold_warm_ups_for_test(false)).unwrap();
    let gpu = engine.gpu().unwrap();
    let bases = engine.upload_bases_blocking(&points).unwrap();
    let early = pollster::block_on(engine.check_subgroup(&bases));
    let compiled_early = gpu.compile_log().len();
    Engine::hold_warm_ups_for_test(false);
    assert!(refused(early), "the check before the warm-up");
    assert_eq!(compiled_early, 0, "the check before the warm-up compiled nothing");

    pollster::block_on(engine.warm_up()).unwrap();
    let compiled = gpu.compile_log();
    assert!(
        compiled.iter().any(|r| r.shader == "subgroup"),
        "the warm-up compiled the test"
    );
    let late = pollster::block_on(engine.check_subgroup(&bases));
    assert!(refused(late), "the check after it");
    assert_eq!(
        gpu.compile_log().len(),
        compiled.len(),
        "the check after it compiled nothing"
    );
}
