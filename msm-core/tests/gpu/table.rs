//! Tables of shifted bases (`shaders/table.wgsl`): the GPU's table equals
//! its CPU twin in every layout and across part splits; MSMs over a table
//! equal arkworks on every adversarial class, for prefixes, over tables in
//! parts, in joint batches, with canonical scalars and the host reduce; the
//! knobs that set the table aside are honoured.

use crate::common;

use ark_bn254::{Fq, Fr, G1Affine};
use ark_ec::{AffineRepr, CurveGroup};
use common::ctx;
use msm_core::repr::{FieldRepr, Words};
use msm_core::{cpu, FieldLayout, GpuContext, MsmConfig, MsmError, ReduceOn, Scalars};

fn fastest_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap()
}

fn points(n: usize, seed: u64) -> Vec<G1Affine> {
    let (mut pts, _) = msm_core::sample::inputs(n, seed);
    for i in (0..n).step_by(7) {
        pts[i] = G1Affine::zero();
    }
    pts[3] = -pts[1];
    pts
}

/// The table read back, window by window, each window in the bases' order
/// (`None` for a flagged identity).
fn table_points(ctx: &GpuContext, bases: &msm_core::Bases) -> Vec<Vec<Option<G1Affine>>> {
    let repr = FieldRepr::new(ctx.field_layout());
    let windows = msm_core::table_windows(bases.table_bits().unwrap(), bases.curve()) as usize;
    let mut out = vec![Vec::new(); windows];
    let coord = |w: &[u32]| -> Fq {
        repr.from_gpu(&Words::try_from(w).unwrap())
            .expect("a canonical coordinate")
    };
    for part in pollster::block_on(ctx.read_table(bases)).unwrap() {
        let len = part.flags.len();
        for (j, window) in out.iter_mut().enumerate() {
            for i in 0..len {
                let at = (j * len + i) * 8;
                window.push(
                    (part.flags[i] == 0)
                        .then(|| G1Affine::new_unchecked(coord(&part.x[at..at + 8]), coord(&part.y[at..at + 8]))),
                );
            }
        }
    }
    out
}

