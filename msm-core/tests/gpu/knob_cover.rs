//! The walker's knobs on random inputs against arkworks: the pairwise
//! cover of the knob matrix (the full matrix under `--ignored`) and the
//! portable layout's corners.

use crate::common;
use crate::msm::{check, default_ctx, random_bases, random_scalars};

use ark_bn254::{Fr, G1Affine};
use common::knobs::{knob_matrix, pairwise_cover, walker_config};
use common::ctx;
use msm_core::{FieldLayout, MsmConfig, PrefMem};

/// Knob-matrix configs on random inputs (in the full matrix every config
/// sees a small and a larger input, in the cover one of them), on the 64-bit layout where the adapter has it (its
/// shaders compile fastest); the portable layout runs the knob corners
/// below. `full`: the whole matrix, cut by `tpb` so each test reports
/// progress; else the pairwise cover, cut in `parts` by position.
fn knob_matrix_part(full: bool, tpb: Option<u32>, part: (usize, usize)) {
    let ctx = ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let sizes = [1usize, 33, 700, 4096];
    let inputs: Vec<(Vec<G1Affine>, Vec<Fr>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| (random_bases(30 + i as u64, n), random_scalars(40 + i as u64, n)))
        .collect();
    let matrix = knob_matrix(ctx);
    let configs = if full { matrix } else { pairwise_cover(&matrix) };
    let (index, parts) = part;
    let chosen = configs
        .into_iter()
        .enumerate()
        .filter(|(i, (c, _))| i % parts == index && tpb.is_none_or(|t| c.walker_tpb == t));
    for (i, (config, k)) in chosen {
        // the full matrix: two sizes a config; the cover: one, in turn
        let (bases, scalars) = &inputs[if full { k } else { i } % sizes.len()];
        check(ctx, bases, scalars, &config, "knob matrix");
        if full {
            let (bases, scalars) = &inputs[(k + 1) % sizes.len()];
            check(ctx, bases, scalars, &config, "knob matrix");
        }
    }
}

#[test]
fn knob_pairs_cover_part_0() {
    common::fast_lavapipe_compile();
    knob_matrix_part(false, None, (0, 3));
}

#[test]
fn knob_pairs_cover_part_1() {
    common::fast_lavapipe_compile();
    knob_matrix_part(false, None, (1, 3));
}

#[test]
fn knob_pairs_cover_part_2() {
    common::fast_lavapipe_compile();
    knob_matrix_part(false, None, (2, 3));
}

/// The cover is small and still covers every pair the matrix has.
#[test]
fn knob_pairs_cover_is_a_cover() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs32x8)
        .or_else(|| ctx(FieldLayout::Limbs13x20))
        .unwrap();
    let matrix = knob_matrix(ctx);
    let cover = pairwise_cover(&matrix);
    assert!(
        cover.len() <= 16 && cover.len() < matrix.len(),
        "{} of {}",
        cover.len(),
        matrix.len()
    );
    for (a, b) in (0..5).flat_map(|a| (a + 1..5).map(move |b| (a, b))) {
        let pick = |c: &MsmConfig, i: usize| match i {
            0 => c.walker_tpb,
            1 => c.walker_pref_mem as u32,
            2 => c.walker_slots,
            3 => c.walker_cache_dx as u32,
            _ => c.walker_fused as u32,
        };
        let want: std::collections::HashSet<_> = matrix.iter().map(|(c, _)| (pick(c, a), pick(c, b))).collect();
        let got: std::collections::HashSet<_> = cover.iter().map(|(c, _)| (pick(c, a), pick(c, b))).collect();
        assert_eq!(want, got, "knobs {a} and {b}");
    }
}

macro_rules! full_knob_matrix_tests {
    ($($name:ident: $tpb:expr;)*) => {
        $(
            #[test]
            #[ignore = "the full knob matrix (minutes on a software adapter): --ignored"]
            fn $name() {
                common::fast_lavapipe_compile();
                knob_matrix_part(true, Some($tpb), (0, 1));
            }
        )*
    };
}

full_knob_matrix_tests! {
    knob_matrix_tpb64: 64;
    knob_matrix_tpb96: 96;
    knob_matrix_tpb128: 128;
    knob_matrix_tpb256: 256;
}

#[test]
fn portable_layout_knob_corners() {
    common::fast_lavapipe_compile();
    let ctx = default_ctx();
    let bases = random_bases(50, 1500);
    let scalars = random_scalars(51, 1500);
    for (tpb, pref, slots, cache_dx, fused) in [
        (64, PrefMem::Workgroup, 2, false, true),
        (256, PrefMem::Private, 8, true, true),
        (128, PrefMem::Private, 4, false, false),
    ] {
        let config = walker_config(tpb, pref, slots, cache_dx, fused);
        check(ctx, &bases, &scalars, &config, "portable corner");
    }
}
