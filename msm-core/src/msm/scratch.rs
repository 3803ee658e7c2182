//! The bind groups of a plan's scratch: the four passes' bindings over the
//! scratch buffers and one resident base part, kept in the scratch per part;
//! and the scratch a chain of jobs holds between its waves.

use crate::bases::BasePart;
use crate::context::{GpuContext, Scratch};
use crate::passes::{bind_group, Buf, Pass};
use crate::plan::Plan;

/// Base parts whose bind groups one scratch keeps.
const CACHED_BINDINGS: usize = 8;

impl Scratch {
    /// The bind groups of the four passes for `part` of base set `bases_id`
    /// on `ctx`'s layouts.
    pub(crate) fn bind_groups(
        &mut self,
        ctx: &GpuContext,
        bases_id: u64,
        part_index: usize,
        part: &BasePart,
    ) -> &[wgpu::BindGroup; 4] {
        let key = (bases_id, part_index);
        if !self.bind_groups.contains_key(&key) {
            if self.bind_groups.len() >= CACHED_BINDINGS {
                self.bind_groups.clear();
            }
            let groups = Pass::ALL.map(|pass| {
                ctx.counters
                    .bind_groups
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let buffer = |b: Buf| match b {
                    Buf::BaseFlags => &part.flags,
                    Buf::BaseX => &part.x,
                    Buf::BaseY => &part.y,
                    b => self.buf(b),
                };
                bind_group(&ctx.device, ctx.pipelines.bind_group_layout(pass), pass, buffer)
            });
            self.bind_groups.insert(key, groups);
        }
        &self.bind_groups[&key]
    }
}

/// The scratch of a batch's chained plans, held from one wave (or job) to
/// the next: a chain's running bucket sums live in it, so no other call may
/// take it from the pool before the chain's last job is submitted. Other
/// plans' scratch goes straight back; everything held goes back on drop.
pub(crate) struct Held<'c> {
    ctx: &'c GpuContext,
    scratch: Vec<Option<Scratch>>,
}

impl<'c> Held<'c> {
    pub(crate) fn new(ctx: &'c GpuContext, plans: usize) -> Self {
        Held {
            ctx,
            scratch: (0..plans).map(|_| None).collect(),
        }
    }

    /// The scratch of plan number `entry`: held, pooled or new.
    pub(crate) fn take(&mut self, entry: usize, plan: &Plan) -> Scratch {
        self.scratch[entry]
            .take()
            .unwrap_or_else(|| self.ctx.take_scratch(plan))
    }

    /// Holds a chained plan's scratch; returns any other to the pool.
    pub(crate) fn give(&mut self, entry: usize, s: Scratch) {
        if s.plan.chain {
            self.scratch[entry] = Some(s);
        } else {
            self.ctx.put_scratch(s);
        }
    }

    /// [`Held::give`] for each plan's scratch, by plan number.
    pub(crate) fn give_all(&mut self, scratch: Vec<Option<Scratch>>) {
        for (entry, s) in scratch.into_iter().enumerate() {
            if let Some(s) = s {
                self.give(entry, s);
            }
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        for s in self.scratch.drain(..).flatten() {
            self.ctx.put_scratch(s);
        }
    }
}
