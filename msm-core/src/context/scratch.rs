//! Per-plan scratch: every buffer the passes use for one plan, the bind
//! groups that bind them (per resident base part, made by the MSM) and the
//! timing objects, pooled on the context by plan.

use std::collections::HashMap;

use super::pool::Pooled;
use super::GpuContext;
use crate::passes::{Buf, Pass};
use crate::plan::Plan;

/// Timestamps one chunk may write: two per kernel.
pub(crate) const MAX_TIMESTAMPS: u32 = 32;

pub(crate) struct Scratch {
    pub(crate) plan: Plan,
    /// Every buffer of [`Buf::SCRATCH`], in its order.
    buffers: Vec<wgpu::Buffer>,
    /// Bind groups of the four passes per (bases id, part index).
    pub(crate) bind_groups: HashMap<(u64, usize), [wgpu::BindGroup; Pass::ALL.len()]>,
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

impl Pooled for Scratch {
    fn bytes(&self) -> u64 {
        let timing = self.timing.as_ref().map_or(0, |(_, resolve)| resolve.size());
        crate::passes::scratch_bytes(&self.plan) + timing
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

    /// Scratch for `plan`: a pooled one when the plan was seen recently.
    pub(crate) fn take_scratch(&self, plan: &Plan) -> Scratch {
        self.pools
            .scratch
            .take(|s| s.plan == *plan)
            .unwrap_or_else(|| self.new_scratch(plan))
    }

    /// Returns scratch to the pool (most recent first).
    pub(crate) fn put_scratch(&self, s: Scratch) {
        self.pools.scratch.put(s);
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
