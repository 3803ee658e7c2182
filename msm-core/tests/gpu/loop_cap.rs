//! lavapipe stops every loop of an invocation after 65,535 iterations in total,
//! silently. These tests prove the longest loops the GPU tests run stay under
//! that budget (a truncated chain gives a wrong product, so they fail if it bit),
//! and that the probe really detects the cap where it exists.

use crate::common;

use ark_bn254::Fq;
use ark_ff::{Field, UniformRand};
use common::{ctx, rng};
use msm_core::diagnostics::lcg_reference;
use msm_core::FieldLayout;

/// The longest multiplication chain any test runs in one invocation.
pub const LONGEST_TEST_CHAIN: u32 = 4096;

#[test]
fn longest_test_chain_is_exact() {
    common::fast_lavapipe_compile();
    let mut r = rng(3);
    let a: Vec<Fq> = (0..64).map(|_| Fq::rand(&mut r)).collect();
    let b: Vec<Fq> = (0..64).map(|_| Fq::rand(&mut r)).collect();
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        let got = pollster::block_on(ctx.mul_chain(&a, &b, LONGEST_TEST_CHAIN)).unwrap();
        for i in 0..a.len() {
            assert_eq!(
                got[i],
                a[i] * b[i].pow([LONGEST_TEST_CHAIN as u64]),
                "{layout} chain {i}"
            );
        }
    }
}

#[test]
fn probe_detects_the_cap() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let seeds = [1u32, 2, 3, 4];
    let under = pollster::block_on(ctx.loop_probe(&seeds, LONGEST_TEST_CHAIN + 1000)).unwrap();
    for (s, h) in seeds.iter().zip(&under) {
        assert_eq!(*h, lcg_reference(*s, LONGEST_TEST_CHAIN + 1000));
    }
    let over = pollster::block_on(ctx.loop_probe(&seeds, 200_000)).unwrap();
    let exact = seeds.iter().zip(&over).all(|(s, h)| *h == lcg_reference(*s, 200_000));
    // On lavapipe the probe must see the cap; elsewhere it must see no cap.
    assert_eq!(!exact, ctx.has_loop_cap(), "adapter {:?}", ctx.adapter_info().name);
}
