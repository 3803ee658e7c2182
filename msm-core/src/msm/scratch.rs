//! The bind groups of a plan's scratch: the four passes' bindings over the
//! scratch buffers and one resident base part, kept in the scratch per part.

use crate::bases::BasePart;
use crate::context::{GpuContext, Scratch};
use crate::passes::{bind_group, Buf, Pass};

/// Base parts whose bind groups one scratch keeps.
const CACHED_BINDINGS: usize = 8;

impl GpuContext {
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
}
