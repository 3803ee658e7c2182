//! The plan of one MSM: what the passes need, derived from the knobs, the
//! input size and the adapter. Knobs the caller set are validated (an error
//! names the knob); knobs left automatic are chosen so that the plan fits the
//! adapter, its loop budget included.

use crate::config::{MsmConfig, PrefMem, TaskSplit};
use crate::curve::Curve;
use crate::error::MsmError;

mod budget;
pub mod builtin;
pub mod geometry;
pub mod profile;
mod widths;

pub(crate) use budget::ADD_MULS;
pub use widths::{
    auto_window_bits, auto_window_bits_for, auto_window_bits_of, reduce_segment, top_window_bits, REDUCE_THREADS,
};

/// Entries each walker slot should walk when the thread count is automatic:
/// longer walks leave fewer split buckets for walker_combine, shorter ones
/// more parallelism. On the H200, 64 beat 32 at 2^17 and 2^22 and tied at
/// 2^20 (docs/benchmarks.md).
pub const WALKER_STEPS_TARGET: u32 = 64;

/// The shortest walk the automatic plan cuts tasks into while it adds threads
/// to occupy a large GPU.
pub const WALKER_STEPS_MIN: u32 = 8;

/// Walker threads the automatic plan aims for (while slots still walk at
/// least [`WALKER_STEPS_MIN`] entries), so that a large GPU stays occupied
/// (32,768 beat 65,536 at 2^17 on the H200).
pub const WALKER_MIN_THREADS: u64 = 32_768;

/// Loop iterations an invocation may spend on an adapter with a loop cap
/// (lavapipe stops at 65,535; the rest is margin for the short loops).
pub const LOOP_BUDGET: u32 = 60_000;

/// Loop iterations of one walker bucket search (`bucket_at`) over
/// `total_buckets` starts: a gallop and a binary search of at most one step
/// per bit each.
pub fn bucket_search_steps(total_buckets: u64) -> u64 {
    2 * (64 - total_buckets.leading_zeros()) as u64 + 2
}


/// Buckets per round of scatter for `n` points: `wanted` (0: all) of
/// `total`, at least enough that the rounds' workgroups fit one dispatch.
pub fn scatter_span(n: u32, total: u64, wanted: u32) -> u32 {
    let all = u32::try_from(total).unwrap_or(u32::MAX).max(1);
    let point_groups = n.div_ceil(geometry::PREPROCESS_WG).max(1) as u64;
    let fewest = total.div_ceil(geometry::MAX_DISPATCH_GROUPS / point_groups) as u32;
    if wanted == 0 {
        all
    } else {
        wanted.max(fewest).min(all)
    }
}

/// Everything the passes need for one MSM, derived from the config and n.
/// A joint plan runs `vectors` scalar vectors of `n / vectors` points each
/// over the same bases as one MSM whose rows of buckets are vector x window
/// (a batch of short vectors fills the GPU as one long MSM would).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Scalars of the job (every vector's).
    pub n: u32,
    /// Window width c.
    pub c: u32,
    /// The curve group: its coordinates' width and its scalars' bits.
    pub curve: Curve,
    /// Digit windows of a scalar, T = ceil((b + 1) / c) for b-bit scalars
    /// (ceil(255 / c) on BN254).
    pub windows: u32,
    /// Scalar vectors; one row of buckets per (vector, window).
    pub vectors: u32,
    /// Buckets per window, 2^(c-1).
    pub buckets: u32,
    /// Walker threads.
    pub threads: u32,
    /// Walker tasks K = threads x S.
    pub tasks: u32,
    /// Reduce segments per window.
    pub segments: u32,
    /// Walker tasks start at bucket starts ([`TaskSplit::Buckets`]).
    pub align: bool,
    /// Invocations of reduce's `windows` kernel: the row's groups of
    /// segments rounded up to a power of two, at most the adapter's
    /// ([`AdapterBounds::reduce_win_wg`]).
    pub win_wg: u32,
    /// The bases are a table of shifted copies (`GpuContext::build_table`):
    /// every window of a vector adds into one row of buckets.
    pub table: bool,
    /// reduce stops at the group sums and the host folds each row's
    /// (`host_windows_max`): no `windows` kernel.
    pub host_windows: bool,
    /// Buckets each round of scatter fills (`scatter_buckets`): the total
    /// where it scatters in one round.
    pub scatter_span: u32,
    /// Jobs of this plan form chains (a vector's parts or chunks): each adds
    /// its bucket sums into the chain's (reduce's `accumulate`) and only
    /// the last reduces (`chain_jobs`).
    pub chain: bool,
}

