//! Membership in the prime-order subgroup: the bases kernel's endomorphism
//! test (`shaders/subgroup.wgsl`, its CPU twin `subgroup_test_twin`) agrees
//! with arkworks' `is_in_correct_subgroup_assuming_on_curve` on points in
//! and out of every group; the GPU runs are in bls12_381_msm.rs and g2.rs
//! (`msms::check_subgroup_refusals`).

use ark_ec::short_weierstrass::Affine;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::UniformRand;
use msm_core::cpu::bases::{decode_point, encode_point, subgroup_test_twin, BaseDefect};
use msm_core::sample::{inputs_of, outside_subgroup};
use msm_core::{BaseFormat, GpuCurve};
use rand::SeedableRng;

use crate::common;

fn twin_agrees<C: GpuCurve>() {
    let curve = C::CURVE;
    let (inside, _) = inputs_of::<C>(40, 3);
    let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(4);
    let mut points: Vec<Affine<C>> = inside.clone();
    points.extend(inside.iter().map(|p| -*p));
    points.push(Affine::<C>::generator());
    let outside = outside_subgroup::<C>(60, 5);
    points.extend(&outside);
    points.extend(outside.iter().map(|p| -*p));
    // a point outside plus one inside: still outside
    points.extend(outside.iter().zip(&inside).map(|(o, i)| (*o + *i).into_affine()));
    // small multiples of a point outside (its cofactor part's small orders)
    if let Some(o) = outside.get(1) {
        for k in 2..12u64 {
            let m = o.mul_bigint([k]).into_affine();
            if !m.is_zero() {
                points.push(m);
            }
        }
    }
    // a point inside plus one of each small prime order the cofactor has:
    // a test that held only modulo some of the cofactor's primes lets one
    // of these through
    let small = common::groups::small_order_points::<C>(&outside);
    assert!(small.len() >= 2 || outside.is_empty(), "{curve}: {}", small.len());
    points.extend(
        small
            .iter()
            .zip(inside.iter().cycle())
            .map(|(t, i)| (*t + *i).into_affine()),
    );
    points.extend(&small);
    for _ in 0..20 {
        points.push(Affine::<C>::generator().mul_bigint([u64::rand(&mut r)]).into_affine());
    }
    let (mut ins, mut outs) = (0, 0);
    for p in &points {
        let want = p.is_in_correct_subgroup_assuming_on_curve();
        assert_eq!(subgroup_test_twin(p), want, "{curve}: {p}");
        if want {
            ins += 1;
        } else {
            outs += 1;
        }
        // the decoder (which explains the GPU's refusals) refuses exactly these
        for format in [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery] {
            let got = decode_point::<C>(&encode_point(p, format), format);
            if want {
                assert_eq!(got, Ok(Some(*p)), "{curve}");
            } else {
                assert_eq!(got, Err(BaseDefect::NotInSubgroup), "{curve}");
            }
        }
    }
    let cofactor = !outside.is_empty();
    assert!(ins >= 80 && (outs >= 120 || !cofactor), "{curve}: {ins} in, {outs} out");
}

#[test]
fn the_kernels_test_is_arkworks_in_every_group() {
    common::fast_lavapipe_compile();
    twin_agrees::<ark_bn254::g1::Config>();
    twin_agrees::<ark_bls12_381::g1::Config>();
    twin_agrees::<ark_bn254::g2::Config>();
    twin_agrees::<ark_bls12_381::g2::Config>();
}