#[test]
fn table_equals_its_twin() {
    common::fast_lavapipe_compile();
    let pts = points(300, 51);
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        for (c, part) in [(5, usize::MAX), (13, 128)] {
            let mut bases = ctx.upload_bases_in_parts(&pts, 200);
            pollster::block_on(ctx.build_table_in_parts(&mut bases, Some(c), part)).unwrap();
            assert_eq!(bases.table_bits(), Some(c));
            let got = table_points(ctx, &bases);
            let want = cpu::shifted_table(&pts, c);
            assert_eq!(got.len(), want.len() / pts.len(), "{layout} c = {c}");
            for (j, (g, w)) in got.iter().zip(want.chunks(pts.len())).enumerate() {
                for (i, (g, w)) in g.iter().zip(w).enumerate() {
                    assert_eq!(
                        *g,
                        (!w.is_zero()).then_some(*w),
                        "{layout} c = {c}: window {j}, point {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn table_refuses_bad_widths_and_foreign_bases() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let mut bases = ctx.upload_bases_blocking(&points(20, 52)).unwrap();
    for c in [0, 1, 21] {
        let e = ctx.build_table_blocking(&mut bases, Some(c)).unwrap_err();
        assert!(e.to_string().contains("window_bits"), "{e}");
    }
    assert_eq!(bases.table_bits(), None);
    ctx.build_table_blocking(&mut bases, None).unwrap();
    assert_eq!(
        bases.table_bits(),
        Some(msm_core::auto_table_bits(20, msm_core::Curve::Bn254G1))
    );
    bases.drop_table();
    assert_eq!(bases.table_bits(), None);
}

/// Every adversarial class over a table (narrow and automatic widths), and
/// the table's plan really used (one row of buckets).
#[test]
fn msms_over_a_table_equal_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 600;
    for (name, pts, scalars) in msm_core::sample::adversarial(n, 53) {
        let mut bases = ctx.upload_bases_blocking(&pts).unwrap();
        let want = cpu::msm_reference(&pts, &scalars).into_affine();
        for c in [Some(6), None] {
            ctx.build_table_blocking(&mut bases, c).unwrap();
            let run = ctx.msm_blocking_with(&bases, &scalars, &MsmConfig::default()).unwrap();
            let plan = run.plan.unwrap();
            assert!(
                plan.table && plan.rows() == 1 && Some(plan.c) == bases.table_bits(),
                "{name}"
            );
            assert_eq!(run.result.into_affine(), want, "{name}, c = {c:?}");
        }
    }
}

/// Prefixes, tables in parts, canonical words, the host reduce, joint
/// batches, and the knobs: `bases_table = false` or another `window_bits`
/// run the plain bases.
#[test]
fn table_paths_equal_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 700;
    let (pts, _) = msm_core::sample::inputs(n, 54);
    let vectors: Vec<Vec<Fr>> = (0..3).map(|k| msm_core::sample::inputs(n, 60 + k).1).collect();
    let mut whole = ctx.upload_bases_blocking(&pts).unwrap();
    ctx.build_table_blocking(&mut whole, Some(7)).unwrap();
    let mut parts = ctx.upload_bases_in_parts(&pts, 300);
    pollster::block_on(ctx.build_table_in_parts(&mut parts, Some(7), 128)).unwrap();
    let host = MsmConfig {
        reduce: ReduceOn::Host,
        ..Default::default()
    };
    let plain = MsmConfig {
        bases_table: false,
        ..Default::default()
    };
    let other_width = MsmConfig {
        window_bits: Some(9),
        ..Default::default()
    };
    for (what, bases) in [("whole", &whole), ("parts", &parts)] {
        for len in [n, 450, 1] {
            let s = &vectors[0][..len];
            let want = cpu::msm_reference(&pts[..len], s).into_affine();
            for (knobs, config, table) in [
                ("defaults", MsmConfig::default(), true),
                ("host reduce", host.clone(), true),
                ("bases_table off", plain.clone(), false),
                ("window_bits 9", other_width.clone(), false),
            ] {
                let run = ctx.msm_blocking_with(bases, s, &config).unwrap();
                assert_eq!(run.plan.unwrap().table, table, "{what} {len} {knobs}");
                assert_eq!(run.result.into_affine(), want, "{what} {len} {knobs}");
            }
            let words: Vec<_> = s.iter().map(|x| ark_ff::PrimeField::into_bigint(*x)).collect();
            let got =
                pollster::block_on(ctx.msm_scalars_with(bases, Scalars::Canonical(&words), &MsmConfig::default()));
            assert_eq!(got.unwrap().result.into_affine(), want, "{what} {len} canonical");
        }
        // a joint batch over the table: one row per vector
        let views: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::Fr(v)).collect();
        let run = pollster::block_on(ctx.msm_batch_with(bases, &views, &MsmConfig::default())).unwrap();
        for (v, got) in vectors.iter().zip(&run.results) {
            assert_eq!(
                got.into_affine(),
                cpu::msm_reference(&pts, v).into_affine(),
                "{what} batch"
            );
        }
    }
    // a table belongs to its context's bases: another context's are refused
    let other = common::ctx(FieldLayout::Limbs13x20).filter(|o| !std::ptr::eq(*o, ctx));
    if let Some(other) = other {
        let mut theirs = other.upload_bases_blocking(&pts[..10]).unwrap();
        assert!(matches!(
            ctx.build_table_blocking(&mut theirs, Some(8)),
            Err(MsmError::ForeignBases)
        ));
    }
}

/// The engine builds the table of its GPU set and its MSMs use it.
#[test]
fn engine_builds_tables() {
    common::fast_lavapipe_compile();
    use msm_core::{Backend, Engine, EngineOptions};
    let engine = Engine::new_blocking(&EngineOptions {
        backend: Backend::Gpu,
        ..Default::default()
    })
    .unwrap();
    let (pts, scalars) = msm_core::sample::inputs(300, 55);
    let mut bases = engine.upload_bases_blocking(&pts).unwrap();
    engine.build_table_blocking(&mut bases, Some(9)).unwrap();
    assert_eq!(bases.table_bits(), Some(9));
    let got = engine.msm_blocking(&bases, &scalars).unwrap();
    assert_eq!(got.into_affine(), cpu::msm_reference(&pts, &scalars).into_affine());
}

/// `table_after`: the set's k-th call builds its table (automatic width
/// for the call's length) and it and later calls run over it, exact; a
/// set whose table the caller dropped, another `window_bits`, `bases_table`
/// off or 0 build none.
#[test]
fn the_call_table_after_names_builds_the_table() {
    common::fast_lavapipe_compile();
    let ctx = fastest_ctx();
    let n = 500;
    let (pts, scalars) = msm_core::sample::inputs(n, 56);
    let want = cpu::msm_reference(&pts, &scalars).into_affine();
    let auto = msm_core::auto_table_bits(n, msm_core::Curve::Bn254G1);
    let after = |k: u32, config: MsmConfig| MsmConfig {
        table_after: k,
        ..config
    };
    let bases = ctx.upload_bases_blocking(&pts).unwrap();
    for (call, table) in [(1, None), (2, None), (3, Some(auto)), (4, Some(auto))] {
        let run = ctx.msm_blocking_with(&bases, &scalars, &after(3, MsmConfig::default())).unwrap();
        assert_eq!(bases.table_bits(), table, "call {call}");
        assert_eq!(run.plan.unwrap().table, table.is_some(), "call {call}");
        assert_eq!(run.result.into_affine(), want, "call {call}");
    }
    // a prefix's call builds for its own length
    let short = ctx.upload_bases_blocking(&pts).unwrap();
    let run = ctx.msm_blocking_with(&short, &scalars[..130], &after(1, MsmConfig::default())).unwrap();
    assert_eq!(short.table_bits(), Some(msm_core::auto_table_bits(130, msm_core::Curve::Bn254G1)));
    assert_eq!(run.result.into_affine(), cpu::msm_reference(&pts[..130], &scalars[..130]).into_affine());
    // dropped by the caller: not built again
    let mut dropped = ctx.upload_bases_blocking(&pts).unwrap();
    ctx.msm_blocking_with(&dropped, &scalars, &after(1, MsmConfig::default())).unwrap();
    dropped.drop_table();
    let run = ctx.msm_blocking_with(&dropped, &scalars, &after(1, MsmConfig::default())).unwrap();
    assert_eq!((dropped.table_bits(), run.result.into_affine()), (None, want));
    for (what, config) in [
        ("never", after(0, MsmConfig::default())),
        ("bases_table off", after(1, MsmConfig { bases_table: false, ..Default::default() })),
        ("window_bits", after(1, MsmConfig { window_bits: Some(auto - 1), ..Default::default() })),
    ] {
        let bases = ctx.upload_bases_blocking(&pts).unwrap();
        for _ in 0..2 {
            let run = ctx.msm_blocking_with(&bases, &scalars, &config).unwrap();
            assert_eq!((bases.table_bits(), run.result.into_affine()), (None, want), "{what}");
        }
    }
}
