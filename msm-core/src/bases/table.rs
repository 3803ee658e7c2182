//! A table of shifted bases (beside `msm-wgsl/shaders/table.wgsl`): for a
//! window width c, T = ceil(255 / c) copies of the bases, copy j holding
//! 2^(c j) P for every base P. An MSM over the table adds every window's
//! digit into one row of buckets: reduce sums one row instead of T, and a
//! wider window (fewer additions) no longer multiplies reduce's work by T.
//! It costs T times the bases' memory, built once on the GPU.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use bytemuck::{Pod, Zeroable};
use msm_wgsl::ShaderId;

use super::{base_part_points, BasePart, BaseSet};
use crate::context::{GpuContext, LiveGuard};
use crate::curve::Curve;
use crate::error::MsmError;

/// Points per workgroup of `shift` (override `TPB`): the leaves of its
/// inversion tree, one inversion per this many points.
const WG: u32 = 64;

/// The widest table window (the `window_bits` knob's range).
pub const MAX_TABLE_BITS: u32 = 20;

/// Twin of WGSL `TableParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct TableParams {
    n: u32,
    stride: u32,
    c: u32,
    window: u32,
}

/// A base set's table: its window width, and parts of consecutive points
/// (each part's planes hold its T windows, window major).
pub(crate) struct Table {
    /// Unique per table: keys the bind groups cached for its parts.
    pub(crate) id: u64,
    pub(crate) c: u32,
    pub(crate) parts: Vec<BasePart>,
    _live: LiveGuard,
}

/// Digit windows of a table of width `c` for `curve`'s scalars.
pub fn table_windows(c: u32, curve: Curve) -> u32 {
    curve.windows(c)
}

/// GPU bytes of a table of `n` points of `curve` at width `c`.
pub fn table_bytes(n: usize, c: u32, curve: Curve) -> u64 {
    curve.table_bytes(n, c)
}

/// The most points one table part holds: its T windows of a coordinate
/// plane fit one binding and one buffer (a power of two, as base parts).
pub fn table_part_points(c: u32, curve: Curve, binding: u64, buffer: u64) -> usize {
    let t = table_windows(c, curve) as u64;
    base_part_points(curve.coord_bytes(), binding / t, buffer / t)
}

/// The window width of a table built for MSMs of `n` points when none is
/// asked: log2(n) in 8..=17 below 2^20 points, 20 from there, stepping
/// down while the top window would hold fewer than 4 scalar bits (its
/// digits would crowd a few buckets of the one row). On the H200 (ABBA
/// against the plain bases, docs/benchmarks.md): 2^16 c = 16 0.75x, 2^17
/// c = 17 0.70x, 2^18 c = 17 0.91x, 2^20 c = 20 0.91x (13x20: 0.90x, where
/// c = 17 ties), 2^22 c = 20 0.88x; c = 18 (2 top bits) lost 1.1-1.3x.
pub fn auto_table_bits(n: usize, curve: Curve) -> u32 {
    let log = usize::BITS - n.max(1).leading_zeros() - 1;
    let mut c = if log >= 20 { MAX_TABLE_BITS } else { log.clamp(8, 17) };
    while c > 4 && curve.top_window_bits(c) < 4 {
        c -= 1;
    }
    c
}

/// [`auto_table_bits`] for a field layout with (`int64`) or without 64-bit
/// integers: BN254 G1 at 2^20-2^21 in the 64-bit layout takes c = 17 (15
/// windows over 2^16 buckets) instead of 20, whose reduce over 2^19 buckets
/// cost more than two windows' additions (H100, GPU sums: 2^20 9.21 -> 8.56
/// ms, 2^21 14.78 -> 14.05; c = 16 and 19 lost at 2^20, c = 17 at 2^22,
/// 25.0 -> 26.0). The portable layout's slower walker keeps 20 there (c = 17
/// tied in 13x20 on the H200).
pub fn auto_table_bits_for(n: usize, int64: bool, curve: Curve) -> u32 {
    let log = usize::BITS - n.max(1).leading_zeros() - 1;
    if int64 && curve == Curve::Bn254G1 && (20..=21).contains(&log) {
        17
    } else {
        auto_table_bits(n, curve)
    }
}

impl BaseSet {
    /// The window width of the table built for these bases, if any.
    pub fn table_bits(&self) -> Option<u32> {
        self.table.get().map(|t| t.c)
    }

    /// Drops the table (its memory returns to the device); the knob
    /// `table_after` builds none again for the set.
    pub fn drop_table(&mut self) {
        self.table.take();
        self.auto.settle();
    }
}

