//! The passes' geometry that the planner sizes by: workgroup sizes and
//! limits that the WGSL passes take as override constants. The pass modules
//! bind these values; the planner reads them here, without a device.

use crate::config::{MsmConfig, PrefMem};
use crate::curve::Curve;

/// walker_combine: chain elements per block of the level above.
pub const COMBINE_BLOCK: u32 = 64;
/// walker_combine: levels of block sums at most (chains of up to BLOCK^4
/// tasks).
pub const COMBINE_MAX_LEVELS: u32 = 3;
/// preprocess: points per workgroup of `histogram` and `scatter`.
pub const PREPROCESS_WG: u32 = 64;
/// Workgroups one dispatch may have: WebGPU's least per-dimension limit,
/// squared (the shaders rebuild linear indices from a 2-D grid).
pub const MAX_DISPATCH_GROUPS: u64 = 65_535 * 65_535;
/// reduce: workgroup size of `segments` and `groups` (a power of two).
pub const REDUCE_WG: u32 = 64;
/// reduce: the largest workgroup of `windows` (the plan's `win_wg`: a power
/// of two, at least the groups of a window; the plan keeps at most
/// REDUCE_WG x win_wg segments a window).
pub const REDUCE_WIN_WG_MAX: u32 = 256;

/// `n` rounded up to a power of two (the leaves of a batch-inverse tree).
pub fn tree_leaves(threads: u32) -> u32 {
    threads.max(1).next_power_of_two()
}

/// The overrides of `batch_inverse` for a workgroup of `tpb`: its size, the
/// tree's leaves and inner nodes (at least one). Every kernel that imports
/// the tree sizes it here.
pub fn tree_overrides(tpb: u32) -> [(&'static str, u32); 3] {
    let leaves = tree_leaves(tpb);
    [("TPB", tpb), ("LEAVES", leaves), ("INNER", leaves.saturating_sub(1).max(1))]
}

/// Bytes of workgroup memory stream_walker needs: the inversion tree (2 x
/// leaves - 1 packed values), two flag words and, for workgroup pref
/// memory, TPB x S values.
pub fn walker_workgroup_bytes(config: &MsmConfig, curve: Curve) -> u64 {
    let value = curve.coord_bytes();
    let leaves = tree_leaves(config.walker_tpb) as u64;
    let tree = (leaves + (leaves - 1).max(1)) * value;
    let pref = match config.walker_pref_mem {
        PrefMem::Workgroup => config.walker_tpb as u64 * config.walker_slots as u64 * value,
        PrefMem::Private => 0,
    };
    tree + pref + 8
}
