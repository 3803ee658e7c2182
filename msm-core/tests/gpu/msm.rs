//! The whole MSM against `ark_ec::VariableBaseMSM`, per-pass diffs against the
//! CPU twins and every adversarial input class (the knob matrix: knob_cover.rs).

use crate::common;

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{UniformRand, Zero};
use common::{ctx, rng};
use msm_core::cpu;
use msm_core::layout::{PointRecord, NO_BUCKET};
use msm_core::msm::{bucket_point, record_point};
use msm_core::plan::Plan;
use msm_core::repr::FieldRepr;
use msm_core::{FieldLayout, GpuContext, MsmConfig, PrefMem, ReduceOn};

pub(crate) fn random_bases(seed: u64, n: usize) -> Vec<G1Affine> {
    let mut r = rng(seed);
    // a few distinct points and their small multiples keep generation fast
    let g: Vec<G1Projective> = (0..16).map(|_| G1Projective::rand(&mut r)).collect();
    let mut acc = G1Projective::zero();
    let pts: Vec<G1Projective> = (0..n)
        .map(|i| {
            acc += g[i % 16];
            acc
        })
        .collect();
    G1Projective::normalize_batch(&pts)
}

pub(crate) fn random_scalars(seed: u64, n: usize) -> Vec<Fr> {
    let mut r = rng(seed);
    (0..n).map(|_| Fr::rand(&mut r)).collect()
}

pub(crate) fn check(ctx: &GpuContext, bases: &[G1Affine], scalars: &[Fr], config: &MsmConfig, what: &str) {
    let b = ctx.upload_bases_blocking(bases).unwrap();
    let run = pollster::block_on(ctx.msm_with(&b, scalars, config)).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = cpu::msm_reference(bases, scalars);
    assert_eq!(
        run.result.into_affine(),
        want.into_affine(),
        "{what} (n = {}, {config:?})",
        bases.len()
    );
}

pub(crate) fn default_ctx() -> &'static GpuContext {
    ctx(FieldLayout::Limbs13x20).unwrap()
}

#[test]
fn random_sizes_match_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    for (i, n) in [1usize, 2, 3, 5, 16, 255, 256, 1000, 1025].into_iter().enumerate() {
        let bases = random_bases(100 + i as u64, n);
        let scalars = random_scalars(200 + i as u64, n);
        check(ctx, &bases, &scalars, &MsmConfig::default(), "random");
    }
}

#[test]
fn empty_input_is_the_identity() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let b = ctx.upload_bases_blocking::<msm_core::Bn254>(&[]).unwrap();
    assert!(pollster::block_on(ctx.msm(&b, &[])).unwrap().is_zero());
    let err = pollster::block_on(ctx.msm(&b, &[Fr::from(1u64)])).unwrap_err();
    assert!(err.to_string().contains("1 scalars for 0 bases"), "{err}");
}

/// Inputs that break batch-affine walkers which assume SRS-like bases.
fn adversarial_cases() -> Vec<(&'static str, Vec<G1Affine>, Vec<Fr>)> {
    msm_core::sample::adversarial(301, 7)
}

// One test a layout, so that they run side by side (lavapipe compiles
// each pipeline on one core).
#[test]
fn adversarial_inputs_match_arkworks_32x8() {
    common::fast_lavapipe_compile();
    assert_eq!(FieldLayout::ALL.len(), 3, "a new layout needs its adversarial test");
    adversarial_inputs_match_arkworks(FieldLayout::Limbs32x8);
}

#[test]
fn adversarial_inputs_match_arkworks_13x20() {
    common::fast_lavapipe_compile();
    adversarial_inputs_match_arkworks(FieldLayout::Limbs13x20);
}

#[test]
fn adversarial_inputs_match_arkworks_16x16() {
    common::fast_lavapipe_compile();
    adversarial_inputs_match_arkworks(FieldLayout::Limbs16x16);
}

fn adversarial_inputs_match_arkworks(layout: FieldLayout) {
    let Some(ctx) = ctx(layout) else { return };
    for (what, bases, scalars) in adversarial_cases() {
        check(
            ctx,
            &bases,
            &scalars,
            &MsmConfig::default(),
            &format!("{layout} {what}"),
        );
        // few walker threads: long walks, many split buckets
        let few = MsmConfig {
            walker_threads: Some(16),
            walker_slots: 2,
            window_bits: Some(8),
            ..Default::default()
        };
        check(ctx, &bases, &scalars, &few, &format!("{layout} {what}, 16 threads"));
    }
}

#[test]
fn window_widths_match_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let bases = random_bases(60, 200);
    let scalars = random_scalars(61, 200);
    for c in [2, 3, 4, 7, 8, 11, 13, 16] {
        check(
            ctx,
            &bases,
            &scalars,
            &MsmConfig {
                window_bits: Some(c),
                ..Default::default()
            },
            "window width",
        );
    }
}

