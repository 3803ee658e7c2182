//! walker_combine (`msm-wgsl/shaders/walker_combine.wgsl`): joins the partials
//! of buckets split across walker tasks; long chains in block levels; the
//! tasks that own a chain gathered into one list, so that full warps walk
//! them; each split bucket's sum stays in XYZZ (no inversion), for reduce.
//! CPU twin: [`crate::cpu::combine`].

use super::{Binding, Buf, Kernel};
use crate::plan::{geometry, Plan};

/// Chain elements per block of the level above (override `BLOCK`).
pub const BLOCK: u32 = geometry::COMBINE_BLOCK;
/// Workgroup size of `blocks` (override `BLOCKS_WG`).
pub const BLOCKS_WG: u32 = 64;
/// Workgroup size of `gather` and `owners` (override `OWNERS_WG`).
pub const OWNERS_WG: u32 = 64;
/// Bytes of a WGSL `ChainSum`: an XYZZ point and a flags word.
pub fn chain_sum_bytes(curve: crate::curve::Curve) -> u64 {
    curve.xyzz_bytes() + 4
}
/// Levels of block sums at most (chains of up to BLOCK^4 tasks).
pub const MAX_LEVELS: u32 = geometry::COMBINE_MAX_LEVELS;

pub const BINDINGS: &[Binding] = &[
    Binding::uniform(0, Buf::Params),
    Binding::read(1, Buf::Partials),
    Binding::write(2, Buf::BucketSums),
    Binding::write(3, Buf::Level1),
    Binding::write(4, Buf::Level2),
    Binding::write(5, Buf::Level3),
    Binding::write(6, Buf::SplitSums),
    Binding::write(7, Buf::OwnerList),
];

/// Elements of chain level `level` (level 0: one per walker task).
pub fn level_len(tasks: u32, level: u32) -> u32 {
    (0..level).fold(tasks, |len, _| len.div_ceil(BLOCK))
}

/// Block levels walker_combine builds: enough that an owner walks at most
/// BLOCK - 1 elements per level plus the top level, up to [`MAX_LEVELS`]
/// (twin of the shader's `chain_levels`).
pub fn chain_levels(tasks: u32) -> u32 {
    (1..=MAX_LEVELS)
        .take_while(|&l| level_len(tasks, l - 1) > BLOCK)
        .count() as u32
}

/// The `blocks` kernel of chain level `level` over `tasks` walker tasks.
fn blocks(tasks: u32, level: u32) -> Kernel {
    Kernel::new("blocks", BLOCKS_WG, level_len(tasks, level).div_ceil(BLOCKS_WG))
        .with("LEVEL", level)
        .with("BLOCK", BLOCK)
        .with("BLOCKS_WG", BLOCKS_WG)
}

/// The kernels some size may need beyond `plan`'s: the `blocks` kernel of
/// every chain level (a level is an override, so each is its own pipeline;
/// larger inputs have more levels).
pub fn other_sizes_kernels(plan: &Plan) -> Vec<Kernel> {
    (chain_levels(plan.tasks) + 1..=MAX_LEVELS)
        .map(|level| blocks(plan.tasks, level))
        .collect()
}

pub fn kernels(plan: &Plan) -> Vec<Kernel> {
    let levels = chain_levels(plan.tasks);
    let mut k: Vec<Kernel> = (1..=levels).map(|level| blocks(plan.tasks, level)).collect();
    // as many workgroups as tasks could need: those past the list's count
    // leave at once
    let groups = plan.tasks.div_ceil(OWNERS_WG);
    k.push(Kernel::new("gather", OWNERS_WG, groups).with("OWNERS_WG", OWNERS_WG));
    k.push(
        Kernel::new("owners", OWNERS_WG, groups)
            .with("BLOCK", BLOCK)
            .with("OWNERS_WG", OWNERS_WG),
    );
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MsmConfig;
    use crate::plan::AdapterBounds;

    /// A small plan's kernels and the ones other sizes need give a `blocks`
    /// kernel for every chain level, each once, and a large plan's own
    /// `blocks` kernels are among them (same entry and overrides).
    #[test]
    fn every_level_is_compiled_with_the_first_size() {
        let bounds = AdapterBounds {
            max_binding_size: 1 << 40,
            inversion_loops: 78,
            ..AdapterBounds::discrete_for_tests()
        };
        let config = MsmConfig::default();
        let small = config.plan(1 << 10, &bounds).unwrap();
        let large = config.plan(1 << 24, &bounds).unwrap();
        assert!(chain_levels(small.tasks) < chain_levels(large.tasks));
        let key = |k: &Kernel| (k.entry, k.overrides.clone());
        let first: Vec<_> = kernels(&small)
            .iter()
            .chain(&other_sizes_kernels(&small))
            .map(key)
            .collect();
        let levels: Vec<_> = first.iter().filter(|(e, _)| *e == "blocks").collect();
        assert_eq!(levels.len(), MAX_LEVELS as usize);
        for k in kernels(&large).iter().map(key) {
            assert!(first.contains(&k), "{k:?} is not compiled with the first size");
        }
    }
}
