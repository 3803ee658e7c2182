//! A base set's table built by the call the knob `table_after` names: the
//! build costs what tens to a hundred calls over the table save, so it
//! waits until the set has been used about that often (a prover's key,
//! used for every proof); a set used once never builds one.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::{auto_table_bits_for, table_bytes, BaseSet};
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::plan::Plan;

/// A set's calls, and whether its table is settled: built or dropped by the
/// caller, or claimed here by a call that built it (or failed to). Settled
/// sets are never built again; a table that did not fit is tried again at
/// the next call.
#[derive(Default)]
pub(crate) struct AutoTable {
    calls: AtomicU32,
    settled: AtomicBool,
}

impl AutoTable {
    pub(super) fn settle(&self) {
        self.settled.store(true, Ordering::Relaxed);
    }

    /// Counts a call: whether it is the `after`-th or later.
    fn count(&self, after: u32) -> bool {
        let call = self.calls.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        after > 0 && call >= after
    }

    /// Claims the build for one caller (concurrent calls run without it).
    fn claim(&self) -> bool {
        !self.settled.swap(true, Ordering::Relaxed)
    }
}

/// The table width a call of `n` points under `config` would have built
/// for it in a layout with (`int64`) or without 64-bit integers: `None`
/// where the knobs build none (`table_after` 0, `bases_table` off, or a
/// `window_bits` other than the automatic width).
pub fn auto_table_width(config: &MsmConfig, n: usize, curve: crate::curve::Curve, int64: bool) -> Option<u32> {
    let c = auto_table_bits_for(n, int64, curve);
    (config.table_after > 0 && config.bases_table && config.window_bits.is_none_or(|w| w == c)).then_some(c)
}

impl GpuContext {
    /// Counts a call of `n` points over `bases` and, from the call
    /// `config.table_after` names, builds their table first where they have
    /// none and it fits half the device's memory beside the resident sets
    /// (where the device says how much it has), and no background warm-up
    /// is still to compile the table's pipelines. A build that fails is not
    /// tried again: the call runs over the plain bases, as every later one
    /// does, and the reason goes to `tracing`.
    pub(crate) async fn auto_table(&self, bases: &BaseSet, config: &MsmConfig, n: usize) {
        if !bases.auto.count(config.table_after) || bases.table.get().is_some() {
            return;
        }
        let Some(c) = auto_table_width(config, n, bases.curve, self.bounds().field_int64) else {
            return;
        };
        // Behind a background warm-up the table's pipelines come from it:
        // until they have, calls run plain instead of compiling (or waiting
        // for) them, and the next call tries again.
        if self.warming_in_background() && !self.is_compiled(&self.table_jobs(config, n)) {
            return;
        }
        let needed = table_bytes(bases.n, c, bases.curve);
        let fits = self
            .device_memory()
            .is_none_or(|m| self.resident_bytes().saturating_add(needed) <= m / 2);
        if !fits || !bases.auto.claim() {
            return;
        }
        let t = web_time::Instant::now();
        let made = match self.check_table(bases, c, 0) {
            Ok(()) => self.make_table(bases, c, usize::MAX).await,
            Err(e) => Err(e),
        };
        match made {
            Ok(table) => {
                let _ = bases.table.set(table);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                tracing::info!(
                    n = bases.n,
                    c,
                    bytes = needed,
                    ms,
                    "built the bases' table of shifted copies"
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, n = bases.n, c, "the bases' table was not built: MSMs over them run without it")
            }
        }
    }

    /// The plan of `n` points over the table a call under `config` would
    /// build (for the warm-ups: its kernels compiled with the plain plan's).
    pub(crate) fn auto_table_plan(&self, config: &MsmConfig, n: usize) -> Option<Plan> {
        let c = auto_table_width(config, n, self.curve(), self.bounds().field_int64)?;
        config.plan_with_table(n, 1, Some(c), &self.bounds()).ok()
    }
}
