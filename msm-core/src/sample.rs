//! Seeded MSM inputs for benches, demos and cross-checks: bases are running
//! sums of 64 random points (all distinct, and fast to make at 2^20 and more,
//! where one random scalar multiplication per point is not), scalars are
//! uniform in Fr. The same seed gives the same inputs on every platform.

use ark_bn254::{Fr, G1Affine};
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{PrimeField, UniformRand, Zero};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::curve::GpuCurve;

/// Points and scalars of the group `C`.
pub type Inputs<C> = (Vec<Affine<C>>, Vec<<C as ark_ec::CurveConfig>::ScalarField>);

/// `n` BN254 bases and `n` scalars from `seed`.
pub fn inputs(n: usize, seed: u64) -> (Vec<G1Affine>, Vec<Fr>) {
    inputs_with_progress(n, seed, |_, _| {})
}

/// [`inputs`] in the group `C`.
pub fn inputs_of<C: GpuCurve>(n: usize, seed: u64) -> Inputs<C> {
    inputs_of_with_progress::<C>(n, seed, |_, _| {})
}

/// [`inputs`], calling `progress(done, total)` every 4096 items (2n in all).
pub fn inputs_with_progress(n: usize, seed: u64, progress: impl FnMut(usize, usize)) -> (Vec<G1Affine>, Vec<Fr>) {
    inputs_of_with_progress::<crate::curve::Bn254>(n, seed, progress)
}

/// [`inputs_with_progress`] in the group `C`.
pub fn inputs_of_with_progress<C: GpuCurve>(n: usize, seed: u64, mut progress: impl FnMut(usize, usize)) -> Inputs<C> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let steps: Vec<Projective<C>> = (0..64).map(|_| Projective::<C>::rand(&mut rng)).collect();
    let mut acc = Projective::<C>::rand(&mut rng);
    let mut points = Vec::with_capacity(n);
    for i in 0..n {
        acc += steps[(i * 7 + i / 64) % 64];
        points.push(acc);
        if i % 4096 == 0 {
            progress(i, 2 * n);
        }
    }
    let bases = Projective::<C>::normalize_batch(&points);
    let scalars = (0..n)
        .map(|i| {
            if i % 4096 == 0 {
                progress(n + i, 2 * n);
            }
            C::ScalarField::rand(&mut rng)
        })
        .collect();
    progress(2 * n, 2 * n);
    (bases, scalars)
}

/// Scalar distributions for speed measurements: uniform, and the skewed
/// ones that stress the bucket structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarClass {
    /// Uniform in Fr.
    Random,
    /// Every scalar the same: one bucket per window holds every point.
    Equal,
    /// 90% zero, the rest uniform.
    Zero90,
    /// Below 2^8: only the lowest window has digits.
    Bits8,
    /// 99% one value, the rest uniform: one bucket per window holds nearly
    /// everything.
    OneBucket,
}

impl ScalarClass {
    pub const ALL: [ScalarClass; 5] = [
        ScalarClass::Random,
        ScalarClass::Equal,
        ScalarClass::Zero90,
        ScalarClass::Bits8,
        ScalarClass::OneBucket,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            ScalarClass::Random => "random",
            ScalarClass::Equal => "equal",
            ScalarClass::Zero90 => "zero90",
            ScalarClass::Bits8 => "bits8",
            ScalarClass::OneBucket => "onebucket",
        }
    }
}

impl std::str::FromStr for ScalarClass {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
            format!("unknown scalar class `{s}` (expected {})", names.join(" | "))
        })
    }
}

