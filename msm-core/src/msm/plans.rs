//! The plans of one call.

use crate::config::MsmConfig;
use crate::error::MsmError;
use crate::plan::{AdapterBounds, Plan};

/// The plans of one MSM call: each chunk length's plan is derived once and
/// shared by the memory check, the chunking, the pipelines and the scratch
/// (a job names its plan by index).
pub(crate) struct CallPlans<'a> {
    config: &'a MsmConfig,
    bounds: AdapterBounds,
    /// The window width of the bases' table the call uses, if it uses one.
    table: Option<u32>,
    plans: Vec<Plan>,
}

impl<'a> CallPlans<'a> {
    pub(crate) fn new(config: &'a MsmConfig, bounds: AdapterBounds) -> Self {
        CallPlans {
            config,
            bounds,
            table: None,
            plans: Vec::new(),
        }
    }

    /// The call's plans over `bases`: with their table where they have one,
    /// the knob `bases_table` is on and `window_bits` is automatic or the
    /// table's width.
    pub(crate) fn over(mut self, bases: &crate::bases::BaseSet) -> Self {
        let c = self.config.window_bits;
        self.table = bases
            .table_bits()
            .filter(|&t| self.config.bases_table && c.is_none_or(|c| c == t));
        self
    }

    /// Whether the call's plans run over the bases' table.
    pub(crate) fn table(&self) -> bool {
        self.table.is_some()
    }

    /// The index of the plan for `len` points, derived on first use.
    pub(crate) fn index(&mut self, len: usize) -> Result<usize, MsmError> {
        self.index_joint(len, 1)
    }

    /// The index of the joint plan for `vectors` vectors of `len` points.
    pub(crate) fn index_joint(&mut self, len: usize, vectors: usize) -> Result<usize, MsmError> {
        let same = |p: &Plan| p.vectors as usize == vectors && p.vector_len() as usize == len && !p.chain;
        if let Some(i) = self.plans.iter().position(same) {
            return Ok(i);
        }
        self.plans
            .push(self.config.plan_with_table(len, vectors, self.table, &self.bounds)?);
        Ok(self.plans.len() - 1)
    }

    /// The index of plan `entry`'s chained twin (see `Plan::chain`).
    pub(crate) fn index_chained(&mut self, entry: usize) -> usize {
        let plan = Plan {
            chain: true,
            ..self.plans[entry]
        };
        if let Some(i) = self.plans.iter().position(|p| *p == plan) {
            return i;
        }
        self.plans.push(plan);
        self.plans.len() - 1
    }

    /// Points per chunk of a vector of `n`: all of them when their buffers
    /// fit the adapter's bindings (and `max_chunk_points` allows), else the
    /// largest halving that fits.
    pub(crate) fn chunk(&mut self, n: usize) -> Result<usize, MsmError> {
        let mut chunk = n.min(self.config.max_chunk_points.map_or(usize::MAX, |c| c as usize));
        loop {
            match self.index(chunk) {
                Ok(_) => return Ok(chunk),
                Err(MsmError::BindingTooSmall { .. }) if chunk > 1 => chunk = chunk.div_ceil(2),
                Err(e) => return Err(e),
            }
        }
    }

    /// Every plan derived so far, by index.
    pub(crate) fn plans(&self) -> &[Plan] {
        &self.plans
    }

    pub(crate) fn config(&self) -> &MsmConfig {
        self.config
    }
}
