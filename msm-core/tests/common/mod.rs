//! Shared test support: one GPU context per field layout, seeded inputs, edge values.
#![allow(dead_code)]

pub mod groups;
pub mod knobs;
pub mod msms;
pub mod raw;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use ark_bn254::Fq;
use ark_ff::{BigInteger, Field, PrimeField, UniformRand};
use msm_core::diagnostics::FieldOp;
use msm_core::{ContextOptions, FieldLayout, GpuContext, Inversion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The context for `layout`, created once per test binary. `None` when the
/// adapter cannot run the layout (64-bit integers missing); a missing adapter
/// is a test failure.
pub fn ctx(layout: FieldLayout) -> Option<&'static GpuContext> {
    ctx_with(layout, None)
}

/// [`ctx`] with the inversion given (`None`: the adapter's default).
pub fn ctx_with(layout: FieldLayout, inversion: Option<Inversion>) -> Option<&'static GpuContext> {
    type Key = (FieldLayout, Option<Inversion>);
    static CTXS: OnceLock<Mutex<HashMap<Key, Option<&'static GpuContext>>>> = OnceLock::new();
    let mut map = CTXS.get_or_init(Default::default).lock().unwrap();
    *map.entry((layout, inversion)).or_insert_with(|| {
        let opts = ContextOptions {
            field_layout: Some(layout),
            inversion,
            ..Default::default()
        };
        match GpuContext::new_blocking(&opts) {
            Ok(c) => Some(Box::leak(Box::new(c))),
            Err(msm_core::MsmError::LayoutUnsupported { .. }) => {
                eprintln!("skipping {layout}: adapter lacks SHADER_INT64");
                None
            }
            Err(e) => panic!("no GPU context: {e}"),
        }
    })
}

/// Asks lavapipe (llvmpipe's LLVM) to skip its optimisation passes, for
/// test binaries whose wide-coordinate shaders (G2's Fq2) otherwise compile
/// for minutes each: BN254 G2's pipelines 530 s -> 84 s with their MSMs
/// (cold shader cache), the code as exact, the small test MSMs slower. Call
/// it first in every test of such a binary: Mesa reads the variable once,
/// when the first context starts, and every test waits here until it is
/// set. Other drivers ignore it; a value the caller set is kept.
pub fn fast_lavapipe_compile() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("GALLIVM_PERF").is_none() {
            std::env::set_var("GALLIVM_PERF", "nopt");
        }
    });
}

pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// 0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2, 2^253 mod p, 2^256 mod p and
/// the Montgomery radixes of the layouts: values at the edges of each representation.
pub fn edge_values() -> Vec<Fq> {
    let minus_one = -Fq::from(1u64);
    let half = Fq::from_bigint({
        let mut m = Fq::MODULUS;
        m.div2();
        m
    })
    .unwrap();
    let two = Fq::from(2u64);
    let pow = |e: u64| ark_ff::Field::pow(&two, [e]);
    vec![
        Fq::from(0u64),
        Fq::from(1u64),
        two,
        minus_one,
        minus_one - Fq::from(1u64),
        half,
        half + Fq::from(1u64),
        pow(253),
        pow(256),
        pow(260),
        -pow(256),
    ]
}

/// reduce's three kernels (read back by `msm_stages`) against their twins,
/// stage by stage, from the same bucket sums.
pub fn check_reduce_stages(st: &msm_core::MsmStages, buckets: &[Option<ark_bn254::G1Affine>]) {
    use ark_bn254::{G1Affine, G1Projective};
    use ark_ec::CurveGroup;
    use msm_core::cpu;
    let twin = cpu::reduce::reduce_stages(&st.plan, buckets);
    let flat =
        |pairs: &[[G1Projective; 2]]| -> Vec<G1Affine> { pairs.iter().flatten().map(|p| p.into_affine()).collect() };
    let affine = |ps: &[G1Projective]| -> Vec<G1Affine> { ps.iter().map(|p| p.into_affine()).collect() };
    assert_eq!(
        affine(&st.reduce_segments),
        flat(&twin.segments),
        "reduce.segments ({:?})",
        st.plan
    );
    assert_eq!(
        affine(&st.reduce_groups),
        flat(&twin.groups),
        "reduce.groups ({:?})",
        st.plan
    );
    assert_eq!(
        affine(&st.window_sums),
        affine(&twin.windows),
        "reduce.windows ({:?})",
        st.plan
    );
    assert_eq!(twin.windows, cpu::reduce::window_sums_direct(&st.plan, buckets));
}

/// Every ordered pair of `edges` plus `randoms` seeded random pairs, each
/// also as a = b and a = -b: the operands of the field-op tests of any field.
pub fn operand_pairs_of<F: Field + UniformRand>(edges: &[F], seed: u64, randoms: usize) -> (Vec<F>, Vec<F>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in edges {
        for y in edges {
            a.push(*x);
            b.push(*y);
        }
    }
    let mut r = rng(seed);
    for _ in 0..randoms {
        let (x, y) = (F::rand(&mut r), F::rand(&mut r));
        a.extend([x, x, x]);
        b.extend([y, x, -x]);
    }
    (a, b)
}

/// arkworks' value of a field-valued `op` (the inverse of 0 is 0, as on the GPU).
pub fn field_reference<F: Field>(op: FieldOp, a: F, b: F) -> F {
    match op {
        FieldOp::Add => a + b,
        FieldOp::Sub => a - b,
        FieldOp::Neg => -a,
        FieldOp::Mul => a * b,
        FieldOp::Sqr => a.square(),
        FieldOp::Inv => a.inverse().unwrap_or(F::ZERO),
        FieldOp::Double => a.double(),
        _ => unreachable!("not a field-valued op"),
    }
}
