//! The arkworks CPU reference and CPU twins of the GPU passes (same inputs and
//! outputs, for per-pass diffs in tests).

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{PrimeField, Zero};

use crate::config::Plan;
use crate::layout::SIGN_BIT;
use crate::repr::Words;

/// arkworks' MSM: the reference every GPU result is checked against.
pub fn msm_reference(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    G1Projective::msm(bases, scalars).expect("equal lengths")
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

/// CPU twin of preprocess's histogram and scan: per-bucket counts and
/// exclusive offsets (offsets[T B] = E), plus each bucket's entries as a set
/// (the GPU's order inside a bucket is not deterministic).
pub struct Preprocessed {
    pub counts: Vec<u32>,
    pub offsets: Vec<u32>,
    pub bucket_entries: Vec<Vec<u32>>,
}

pub fn preprocess(plan: &Plan, scalars: &[Words], identity: &[bool]) -> Preprocessed {
    let tb = plan.total_buckets() as usize;
    let mut bucket_entries = vec![Vec::new(); tb];
    for (i, s) in scalars.iter().enumerate() {
        if identity[i] {
            continue;
        }
        for j in 0..plan.windows {
            let d = window_digit(s, j, plan.c);
            if d != 0 {
                let b = (j * plan.buckets + d.unsigned_abs() - 1) as usize;
                bucket_entries[b].push(i as u32 | if d < 0 { SIGN_BIT } else { 0 });
            }
        }
    }
    for e in &mut bucket_entries {
        e.sort_unstable();
    }
    let counts: Vec<u32> = bucket_entries.iter().map(|e| e.len() as u32).collect();
    let mut offsets = Vec::with_capacity(tb + 1);
    let mut run = 0u32;
    for c in &counts {
        offsets.push(run);
        run += c;
    }
    offsets.push(run);
    Preprocessed {
        counts,
        offsets,
        bucket_entries,
    }
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

/// The task range [a, b) of task k: CPU twin of the walker's split.
pub fn task_range(k: u32, total: u32, tasks: u32) -> (u32, u32) {
    let q = total / tasks;
    let rem = total % tasks;
    let a = k * q + k.min(rem);
    (a, a + q + u32::from(k < rem))
}

/// What the walker writes, as group elements: final bucket sums, and per task
/// a head partial (with its pass-through flag) and a tail partial.
#[derive(Debug, PartialEq)]
pub struct WalkerOutput {
    pub finals: Vec<(u32, G1Affine)>,
    pub heads: Vec<Option<(G1Affine, bool)>>,
    pub tails: Vec<Option<(u32, G1Affine)>>,
}

/// CPU twin of stream_walker on a given entry stream (the GPU's own order).
pub fn stream_walker(plan: &Plan, bases: &[G1Affine], l0_index: &[u32], l0_bucket: &[u32]) -> WalkerOutput {
    let total = l0_index.len() as u32;
    let mut out = WalkerOutput {
        finals: Vec::new(),
        heads: vec![None; plan.tasks as usize],
        tails: vec![None; plan.tasks as usize],
    };
    for k in 0..plan.tasks {
        let (a, b) = task_range(k, total, plan.tasks);
        let mut pos = a;
        while pos < b {
            let bucket = l0_bucket[pos as usize];
            let seg = pos;
            let mut acc = G1Projective::zero();
            while pos < b && l0_bucket[pos as usize] == bucket {
                acc += entry_point(bases, l0_index[pos as usize]);
                pos += 1;
            }
            let starts_mid = seg == a && a > 0 && l0_bucket[a as usize - 1] == bucket;
            let ends_mid = pos == b && b < total && l0_bucket[b as usize] == bucket;
            let p = acc.into_affine();
            if starts_mid {
                out.heads[k as usize] = Some((p, ends_mid));
            } else if ends_mid {
                out.tails[k as usize] = Some((bucket, p));
            } else {
                out.finals.push((bucket, p));
            }
        }
        if a == b && a > 0 && a < total && l0_bucket[a as usize - 1] == l0_bucket[a as usize] {
            out.heads[k as usize] = Some((G1Affine::zero(), true));
        }
    }
    out.finals.sort_by_key(|f| f.0);
    out
}

/// CPU twin of walker_combine: the sums of split buckets.
pub fn walker_combine(w: &WalkerOutput) -> Vec<(u32, G1Affine)> {
    let mut out = Vec::new();
    for (k, tail) in w.tails.iter().enumerate() {
        let Some((bucket, p)) = tail else { continue };
        let mut acc = G1Projective::from(*p);
        for head in &w.heads[k + 1..] {
            let Some((h, through)) = head else { break };
            acc += h;
            if !through {
                break;
            }
        }
        out.push((*bucket, acc.into_affine()));
    }
    out
}

/// CPU twin of reduce: window sums W_j = sum_k k B_{j,k} from all bucket sums
/// (indexed by bucket; `None` = empty).
pub fn window_sums(plan: &Plan, buckets: &[Option<G1Affine>]) -> Vec<G1Projective> {
    (0..plan.windows)
        .map(|j| {
            let mut running = G1Projective::zero();
            let mut total = G1Projective::zero();
            for i in (0..plan.buckets).rev() {
                if let Some(p) = buckets[(j * plan.buckets + i) as usize] {
                    running += p;
                }
                total += running;
            }
            total
        })
        .collect()
}

/// Horner over windows: Q = sum_j 2^(c j) W_j.
pub fn combine_windows(window_sums: &[G1Projective], c: u32) -> G1Projective {
    let mut acc = G1Projective::zero();
    for w in window_sums.iter().rev() {
        for _ in 0..c {
            acc = acc + acc;
        }
        acc += w;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let mut rng = ark_std::test_rng();
        let n = 300;
        let bases: Vec<G1Affine> = (0..n).map(|_| G1Projective::rand(&mut rng).into_affine()).collect();
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let c = 5;
        let plan = Plan {
            n: n as u32,
            c,
            windows: 51,
            buckets: 16,
            threads: 7,
            tasks: 21,
            segments: 2,
        };
        let words: Vec<Words> = scalars.iter().map(scalar_words).collect();
        let pre = preprocess(&plan, &words, &vec![false; n]);
        let l0_index: Vec<u32> = pre.bucket_entries.concat();
        let l0_bucket: Vec<u32> = pre
            .bucket_entries
            .iter()
            .enumerate()
            .flat_map(|(b, e)| std::iter::repeat_n(b as u32, e.len()))
            .collect();
        let w = stream_walker(&plan, &bases, &l0_index, &l0_bucket);
        let mut buckets = vec![None; plan.total_buckets() as usize];
        for (b, p) in w.finals.iter().chain(walker_combine(&w).iter()) {
            assert!(buckets[*b as usize].is_none(), "bucket {b} written twice");
            buckets[*b as usize] = Some(*p);
        }
        let q = combine_windows(&window_sums(&plan, &buckets), c);
        assert_eq!(q.into_affine(), msm_reference(&bases, &scalars).into_affine());
    }
}