/// `scalars` (uniform, from [`inputs`]) reshaped into `class`, seeded.
pub fn reshape_scalars<F: PrimeField>(scalars: &mut [F], class: ScalarClass, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x5ca1a);
    let one = F::rand(&mut rng);
    for (i, s) in scalars.iter_mut().enumerate() {
        match class {
            ScalarClass::Random => {}
            ScalarClass::Equal => *s = one,
            ScalarClass::Zero90 if i % 10 != 0 => *s = F::zero(),
            ScalarClass::Zero90 => {}
            ScalarClass::Bits8 => *s = F::from((i as u64).wrapping_mul(0x9e37_79b9) >> 24 & 0xff),
            ScalarClass::OneBucket if i % 100 != 0 => *s = one,
            ScalarClass::OneBucket => {}
        }
    }
}

/// The input classes that break MSMs which assume distinct, non-identity
/// points (each named), with `n` points where the class has a size: identity
/// bases, zero scalars, r - 1, duplicated bases, P and -P, all-equal scalars
/// (one bucket per window), bases in arithmetic progression (the running sum
/// meets the next point: dx = 0), n = 1, 2 and odd n.
pub fn adversarial(n: usize, seed: u64) -> Vec<(&'static str, Vec<G1Affine>, Vec<Fr>)> {
    adversarial_of::<crate::curve::Bn254>(n, seed)
}

/// A named input class of the group `C`.
pub type Case<C> = (
    &'static str,
    Vec<Affine<C>>,
    Vec<<C as ark_ec::CurveConfig>::ScalarField>,
);

/// [`adversarial`] in the group `C`.
pub fn adversarial_of<C: GpuCurve>(n: usize, seed: u64) -> Vec<Case<C>> {
    type Fr<C> = <C as ark_ec::CurveConfig>::ScalarField;
    assert!(n >= 10, "adversarial cases need n >= 10");
    let g = Affine::<C>::generator();
    let (bases, scalars) = inputs_of::<C>(n, seed);
    let mut cases = Vec::new();
    let mut with_identities = bases.clone();
    for i in (0..n).step_by(3) {
        with_identities[i] = Affine::<C>::zero();
    }
    cases.push(("identity bases", with_identities, scalars.clone()));
    cases.push((
        "all identity bases",
        vec![Affine::<C>::zero(); 9],
        scalars[..9].to_vec(),
    ));
    let mut zeros = scalars.clone();
    for i in (0..n).step_by(2) {
        zeros[i] = Fr::<C>::zero();
    }
    cases.push(("zero scalars", bases.clone(), zeros));
    cases.push(("all zero scalars", bases.clone(), vec![Fr::<C>::zero(); n]));
    let minus_one = -Fr::<C>::from(1u64);
    cases.push(("scalars r - 1", bases.clone(), vec![minus_one; n]));
    let mut mixed = scalars.clone();
    for i in (0..n).step_by(4) {
        mixed[i] = minus_one;
    }
    cases.push(("some r - 1", bases.clone(), mixed));
    let dup: Vec<Affine<C>> = (0..n).map(|i| bases[i % 5]).collect();
    cases.push(("duplicated bases", dup.clone(), scalars.clone()));
    cases.push(("duplicated bases, equal scalars", dup, vec![scalars[0]; n]));
    let pm: Vec<Affine<C>> = (0..n)
        .map(|i| if i % 2 == 0 { bases[i / 2] } else { -bases[i / 2] })
        .collect();
    cases.push(("P and -P, equal scalars", pm.clone(), vec![scalars[1]; n]));
    cases.push(("P and -P, random scalars", pm, scalars.clone()));
    cases.push(("all-equal scalars", bases.clone(), vec![scalars[2]; n]));
    // i * G with equal scalars: a bucket's running sum 1 + 2 + ... meets the
    // next point (dx = 0, doubling), and -i * G cancels it.
    let mut ap = Vec::new();
    let mut acc = Projective::<C>::zero();
    for _ in 0..n {
        acc += g;
        ap.push(acc);
    }
    let ap = Projective::<C>::normalize_batch(&ap);
    cases.push((
        "arithmetic progression, equal scalars",
        ap.clone(),
        vec![Fr::<C>::from(3u64); n],
    ));
    let ap_neg: Vec<Affine<C>> = ap
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 3 == 2 { -*p } else { *p })
        .collect();
    cases.push((
        "arithmetic progression with negations",
        ap_neg,
        vec![Fr::<C>::from(5u64); n],
    ));
    cases.push(("scalar one", vec![g, g, -g], vec![Fr::<C>::from(1u64); 3]));
    cases.push(("n = 1", vec![bases[0]], vec![scalars[0]]));
    cases.push((
        "n = 2, P + P",
        vec![bases[0], bases[0]],
        vec![Fr::<C>::from(1u64), Fr::<C>::from(1u64)],
    ));
    cases.push((
        "n = 2, P - P",
        vec![bases[0], -bases[0]],
        vec![Fr::<C>::from(1u64), Fr::<C>::from(1u64)],
    ));
    let odd = (n / 3) | 1;
    let (b, s) = inputs_of::<C>(odd, seed + 1);
    cases.push(("odd n", b, s));
    cases
}

