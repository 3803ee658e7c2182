//! Recording the passes of one chunk into a command encoder.

use crate::config::MsmConfig;
use crate::context::pipelines::PipelineJob;
use crate::context::{GpuContext, Scratch};
use crate::error::MsmError;
use crate::passes::{walker_combine, Buf, Kernel, Pass};
use crate::plan::Plan;

/// The compiled kernels of the passes one MSM runs, in order.
pub(crate) struct PassPipelines {
    pub(crate) passes: Vec<(Pass, Vec<(Kernel, wgpu::ComputePipeline)>)>,
}

/// One plan of a call with its compiled passes: what every job of that plan
/// records with (its scratch comes from the context's cache, keyed by plan).
pub(crate) struct PlanEntry {
    pub(crate) plan: Plan,
    pub(crate) pipelines: PassPipelines,
}

/// What a recording zeroes before its passes: the histogram's counts (when
/// preprocess runs) and the count of walker_combine's owner list (when it
/// runs; `gather` appends to it).
#[derive(Clone, Copy)]
pub(crate) struct Clears<'a> {
    pub counts: &'a wgpu::Buffer,
    pub owner_list: &'a wgpu::Buffer,
}

impl<'a> Clears<'a> {
    /// The scratch's buffers to zero.
    pub(crate) fn of(s: &'a Scratch) -> Self {
        Clears {
            counts: s.buf(Buf::Counts),
            owner_list: s.buf(Buf::OwnerList),
        }
    }
}

impl GpuContext {
    /// The call's plans that jobs use (`used`: each job's plan index and
    /// plan), each with its compiled passes, by index among the `plans`.
    pub(crate) async fn plan_entries(
        &self,
        used: impl Iterator<Item = (usize, Plan)>,
        plans: usize,
        config: &MsmConfig,
        passes: &[Pass],
    ) -> Result<Vec<Option<PlanEntry>>, MsmError> {
        let mut entries: Vec<Option<PlanEntry>> = (0..plans).map(|_| None).collect();
        for (i, plan) in used {
            if entries[i].is_none() {
                let pipelines = self.pass_pipelines(config, &plan, passes).await?;
                entries[i] = Some(PlanEntry { plan, pipelines });
            }
        }
        Ok(entries)
    }

    /// The pipelines `passes` run for `plan` under `config`; with `others`,
    /// on a GPU, also those other sizes need (see `pass_pipelines`).
    fn pass_jobs(&self, config: &MsmConfig, plan: &Plan, passes: &[Pass], others: bool) -> Vec<PipelineJob> {
        let job = |pass: Pass, config: &MsmConfig, k: Kernel| (pass.shader(config), k.entry, k.overrides, Some(pass));
        let mut jobs: Vec<_> = passes
            .iter()
            .flat_map(|&pass| pass.kernels(config, plan).into_iter().map(move |k| job(pass, config, k)))
            .collect();
        if !others || self.is_software() {
            return jobs;
        }
        // a chain's accumulate, where the knobs chain a vector's jobs, natively
        // (a browser compiles one pipeline at a time: a chain, from 2^23
        // points over a table, compiles it at its first call instead)
        if config.chain_jobs > 0 && passes.contains(&Pass::Reduce) && !cfg!(target_arch = "wasm32") {
            let chained = Plan { chain: true, ..*plan };
            jobs.push(job(Pass::Reduce, config, crate::passes::reduce::accumulate(&chained)));
        }
        // On a GPU, the kernels other sizes need are compiled in the same
        // parallel batch, so that the first call of a larger size class
        // compiles nothing (on a CPU adapter each compile costs seconds of
        // the few cores there are: only what this call runs).
        if passes.contains(&Pass::WalkerCombine) {
            let pass = Pass::WalkerCombine;
            jobs.extend(
                walker_combine::other_sizes_kernels(plan)
                    .into_iter()
                    .map(|k| job(pass, config, k)),
            );
        }
        // ... and the walker shapes of the other sizes' knobs, natively. A
        // browser compiles one pipeline at a time (under Dawn a second shape
        // added 3.8 s to the warm-up's first step, H100, cold): its warm-up
        // compiles each size's own shape in that size's step instead.
        if passes.contains(&Pass::StreamWalker) && !cfg!(target_arch = "wasm32") {
            let pass = Pass::StreamWalker;
            for other in self.walker_configs() {
                if other.walker_shape() != config.walker_shape() {
                    jobs.extend(pass.kernels(&other, plan).into_iter().map(|k| job(pass, &other, k)));
                }
            }
        }
        jobs
    }

