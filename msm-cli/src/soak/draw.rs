//! What one soak run draws from `(seed, run)`: its size, how its bases are
//! held, its input classes and a value for every knob of the knob table.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{UniformRand, Zero};
use msm_core::knobs::KNOBS;
use msm_core::sample::{reshape_scalars, ScalarClass};
use msm_core::{MsmConfig, MsmError};
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha20Rng;

/// Knobs that select a compiled pipeline (the table's `shader` knobs; the
/// rest only change the plan).
pub(super) fn shader_knobs() -> impl Iterator<Item = &'static str> {
    KNOBS.iter().filter(|k| k.shader).map(|k| k.name)
}

fn pick<'a>(rng: &mut ChaCha20Rng, items: &[&'a str]) -> &'a str {
    items[below(rng, items.len() as u64) as usize]
}

pub(super) fn below(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

fn chance(rng: &mut ChaCha20Rng, one_in: u64) -> bool {
    below(rng, one_in) == 0
}

/// A random value of knob `name` in the text `MsmConfig::set` reads, drawn
/// over the knob's documented domain (automatic choices included) for an
/// MSM of `n` points; `None` for a knob this table does not know.
fn knob_value(name: &str, rng: &mut ChaCha20Rng, n: usize, max_tpb: u32) -> Option<String> {
    let auto_or = |rng: &mut ChaCha20Rng, v: u64| if chance(rng, 2) { "auto".into() } else { v.to_string() };
    let boolean = |rng: &mut ChaCha20Rng| pick(rng, &["true", "false"]).to_string();
    Some(match name {
        // wide windows (reduce over up to 2^19 buckets) are slow: one in four
        "window_bits" if chance(rng, 4) => (2 + below(rng, 19)).to_string(),
        "window_bits" => "auto".into(),
        "walker_tpb" if chance(rng, 4) => (1 + below(rng, max_tpb as u64)).to_string(),
        "walker_tpb" => pick(rng, &["32", "64", "96", "128", "160", "192", "256"]).into(),
        "walker_pref_mem" => pick(rng, &["private", "workgroup"]).into(),
        "walker_slots" => (1 + below(rng, 16)).to_string(),
        "walker_cache_dx" | "walker_fused" | "walker_unroll" | "walker_straight" | "timing" => boolean(rng),
        "walker_threads" => {
            let v = if chance(rng, 2) {
                1 << below(rng, 17)
            } else {
                1 + below(rng, 70_000)
            };
            auto_or(rng, v)
        }
        "walker_split" => pick(rng, &["equal", "buckets"]).into(),
        // at most about 8 chunks: one submission each
        "max_chunk_points" => {
            let lo = (n as u64 / 8).max(1);
            let v = lo + below(rng, (n as u64).saturating_sub(lo) + 1);
            auto_or(rng, v)
        }
        "reduce" => pick(rng, &["auto", "gpu", "host"]).into(),
        "reduce_segment" => {
            let v = 1u64 << below(rng, 7);
            auto_or(rng, v)
        }
        // off, the default, or groups of 1..=8 vectors of n
        "joint_points" if chance(rng, 3) => pick(rng, &["0", "4194304"]).into(),
        "joint_points" => (n as u64 * (1 + below(rng, 8))).to_string(),
        // one submission, the default, or waves of 1..=4 vectors of n
        "wave_points" if chance(rng, 3) => pick(rng, &["0", "2097152"]).into(),
        "wave_points" => (n as u64 * (1 + below(rng, 4))).to_string(),
        "bases_table" => boolean(rng),
        // never, the built-in second call, or the first
        "table_after" => pick(rng, &["0", "2", "1"]).into(),
        "host_windows_max" if chance(rng, 2) => "0".into(),
        "host_windows_max" => pick(rng, &["1", "64", "4096", "4294967295"]).into(),
        "chain_jobs" => pick(rng, &["0", "2", "4"]).into(),
        "scatter_buckets" if chance(rng, 2) => "0".into(),
        "scatter_buckets" => pick(rng, &["1", "1000", "131072"]).into(),
        _ => return None,
    })
}

/// The shader knobs of one set, drawn fresh.
pub(super) fn shader_set(rng: &mut ChaCha20Rng, max_tpb: u32) -> Vec<(&'static str, String)> {
    shader_knobs()
        .map(|k| (k, knob_value(k, rng, 0, max_tpb).expect("a shader knob has values")))
        .collect()
}

/// How the bases of a run are made from seeded points.
const BASE_CLASSES: &[&str] = &["random", "identities", "duplicates", "plus-minus", "progression"];
/// Scalar classes beyond `ScalarClass`: 0, 1, r - 1, r - 2 and powers of two mixed.
const EDGE_SCALARS: &str = "edge";

/// `n` bases of `class` from seed `seed`.
pub(super) fn bases_of(class: &str, n: usize, seed: u64) -> Vec<G1Affine> {
    let (random, _) = msm_core::sample::inputs(n, seed);
    match class {
        "identities" => (0..n)
            .map(|i| if i % 3 == 0 { G1Affine::zero() } else { random[i] })
            .collect(),
        "duplicates" => (0..n).map(|i| random[i % 5]).collect(),
        "plus-minus" => (0..n)
            .map(|i| if i % 2 == 0 { random[i / 2] } else { -random[i / 2] })
            .collect(),
        "progression" => {
            let g = G1Affine::generator();
            let mut acc = G1Projective::zero();
            let points: Vec<G1Projective> = (0..n)
                .map(|_| {
                    acc += g;
                    acc
                })
                .collect();
            G1Projective::normalize_batch(&points)
        }
        _ => random,
    }
}

/// `n` scalars of `class` (a `ScalarClass` name or `edge`).
pub(super) fn scalars_of(class: &str, n: usize, rng: &mut ChaCha20Rng) -> Vec<Fr> {
    let mut s: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
    if class == EDGE_SCALARS {
        let one = Fr::from(1u64);
        for x in s.iter_mut() {
            *x = match below(rng, 6) {
                0 => Fr::zero(),
                1 => one,
                2 => -one,
                3 => -one - one,
                4 => ark_ff::Field::pow(&Fr::from(2u64), [below(rng, 254)]),
                _ => *x,
            };
        }
    } else if let Ok(c) = class.parse::<ScalarClass>() {
        reshape_scalars(&mut s, c, rng.next_u64());
    }
    s
}

/// Everything one run drew.
pub(super) struct Draw {
    pub(super) n: usize,
    /// Bases beyond the scalars (a prefix MSM uses the first bases).
    pub(super) extra: usize,
    /// Points per base part (`None`: as the adapter allows).
    pub(super) part: Option<usize>,
    pub(super) canonical: bool,
    pub(super) scalar_class: String,
    pub(super) base_class: &'static str,
    /// The window width of a table of shifted bases built for the run.
    pub(super) table: Option<u32>,
    pub(super) knobs: Vec<(&'static str, String)>,
}

impl Draw {
    pub(super) fn new(
        rng: &mut ChaCha20Rng,
        max_logn: u32,
        shader: Option<&[(&'static str, String)]>,
        max_tpb: u32,
    ) -> Self {
        let log = below(rng, max_logn as u64 + 1) as u32;
        let n = if log == 0 {
            below(rng, 2) as usize
        } else {
            (1usize << (log - 1)) + 1 + below(rng, 1 << (log - 1)) as usize
        };
        let extra = if chance(rng, 4) { 1 + below(rng, 16) as usize } else { 0 };
        let part = (n >= 2 && chance(rng, 4)).then(|| (n / 4).max(1) + below(rng, (n - n / 4) as u64) as usize);
        let mut scalar_classes: Vec<&str> = ScalarClass::ALL.iter().map(|c| c.name()).collect();
        scalar_classes.push(EDGE_SCALARS);
        let scalar_class = pick(rng, &scalar_classes).to_string();
        let base_class = BASE_CLASSES[below(rng, BASE_CLASSES.len() as u64) as usize];
        let canonical = chance(rng, 2);
        let table = chance(rng, 4).then(|| 4 + below(rng, 13) as u32);
        let mut knobs = Vec::new();
        for k in KNOBS {
            let drawn = knob_value(k.name, rng, n, max_tpb)
                .unwrap_or_else(|| panic!("soak: knob `{}` has no value generator (add it to knob_value)", k.name));
            let from_set = shader.and_then(|s| s.iter().find(|(name, _)| *name == k.name));
            knobs.push((k.name, from_set.map_or(drawn, |(_, v)| v.clone())));
        }
        Draw {
            n,
            extra,
            part,
            canonical,
            scalar_class,
            base_class,
            table,
            knobs,
        }
    }

    pub(super) fn config(&self) -> Result<MsmConfig, MsmError> {
        let mut c = MsmConfig::default();
        for (name, value) in &self.knobs {
            c.set(name, value)?;
        }
        Ok(c)
    }

    pub(super) fn class(&self) -> String {
        format!("{} scalars / {} bases", self.scalar_class, self.base_class)
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::rand_core::SeedableRng;

    use super::*;

    /// Every knob of the table gets drawn values that its parser accepts: a
    /// knob added to msm-core without a generator here fails this test.
    #[test]
    fn every_knob_has_values_the_parser_takes() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for k in KNOBS {
            for n in [0, 1, 100, 4096] {
                for _ in 0..50 {
                    let v = knob_value(k.name, &mut rng, n, 256)
                        .unwrap_or_else(|| panic!("knob {} has no generator", k.name));
                    let mut c = MsmConfig::default();
                    c.set(k.name, &v).unwrap_or_else(|e| panic!("{} = {v}: {e}", k.name));
                }
            }
        }
    }

    /// Draws depend on (seed, run) only, and sizes stay in range.
    #[test]
    fn draws_replay_and_stay_in_range() {
        let draw = |i: u64| {
            let mut rng = ChaCha20Rng::seed_from_u64(9);
            rng.set_stream(i);
            Draw::new(&mut rng, 12, None, 256)
        };
        let mut sizes = Vec::new();
        for i in 0..500 {
            let (a, b) = (draw(i), draw(i));
            assert_eq!((a.n, &a.knobs, a.part), (b.n, &b.knobs, b.part));
            assert!(a.n <= 1 << 12);
            assert!(a.part.is_none_or(|p| (1..=a.n).contains(&p)));
            sizes.push(a.n);
        }
        assert!(sizes.contains(&0) && sizes.iter().any(|&n| n > 2048));
    }
}
