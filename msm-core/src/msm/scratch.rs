//! Per-plan scratch: every buffer the passes use for one plan, the bind groups
//! that bind them (per resident base part), and the timing objects. Kept in a
//! small cache on the context, so a warm call with an unchanged plan creates
//! no GPU object.

use std::collections::HashMap;

use crate::bases::BasePart;
use crate::context::GpuContext;
use crate::layout::POINT_RECORD_BYTES;
use crate::passes::{bind_group, preprocess, reduce, walker_combine, Pass};
use crate::plan::Plan;

/// Plans whose scratch the context keeps (a sweep alternates a few).
pub(crate) const CACHED_PLANS: usize = 6;
/// Base parts whose bind groups one scratch keeps.
const CACHED_BINDINGS: usize = 8;
/// Timestamps one chunk may write: two per kernel.
pub(crate) const MAX_TIMESTAMPS: u32 = 32;

pub(crate) struct Scratch {
    pub(crate) plan: Plan,
    pub(crate) params: wgpu::Buffer,
    pub(crate) scalars: wgpu::Buffer,
    pub(crate) counts: wgpu::Buffer,
    pub(crate) offsets: wgpu::Buffer,
    pub(crate) cursor: wgpu::Buffer,
    pub(crate) l0_index: wgpu::Buffer,
    pub(crate) l0_bucket: wgpu::Buffer,
    pub(crate) block_sums: wgpu::Buffer,
    pub(crate) bucket_sums: wgpu::Buffer,
    pub(crate) partials: wgpu::Buffer,
    pub(crate) chain_levels: [wgpu::Buffer; 3],
    /// XYZZ sums of split buckets, one slot per walker task.
    pub(crate) split_sums: wgpu::Buffer,
    pub(crate) segment_sums: wgpu::Buffer,
    pub(crate) group_sums: wgpu::Buffer,
    pub(crate) window_sums: wgpu::Buffer,
    /// Bind groups of the four passes per (bases id, part index).
    bind_groups: HashMap<(u64, usize), [wgpu::BindGroup; 4]>,
    /// Timestamp queries and their resolve buffer, made at first timed use.
    pub(crate) timing: Option<(wgpu::QuerySet, wgpu::Buffer)>,
}

impl GpuContext {
    pub(crate) fn new_scratch(&self, plan: &Plan) -> Scratch {
        let st = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let buf = |label: &str, bytes: u64| self.create_buffer(label, bytes.max(16), st);
        let tb = plan.total_buckets();
        let rec = POINT_RECORD_BYTES as u64;
        let groups = reduce::groups_per_window(plan) as u64;
        Scratch {
            plan: *plan,
            params: self.create_buffer(
                "params",
                std::mem::size_of::<crate::layout::MsmParams>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            scalars: buf("scalars", plan.n as u64 * 32),
            counts: buf("preprocess.counts", tb * 4),
            offsets: buf("preprocess.offsets", (tb + 1) * 4),
            cursor: buf("preprocess.cursor", tb * 4),
            l0_index: buf("preprocess.l0_index", plan.max_entries() * 4),
            l0_bucket: buf("preprocess.l0_bucket", plan.max_entries() * 4),
            block_sums: buf("preprocess.block_sums", preprocess::scan_blocks(plan) as u64 * 4),
            bucket_sums: buf("bucket_sums", tb * rec),
            partials: buf("stream_walker.partials", 2 * plan.tasks as u64 * rec),
            chain_levels: std::array::from_fn(|l| {
                buf(
                    "walker_combine.level",
                    walker_combine::level_len(plan.tasks, l as u32 + 1) as u64 * walker_combine::CHAIN_SUM_BYTES,
                )
            }),
            split_sums: buf("walker_combine.split_sums", plan.tasks as u64 * reduce::XYZZ_BYTES),
            segment_sums: buf(
                "reduce.segment_sums",
                2 * plan.windows as u64 * plan.segments as u64 * reduce::XYZZ_BYTES,
            ),
            group_sums: buf(
                "reduce.group_sums",
                2 * plan.windows as u64 * groups * reduce::XYZZ_BYTES,
            ),
            window_sums: buf("reduce.window_sums", plan.windows as u64 * reduce::XYZZ_BYTES),
            bind_groups: HashMap::new(),
            timing: None,
        }
    }

    /// Scratch for `plan`: a cached one when the plan was seen recently.
    pub(crate) fn take_scratch(&self, plan: &Plan) -> Scratch {
        let mut cache = self.scratch.lock().unwrap();
        match cache.iter().position(|s| s.plan == *plan) {
            Some(i) => cache.remove(i),
            None => {
                drop(cache);
                self.new_scratch(plan)
            }
        }
    }

    /// Returns scratch to the cache (most recent first).
    pub(crate) fn put_scratch(&self, s: Scratch) {
        let mut cache = self.scratch.lock().unwrap();
        cache.insert(0, s);
        cache.truncate(CACHED_PLANS);
    }

    /// The bind groups of the four passes for `part` of base set `bases_id`.
    pub(crate) fn bind_groups<'s>(
        &self,
        s: &'s mut Scratch,
        bases_id: u64,
        part_index: usize,
        part: &BasePart,
    ) -> &'s [wgpu::BindGroup; 4] {
        let key = (bases_id, part_index);
        if !s.bind_groups.contains_key(&key) {
            if s.bind_groups.len() >= CACHED_BINDINGS {
                s.bind_groups.clear();
            }
            let groups = Pass::ALL.map(|pass| {
                let buffers: Vec<&wgpu::Buffer> = match pass {
                    Pass::Preprocess => vec![
                        &s.params,
                        &s.scalars,
                        &part.flags,
                        &s.counts,
                        &s.offsets,
                        &s.cursor,
                        &s.l0_index,
                        &s.l0_bucket,
                        &s.block_sums,
                    ],
                    Pass::StreamWalker => vec![
                        &s.params,
                        &part.x,
                        &part.y,
                        &s.offsets,
                        &s.l0_index,
                        &s.l0_bucket,
                        &s.bucket_sums,
                        &s.partials,
                    ],
                    Pass::WalkerCombine => vec![
                        &s.params,
                        &s.partials,
                        &s.bucket_sums,
                        &s.chain_levels[0],
                        &s.chain_levels[1],
                        &s.chain_levels[2],
                        &s.split_sums,
                    ],
                    Pass::Reduce => vec![
                        &s.params,
                        &s.counts,
                        &s.bucket_sums,
                        &s.group_sums,
                        &s.window_sums,
                        &s.split_sums,
                        &s.segment_sums,
                    ],
                };
                self.counters
                    .bind_groups
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                bind_group(&self.device, self.pipelines.bind_group_layout(pass), pass, &buffers)
            });
            s.bind_groups.insert(key, groups);
        }
        &s.bind_groups[&key]
    }

    /// The timestamp query set and resolve buffer of `s`, made at first use.
    pub(crate) fn timing_objects<'s>(&self, s: &'s mut Scratch) -> &'s (wgpu::QuerySet, wgpu::Buffer) {
        if s.timing.is_none() {
            let q = self.create_timestamp_queries(MAX_TIMESTAMPS);
            let resolve = self.create_buffer(
                "timestamps.resolve",
                MAX_TIMESTAMPS as u64 * 8,
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            );
            s.timing = Some((q, resolve));
        }
        s.timing.as_ref().unwrap()
    }
}