impl Plan {
    /// Rows of buckets (and window sums): vector x window, or one per
    /// vector with a table.
    pub fn rows(&self) -> u32 {
        self.rows_per_vector() * self.vectors
    }
    /// Rows of one vector: its windows, or one with a table.
    pub fn rows_per_vector(&self) -> u32 {
        if self.table {
            1
        } else {
            self.windows
        }
    }
    /// Points of each vector (the bases an entry may name).
    pub fn vector_len(&self) -> u32 {
        self.n / self.vectors
    }
    pub fn total_buckets(&self) -> u64 {
        self.rows() as u64 * self.buckets as u64
    }
    /// Rounds of scatter over the scalars, one per range of buckets.
    pub fn scatter_rounds(&self) -> u32 {
        self.total_buckets().div_ceil(self.scatter_span.max(1) as u64) as u32
    }
    /// Upper bound of stream entries: every (point, window) digit non-zero.
    pub fn max_entries(&self) -> u64 {
        self.n as u64 * self.windows as u64
    }
    /// The longest task a walker slot may get (entries), an upper bound.
    pub fn max_task_len(&self) -> u64 {
        let q = self.max_entries().div_ceil(self.tasks as u64);
        if self.align {
            2 * q + 1
        } else {
            q
        }
    }
}

/// What the adapter allows, as far as the plan is concerned.
#[derive(Clone, Copy, Debug)]
pub struct AdapterBounds {
    pub max_workgroup_size_x: u32,
    pub max_invocations_per_workgroup: u32,
    pub max_workgroup_storage: u32,
    pub max_binding_size: u64,
    /// The adapter stops loops after 65,535 iterations per invocation.
    pub loop_capped: bool,
    /// Loop iterations one `fq_inv` may spend (its algorithm's bound).
    pub inversion_loops: u32,
    /// Loop iterations one multiplication spends beside the walker and in
    /// it (`FieldOptions::mul_loops`; `Mixed` differs), 0 for straight lines.
    pub mul_loops: u32,
    pub walker_mul_loops: u32,
    /// The field layout multiplies with 64-bit products (it shapes the
    /// automatic window width, [`auto_window_bits_for`]).
    pub field_int64: bool,
    /// The context's curve group (its record sizes and windows).
    pub curve: Curve,
}

impl AdapterBounds {
    pub fn from_limits(
        l: &wgpu::Limits,
        loop_capped: bool,
        inversion_loops: u32,
        mul_loops: (u32, u32),
        field_int64: bool,
        curve: Curve,
    ) -> Self {
        AdapterBounds {
            max_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_workgroup_storage: l.max_compute_workgroup_storage_size,
            max_binding_size: l.max_storage_buffer_binding_size,
            loop_capped,
            inversion_loops,
            mul_loops: mul_loops.0,
            walker_mul_loops: mul_loops.1,
            field_int64,
            curve,
        }
    }

    /// Invocations of reduce's `windows` kernel: 256, or the largest power of
    /// two whose XYZZ tree (128 bytes an invocation) and workgroup fit the
    /// adapter (128 under WebGPU's default 16 KiB of workgroup memory).
    pub fn reduce_win_wg(&self) -> u32 {
        let fit = (self.max_workgroup_storage / self.curve.xyzz_bytes() as u32)
            .min(self.max_invocations_per_workgroup)
            .min(self.max_workgroup_size_x)
            .clamp(1, geometry::REDUCE_WIN_WG_MAX);
        1 << (31 - fit.leading_zeros())
    }
}

fn invalid(knob: &str, msg: String) -> MsmError {
    MsmError::invalid_config(knob, msg)
}

impl MsmConfig {
    /// Checks the knobs against the adapter and derives the plan for n points.
    pub fn plan(&self, n: usize, bounds: &AdapterBounds) -> Result<Plan, MsmError> {
        self.plan_joint(n, 1, bounds)
    }

