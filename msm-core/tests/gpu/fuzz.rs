//! Property-based fuzzing of what callers hand in: knob names and values as
//! text (`MsmConfig::set`, `with_knobs`), knob sets against the planner on
//! several adapters' bounds, and the checked MSM entry with arbitrary lengths
//! and knob sets on the GPU. Every input ends in `Ok` or a typed error: a
//! panic fails the case, and proptest shrinks it and keeps its seed in
//! `fuzz.proptest-regressions` beside this file; a case that runs too long
//! fails too. Cases: `PROPTEST_CASES` (default 64) for the text and plan
//! properties; the GPU property runs `GPU_FUZZ_CASES`, else a hundredth of
//! that, at least 6, and with `--nocapture` reports every 50 cases.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ec::CurveGroup;
use msm_core::knobs::KNOBS;
use msm_core::plan::AdapterBounds;
use msm_core::{cpu, FieldLayout, MsmConfig, MsmError, Scalars};
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn gpu_cases() -> u32 {
    std::env::var("GPU_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or((cases(64) / 100).max(6))
}

/// Counts the GPU cases run (shrinking included) and reports every 50, so a
/// long run shows how far it got.
fn gpu_case_done() {
    static DONE: AtomicU32 = AtomicU32::new(0);
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    let done = DONE.fetch_add(1, Ordering::Relaxed) + 1;
    if done.is_multiple_of(50) {
        eprintln!(
            "checked_msm_entry: {done} cases in {:.0} s",
            start.elapsed().as_secs_f64()
        );
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// Knob names: real ones in every spelling, near misses and noise.
fn knob_name() -> impl Strategy<Value = String> {
    let names: Vec<String> = KNOBS
        .iter()
        .flat_map(|k| [k.name, k.camel, k.alias])
        .map(String::from)
        .collect();
    prop_oneof![
        4 => proptest::sample::select(names.clone()),
        1 => (proptest::sample::select(names), ".{0,3}").prop_map(|(n, s)| format!("{n}{s}")),
        1 => ".{0,24}",
    ]
}

/// Knob values: the forms the parsers take, their edges, and noise.
fn knob_value() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => any::<u64>().prop_map(|v| v.to_string()),
        2 => (0u32..=40).prop_map(|v| v.to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        2 => proptest::sample::select(vec![
            "auto", "true", "false", "private", "workgroup", "equal", "buckets", "gpu", "host", "", " ", "-0",
            "+5", "1e3", "0x10", "4294967296", "18446744073709551616", "nan", "AUTO", "True",
        ])
        .prop_map(String::from),
        1 => ".{0,16}",
    ]
}

/// A knob set drawn over every knob's domain, edges and refusals included.
fn knob_set() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec((knob_name(), knob_value()), 0..8)
}

fn bounds() -> impl Strategy<Value = AdapterBounds> {
    (
        prop_oneof![Just(256u32), Just(1024), 1u32..2048],
        prop_oneof![Just(32768u32), Just(16384), 0u32..65536],
        prop_oneof![
            Just(128u64 << 20),
            Just((1u64 << 31) - 1),
            Just(1u64 << 30),
            1u64..(1 << 34)
        ],
        any::<bool>(),
        prop_oneof![Just(78u32), Just(1024), 1u32..4000],
        any::<bool>(),
        prop_oneof![Just(msm_core::Curve::Bn254G1), Just(msm_core::Curve::Bls12_381G1)],
    )
        .prop_map(
            |(tpb, storage, binding, capped, inversion, int64, curve)| AdapterBounds {
                curve,
                max_workgroup_size_x: tpb,
                max_invocations_per_workgroup: tpb,
                max_workgroup_storage: storage,
                max_binding_size: binding,
                loop_capped: capped,
                inversion_loops: inversion,
                mul_loops: 0,
                walker_mul_loops: 0,
                field_int64: int64,
            },
        )
}

fn typed(e: &MsmError) -> bool {
    matches!(
        e,
        MsmError::InvalidConfig { .. } | MsmError::BindingTooSmall { .. } | MsmError::OutOfMemory { .. }
    )
}

proptest! {
    #![proptest_config(config(cases(64)))]

    /// Text in, a knob set or an `InvalidConfig` naming what was wrong out;
    /// whatever `set` accepts, `get` prints back to the same value.
    #[test]
    fn knob_text_ends_in_a_config_or_a_typed_error(set in knob_set(), spec in ".{0,64}") {
        common::fast_lavapipe_compile();
        let mut c = MsmConfig::default();
        for (name, value) in &set {
            match c.set(name, value) {
                Ok(()) => {
                    let text = c.get(name).expect("an accepted knob has a value");
                    let mut back = c.clone();
                    back.set(name, &text).unwrap();
                    prop_assert_eq!(&back, &c, "{} = {:?} printed as {:?}", name, value, text);
                }
                Err(MsmError::InvalidConfig { knob, reason }) => {
                    // the knob's field name, or the unknown name as given
                    let named = msm_core::knobs::knob(name).map_or(name.as_str(), |k| k.name);
                    prop_assert_eq!(knob, named);
                    prop_assert!(!reason.is_empty());
                }
                Err(e) => prop_assert!(false, "{name} = {value:?}: untyped error {e:?}"),
            }
        }
        match MsmConfig::default().with_knobs(&spec) {
            Ok(_) | Err(MsmError::InvalidConfig { .. }) => {}
            Err(e) => prop_assert!(false, "with_knobs({spec:?}): {e:?}"),
        }
    }

    /// Any knob set and size on any adapter's bounds: a plan that keeps the
    /// loop budget and the bindings, or a typed refusal.
    #[test]
    fn plans_fit_or_refuse(set in knob_set(), n in prop_oneof![0usize..5000, any::<usize>()], b in bounds()) {
        common::fast_lavapipe_compile();
        let mut c = MsmConfig::default();
        for (name, value) in &set {
            let _ = c.set(name, value);
        }
        let t = Instant::now();
        match c.plan(n, &b) {
            Ok(p) => {
                prop_assert_eq!(p.n as usize, n);
                prop_assert_eq!(p.tasks, p.threads * c.walker_slots);
                prop_assert!(p.windows * p.c >= b.curve.digit_bits());
                if b.loop_capped {
                    prop_assert!(p.max_task_len() <= b.walker_max_steps(&c, p.total_buckets()));
                }
                prop_assert!(p.total_buckets() * b.curve.record_bytes() <= b.max_binding_size);
                prop_assert!(msm_core::passes::scratch_bytes(&p) > 0);
            }
            Err(e) => prop_assert!(typed(&e), "untyped refusal {e:?}"),
        }
        prop_assert!(t.elapsed() < Duration::from_secs(1), "planning took {:?}", t.elapsed());
    }
}

proptest! {
    #![proptest_config(config(gpu_cases()))]

    /// The checked entry on the GPU with arbitrary lengths (scalars longer
    /// than the bases included), both scalar forms and knob sets over the
    /// knobs that need no pipeline of their own (`msm-cli soak` draws those
    /// too): the sum equals arkworks', or the error is typed.
    #[test]
    fn checked_msm_entry(
        bases_len in 0usize..300,
        scalars_len in 0usize..320,
        set in knob_set(),
        canonical in any::<bool>(),
        seed in any::<u64>(),
    ) {
        common::fast_lavapipe_compile();
        let ctx = common::ctx(FieldLayout::Limbs32x8).or_else(|| common::ctx(FieldLayout::Limbs13x20)).unwrap();
        let mut c = MsmConfig::default();
        for (name, value) in &set {
            if !["walker_tpb", "wtpb", "walkerTpb", "walker_pref_mem", "walkerPrefMem", "prefmem", "walker_slots",
                 "walkerSlots", "ws", "walker_cache_dx", "walkerCacheDx", "cachedx", "walker_fused", "walkerFused",
                 "fused", "walker_unroll", "walkerUnroll", "unroll"].contains(&name.as_str()) {
                let _ = c.set(name, value);
            }
        }
        // long walks and thousands of chunks are valid but slow on a CPU adapter
        c.walker_threads = c.walker_threads.map(|t| t.clamp(1, 1 << 16));
        c.max_chunk_points = c.max_chunk_points.map(|k| k.max(bases_len as u32 / 8));
        let (points, all) = msm_core::sample::inputs(bases_len.max(scalars_len), seed);
        let scalars: Vec<Fr> = all[..scalars_len].to_vec();
        let words: Vec<ark_ff::BigInt<4>> = scalars.iter().map(|s| ark_ff::PrimeField::into_bigint(*s)).collect();
        let bases = ctx.upload_bases_blocking(&points[..bases_len]).unwrap();
        let input = if canonical { Scalars::Canonical(&words) } else { Scalars::Fr(&scalars) };
        let t = Instant::now();
        let got = pollster::block_on(ctx.msm_scalars_with(&bases, input, &c));
        gpu_case_done();
        // bounded work: a hang or a runaway plan fails the case
        prop_assert!(t.elapsed() < Duration::from_secs(120), "{} took {:?}", c.describe(), t.elapsed());
        match got {
            Ok(run) => {
                prop_assert!(scalars_len <= bases_len);
                let want = cpu::msm_reference(&points[..scalars_len], &scalars);
                prop_assert_eq!(run.result.into_affine(), want.into_affine(), "{}", c.describe());
            }
            Err(MsmError::LengthMismatch { bases, scalars }) => {
                prop_assert_eq!((bases, scalars), (bases_len, scalars_len));
                prop_assert!(scalars_len > bases_len);
            }
            Err(e) => prop_assert!(typed(&e), "{}: untyped error {e:?}", c.describe()),
        }
    }
}
