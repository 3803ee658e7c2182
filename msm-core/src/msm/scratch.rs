//! The bind groups of a plan's scratch: the four passes' bindings over the
//! scratch buffers and one resident base part, kept in the scratch per part.

use crate::bases::BasePart;
use crate::context::{GpuContext, Scratch};
use crate::passes::{bind_group, Buf, Pass};

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
