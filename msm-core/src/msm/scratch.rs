//! Per-plan scratch: every buffer the passes use for one plan, the bind groups
//! that bind them (per resident base part), and the timing objects. Kept in a
//! small cache on the context, so a warm call with an unchanged plan creates
//! no GPU object.

use std::collections::HashMap;

use crate::bases::BasePart;
use crate::context::GpuContext;
use crate::passes::{bind_group, Buf, Pass};
use crate::plan::Plan;

/// Plans whose scratch the context keeps (a sweep alternates a few).
pub(crate) const CACHED_PLANS: usize = 6;
/// Base parts whose bind groups one scratch keeps.
const CACHED_BINDINGS: usize = 8;
/// Timestamps one chunk may write: two per kernel.
pub(crate) const MAX_TIMESTAMPS: u32 = 32;

pub(crate) struct Scratch {
    pub(crate) plan: Plan,
    /// Every buffer of [`Buf::SCRATCH`], in its order.
    buffers: Vec<wgpu::Buffer>,
    /// Bind groups of the four passes per (bases id, part index).
    bind_groups: HashMap<(u64, usize), [wgpu::BindGroup; 4]>,
    /// Timestamp queries and their resolve buffer, made at first timed use.
    pub(crate) timing: Option<(wgpu::QuerySet, wgpu::Buffer)>,
}

impl Scratch {
    /// The scratch buffer `b` (not a base part's).
    pub(crate) fn buf(&self, b: Buf) -> &wgpu::Buffer {
        debug_assert!(b.in_scratch(), "{b:?} belongs to the bases");
        &self.buffers[b as usize]
    }
}

impl GpuContext {
    /// Every buffer the passes use for `plan`, sized by [`Buf::bytes`].
    pub(crate) fn new_scratch(&self, plan: &Plan) -> Scratch {
        Scratch {
            plan: *plan,
            buffers: Buf::SCRATCH
                .iter()
                .map(|b| self.create_buffer(&b.label(), b.bytes(plan), b.usage()))
                .collect(),
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
                self.counters
                    .bind_groups
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let buffer = |b: Buf| match b {
                    Buf::BaseFlags => &part.flags,
                    Buf::BaseX => &part.x,
                    Buf::BaseY => &part.y,
                    b => s.buf(b),
                };
                bind_group(&self.device, self.pipelines.bind_group_layout(pass), pass, buffer)
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