#[test]
fn invalid_configs_are_clear_errors() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let b = ctx.upload_bases_blocking(&random_bases(70, 4)).unwrap();
    let s = random_scalars(71, 4);
    let run = |c: MsmConfig| pollster::block_on(ctx.msm_with(&b, &s, &c)).unwrap_err().to_string();
    assert!(run(MsmConfig {
        walker_slots: 17,
        ..Default::default()
    })
    .contains("walker_slots"));
    assert!(run(MsmConfig {
        walker_tpb: 100_000,
        ..Default::default()
    })
    .contains("walker_tpb"));
    let huge = MsmConfig {
        walker_pref_mem: PrefMem::Workgroup,
        walker_tpb: 1024,
        walker_slots: 16,
        ..Default::default()
    };
    let e = run(huge);
    assert!(e.contains("workgroup") || e.contains("walker_tpb"), "{e}");
}

fn by_bucket(plan: &Plan, recs: &[PointRecord], split: &[u32], repr: &FieldRepr) -> Vec<Option<G1Affine>> {
    (0..plan.total_buckets() as usize)
        .map(|b| bucket_point(repr, &recs[b], split).unwrap())
        .collect()
}

/// Each pass's GPU output against its CPU twin on the same inputs: one
/// vector, and three vectors over the same bases as one joint plan.
#[test]
fn passes_match_cpu_twins() {
    common::fast_lavapipe_compile();
    passes_match(1);
    passes_match(3);
}

fn passes_match(vectors: usize) {
    let ctx = default_ctx();
    let repr = FieldRepr::new(ctx.field_layout());
    let n = 700;
    let mut bases = random_bases(80, n);
    bases[5] = G1Affine::zero();
    let mut scalars = random_scalars(81, n * vectors);
    scalars[6] = Fr::zero();
    scalars[7] = -Fr::from(1u64);
    let config = MsmConfig {
        window_bits: Some(6),
        walker_threads: Some(32 * vectors as u32),
        walker_slots: 4,
        ..Default::default()
    };
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    let st = pollster::block_on(ctx.msm_stages_joint(&b, &scalars, vectors, &config)).unwrap();
    let plan = st.plan;
    assert_eq!(
        (plan.vectors as usize, plan.rows()),
        (vectors, plan.windows * vectors as u32)
    );
    // preprocess
    let words: Vec<_> = scalars.iter().map(cpu::scalar_words).collect();
    let identity: Vec<bool> = bases.iter().map(|p| p.is_zero()).collect();
    let pre = cpu::preprocess(&plan, &words, &identity);
    assert_eq!(st.counts, pre.counts, "histogram");
    assert_eq!(st.offsets, pre.offsets, "scan");
    for bucket in 0..plan.total_buckets() as usize {
        let (lo, hi) = (pre.offsets[bucket] as usize, pre.offsets[bucket + 1] as usize);
        let mut got = st.l0_index[lo..hi].to_vec();
        got.sort_unstable();
        assert_eq!(got, pre.bucket_entries[bucket], "scatter, bucket {bucket}");
    }
    // stream_walker on the GPU's own entry order
    let w = cpu::stream_walker(&plan, &bases, &st.l0_index, &st.offsets);
    for (bucket, p) in &w.finals {
        let rec = &st.walker_sums[*bucket as usize];
        assert_ne!(rec.valid, 7, "bucket {bucket} not written by the walker");
        assert_eq!(
            record_point(&repr, rec).unwrap().unwrap_or(G1Affine::zero()),
            *p,
            "walker final {bucket}"
        );
    }
    let written = st.walker_sums.iter().filter(|r| r.valid != 7).count();
    assert_eq!(
        written,
        w.finals.len(),
        "the walker wrote buckets it should have left to walker_combine"
    );
    for k in 0..plan.tasks as usize {
        let head = &st.partials[2 * k];
        let tail = &st.partials[2 * k + 1];
        match w.heads[k] {
            Some((p, through)) => {
                assert_eq!(
                    record_point(&repr, head).unwrap().unwrap_or(G1Affine::zero()),
                    p,
                    "head {k}"
                );
                assert_eq!(head.through != 0, through, "head {k} through");
            }
            None => assert!(head.valid == 0 && head.through == 0, "task {k} has no head"),
        }
        match w.tails[k] {
            Some((bucket, p)) => {
                assert_eq!(tail.bucket, bucket, "tail {k} bucket");
                assert_eq!(
                    record_point(&repr, tail).unwrap().unwrap_or(G1Affine::zero()),
                    p,
                    "tail {k}"
                );
            }
            None => assert_eq!(tail.bucket, NO_BUCKET, "task {k} has no tail"),
        }
    }
    assert!(w.tails.iter().any(|t| t.is_some()), "the test should split buckets");
    // walker_combine
    let mut want: Vec<Option<G1Affine>> = vec![None; plan.total_buckets() as usize];
    for (bucket, p) in w.finals.iter().chain(cpu::walker_combine(&w).iter()) {
        want[*bucket as usize] = if p.is_zero() { None } else { Some(*p) };
    }
    let got = by_bucket(&plan, &st.bucket_sums, &st.split_sums, &repr);
    for bucket in 0..want.len() {
        if pre.counts[bucket] > 0 {
            assert_eq!(got[bucket], want[bucket], "bucket sum {bucket}");
        }
    }
    // reduce, kernel by kernel
    common::check_reduce_stages(&st, &want);
    for (v, got) in st.results.iter().enumerate() {
        let want = cpu::msm_reference(&bases, &scalars[v * n..(v + 1) * n]);
        assert_eq!(got.into_affine(), want.into_affine(), "vector {v} of {vectors}");
    }
}