    /// Whether an MSM of `n` points over plain bases under `config` would
    /// find every pipeline it runs compiled (it would wait on no compile),
    /// the table's where `table_after` builds one included.
    pub fn is_warm(&self, config: &MsmConfig, n: usize) -> bool {
        self.plain_is_warm(config, n) && self.is_compiled(&self.table_jobs(config, n))
    }

    /// Whether the plain plan's pipelines are compiled: the calls before a
    /// set's table (and every call where none is built) compile nothing.
    pub(crate) fn plain_is_warm(&self, config: &MsmConfig, n: usize) -> bool {
        self.plain_jobs(config, n, false).is_ok_and(|jobs| self.is_compiled(&jobs))
    }

    /// Compiles what an MSM of `n` points over plain bases runs under
    /// `config` (on a GPU also what other sizes share with it), and where
    /// `table_after` builds a table, the table's kernel and the plan over
    /// it, so that such a call compiles nothing: a warm-up to run in the
    /// background while calls go elsewhere ([`crate::Engine`] does).
    pub async fn warm_up(&self, config: &MsmConfig, n: usize) -> Result<(), MsmError> {
        self.warm_up_plain(config, n).await?;
        self.warm_up_table(config, n).await
    }

    /// The first half of [`GpuContext::warm_up`]: the plain plan's
    /// pipelines (and what other sizes share with them).
    pub(crate) async fn warm_up_plain(&self, config: &MsmConfig, n: usize) -> Result<(), MsmError> {
        self.precompile(self.plain_jobs(config, n, true)?).await
    }

    /// The plain plan's pipelines for `n` points under `config`; with
    /// `others`, also what other sizes share with them (see `pass_jobs`).
    fn plain_jobs(&self, config: &MsmConfig, n: usize, others: bool) -> Result<Vec<PipelineJob>, MsmError> {
        let plan = self.plan(n.max(1), config)?;
        Ok(self.pass_jobs(config, &plan, self.passes_for(config), others))
    }

    /// The second half: the table's kernel and the plan over it, where
    /// `table_after` builds one (nothing otherwise).
    pub(crate) async fn warm_up_table(&self, config: &MsmConfig, n: usize) -> Result<(), MsmError> {
        self.precompile(self.table_jobs(config, n)).await
    }

    /// The pipelines a call of `n` points under `config` that builds its
    /// set's table runs beyond the plain plan's: none where no table is
    /// built.
    pub(crate) fn table_jobs(&self, config: &MsmConfig, n: usize) -> Vec<PipelineJob> {
        let Some(plan) = self.auto_table_plan(config, n.max(1)) else {
            return Vec::new();
        };
        let mut jobs = self.pass_jobs(config, &plan, self.passes_for(config), false);
        jobs.push(GpuContext::table_shift_job());
        jobs
    }

    /// The pipelines of `passes` for `plan` under `config` (compiled on first
    /// use, then from the cache).
    pub(crate) async fn pass_pipelines(
        &self,
        config: &MsmConfig,
        plan: &Plan,
        passes: &[Pass],
    ) -> Result<PassPipelines, MsmError> {
        self.precompile(self.pass_jobs(config, plan, passes, true)).await?;
        let mut out = Vec::with_capacity(passes.len());
        for &pass in passes {
            let mut kernels = Vec::new();
            for kernel in pass.kernels(config, plan) {
                let p = self
                    .pipeline(pass.shader(config), kernel.entry, &kernel.overrides, Some(pass))
                    .await?;
                kernels.push((kernel, p));
            }
            out.push((pass, kernels));
        }
        Ok(PassPipelines { passes: out })
    }

