//! reduce (`msm-wgsl/shaders/reduce.wgsl`): window sums by running sums over
//! segments of buckets, a tree per workgroup, then one sum per window.
//! CPU twin: [`crate::cpu::reduce`].

use super::{Binding, Kernel};
use crate::plan::Plan;

/// Workgroup size of both kernels (override `WG`; a power of two).
pub const WG: u32 = 64;
/// Bytes of one XYZZ point (32 words).
pub const XYZZ_BYTES: u64 = 128;

pub const BINDINGS: &[Binding] = &[
    Binding::uniform(0, "params"),
    Binding::read(1, "counts"),
    Binding::read(2, "bucket_sums"),
    Binding::write(3, "group_sums"),
    Binding::write(4, "window_sums"),
    Binding::read(5, "split_sums"),
];

/// Group sums per window: segments / WG, rounded up.
pub fn groups_per_window(plan: &Plan) -> u32 {
    plan.segments.div_ceil(WG)
}

pub fn kernels(plan: &Plan) -> Vec<Kernel> {
    vec![
        Kernel::new("segments", WG, groups_per_window(plan))
            .rows(plan.windows)
            .with("WG", WG),
        Kernel::new("windows", WG, plan.windows).with("WG", WG),
    ]
}
