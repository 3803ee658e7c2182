//! `MsmConfig`: the knobs of the pipeline, their defaults, and the plan derived
//! from them for one input size on one adapter.

use crate::error::MsmError;

/// Where the stream walker keeps its per-slot prefix products.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrefMem {
    /// `var<private>`: no workgroup-memory cap on occupancy (the measured winner
    /// of the original design).
    #[default]
    Private,
    /// `var<workgroup>`: TPB * S * 32 bytes of workgroup memory per workgroup.
    Workgroup,
}

/// Where the bucket sums become window sums (the reduce pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceOn {
    /// The GPU, except on SwiftShader (Chromium's software WebGPU and its
    /// Vulkan ICD), whose shader compiler crashes on the reduce shader's
    /// inlined point additions: there the host reduces.
    #[default]
    Auto,
    /// The `reduce` pass on the GPU (running sums in segments, then a tree).
    Gpu,
    /// Read the bucket sums back and reduce on the CPU (arkworks): one
    /// readback of windows x buckets records, two additions per bucket.
    Host,
}

/// The pipeline's knobs. `Default` gives the documented defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MsmConfig {
    /// Window width c in bits (2..=20). `None`: chosen from n (see [`auto_window_bits`]).
    /// Wider windows mean fewer windows (less walker work) but 2^(c-1) buckets each
    /// (more reduce work and memory).
    pub window_bits: Option<u32>,
    /// Threads per workgroup of the stream walker (default 96): a pipeline
    /// override constant. Higher raises occupancy until registers run out.
    pub walker_tpb: u32,
    /// Where pref_scratch lives (default private).
    pub walker_pref_mem: PrefMem,
    /// Slots per walker thread, S (1..=16, default 8): additions sharing one
    /// inversion. Larger S amortises the inversion further at the cost of
    /// registers (or workgroup memory).
    pub walker_slots: u32,
    /// Keep each slot's dx for the inverse pass (default on) instead of
    /// re-gathering x from memory.
    pub walker_cache_dx: bool,
    /// Fuse the inverse and peel passes (default off): fewer loads, more live registers.
    pub walker_fused: bool,
    /// Number of walker threads; `None`: enough that each slot walks about
    /// [`WALKER_STEPS_TARGET`] entries, and at least [`WALKER_MIN_THREADS`]
    /// while slots keep 8 or more entries.
    pub walker_threads: Option<u32>,
    /// Per-pass GPU timestamps when the context has them (default off).
    pub timing: bool,
    /// Split an MSM into chunks of at most this many points, summed on the
    /// host. `None`: chunks only where one chunk's buffers would exceed the
    /// adapter's largest binding. Smaller chunks use less GPU memory.
    pub max_chunk_points: Option<u32>,
    /// Where the reduce step runs (default auto: the GPU where it compiles).
    pub reduce: ReduceOn,
}

impl Default for MsmConfig {
    fn default() -> Self {
        MsmConfig {
            window_bits: None,
            walker_tpb: 96,
            walker_pref_mem: PrefMem::Private,
            walker_slots: 8,
            walker_cache_dx: true,
            walker_fused: false,
            walker_threads: None,
            timing: false,
            max_chunk_points: None,
            reduce: ReduceOn::Auto,
        }
    }
}

/// Entries each walker slot should walk when the thread count is automatic:
/// longer walks mean fewer split buckets for walker_combine.
pub const WALKER_STEPS_TARGET: u32 = 32;

/// Walker threads the automatic plan keeps (while slots still walk at least
/// 8 entries) so that a large GPU stays occupied: on the H200 the walker at
/// 2^17 takes 9.8 ms with 10,240 threads and 4.5-6 ms with 20,480, and at
/// 2^18 12.6 ms with 34,816 threads against 17.0 ms with 20,480.
pub const WALKER_MIN_THREADS: u64 = 32_768;

/// The longest walk a slot may take on an adapter with a loop cap (lavapipe):
/// each walker iteration spends about 3 S + 80 loop iterations of the 65,535.
pub const LOOP_CAPPED_MAX_STEPS: u32 = 400;