    /// The joint plan of `vectors` vectors of `vector_len` points each (one
    /// row of buckets per vector and window). The window width follows the
    /// vector's length (each row holds `vector_len` digits); the walker's
    /// threads follow the whole job's entries.
    pub fn plan_joint(&self, vector_len: usize, vectors: usize, bounds: &AdapterBounds) -> Result<Plan, MsmError> {
        self.plan_with_table(vector_len, vectors, None, bounds)
    }

    /// [`MsmConfig::plan_joint`] over a table of bases shifted by `table`
    /// bits a window (`None`: no table): the window width is the table's and
    /// each vector has one row of buckets.
    pub fn plan_with_table(
        &self,
        vector_len: usize,
        vectors: usize,
        table: Option<u32>,
        bounds: &AdapterBounds,
    ) -> Result<Plan, MsmError> {
        let n = vector_len.saturating_mul(vectors.max(1));
        let n32 = u32::try_from(n)
            .ok()
            .filter(|&v| v < (1 << 31))
            .ok_or_else(|| invalid("points", format!("{n} points: at most 2^31 - 1 are supported")))?;
        self.check_ranges()?;
        self.check_walker_fits(bounds)?;
        let curve = bounds.curve;
        let c = table
            .or(self.window_bits)
            .unwrap_or_else(|| auto_window_bits_for(vector_len, bounds.field_int64, curve));
        let windows = curve.windows(c);
        let vectors = vectors.max(1) as u32;
        let rows = if table.is_some() { vectors } else { windows * vectors };
        let buckets = 1u32 << (c - 1);
        let align = self.walker_split == TaskSplit::Buckets;
        let (threads, tasks) =
            self.walker_threads_for(n as u64 * windows as u64, rows as u64 * buckets as u64, align, bounds)?;
        // reduce's windows kernel sums at most win_wg groups of WG segments;
        // where the host folds the rows' group sums instead, no such cap
        let win_wg = bounds.reduce_win_wg();
        let max_segments = geometry::REDUCE_WG * win_wg;
        let wanted = self
            .reduce_segment
            .map_or_else(|| reduce_segment(rows, buckets, table.is_some()), |p| 1 << (31 - p.leading_zeros()));
        // one invocation per group of the row: the rest would only add
        // identities (thousands of rows in a joint plan)
        let groups_of = |per: u32| buckets.div_ceil(per).max(1).div_ceil(geometry::REDUCE_WG);
        let host_folds = |per: u32| rows as u64 * groups_of(per) as u64 <= self.host_windows_max as u64;
        let per = if host_folds(wanted) {
            wanted
        } else {
            wanted.max(buckets.div_ceil(max_segments))
        };
        budget::check_reduce_segment(bounds, per)?;
        let segments = buckets.div_ceil(per).max(1);
        let groups = groups_of(per);
        let plan = Plan {
            n: n32,
            c,
            curve,
            windows,
            vectors,
            buckets,
            threads,
            tasks,
            segments,
            align,
            win_wg: win_wg.min(groups.next_power_of_two()),
            table: table.is_some(),
            host_windows: host_folds(per),
            scatter_span: scatter_span(n32, rows as u64 * buckets as u64, self.scatter_buckets),
            chain: false,
        };
        self.check_plan_fits(&plan, bounds)?;
        Ok(plan)
    }

    diagnostics_pub! {
        /// Halves the walker's threads a workgroup (down to 32) until its
        /// inversion tree fits the adapter's workgroup memory (G2's wider
        /// tree); for defaults: a caller's own `walker_tpb` is only checked.
        fn fit_walker_threads(&mut self, bounds: &AdapterBounds) {
            while self.walker_tpb > 32 && self.check_walker_fits(bounds).is_err() {
                self.walker_tpb /= 2;
            }
        }
    }