    /// The jobs a vector's run must hold to chain (`chain_jobs`): none
    /// where the host reduces.
    pub(crate) fn chain_threshold(&self, config: &MsmConfig) -> u32 {
        if self.reduces_on_host(config) {
            0
        } else {
            config.chain_jobs
        }
    }

    /// The passes this MSM runs: all four, or three when the host reduces.
    pub(crate) fn passes_for(&self, config: &MsmConfig) -> &'static [Pass] {
        if self.reduces_on_host(config) {
            &Pass::ALL[..3]
        } else {
            &Pass::ALL
        }
    }

    /// Records every kernel of `pipelines` (without `reduces`, a chain's
    /// earlier job: reduce's `accumulate` alone of that pass): all in one
    /// compute pass, or each kernel in its own with timestamps around it
    /// when `queries` is given. Returns the labels of the timed kernels, in
    /// query order.
    pub(crate) fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        pipelines: &PassPipelines,
        bind_groups: &[wgpu::BindGroup; 4],
        (clears, reduces): (Clears<'_>, bool),
        queries: Option<&wgpu::QuerySet>,
    ) -> Vec<(Pass, String)> {
        let runs = |pass: Pass| pipelines.passes.iter().any(|(p, _)| *p == pass);
        fn kept(reduces: bool, pass: Pass, all: &[(Kernel, wgpu::ComputePipeline)]) -> Vec<&(Kernel, wgpu::ComputePipeline)> {
            let keep = |k: &&(Kernel, wgpu::ComputePipeline)| {
                reduces || pass != Pass::Reduce || crate::passes::reduce::runs_in_every_link(&k.0)
            };
            all.iter().filter(keep).collect()
        }
        let kernels = |pass: Pass, all| kept(reduces, pass, all);
        if runs(Pass::Preprocess) {
            enc.clear_buffer(clears.counts, 0, None);
        }
        if runs(Pass::WalkerCombine) {
            enc.clear_buffer(clears.owner_list, 0, Some(4));
        }
        let dispatch = |cp: &mut wgpu::ComputePass<'_>, pass: Pass, k: &Kernel, p: &wgpu::ComputePipeline| {
            let (x, y) = self.grid(k.groups);
            cp.set_pipeline(p);
            cp.set_bind_group(0, &bind_groups[pass.index()], &[]);
            cp.dispatch_workgroups(x, y, 1);
        };
        let mut timed = Vec::new();
        let Some(q) = queries else {
            // One compute pass: wgpu still orders each dispatch after the
            // writes it reads, without ending and beginning passes.
            let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("msm"),
                timestamp_writes: None,
            });
            for (pass, all) in &pipelines.passes {
                let _span = tracing::trace_span!("msm.record", pass = pass.name()).entered();
                for (k, p) in kernels(*pass, all) {
                    dispatch(&mut cp, *pass, k, p);
                }
            }
            return timed;
        };
        for (pass, all) in &pipelines.passes {
            let kernels = kernels(*pass, all);
            debug_assert!(2 * (timed.len() + kernels.len()) <= crate::context::MAX_TIMESTAMPS as usize);
            for (k, p) in kernels {
                let i = 2 * timed.len() as u32;
                let label = k.label(*pass);
                let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(&label),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: q,
                        beginning_of_pass_write_index: Some(i),
                        end_of_pass_write_index: Some(i + 1),
                    }),
                });
                dispatch(&mut cp, *pass, k, p);
                drop(cp);
                timed.push((*pass, label));
            }
        }
        timed
    }
}
