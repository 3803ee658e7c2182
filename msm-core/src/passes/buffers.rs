//! The buffers the passes bind, named once: each buffer's WGSL name, its
//! size for a plan and who holds it. A pass's bindings name these buffers,
//! so its bind-group layout, its bind groups and the scratch's sizes (and
//! the memory check before allocating) all come from this one list.

use super::{preprocess, reduce, walker_combine};
use crate::layout::MsmParams;
use crate::plan::Plan;

/// A buffer some pass binds. The per-plan scratch holds every one of them
/// but the base part's (`Base*`), which belong to the resident bases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buf {
    Params,
    Scalars,
    Counts,
    Offsets,
    Cursor,
    L0Index,
    BlockSums,
    BucketSums,
    Partials,
    Level1,
    Level2,
    Level3,
    SplitSums,
    SegmentSums,
    GroupSums,
    WindowSums,
    OwnerList,
    ChainSums,
    BaseFlags,
    BaseX,
    BaseY,
}

impl Buf {
    /// The per-plan scratch buffers, in the order the scratch holds them
    /// (their discriminants).
    pub const SCRATCH: [Buf; 18] = [
        Buf::Params,
        Buf::Scalars,
        Buf::Counts,
        Buf::Offsets,
        Buf::Cursor,
        Buf::L0Index,
        Buf::BlockSums,
        Buf::BucketSums,
        Buf::Partials,
        Buf::Level1,
        Buf::Level2,
        Buf::Level3,
        Buf::SplitSums,
        Buf::SegmentSums,
        Buf::GroupSums,
        Buf::WindowSums,
        Buf::OwnerList,
        Buf::ChainSums,
    ];

    /// The variable's name in every WGSL file that binds it.
    pub const fn wgsl(self) -> &'static str {
        match self {
            Buf::Params => "params",
            Buf::Scalars => "scalars",
            Buf::Counts => "counts",
            Buf::Offsets => "offsets",
            Buf::Cursor => "cursor",
            Buf::L0Index => "l0_index",
            Buf::BlockSums => "block_sums",
            Buf::BucketSums => "bucket_sums",
            Buf::Partials => "partials",
            Buf::Level1 => "level1",
            Buf::Level2 => "level2",
            Buf::Level3 => "level3",
            Buf::SplitSums => "split_sums",
            Buf::SegmentSums => "segment_sums",
            Buf::GroupSums => "group_sums",
            Buf::WindowSums => "window_sums",
            Buf::OwnerList => "owner_list",
            Buf::ChainSums => "chain_sums",
            Buf::BaseFlags => "base_flags",
            Buf::BaseX => "base_x",
            Buf::BaseY => "base_y",
        }
    }

    /// walker_combine's chain level `index + 1`.
    pub fn level(index: usize) -> Buf {
        [Buf::Level1, Buf::Level2, Buf::Level3][index]
    }

    /// Whether the scratch holds it (else the base part does).
    pub const fn in_scratch(self) -> bool {
        !matches!(self, Buf::BaseFlags | Buf::BaseX | Buf::BaseY)
    }

    /// Bytes the scratch allocates for `plan` (at least 16; 0 for the base
    /// part's buffers).
    pub fn bytes(self, plan: &Plan) -> u64 {
        let tb = plan.total_buckets();
        let rec = plan.curve.record_bytes();
        let xyzz = plan.curve.xyzz_bytes();
        let (tasks, rows) = (plan.tasks as u64, plan.rows() as u64);
        let level = |l| walker_combine::level_len(plan.tasks, l) as u64 * walker_combine::chain_sum_bytes(plan.curve);
        let bytes = match self {
            Buf::Params => std::mem::size_of::<MsmParams>() as u64,
            Buf::Scalars => plan.n as u64 * 32,
            Buf::Counts | Buf::Cursor => tb * 4,
            Buf::Offsets => (tb + 1) * 4,
            Buf::L0Index => plan.max_entries() * 4,
            Buf::BlockSums => preprocess::scan_blocks(plan) as u64 * 4,
            Buf::BucketSums => tb * rec,
            Buf::Partials => 2 * tasks * rec,
            Buf::Level1 => level(1),
            Buf::Level2 => level(2),
            Buf::Level3 => level(3),
            // XYZZ sums of split buckets, one slot per walker task
            Buf::SplitSums => tasks * xyzz,
            // (T, U) per segment, (E, V) per group
            Buf::SegmentSums => 2 * rows * plan.segments as u64 * xyzz,
            Buf::GroupSums => 2 * rows * reduce::groups_per_window(plan) as u64 * xyzz,
            Buf::WindowSums => rows * xyzz,
            // walker_combine's owners: a count, then their task indices
            Buf::OwnerList => (tasks + 1) * 4,
            // a chain's running bucket sums; one unused point elsewhere (a
            // binding holds at least one element)
            Buf::ChainSums if plan.chain => tb * xyzz,
            Buf::ChainSums => xyzz,
            Buf::BaseFlags | Buf::BaseX | Buf::BaseY => return 0,
        };
        bytes.max(16)
    }

    /// How the scratch creates it.
    pub fn usage(self) -> wgpu::BufferUsages {
        match self {
            Buf::Params => wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            _ => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        }
    }

    /// Its label on the GPU.
    pub fn label(self) -> String {
        format!("msm.{}", self.wgsl())
    }
}

/// The passes' uniform for `plan`: a whole-vector call over the first
/// bases, canonical scalars, no table (callers adjust per chunk).
impl From<&Plan> for MsmParams {
    fn from(p: &Plan) -> Self {
        MsmParams {
            n: p.n,
            c: p.c,
            rows: p.rows(),
            buckets: p.buckets,
            tasks: p.tasks,
            segments: p.segments,
            base_offset: 0,
            align: u32::from(p.align),
            scalar_form: crate::layout::SCALARS_CANONICAL,
            windows: p.windows,
            vector_len: p.vector_len(),
            table_stride: 0,
            scatter_span: p.scatter_span,
            link: 0,
            _pad: [0; 2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scratch list holds every scratch buffer once, in discriminant order.
    #[test]
    fn scratch_order_is_the_discriminants() {
        for (i, b) in Buf::SCRATCH.iter().enumerate() {
            assert_eq!(*b as usize, i, "{b:?}");
            assert!(b.in_scratch());
        }
        for b in [Buf::BaseFlags, Buf::BaseX, Buf::BaseY] {
            assert!(!b.in_scratch() && b as usize >= Buf::SCRATCH.len());
        }
    }
}
