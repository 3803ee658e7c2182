//! The planner's tests: defaults, budgets, knob errors.

use super::*;

/// A small adapter's bounds (lavapipe's: 256 invocations, 32 KiB of
/// workgroup memory, 128 MiB a binding) without a loop cap.
pub(crate) fn bounds() -> AdapterBounds {
    AdapterBounds {
        max_workgroup_size_x: 256,
        max_invocations_per_workgroup: 256,
        max_workgroup_storage: 32768,
        max_binding_size: 128 << 20,
        loop_capped: false,
        inversion_loops: 78,
        mul_loops: 0,
        walker_mul_loops: 0,
        field_int64: true,
        curve: Curve::Bn254G1,
    }
}

impl AdapterBounds {
    /// A large discrete GPU's bounds (an H200's limits, no loop cap, BN254 G1
    /// in the 64-bit layout) for tests to vary.
    pub(crate) fn discrete_for_tests() -> Self {
        AdapterBounds {
            curve: Curve::Bn254G1,
            max_workgroup_size_x: 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_storage: 49152,
            max_binding_size: 1 << 31,
            loop_capped: false,
            inversion_loops: 600,
            mul_loops: 0,
            walker_mul_loops: 0,
            field_int64: true,
        }
    }
}

/// Wide coordinates halve the defaults' walker until its tree fits
/// (lavapipe's 32 KiB); G1's defaults stay as they are.
#[test]
fn walker_threads_fit_wide_coordinates() {
    let mut g1 = MsmConfig::default();
    g1.fit_walker_threads(&bounds());
    assert_eq!(g1, MsmConfig::default());
    // BN254 G2's 64-byte tree at 256 threads just fits 32 KiB; BLS12-381
    // G2's 96-byte one needs 128 threads
    for (curve, tpb) in [(Curve::Bn254G2, 256), (Curve::Bls12_381G2, 128)] {
        let b = AdapterBounds { curve, ..bounds() };
        let mut c = MsmConfig::default();
        assert_eq!(c.check_walker_fits(&b).is_err(), tpb < 256, "{curve}");
        c.fit_walker_threads(&b);
        assert_eq!(c.walker_tpb, tpb, "{curve}");
        c.check_walker_fits(&b).unwrap();
    }
}

#[test]
fn defaults_plan() {
    let p = MsmConfig::default().plan(1 << 16, &bounds()).unwrap();
    assert_eq!((p.c, p.windows, p.buckets), (15, 17, 16384));
    assert_eq!(p.tasks, p.threads * MsmConfig::default().walker_slots);
    assert!(p.windows * p.c >= 255);
}

/// The automatic plan respects the loop budget at every size; only knobs
/// the caller set can make it fail.
#[test]
fn automatic_plans_fit_the_loop_budget() {
    let capped = AdapterBounds {
        loop_capped: true,
        max_binding_size: u64::MAX,
        ..bounds()
    };
    for inversion_loops in [78, 1024] {
        let b = AdapterBounds {
            inversion_loops,
            ..capped
        };
        for split in [TaskSplit::Equal, TaskSplit::Buckets] {
            let cfg = MsmConfig {
                walker_split: split,
                ..Default::default()
            };
            for log in 0..=24 {
                let p = cfg.plan(1 << log, &b).unwrap_or_else(|e| panic!("2^{log}: {e}"));
                assert!(p.max_task_len() <= b.walker_max_steps(&cfg, p.total_buckets()), "2^{log}");
            }
        }
    }
}

#[test]
fn rejects_bad_knobs_with_reasons() {
    let b = bounds();
    let err = |c: MsmConfig| c.plan(1000, &b).unwrap_err().to_string();
    assert!(err(MsmConfig {
        walker_slots: 0,
        ..Default::default()
    })
    .contains("walker_slots"));
    assert!(err(MsmConfig {
        walker_tpb: 512,
        ..Default::default()
    })
    .contains("1..=256"));
    assert!(err(MsmConfig {
        window_bits: Some(1),
        ..Default::default()
    })
    .contains("window_bits"));
    let wg = MsmConfig {
        walker_pref_mem: PrefMem::Workgroup,
        walker_tpb: 256,
        walker_slots: 8,
        ..Default::default()
    };
    assert!(err(wg).contains("workgroup memory"));
    let capped = AdapterBounds { loop_capped: true, ..b };
    let e = MsmConfig {
        walker_threads: Some(1),
        ..Default::default()
    }
    .plan(1 << 14, &capped)
    .unwrap_err();
    assert!(e.to_string().contains("65,535") && e.to_string().contains("walker_threads"));
}

/// Where the host folds each row's group sums, reduce's segments are not
/// capped by the `windows` kernel's workgroup: a table's one row of 2^19
/// buckets takes the 8-bucket segments asked for; on the GPU they stay at
/// WG x 256 segments a row.
#[test]
fn host_windows_lift_the_segment_cap() {
    let b = AdapterBounds::discrete_for_tests();
    let cfg = |host_windows_max| MsmConfig {
        reduce_segment: Some(8),
        host_windows_max,
        ..Default::default()
    };
    let p = cfg(4096).plan_with_table(1 << 20, 1, Some(20), &b).unwrap();
    assert!(p.host_windows);
    assert_eq!((p.buckets, p.segments), (1 << 19, 1 << 16));
    let p = cfg(0).plan_with_table(1 << 20, 1, Some(20), &b).unwrap();
    assert!(!p.host_windows);
    assert_eq!(p.segments, geometry::REDUCE_WG * geometry::REDUCE_WIN_WG_MAX);
}

#[test]
fn scatter_rounds_cover_the_buckets() {
    let bounds = AdapterBounds::discrete_for_tests();
    let cfg = |scatter_buckets| MsmConfig {
        window_bits: Some(16),
        scatter_buckets,
        ..Default::default()
    };
    // 16 rows of 2^15 buckets
    let all = cfg(0).plan(1 << 20, &bounds).unwrap();
    assert_eq!((all.scatter_span, all.scatter_rounds()), (1 << 19, 1));
    let four = cfg(1 << 17).plan(1 << 20, &bounds).unwrap();
    assert_eq!((four.scatter_span, four.scatter_rounds()), (1 << 17, 4));
    let odd = cfg(100_000).plan(1 << 20, &bounds).unwrap();
    assert_eq!(odd.scatter_rounds(), 6);
    let past = cfg(u32::MAX).plan(1 << 20, &bounds).unwrap();
    assert_eq!((past.scatter_span, past.scatter_rounds()), (1 << 19, 1));
    assert_eq!(scatter_span(0, 0, 0), 1);
    // one bucket a round: as many rounds as fit one dispatch
    let one = cfg(1).plan(1 << 24, &bounds).unwrap();
    let groups = (1u64 << 24) / 64 * one.scatter_rounds() as u64;
    assert!(one.scatter_span > 1 && groups <= 65_535 * 65_535, "{one:?}");
}
