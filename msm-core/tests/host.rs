//! The host path: nothing created on a warm call, plans kept for several
//! sizes, and scalars taken as they come (arkworks' Montgomery limbs, or
//! canonical words) with the same result.

mod common;

use ark_ec::CurveGroup;
use common::{ctx, ctx_with};
use msm_core::{cpu, FieldLayout, GpuContext, Inversion, MsmConfig, Scalars};

fn fastest_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}

/// After a first call per plan, further calls with those plans (timed or
/// not, alternating between two sizes) create no buffer, bind group, query
/// set or pipeline.
#[test]
fn warm_calls_create_nothing() {
    // a context of its own: the object counts are per context
    let layout = fastest_ctx().field_layout();
    let ctx = ctx_with(layout, Some(Inversion::Fermat)).unwrap();
    let (bases, scalars) = msm_core::sample::inputs(1500, 30);
    let resident = ctx.upload_bases_blocking(&bases).unwrap();
    let timed = MsmConfig {
        timing: true,
        ..Default::default()
    };
    let sizes = [1500, 700];
    let run = |n: usize, c: &MsmConfig| {
        let r = pollster::block_on(ctx.msm_with(&resident, &scalars[..n], c)).unwrap();
        assert_eq!(
            r.result.into_affine(),
            cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine()
        );
    };
    for n in sizes {
        run(n, &MsmConfig::default());
        run(n, &timed);
    }
    let before = ctx.created_objects();
    for _ in 0..2 {
        for n in sizes {
            run(n, &MsmConfig::default());
            run(n, &timed);
        }
    }
    assert_eq!(ctx.created_objects(), before, "a warm call created GPU objects");
}

/// Montgomery limbs (the `Fr` path) and canonical words give the same sum,
/// on random scalars and the adversarial classes (0, r - 1, equal scalars).
#[test]
fn scalar_forms_agree() {
    let ctx = fastest_ctx();
    let mut cases = msm_core::sample::adversarial(200, 31);
    cases.push((
        "random",
        msm_core::sample::inputs(999, 32).0,
        msm_core::sample::inputs(999, 33).1,
    ));
    for (what, bases, scalars) in cases {
        let resident = ctx.upload_bases_blocking(&bases).unwrap();
        let want = cpu::msm_reference(&bases, &scalars).into_affine();
        let words: Vec<ark_ff::BigInt<4>> = scalars.iter().map(|s| ark_ff::PrimeField::into_bigint(*s)).collect();
        let config = MsmConfig::default();
        let mont = pollster::block_on(ctx.msm_with(&resident, &scalars, &config)).unwrap();
        let canon = pollster::block_on(ctx.msm_scalars_with(&resident, Scalars::Canonical(&words), &config)).unwrap();
        assert_eq!(mont.result.into_affine(), want, "{what}: Montgomery limbs");
        assert_eq!(canon.result.into_affine(), want, "{what}: canonical words");
    }
}

/// A scalar vector shorter than the resident bases uses their first points
/// (with no re-upload, and also across base parts); a longer one is an error
/// naming both lengths.
#[test]
fn prefix_msms_use_the_first_bases() {
    let ctx = fastest_ctx();
    let (bases, scalars) = msm_core::sample::inputs(1200, 34);
    for resident in [
        ctx.upload_bases_blocking(&bases).unwrap(),
        ctx.upload_bases_in_parts(&bases, 500),
    ] {
        for n in [1usize, 499, 500, 501, 1199] {
            let run = pollster::block_on(ctx.msm_with(&resident, &scalars[..n], &MsmConfig::default())).unwrap();
            assert_eq!(
                run.result.into_affine(),
                cpu::msm_reference(&bases[..n], &scalars[..n]).into_affine(),
                "prefix of {n} ({} parts)",
                resident.parts()
            );
        }
        let mut longer = scalars.clone();
        longer.push(scalars[0]);
        let e = pollster::block_on(ctx.msm(&resident, &longer)).unwrap_err().to_string();
        assert!(e.contains("1201 scalars for 1200 bases"), "{e}");
    }
}

/// reduce's last step on the GPU (the default) and on the host
/// (`host_windows_max`) give arkworks' answer, on adversarial inputs, with
/// several groups a row (short segments) and over a table; the plan says
/// which ran.
#[test]
fn windows_step_on_host_and_gpu_agree() {
    let ctx = fastest_ctx();
    let host = MsmConfig {
        host_windows_max: 4096,
        ..Default::default()
    };
    let short = MsmConfig {
        reduce_segment: Some(1),
        window_bits: Some(12),
        ..host.clone()
    };
    // the classes that stress the last step: identities, cancellations, one
    // bucket holding nearly everything, nothing at all (the full set runs in
    // msm.rs and table.rs)
    let classes = [
        "identity bases",
        "P and -P, random scalars",
        "scalars r - 1",
        "all-equal scalars",
        "zero scalars",
    ];
    let mut seen = 0;
    for (what, bases, scalars) in msm_core::sample::adversarial(700, 31) {
        if !classes.contains(&what) {
            continue;
        }
        seen += 1;
        let mut resident = ctx.upload_bases_blocking(&bases).unwrap();
        let want = cpu::msm_reference(&bases, &scalars).into_affine();
        for table in [false, true] {
            if table {
                ctx.build_table_blocking(&mut resident, Some(8)).unwrap();
            }
            for (name, config, host) in [
                ("default", MsmConfig::default(), false),
                ("host", host.clone(), true),
                ("short segments", short.clone(), true),
            ] {
                let run = ctx.msm_blocking_with(&resident, &scalars, &config).unwrap();
                let plan = run.plan.unwrap();
                assert_eq!(plan.host_windows, host, "{what} {name} table {table}");
                if name == "short segments" && !table {
                    assert!(
                        msm_core::passes::reduce::groups_per_window(&plan) > 1,
                        "{what}: several groups a row"
                    );
                }
                assert_eq!(run.result.into_affine(), want, "{what} {name} table {table}");
            }
        }
    }
    assert_eq!(seen, classes.len(), "every chosen class ran");
}
