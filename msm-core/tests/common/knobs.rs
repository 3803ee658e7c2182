//! The walker knob matrix the MSM tests run, and its pairwise cover.

use msm_core::{GpuContext, MsmConfig, PrefMem};

/// The default config with these walker knobs.
pub fn walker_config(tpb: u32, pref: PrefMem, slots: u32, cache_dx: bool, fused: bool) -> MsmConfig {
    MsmConfig {
        walker_tpb: tpb,
        walker_pref_mem: pref,
        walker_slots: slots,
        walker_cache_dx: cache_dx,
        walker_fused: fused,
        ..Default::default()
    }
}

/// Every combination of TPB x pref x S x dx-cache x fused that the adapter
/// accepts, each with the index that rotates the input sizes over the whole
/// matrix (so every config sees a small and a large input).
pub fn knob_matrix(ctx: &GpuContext) -> Vec<(MsmConfig, usize)> {
    let mut matrix = Vec::new();
    for tpb in [64, 96, 128, 256] {
        for pref in [PrefMem::Private, PrefMem::Workgroup] {
            for slots in [2, 4, 8] {
                for cache_dx in [false, true] {
                    for fused in [false, true] {
                        let config = walker_config(tpb, pref, slots, cache_dx, fused);
                        // workgroup pref too large for this adapter: the error is tested elsewhere
                        if ctx.plan(1, &config).is_ok() {
                            matrix.push((config, matrix.len()));
                        }
                    }
                }
            }
        }
    }
    matrix
}

/// A subset of `matrix` in which every pair of two knobs' values (of the
/// pairs some accepted config has) appears at least once, chosen greedily
/// in the matrix's order: 96 configs cover in about 14, which is what the
/// suite runs; the full matrix is the `--ignored` run.
pub fn pairwise_cover(matrix: &[(MsmConfig, usize)]) -> Vec<(MsmConfig, usize)> {
    fn values(c: &MsmConfig) -> [u32; 5] {
        [
            c.walker_tpb,
            c.walker_pref_mem as u32,
            c.walker_slots,
            c.walker_cache_dx as u32,
            c.walker_fused as u32,
        ]
    }
    fn pairs(c: &MsmConfig) -> Vec<(usize, u32, usize, u32)> {
        let v = values(c);
        let mut out = Vec::new();
        for a in 0..5 {
            for b in a + 1..5 {
                out.push((a, v[a], b, v[b]));
            }
        }
        out
    }
    let mut uncovered: std::collections::HashSet<_> = matrix.iter().flat_map(|(c, _)| pairs(c)).collect();
    let mut picked = Vec::new();
    while !uncovered.is_empty() {
        let best = matrix
            .iter()
            .max_by_key(|(c, k)| {
                (
                    pairs(c).iter().filter(|p| uncovered.contains(*p)).count(),
                    usize::MAX - k,
                )
            })
            .unwrap();
        for p in pairs(&best.0) {
            uncovered.remove(&p);
        }
        picked.push(best.clone());
    }
    picked
}
