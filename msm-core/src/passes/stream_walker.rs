//! stream_walker (`msm-wgsl/shaders/stream_walker.wgsl`): batch-affine bucket
//! accumulation, one inversion per workgroup iteration (`batch_inverse`).
//! CPU twin: [`crate::cpu::walker`].

use super::{tree_overrides, Binding, Buf, Kernel};
use crate::config::MsmConfig;
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

pub use crate::plan::geometry::walker_workgroup_bytes as workgroup_bytes;

pub fn kernels(config: &MsmConfig, plan: &Plan) -> Vec<Kernel> {
    let tpb = config.walker_tpb;
    let kernel = Kernel::new("main", tpb, plan.threads.div_ceil(tpb));
    vec![tree_overrides(tpb).into_iter().fold(kernel, |k, (name, v)| k.with(name, v))]
}
