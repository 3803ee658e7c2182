//! The engine a prover holds: routing by size, the CPU backend, and tuned
//! profiles (applied where the caller gave no knobs, ignored with a reason
//! when corrupt or made for another adapter).

use ark_ec::CurveGroup;
use msm_core::{
    cpu, Backend, ContextOptions, Engine, EngineOptions, GpuContext, MsmConfig, Profile, ProfileChoice, ProfileSource,
    Route,
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
    let mut profile = Profile::new(probe.adapter_info(), &layout);
    profile.crossover = Some(12345);
    profile.ranges.push(msm_core::engine::profile::ProfileRange {
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
    let timed = context(ProfileChoice::File(good), timing);
    let c = timed.config_for(2000);
    assert_eq!((c.walker_slots, c.timing), (8, true), "{c:?}");
    assert_eq!(timed.config_for(100), timed.config());

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
    let _ = std::fs::remove_dir_all(&dir);
}
