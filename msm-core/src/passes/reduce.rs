//! reduce (`msm-wgsl/shaders/reduce.wgsl`): window sums by running sums over
//! segments of buckets, then the segments' weights from suffix sums and
//! trees per group of segments and per window (no double-and-add by a
//! segment's offset).
//! CPU twin: [`crate::cpu::reduce`].

use super::{Binding, Buf, Kernel};
use crate::plan::{geometry, Plan};

/// Workgroup size of `segments` and `groups` (override `WG`; a power of two).
pub const WG: u32 = geometry::REDUCE_WG;
/// The largest workgroup of `windows` (override `WIN_WG`, the plan's
/// `win_wg`: a power of two, at least the groups of a window; the plan keeps
/// at most WG x win_wg segments a window where this kernel runs).
pub const WIN_WG_MAX: u32 = geometry::REDUCE_WIN_WG_MAX;

pub const BINDINGS: &[Binding] = &[
    Binding::uniform(0, Buf::Params),
    Binding::read(1, Buf::Counts),
    Binding::read(2, Buf::BucketSums),
    Binding::write(3, Buf::GroupSums),
    Binding::write(4, Buf::WindowSums),
    Binding::read(5, Buf::SplitSums),
    Binding::write(6, Buf::SegmentSums),
    Binding::write(7, Buf::ChainSums),
];

/// Group sums per window: segments / WG, rounded up.
pub fn groups_per_window(plan: &Plan) -> u32 {
    plan.segments.div_ceil(WG)
}

/// Lanes of one group in `groups`: WG, or a row's segments rounded up to
/// a power of two when fewer (rows then share workgroups).
pub fn group_span(plan: &Plan) -> u32 {
    WG.min(plan.segments.next_power_of_two())
}

pub fn kernels(plan: &Plan) -> Vec<Kernel> {
    debug_assert!(plan.host_windows || groups_per_window(plan) <= plan.win_wg);
    let rows = plan.rows() as u64;
    let segments = rows * plan.segments as u64;
    let lanes = rows * (groups_per_window(plan) * group_span(plan)) as u64;
    let workgroups = |lanes: u64| lanes.div_ceil(WG as u64) as u32;
    let mut kernels = Vec::new();
    // a chain's jobs add their buckets up; only its last runs the rest
    if plan.chain {
        kernels.push(accumulate(plan));
    }
    kernels.extend([
        Kernel::new("segments", WG, workgroups(segments)).with("WG", WG),
        Kernel::new("groups", WG, workgroups(lanes)).with("WG", WG),
    ]);
    // with `host_windows` the host folds each row's group sums
    if !plan.host_windows {
        kernels.push(
            Kernel::new("windows", plan.win_wg, plan.rows())
                .with("WG", WG)
                .with("WIN_WG", plan.win_wg),
        );
    }
    kernels
}

/// The kernel that adds a chained job's bucket sums into the chain's.
pub fn accumulate(plan: &Plan) -> Kernel {
    Kernel::new("accumulate", WG, plan.total_buckets().div_ceil(WG as u64) as u32).with("WG", WG)
}

/// Whether the kernel runs in every job of a chain (the others only in its
/// last, which reduces).
pub fn runs_in_every_link(k: &Kernel) -> bool {
    k.entry == "accumulate"
}

/// The buffer a job's results come from and its bytes: each row's window
/// sum, or with `host_windows` each row's (E, V) group sums.
pub fn result_buffer(plan: &Plan) -> (Buf, u64) {
    if plan.host_windows {
        let groups = groups_per_window(plan) as u64;
        (Buf::GroupSums, 2 * plan.rows() as u64 * groups * plan.curve.xyzz_bytes())
    } else {
        (Buf::WindowSums, plan.rows() as u64 * plan.curve.xyzz_bytes())
    }
}