/// All-equal scalars put every point of a window into one bucket; with tiny
/// walker tasks that bucket becomes a chain of thousands of partials, which
/// walker_combine sums through its block levels (1 and 2 here).
#[test]
fn long_chains_are_combined_in_levels() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let n = 8192;
    let bases = random_bases(90, n);
    let scalars = vec![random_scalars(91, 1)[0]; n];
    let config = MsmConfig {
        window_bits: Some(16),
        walker_slots: 1,
        walker_threads: Some(60_000),
        ..Default::default()
    };
    check(ctx, &bases, &scalars, &config, "long chains");
}

/// Inputs split into chunks (each its own plan, with an offset into the
/// resident bases) sum to the same point, submitted at once or in waves.
#[test]
fn chunked_msm_matches_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let n = 1000;
    let mut bases = random_bases(100, n);
    bases[450] = G1Affine::zero();
    let scalars = random_scalars(101, n);
    // waves: one (the default, 2^21 points), a submission a chunk, one every two
    for (chunk, wave_points) in [(1000, 1), (333, 2 << 20), (333, 1), (256, 400), (1, 2)] {
        let config = MsmConfig {
            max_chunk_points: Some(chunk),
            wave_points,
            ..Default::default()
        };
        if chunk == 1 {
            // one point per chunk: keep it short
            check(ctx, &bases[..7], &scalars[..7], &config, "chunks of 1");
        } else {
            check(ctx, &bases, &scalars, &config, &format!("chunks of {chunk}, waves of {wave_points}"));
        }
    }
    let b = ctx.upload_bases_blocking(&bases[..3]).unwrap();
    let e = pollster::block_on(ctx.msm_with(
        &b,
        &scalars[..3],
        &MsmConfig {
            max_chunk_points: Some(0),
            ..Default::default()
        },
    ));
    assert!(e.unwrap_err().to_string().contains("max_chunk_points"));
}

/// Bases split into parts (as for sets larger than one storage binding):
/// chunks follow the part boundaries, also when chunks are smaller still.
#[test]
fn bases_in_parts_match_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let n = 1000;
    let mut points = random_bases(102, n);
    points[299] = G1Affine::zero();
    points[300] = points[0];
    let scalars = random_scalars(103, n);
    let expected = cpu::msm_reference(&points, &scalars);
    for (part, chunk) in [
        (300, None),
        (300, Some(128)),
        (512, Some(200)),
        (999, None),
        (1, Some(1)),
    ] {
        let len = if part == 1 { 5 } else { n };
        let bases = ctx.upload_bases_in_parts(&points[..len], part);
        assert_eq!(bases.parts(), len.div_ceil(part), "parts of {part}");
        let config = MsmConfig {
            max_chunk_points: chunk,
            ..Default::default()
        };
        let got = pollster::block_on(ctx.msm_with(&bases, &scalars[..len], &config)).unwrap();
        let want = if len == n {
            expected
        } else {
            cpu::msm_reference(&points[..len], &scalars[..len])
        };
        assert_eq!(got.result, want, "parts of {part}, chunks of {chunk:?}");
    }
    let split = ctx.upload_bases_in_parts(&points[..10], 4);
    let e = pollster::block_on(ctx.msm_stages(&split, &scalars[..10], &MsmConfig::default()));
    assert!(e.unwrap_err().to_string().contains("parts"));
    assert_eq!(ctx.upload_bases_blocking(&points).unwrap().parts(), 1);
}

/// The host reduce (bucket sums read back, running sums on the CPU) gives the
/// same answers as the GPU reduce, including skipped empty buckets.
#[test]
fn host_reduce_matches_arkworks() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    for (i, n) in [1usize, 7, 300, 1025].into_iter().enumerate() {
        let mut bases = random_bases(300 + i as u64, n);
        bases[0] = G1Affine::zero();
        let scalars = random_scalars(400 + i as u64, n);
        for reduce in [ReduceOn::Host, ReduceOn::Gpu] {
            let config = MsmConfig {
                reduce,
                ..Default::default()
            };
            check(ctx, &bases, &scalars, &config, &format!("{reduce:?} reduce"));
        }
    }
    assert!(
        !ctx.reduces_on_host(&MsmConfig::default()),
        "lavapipe reduces on the GPU by default"
    );
}

/// Modules made with the translator's loop guards (`loop_guards`, off by
/// default) run the same MSM exactly: both ways of creating a module work.
#[test]
fn loop_guards_on_is_exact() {
    common::fast_lavapipe_compile();
    let ctx = GpuContext::new_blocking(&msm_core::ContextOptions {
        loop_guards: true,
        ..Default::default()
    })
    .unwrap();
    let (bases, scalars) = (random_bases(71, 300), random_scalars(72, 300));
    check(&ctx, &bases, &scalars, &ctx.config_for(300), "loop guards on");
}
