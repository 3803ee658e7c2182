//! stream_walker (`msm-wgsl/shaders/stream_walker.wgsl`): batch-affine bucket
//! accumulation, one inversion per workgroup iteration (`batch_inverse`).
//! CPU twin: [`crate::cpu::walker`].

use super::{tree_leaves, Binding, Buf, Kernel};
use crate::config::MsmConfig;
use crate::curve::Curve;
use crate::plan::Plan;

pub const BINDINGS: &[Binding] = &[
    Binding::uniform(0, Buf::Params),
    Binding::read(1, Buf::BaseX),
    Binding::read(2, Buf::BaseY),
    Binding::read(3, Buf::Offsets),
    Binding::read(4, Buf::L0Index),
    Binding::write(5, Buf::BucketSums),
    Binding::write(6, Buf::Partials),
];

/// Bytes of workgroup memory the walker needs: the inversion tree (2 x
/// leaves - 1 packed values), two flag words and, for workgroup pref
/// memory, TPB x S values.
pub fn workgroup_bytes(config: &MsmConfig, curve: Curve) -> u64 {
    let value = curve.coord_bytes();
    let leaves = tree_leaves(config.walker_tpb) as u64;
    let tree = (leaves + (leaves - 1).max(1)) * value;
    let pref = match config.walker_pref_mem {
        crate::config::PrefMem::Workgroup => config.walker_tpb as u64 * config.walker_slots as u64 * value,
        crate::config::PrefMem::Private => 0,
    };
    tree + pref + 8
}

pub fn kernels(config: &MsmConfig, plan: &Plan) -> Vec<Kernel> {
    let tpb = config.walker_tpb;
    vec![Kernel::new("main", tpb, plan.threads.div_ceil(tpb))
        .with("TPB", tpb)
        .with("LEAVES", tree_leaves(tpb))
        .with("INNER", tree_leaves(tpb).saturating_sub(1).max(1))]
}