impl GpuContext {
    /// Builds the table of shifted bases for window width `c` (2..=20;
    /// `None`: chosen from the set's length, see `auto_table_bits`), replacing any
    /// table the set had. MSMs over the set then use it while the knob
    /// `bases_table` is on and `window_bits` is automatic or `c`. Costs
    /// ceil(255 / c) times the bases' memory ([`Curve::table_bytes`]).
    pub async fn build_table(&self, bases: &mut BaseSet, c: Option<u32>) -> Result<(), MsmError> {
        self.build_table_in_parts(bases, c, usize::MAX).await
    }

    /// Blocking [`GpuContext::build_table`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn build_table_blocking(&self, bases: &mut BaseSet, c: Option<u32>) -> Result<(), MsmError> {
        pollster::block_on(self.build_table(bases, c))
    }

    diagnostics_pub! {
        /// [`GpuContext::build_table`] with at most `part_points` points a table
        /// part (clamped to what one binding holds): small parts exercise the
        /// split on small inputs.
        async fn build_table_in_parts(&self, bases: &mut BaseSet, c: Option<u32>, part_points: usize) -> Result<(), MsmError> {
            let c = c.unwrap_or_else(|| auto_table_bits_for(bases.n, self.bounds().field_int64, bases.curve));
            // the old table's memory returns before the new one is made; a
            // refused rebuild keeps it
            let old = bases.table_bits().map_or(0, |old| table_bytes(bases.n, old, bases.curve));
            self.check_table(bases, c, old)?;
            bases.table.take();
            bases.auto.settle();
            let table = self.make_table(bases, c, part_points).await?;
            bases.table = OnceLock::from(table);
            Ok(())
        }
    }

    /// The checks before a table of width `c` over `bases` is made: its
    /// context, the width, the device, and its memory beside the resident
    /// sets less `freed` (the table it replaces).
    pub(super) fn check_table(&self, bases: &BaseSet, c: u32, freed: u64) -> Result<(), MsmError> {
        if bases.context != self.id {
            return Err(MsmError::ForeignBases);
        }
        if !(2..=MAX_TABLE_BITS).contains(&c) {
            return Err(MsmError::invalid_config(
                "window_bits",
                format!("a table of window width {c}: 2..={MAX_TABLE_BITS} are supported"),
            ));
        }
        self.check_lost()?;
        let needed = table_bytes(bases.n, c, bases.curve);
        self.check_bytes_fit(needed.saturating_sub(freed), || {
            format!("a table of {} bases at c = {c}", bases.n)
        })
    }

    /// The table of `bases` at width `c` (checked by [`Self::check_table`]),
    /// in parts of at most `part_points` points; waits until the GPU has
    /// made it.
    pub(super) async fn make_table(&self, bases: &BaseSet, c: u32, part_points: usize) -> Result<Table, MsmError> {
        let curve = bases.curve;
        let needed = table_bytes(bases.n, c, curve);
        // the build's phases for `MSM_LOG=debug` (docs/benchmarks.md splits
        // the building call with them)
        let t = web_time::Instant::now();
        let ms = || t.elapsed().as_secs_f64() * 1e3;
        // the warm-ups' job, so that a warm context finds it compiled
        let (shader, entry, overrides, pass) = Self::table_shift_job();
        let pipeline = self.pipeline(shader, entry, &overrides, pass).await?;
        tracing::debug!(ms = ms(), "table build: module and pipeline ready");
        // Error scopes are per thread: popped before any await.
        let oom = self.catch(&[wgpu::ErrorFilter::OutOfMemory]);
        let limits = self.device.limits();
        let most = table_part_points(c, curve, limits.max_storage_buffer_binding_size, limits.max_buffer_size);
        let per_part = part_points.clamp(1, most);
        let mut parts = Vec::new();
        for base in &bases.parts {
            let mut at = 0;
            // an empty part still gets one (minimal) table part
            loop {
                let len = per_part.min(base.len - at);
                parts.push(self.table_part(base, (at, len), (c, curve), &pipeline));
                at += len;
                if at >= base.len {
                    break;
                }
            }
        }
        // one word read back: every dispatch before it has finished
        let done = self.create_buffer(
            "table.done",
            4,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let oom = oom.pop();
        tracing::debug!(
            ms = ms(),
            parts = parts.len(),
            "table build: buffers made, dispatches submitted"
        );
        self.read_words(&done, 1).await?;
        tracing::debug!(ms = ms(), "table build: done on the GPU");
        if let Some(e) = oom.await {
            return Err(MsmError::OutOfMemory {
                what: format!("a table of {} bases at c = {c} (the driver refused: {e})", bases.n),
                needed,
                available: self.device_memory(),
            });
        }
        self.check_device_error()?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1 << 48);
        Ok(Table {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            c,
            parts,
            _live: LiveGuard::new(&self.live_bases, needed),
        })
    }

    /// The pipeline job of the table's `shift` kernel (the build's, and
    /// the warm-ups').
    pub(crate) fn table_shift_job() -> crate::context::pipelines::PipelineJob {
        let overrides = crate::plan::geometry::tree_overrides(WG).map(|(name, v)| (name, v as f64));
        (ShaderId::Table, "shift", overrides.to_vec(), None)
    }

    /// Points `[at, at + len)` of base part `base` as a table part: window 0
    /// and the flags copied from the part, then one dispatch per window.
    fn table_part(
        &self,
        base: &BasePart,
        (at, len): (usize, usize),
        (c, curve): (u32, Curve),
        pipeline: &wgpu::ComputePipeline,
    ) -> BasePart {
        let windows = table_windows(c, curve) as u64;
        let coord = curve.coord_bytes();
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let plane = (windows * len as u64 * coord).max(coord);
        let part = BasePart {
            start: base.start + at,
            len,
            x: self.create_buffer("table.x", plane, usage),
            y: self.create_buffer("table.y", plane, usage),
            flags: self.create_buffer("table.flags", (len as u64 * 4).max(4), usage),
        };
        if len == 0 {
            return part;
        }
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("table") });
        let (from, bytes) = (at as u64 * coord, len as u64 * coord);
        enc.copy_buffer_to_buffer(&base.x, from, &part.x, 0, bytes);
        enc.copy_buffer_to_buffer(&base.y, from, &part.y, 0, bytes);
        enc.copy_buffer_to_buffer(&base.flags, at as u64 * 4, &part.flags, 0, len as u64 * 4);
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let groups = self.grid((len as u32).div_ceil(WG));
        for window in 1..windows as u32 {
            // a uniform per window: the dispatches share one encoder
            let params = self.create_buffer("table.params", std::mem::size_of::<TableParams>() as u64, usage);
            let p = TableParams {
                n: len as u32,
                stride: len as u32,
                c,
                window,
            };
            self.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
            let buffers = [&params, &part.x, &part.y, &part.flags];
            self.dispatch(&mut enc, "table.shift", pipeline, &buffers, groups, None);
        }
        self.queue.submit([enc.finish()]);
        part
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Automatic widths follow the measured choices and never leave a thin
    /// top window.
    #[test]
    fn automatic_widths() {
        for (log, c) in [
            (16, 16),
            (17, 17),
            (18, 17),
            (19, 17),
            (20, 20),
            (21, 20),
            (22, 20),
            (24, 20),
            (12, 10),
        ] {
            assert_eq!(auto_table_bits(1 << log, Curve::Bn254G1), c, "2^{log}");
            let int64 = if log == 20 || log == 21 { 17 } else { c };
            assert_eq!(auto_table_bits_for(1 << log, true, Curve::Bn254G1), int64, "2^{log}");
            assert_eq!(auto_table_bits_for(1 << log, false, Curve::Bn254G1), c, "2^{log}");
        }
        assert_eq!(auto_table_bits_for(1 << 20, true, Curve::Bls12_381G1), 20);
        for curve in Curve::ALL {
            for log in 0..=26 {
                let c = auto_table_bits(1 << log, curve);
                assert!(
                    (4..=MAX_TABLE_BITS).contains(&c) && curve.top_window_bits(c) >= 4,
                    "{curve} 2^{log}: {c}"
                );
            }
        }
    }

    /// A table part's windows fit one binding: 13 windows of 2^22 points on
    /// the H200's 2 GiB bindings.
    #[test]
    fn parts_fit_the_bindings() {
        let bn = Curve::Bn254G1;
        assert_eq!(table_part_points(20, bn, (1 << 31) - 1, 4 << 30), 1 << 22);
        for curve in Curve::ALL {
            for c in 2..=MAX_TABLE_BITS {
                let p = table_part_points(c, curve, 128 << 20, 1 << 30) as u64;
                assert!(
                    p * table_windows(c, curve) as u64 * curve.coord_bytes() <= 128 << 20,
                    "c = {c}"
                );
            }
        }
        assert_eq!(table_bytes(10, 20, bn), 10 * (13 * 64 + 4));
        assert_eq!(table_bytes(10, 20, Curve::Bls12_381G1), 10 * (13 * 96 + 4));
    }
}