/// Bits of a scalar (< r < 2^254) that land in the top window of width `c`.
pub fn top_window_bits(c: u32) -> u32 {
    254u32.saturating_sub((255u32.div_ceil(c) - 1) * c)
}

/// The window width used when none is configured: about log2(n) - 3, in 4..=16,
/// stepping down while the top window would hold fewer than 4 scalar bits.
/// Such a window puts nearly every point into a handful of buckets (c = 14 has
/// 2 bits there: 4 buckets of n/4 points), which the walker must split into
/// long chains for walker_combine.
pub fn auto_window_bits(n: usize) -> u32 {
    let log = usize::BITS - n.max(1).leading_zeros() - 1;
    let mut c = log.saturating_sub(3).clamp(4, 16);
    while c > 4 && top_window_bits(c) < 4 {
        c -= 1;
    }
    c
}

/// Everything the passes need for one MSM, derived from the config and n.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub n: u32,
    pub c: u32,
    pub windows: u32,
    pub buckets: u32,
    pub threads: u32,
    pub tasks: u32,
    pub segments: u32,
}

impl Plan {
    pub fn total_buckets(&self) -> u64 {
        self.windows as u64 * self.buckets as u64
    }
    /// Upper bound of stream entries: every (point, window) digit non-zero.
    pub fn max_entries(&self) -> u64 {
        self.n as u64 * self.windows as u64
    }
}

/// What the adapter allows, as far as the plan is concerned.
#[derive(Clone, Copy, Debug)]
pub struct AdapterBounds {
    pub max_workgroup_size_x: u32,
    pub max_invocations_per_workgroup: u32,
    pub max_workgroup_storage: u32,
    pub max_binding_size: u64,
    pub loop_capped: bool,
}

impl AdapterBounds {
    pub fn from_limits(l: &wgpu::Limits, loop_capped: bool) -> Self {
        AdapterBounds {
            max_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_workgroup_storage: l.max_compute_workgroup_storage_size,
            max_binding_size: l.max_storage_buffer_binding_size,
            loop_capped,
        }
    }
}

fn invalid(msg: String) -> MsmError {
    MsmError::InvalidConfig(msg)
}

impl MsmConfig {
    /// Checks the knobs against the adapter and derives the plan for n points.
    pub fn plan(&self, n: usize, bounds: &AdapterBounds) -> Result<Plan, MsmError> {
        let n32 = u32::try_from(n)
            .ok()
            .filter(|&v| v < (1 << 31))
            .ok_or_else(|| invalid(format!("{n} points: at most 2^31 - 1 are supported")))?;
        if self.max_chunk_points == Some(0) {
            return Err(invalid("max_chunk_points = 0: must be at least 1".into()));
        }
        let c = self.window_bits.unwrap_or_else(|| auto_window_bits(n));
        if !(2..=20).contains(&c) {
            return Err(invalid(format!("window_bits = {c}: must be in 2..=20")));
        }
        let s = self.walker_slots;
        if !(1..=16).contains(&s) {
            return Err(invalid(format!("walker_slots = {s}: must be in 1..=16")));
        }
        let tpb = self.walker_tpb;
        let max_tpb = bounds.max_workgroup_size_x.min(bounds.max_invocations_per_workgroup);
        if tpb == 0 || tpb > max_tpb {
            return Err(invalid(format!(
                "walker_tpb = {tpb}: the adapter allows 1..={max_tpb} threads per workgroup"
            )));
        }
        if self.walker_pref_mem == PrefMem::Workgroup {
            let need = tpb as u64 * s as u64 * 32;
            if need > bounds.max_workgroup_storage as u64 {
                return Err(invalid(format!(
                    "workgroup pref_scratch needs walker_tpb * walker_slots * 32 = {need} bytes of workgroup memory; \
                     the adapter has {}: lower walker_tpb or walker_slots, or use private pref memory",
                    bounds.max_workgroup_storage
                )));
            }
        }
        let windows = 255u32.div_ceil(c);
        let buckets = 1u32 << (c - 1);
        let entries = n as u64 * windows as u64;
        let threads = match self.walker_threads {
            Some(0) => return Err(invalid("walker_threads = 0: must be at least 1".into())),
            Some(t) => t,
            None => {
                let by_steps = entries.div_ceil(s as u64 * WALKER_STEPS_TARGET as u64);
                let fill = WALKER_MIN_THREADS.min(entries.div_ceil(s as u64 * 8));
                by_steps.max(fill).clamp(1, 1 << 22) as u32
            }
        };
        let tasks = threads
            .checked_mul(s)
            .ok_or_else(|| invalid(format!("walker_threads = {threads} times walker_slots overflows")))?;
        if bounds.loop_capped {
            let steps = entries.div_ceil(tasks as u64);
            if steps > LOOP_CAPPED_MAX_STEPS as u64 || tasks > 60_000 {
                return Err(invalid(format!(
                    "this adapter stops loops after 65,535 iterations per invocation: with {tasks} walker tasks each \
                     slot would walk up to {steps} entries (at most {LOOP_CAPPED_MAX_STEPS}, and at most 60000 tasks); \
                     change walker_threads or window_bits"
                )));
            }
        }
        let segments = buckets.div_ceil(16).max(1);
        let plan = Plan {
            n: n32,
            c,
            windows,
            buckets,
            threads,
            tasks,
            segments,
        };
        let record = crate::layout::POINT_RECORD_BYTES as u64;
        for (what, bytes) in [
            ("bucket sums", plan.total_buckets() * record),
            ("walker partials", 2 * tasks as u64 * record),
            ("entry stream", entries * 4),
        ] {
            if bytes > bounds.max_binding_size {
                return Err(MsmError::BindingTooSmall {
                    what,
                    bytes,
                    limit: bounds.max_binding_size,
                });
            }
        }
        Ok(plan)
    }