    /// The walker's workgroup fits the adapter: its size and its workgroup
    /// memory (the inversion tree, and pref_scratch where it lives there).
    pub(crate) fn check_walker_fits(&self, bounds: &AdapterBounds) -> Result<(), MsmError> {
        let (tpb, s) = (self.walker_tpb, self.walker_slots);
        let max_tpb = bounds.max_workgroup_size_x.min(bounds.max_invocations_per_workgroup);
        if tpb == 0 || tpb > max_tpb {
            return Err(invalid(
                "walker_tpb",
                format!("walker_tpb = {tpb}: the adapter allows 1..={max_tpb} threads per workgroup"),
            ));
        }
        let need = geometry::walker_workgroup_bytes(self, bounds.curve);
        if need > bounds.max_workgroup_storage as u64 {
            let hint = if self.walker_pref_mem == PrefMem::Workgroup {
                "lower walker_tpb or walker_slots, or use private pref memory"
            } else {
                "lower walker_tpb"
            };
            return Err(invalid(
                "walker_tpb",
                format!(
                    "walker_tpb = {tpb} with walker_slots = {s} and {:?} pref memory needs {need} bytes of workgroup \
                     memory (the inversion tree, and pref_scratch if in workgroup memory); the adapter has {}: {hint}",
                    self.walker_pref_mem, bounds.max_workgroup_storage
                ),
            ));
        }
        Ok(())
    }

    /// Walker threads and tasks for `entries` stream entries: the caller's
    /// count, else slots walking about [`WALKER_STEPS_TARGET`] entries (more
    /// threads to fill a large GPU, fewer steps under a loop cap).
    fn walker_threads_for(
        &self,
        entries: u64,
        total_buckets: u64,
        align: bool,
        bounds: &AdapterBounds,
    ) -> Result<(u32, u32), MsmError> {
        let s = self.walker_slots;
        // Under a loop cap a slot may walk at most `max_steps` entries (twice
        // the nominal share when tasks follow buckets).
        let max_steps = match (bounds.loop_capped, align) {
            (false, _) => u64::MAX,
            (true, false) => bounds.walker_max_steps(self, total_buckets),
            (true, true) => bounds.walker_max_steps(self, total_buckets).saturating_sub(1) / 2,
        }
        .max(1);
        let max_tasks = (geometry::COMBINE_BLOCK as u64).pow(geometry::COMBINE_MAX_LEVELS + 1);
        let threads = self.walker_threads.unwrap_or_else(|| {
            let s64 = s as u64;
            let by_steps = entries.div_ceil(s64 * WALKER_STEPS_TARGET as u64);
            let fill = WALKER_MIN_THREADS.min(entries.div_ceil(s64 * WALKER_STEPS_MIN as u64));
            let capped = entries.div_ceil(s64.saturating_mul(max_steps));
            // a power of two: whole waves of workgroups on GPUs whose SM
            // counts are not (69,632 threads ran 25% slower than 65,536 at
            // 2^20 on the H200)
            by_steps
                .max(fill)
                .max(capped)
                .next_power_of_two()
                .min(max_tasks / s64)
                .clamp(1, 1 << 24) as u32
        });
        let tasks = threads
            .checked_mul(s)
            .filter(|&k| k as u64 <= max_tasks)
            .ok_or_else(|| {
                invalid(
                    "walker_threads",
                    format!("walker_threads = {threads} times walker_slots = {s} exceeds {max_tasks} walker tasks"),
                )
            })?;
        Ok((threads, tasks))
    }

    /// The plan keeps the loop budget and every buffer fits one binding.
    fn check_plan_fits(&self, plan: &Plan, bounds: &AdapterBounds) -> Result<(), MsmError> {
        budget::check_field_loops(bounds, plan.tasks, self.walker_straight)?;
        let max_steps = bounds.walker_max_steps(self, plan.total_buckets());
        if bounds.loop_capped && plan.max_task_len() > max_steps {
            let culprit = if self.walker_threads.is_some() {
                "walker_threads"
            } else {
                "window_bits"
            };
            return Err(invalid(
                culprit,
                format!(
                    "this adapter stops loops after 65,535 iterations per invocation: with {} walker tasks a \
                     slot may walk {} entries (at most {} with these knobs); change {culprit}",
                    plan.tasks,
                    plan.max_task_len(),
                    max_steps
                ),
            ));
        }
        let record = plan.curve.record_bytes();
        for (what, bytes) in [
            ("bucket sums", plan.total_buckets() * record),
            ("walker partials", 2 * plan.tasks as u64 * record),
            ("entry stream", plan.max_entries() * 4),
        ] {
            if bytes > bounds.max_binding_size {
                return Err(MsmError::BindingTooSmall {
                    what,
                    bytes,
                    limit: bounds.max_binding_size,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