/// `count` points on the curve of `C` but outside its prime-order subgroup
/// (none for BN254's G1, whose cofactor is 1): first the smallest x from 0
/// with such a point (BLS12-381 G1's (0, 2), of order 3; BN254 G2's x = 1;
/// BLS12-381 G2's x = 2), then points of seeded random x.
pub fn outside_subgroup<C: GpuCurve>(count: usize, seed: u64) -> Vec<Affine<C>> {
    let outside = |x: C::BaseField| {
        Affine::<C>::get_point_from_x_unchecked(x, false).filter(|p| !p.is_in_correct_subgroup_assuming_on_curve())
    };
    if !crate::bases::has_cofactor(C::CURVE) {
        return Vec::new();
    }
    let mut points: Vec<Affine<C>> = (0u64..)
        .find_map(|x| outside(C::BaseField::from(x)))
        .into_iter()
        .collect();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    while points.len() < count {
        if let Some(p) = outside(C::BaseField::rand(&mut rng)) {
            points.push(p);
        }
    }
    points.truncate(count);
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named examples are where the docs say, and outside the subgroup.
    #[test]
    fn points_outside_the_subgroup() {
        use ark_ff::{AdditiveGroup, Field};
        assert!(outside_subgroup::<crate::curve::Bn254>(3, 1).is_empty());
        let g1 = outside_subgroup::<ark_bls12_381::g1::Config>(4, 1);
        assert_eq!(
            (g1[0].x, g1[0].y),
            (ark_bls12_381::Fq::ZERO, ark_bls12_381::Fq::from(2u64))
        );
        let bn_g2 = outside_subgroup::<ark_bn254::g2::Config>(2, 1);
        assert_eq!(bn_g2[0].x, ark_bn254::Fq2::ONE);
        let bls_g2 = outside_subgroup::<ark_bls12_381::g2::Config>(2, 1);
        assert_eq!(bls_g2[0].x, ark_bls12_381::Fq2::from(2u64));
        assert!(g1
            .iter()
            .all(|p| p.is_on_curve() && !p.is_in_correct_subgroup_assuming_on_curve()));
        assert!(bn_g2
            .iter()
            .all(|p| p.is_on_curve() && !p.is_in_correct_subgroup_assuming_on_curve()));
        assert!(bls_g2
            .iter()
            .all(|p| p.is_on_curve() && !p.is_in_correct_subgroup_assuming_on_curve()));
    }

    #[test]
    fn seeded_and_distinct() {
        let (b1, s1) = inputs(300, 7);
        let (b2, s2) = inputs(300, 7);
        assert_eq!((&b1, &s1), (&b2, &s2));
        assert_ne!(inputs(300, 8).1, s1);
        let mut xs: Vec<_> = b1.iter().map(|p| p.x).collect();
        xs.sort();
        xs.dedup();
        assert_eq!(xs.len(), 300);
        assert!(b1.iter().all(|p| p.is_on_curve()));
    }
}