    /// The shader variant of the stream walker for this config.
    pub fn walker_variant(&self) -> msm_wgsl::registry::WalkerVariant {
        msm_wgsl::registry::WalkerVariant {
            slots: self.walker_slots,
            pref_workgroup: self.walker_pref_mem == PrefMem::Workgroup,
            cache_dx: self.walker_cache_dx,
            fused: self.walker_fused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> AdapterBounds {
        AdapterBounds {
            max_workgroup_size_x: 256,
            max_invocations_per_workgroup: 256,
            max_workgroup_storage: 16384,
            max_binding_size: 128 << 20,
            loop_capped: false,
        }
    }

    #[test]
    fn auto_window_avoids_thin_top_windows() {
        for log in 0..=26 {
            let c = auto_window_bits(1 << log);
            assert!((4..=16).contains(&c));
            assert!(c == 4 || top_window_bits(c) >= 4, "log {log}: c = {c}");
        }
        assert_eq!(auto_window_bits(1 << 17), 13);
        assert_eq!(auto_window_bits(1 << 20), 16);
    }

    #[test]
    fn defaults_plan() {
        let p = MsmConfig::default().plan(1 << 16, &bounds()).unwrap();
        assert_eq!((p.c, p.windows, p.buckets), (13, 20, 4096));
        assert_eq!(p.tasks, p.threads * 8);
        assert!(p.windows * p.c >= 255);
    }

    #[test]
    fn rejects_bad_knobs_with_reasons() {
        let b = bounds();
        let err = |c: MsmConfig| c.plan(1000, &b).unwrap_err().to_string();
        assert!(err(MsmConfig {
            walker_slots: 0,
            ..Default::default()
        })
        .contains("walker_slots"));
        assert!(err(MsmConfig {
            walker_tpb: 512,
            ..Default::default()
        })
        .contains("1..=256"));
        assert!(err(MsmConfig {
            window_bits: Some(1),
            ..Default::default()
        })
        .contains("window_bits"));
        let wg = MsmConfig {
            walker_pref_mem: PrefMem::Workgroup,
            walker_tpb: 128,
            ..Default::default()
        };
        assert!(err(wg).contains("workgroup memory"));
        let capped = AdapterBounds { loop_capped: true, ..b };
        let e = MsmConfig {
            walker_threads: Some(1),
            ..Default::default()
        }
        .plan(1 << 14, &capped)
        .unwrap_err();
        assert!(e.to_string().contains("65,535"));
    }
}
