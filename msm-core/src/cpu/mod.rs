//! The arkworks CPU reference and CPU twins of the GPU passes (same inputs and
//! outputs, for per-pass diffs in tests), and the operation counts of a plan.

pub mod bases;
pub mod combine;
pub mod cost;
pub mod preprocess;
pub mod reduce;
pub mod walker;

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::short_weierstrass::{Projective, SWCurveConfig};
use ark_ec::VariableBaseMSM;
use ark_ff::AdditiveGroup;
use ark_ff::{PrimeField, Zero};

use crate::layout::SIGN_BIT;
use crate::repr::Words;

pub use combine::walker_combine;
pub use preprocess::{preprocess, Preprocessed};
pub use reduce::window_sums;
pub use walker::{stream_walker, task_range, WalkerOutput};

/// arkworks' MSM: the reference every GPU result is checked against.
pub fn msm_reference(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    G1Projective::msm(bases, scalars).expect("equal lengths")
}

/// The reference for integer scalars (`Scalars::Canonical` and `Bytes`,
/// any 256-bit value): the sum of each integer reduced mod r times its
/// point, through arkworks' `msm` over the reduced field elements. Not
/// arkworks' `msm_bigint`, whose answer for integers of r or more depends
/// on the host's thread count (its windows stop at r's bit length).
pub fn msm_reference_words<C: SWCurveConfig>(bases: &[ark_ec::short_weierstrass::Affine<C>], words: &[ark_ff::BigInt<4>]) -> Projective<C> {
    let reduced: Vec<C::ScalarField> = words
        .iter()
        .map(|w| C::ScalarField::from_le_bytes_mod_order(&ark_ff::BigInteger::to_bytes_le(w)))
        .collect();
    Projective::<C>::msm(bases, &reduced).expect("equal lengths")
}

/// A scalar as eight little-endian words (canonical, not Montgomery).
pub fn scalar_words(s: &Fr) -> Words {
    crate::repr::bigint_to_words(&s.into_bigint())
}

/// The signed digit of window `j` (width `c`): CPU twin of `window_digit`.
pub fn window_digit(s: &Words, j: u32, c: u32) -> i32 {
    let bit = |i: u32| {
        if i < 256 {
            (s[(i / 32) as usize] >> (i % 32)) & 1
        } else {
            0
        }
    };
    let lo = j * c;
    let v: u32 = (0..c).map(|k| bit(lo + k) << k).sum();
    let below = if j > 0 { bit(lo - 1) } else { 0 };
    let top = v >> (c - 1);
    v as i32 + below as i32 - (top << c) as i32
}

/// Rebuilds a scalar from its digits: sum_j d_j 2^(c j) (tests the encoding).
pub fn digits_value(digits: &[i32], c: u32) -> Fr {
    let mut acc = Fr::zero();
    let radix = Fr::from(1u64 << c);
    for d in digits.iter().rev() {
        acc = acc * radix + Fr::from(d.unsigned_abs() as u64) * if *d < 0 { -Fr::from(1u64) } else { Fr::from(1u64) };
    }
    acc
}

/// The point of an entry (base index | sign).
pub fn entry_point(bases: &[G1Affine], entry: u32) -> G1Affine {
    let p = bases[(entry & !SIGN_BIT) as usize];
    if entry & SIGN_BIT != 0 {
        -p
    } else {
        p
    }
}

/// CPU twin of a table of shifted bases (`table.wgsl`): window j holds
/// 2^(c j) P for every base P, window major (identities stay identities).
pub fn shifted_table(bases: &[G1Affine], c: u32) -> Vec<G1Affine> {
    use ark_ec::CurveGroup;
    let mut window: Vec<G1Projective> = bases.iter().map(|p| (*p).into()).collect();
    let mut table = Vec::with_capacity(bases.len() * 255usize.div_ceil(c as usize));
    for j in 0..255u32.div_ceil(c) {
        if j > 0 {
            for p in &mut window {
                for _ in 0..c {
                    p.double_in_place();
                }
            }
        }
        table.extend(G1Projective::normalize_batch(&window));
    }
    table
}

