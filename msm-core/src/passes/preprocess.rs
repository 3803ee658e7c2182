//! preprocess (`msm-wgsl/shaders/preprocess.wgsl`): signed digits, then a
//! counting sort of the (point, window) entries into bucket-major order:
//! histogram, a three-step scan (blocks, top, add) and scatter.
//! CPU twin: [`crate::cpu::preprocess()`].

use super::{Binding, Buf, Kernel};
use crate::plan::{geometry, Plan};

/// Points per workgroup of `histogram` and `scatter` (override `WG`).
pub const WG: u32 = geometry::PREPROCESS_WG;
/// Invocations per workgroup of the scans (override `SCAN_WG`).
pub const SCAN_WG: u32 = 256;
/// Counts each scan invocation covers (override `SCAN_PER_THREAD`).
pub const SCAN_PER_THREAD: u32 = 4;

pub const BINDINGS: &[Binding] = &[
    Binding::uniform(0, Buf::Params),
    Binding::write(1, Buf::Scalars),
    Binding::read(2, Buf::BaseFlags),
    Binding::write(3, Buf::Counts),
    Binding::write(4, Buf::Offsets),
    Binding::write(5, Buf::Cursor),
    Binding::write(6, Buf::L0Index),
    Binding::write(7, Buf::BlockSums),
];

/// Blocks of the scan: counts / (SCAN_WG * SCAN_PER_THREAD), rounded up.
pub fn scan_blocks(plan: &Plan) -> u32 {
    (plan.total_buckets() as u32).div_ceil(SCAN_WG * SCAN_PER_THREAD)
}

pub fn kernels(plan: &Plan) -> Vec<Kernel> {
    let points = plan.n.div_ceil(WG);
    let blocks = scan_blocks(plan);
    let scan = |entry| {
        Kernel::new(entry, SCAN_WG, blocks)
            .with("SCAN_WG", SCAN_WG)
            .with("SCAN_PER_THREAD", SCAN_PER_THREAD)
    };
    vec![
        Kernel::new("histogram", WG, points).with("WG", WG),
        scan("scan_blocks"),
        Kernel::new("scan_top", SCAN_WG, 1)
            .with("SCAN_WG", SCAN_WG)
            .with("SCAN_PER_THREAD", SCAN_PER_THREAD),
        scan("scan_add"),
        // round by round: workgroups start in order, so each round's range
        // of buckets is the one being filled
        Kernel::new("scatter", WG, points * plan.scatter_rounds()).with("WG", WG),
    ]
}