/// Horner over windows: Q = sum_j 2^(c j) W_j.
pub fn combine_windows<C: SWCurveConfig>(window_sums: &[Projective<C>], c: u32) -> Projective<C> {
    let mut acc = Projective::<C>::zero();
    for w in window_sums.iter().rev() {
        for _ in 0..c {
            acc.double_in_place();
        }
        acc += w;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use ark_ec::CurveGroup;
    use ark_std::UniformRand;

    /// halo2curves-style check: every scalar is rebuilt from its signed digits
    /// for every window width, and every digit is in range.
    #[test]
    fn digits_rebuild_every_scalar_for_every_width() {
        let mut rng = ark_std::test_rng();
        let mut scalars: Vec<Fr> = (0..40).map(|_| Fr::rand(&mut rng)).collect();
        scalars.extend([
            Fr::zero(),
            Fr::from(1u64),
            -Fr::from(1u64),
            -Fr::from(2u64),
            Fr::from(u64::MAX),
        ]);
        for c in 2..=20u32 {
            let windows = 255u32.div_ceil(c);
            for s in &scalars {
                let w = scalar_words(s);
                let digits: Vec<i32> = (0..windows).map(|j| window_digit(&w, j, c)).collect();
                assert!(digits.iter().all(|d| d.unsigned_abs() <= 1 << (c - 1)), "c={c}");
                assert_eq!(digits_value(&digits, c), *s, "c={c} s={s}");
            }
        }
    }

    #[test]
    fn reference_twins_compose_to_arkworks() {
        for (align, tasks, vectors) in [(false, 21, 1), (true, 21, 1), (false, 2000, 1), (true, 2000, 3), (false, 64, 3)] {
            twins_compose(align, tasks, vectors, false);
        }
        // over a table of shifted bases: one row per vector
        for (align, tasks, vectors) in [(false, 21, 1), (true, 64, 1), (false, 64, 3), (true, 2000, 2)] {
            twins_compose(align, tasks, vectors, true);
        }
    }

    /// The twins on `vectors` vectors of 300 scalars over one set of bases
    /// (or its table) as one joint plan: each vector's rows give its own MSM.
    fn twins_compose(align: bool, tasks: u32, vectors: u32, table: bool) {
        let mut rng = ark_std::test_rng();
        let n = 300;
        let bases: Vec<G1Affine> = (0..n).map(|_| G1Projective::rand(&mut rng).into_affine()).collect();
        let scalars: Vec<Fr> = (0..n * vectors as usize).map(|_| Fr::rand(&mut rng)).collect();
        let c = 5;
        let plan = Plan {
            n: n as u32 * vectors,
            c,
            curve: crate::curve::Curve::Bn254G1,
            windows: 51,
            vectors,
            buckets: 16,
            threads: tasks,
            tasks,
            segments: 2,
            align,
            win_wg: 256,
            table,
            host_windows: false,
            scatter_span: u32::MAX,
            chain: false,
        };
        let words: Vec<Words> = scalars.iter().map(scalar_words).collect();
        let pre = preprocess(&plan, &words, &vec![false; n]);
        let points = if table { shifted_table(&bases, c) } else { bases.clone() };
        assert_eq!(points.len(), n * if table { 51 } else { 1 });
        let w = stream_walker(&plan, &points, &pre.stream(), &pre.offsets);
        let mut buckets = vec![None; plan.total_buckets() as usize];
        for (b, p) in w.finals.iter().chain(walker_combine(&w).iter()) {
            assert!(buckets[*b as usize].is_none(), "bucket {b} written twice");
            buckets[*b as usize] = Some(*p);
        }
        let sums = window_sums(&plan, &buckets);
        assert_eq!(sums.len(), (plan.rows_per_vector() * vectors) as usize);
        for (v, rows) in sums.chunks(plan.rows_per_vector() as usize).enumerate() {
            let q = combine_windows(rows, c);
            let want = msm_reference(&bases, &scalars[v * n..(v + 1) * n]);
            assert_eq!(q.into_affine(), want.into_affine(), "vector {v} of {vectors}");
        }
    }
}
