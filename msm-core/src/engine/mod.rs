//! The engine a prover holds: one type for every backend. `Backend::Auto`
//! runs arkworks on the CPU below a crossover size measured per adapter
//! (`msm-cli tune`; built-in per adapter class otherwise) and the GPU above
//! it, and falls back to the CPU with one warning when no adapter works;
//! `Backend::Gpu` always uses the GPU and returns its errors;
//! `Backend::Cpu` never opens an adapter. Results are arkworks' either way.
//! Routing decisions and fallbacks are reported through `tracing`.
//!
//! Where Auto may use the GPU, the engine compiles its pipelines in the
//! background from creation (`warm`) and runs on the CPU every MSM whose
//! pipelines are not ready yet, so no call waits on a shader compile;
//! [`Engine::warm_up`] awaits them.

mod warm;

use std::sync::Arc;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::VariableBaseMSM;

use crate::bases::Bases;
use crate::context::{ContextOptions, GpuContext};
use crate::curve::{Bn254, GpuCurve};
use crate::error::MsmError;

/// Which hardware computes MSMs (text names "auto", "gpu", "cpu": `knobs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// CPU below the crossover, GPU above it; CPU when no adapter works.
    #[default]
    Auto,
    /// Always the GPU; errors are returned.
    Gpu,
    /// Always arkworks on the CPU.
    Cpu,
}

crate::knobs::named_values!(
    Backend,
    "backend",
    [(Backend::Auto, "auto"), (Backend::Gpu, "gpu"), (Backend::Cpu, "cpu")]
);

/// Where one MSM runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Cpu,
    Gpu,
}

/// How to build an [`Engine`].
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    pub backend: Backend,
    /// The GPU context's options (adapter, layout, knobs, profile).
    pub context: ContextOptions,
    /// Overrides the crossover (points) at which Auto switches to the GPU.
    pub crossover: Option<usize>,
    /// Compile the GPU pipelines in the background from creation, MSMs
    /// whose pipelines are not ready running on the CPU meanwhile (Auto).
    /// Default: on where Auto may use a GPU adapter; off with
    /// [`Backend::Gpu`] (whose calls wait for their compiles) and on
    /// software adapters (compiles would take the CPU's cores from the
    /// MSMs running there).
    pub warm_up: Option<bool>,
    /// The largest MSM (points) the warm-up prepares for (default 2^22);
    /// a larger call compiles what it needs when first run.
    pub max_points: Option<usize>,
    /// The MSM lengths the warm-up prepares for, where the caller knows
    /// them (a prover's queries): those alone, not every power of two
    /// from the crossover to `max_points` — fewer compiles, ready sooner.
    pub warm_up_sizes: Option<Vec<usize>>,
}

/// A base set of the group `C` as the engine holds it: on the GPU where
/// MSMs may run there, and on the host where they may run on the CPU.
pub struct EngineBases<C: GpuCurve = Bn254> {
    host: Option<Vec<Affine<C>>>,
    gpu: Option<Bases<C>>,
    len: usize,
}

impl<C: GpuCurve> EngineBases<C> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The window width of the GPU set's table, if one was built.
    pub fn table_bits(&self) -> Option<u32> {
        self.gpu.as_ref().and_then(|b| b.table_bits())
    }
}

/// One engine for every backend; see the module docs.
pub struct Engine {
    backend: Backend,
    gpu: Option<Arc<GpuContext>>,
    crossover: Option<usize>,
    fallback: Option<String>,
    warm: Option<Arc<warm::WarmUp>>,
}

impl Engine {
    /// Opens the GPU context the backend needs.
    pub async fn new(opts: &EngineOptions) -> Result<Self, MsmError> {
        let (gpu, fallback) = match opts.backend {
            Backend::Cpu => (None, None),
            Backend::Gpu => (Some(GpuContext::new(&opts.context).await?), None),
            Backend::Auto => match GpuContext::new(&opts.context).await {
                Ok(c) => (Some(c), None),
                Err(e) => {
                    tracing::warn!(error = %e, "no usable GPU adapter: every MSM runs on the CPU (arkworks)");
                    (None, Some(e.to_string()))
                }
            },
        };
        let crossover = opts.crossover.or_else(|| gpu.as_ref().and_then(|g| g.crossover()));
        if let Some(g) = &gpu {
            tracing::info!(
                adapter = %g.adapter_info().name,
                backend = %opts.backend,
                crossover = ?crossover,
                profile = %g.profile_source(),
                "MSM engine ready"
            );
        }
        let gpu = gpu.map(Arc::new);
        let warm_by_default =
            opts.backend == Backend::Auto && crossover.is_some() && gpu.as_ref().is_some_and(|g| !g.is_software());
        let warm = match &gpu {
            Some(g) if opts.warm_up.unwrap_or(warm_by_default) => {
                let smallest = if opts.backend == Backend::Auto { crossover } else { None };
                let largest = opts.max_points.unwrap_or(warm::DEFAULT_MAX_POINTS);
                let sizes = match &opts.warm_up_sizes {
                    Some(given) => warm::WarmUp::exact(given, smallest.unwrap_or(1)),
                    None => warm::WarmUp::sizes(smallest.unwrap_or(1 << 10), largest),
                };
                tracing::info!(sizes = sizes.len(), "GPU warm-up started: MSMs run on the CPU until their pipelines are ready");
                Some(warm::WarmUp::start(g.clone(), sizes))
            }
            _ => None,
        };
        Ok(Engine {
            backend: opts.backend,
            gpu,
            crossover,
            fallback,
            warm,
        })
    }

    /// Awaits the warm-up (compiling on this task what the background has
    /// not yet): afterwards no MSM up to [`EngineOptions::max_points`]
    /// waits on a compile. Immediate without a warm-up.
    pub async fn warm_up(&self) -> Result<(), MsmError> {
        match (&self.gpu, &self.warm) {
            (Some(g), Some(w)) => w.finish(g).await,
            _ => Ok(()),
        }
    }

    /// Test hook: while `hold`, background warm-ups wait before compiling.
    #[cfg(feature = "diagnostics")]
    pub fn hold_warm_ups_for_test(hold: bool) {
        warm::HOLD.store(hold, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the warm-up is done (true without one).
    pub fn is_ready(&self) -> bool {
        self.warm.as_ref().is_none_or(|w| w.is_ready())
    }

    /// Size classes the warm-up has compiled, of all (`None` without one).
    pub fn warm_up_progress(&self) -> Option<(usize, usize)> {
        self.warm.as_ref().map(|w| w.progress())
    }

    /// Blocking [`Engine::new`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking(opts: &EngineOptions) -> Result<Self, MsmError> {
        pollster::block_on(Self::new(opts))
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The GPU context, where there is one.
    pub fn gpu(&self) -> Option<&GpuContext> {
        self.gpu.as_deref()
    }

    /// Points from which Auto runs on the GPU (`None`: never).
    pub fn crossover(&self) -> Option<usize> {
        self.crossover
    }

    /// Why Auto fell back to the CPU, if it did (no adapter, or a warm-up
    /// that failed).
    pub fn fallback_reason(&self) -> Option<String> {
        (self.fallback.clone()).or_else(|| self.warm.as_ref().and_then(|w| w.failure()))
    }

    /// Where an MSM of `n` points runs now: as [`Engine::placement`] says,
    /// except that Auto runs it on the CPU while its pipelines are still
    /// warming up (or after the warm-up failed).
    pub fn route(&self, n: usize) -> Route {
        let placed = self.placement(n);
        let (Some(gpu), Some(warm)) = (&self.gpu, &self.warm) else {
            return placed;
        };
        let waiting = placed == Route::Gpu && self.backend == Backend::Auto && !warm.is_ready();
        if waiting && (warm.failure().is_some() || !gpu.plain_is_warm(&gpu.config_for(n), n)) {
            tracing::debug!(n, "pipelines not ready: arkworks on the CPU");
            return Route::Cpu;
        }
        placed
    }

    /// Where MSMs of `n` points belong: the backend's choice and the
    /// crossover, whatever the warm-up's state (bases go there).
    pub fn placement(&self, n: usize) -> Route {
        match (self.backend, &self.gpu) {
            (Backend::Cpu, _) | (_, None) => Route::Cpu,
            (Backend::Gpu, Some(_)) => Route::Gpu,
            (Backend::Auto, Some(_)) => match self.crossover {
                Some(x) if n >= x => Route::Gpu,
                _ => Route::Cpu,
            },
        }
    }

    /// Keeps `points` where this engine's MSMs over them may run. With
    /// [`Backend::Gpu`] a failed upload (memory, a lost device, a context
    /// of another curve: [`ContextOptions::curve`]) is the caller's error;
    /// with [`Backend::Auto`] the points stay on the host (the MSMs over
    /// them run on the CPU) and the reason goes to `tracing`.
    pub async fn upload_bases<C: GpuCurve>(&self, points: &[Affine<C>]) -> Result<EngineBases<C>, MsmError> {
        use tracing::Instrument;
        let span = tracing::info_span!("msm.upload_bases", n = points.len());
        let gpu = match (&self.gpu, self.placement(points.len())) {
            (Some(g), Route::Gpu) => match g.upload_bases(points).instrument(span).await {
                Ok(b) => Some(b),
                Err(e) if self.backend == Backend::Gpu => return Err(e),
                Err(e) => {
                    tracing::warn!(error = %e, "bases stay on the host: their MSMs run on the CPU");
                    None
                }
            },
            _ => None,
        };
        let host = (self.backend != Backend::Gpu || gpu.is_none()).then(|| points.to_vec());
        Ok(EngineBases {
            host,
            gpu,
            len: points.len(),
        })
    }

    /// Blocking [`Engine::upload_bases`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn upload_bases_blocking<C: GpuCurve>(&self, points: &[Affine<C>]) -> Result<EngineBases<C>, MsmError> {
        pollster::block_on(self.upload_bases(points))
    }

    /// Builds the GPU set's table of shifted bases (see
    /// [`GpuContext::build_table`]: every window into one row of buckets,
    /// 0.70-0.91x the time from 2^16 to 2^22 points on an H200, at
    /// ceil(255 / c) times the bases' GPU memory). Nothing to do for bases
    /// only the CPU holds; [`MsmError::ForeignBases`] for bases another
    /// engine's GPU holds.
    pub async fn build_table<C: GpuCurve>(&self, bases: &mut EngineBases<C>, c: Option<u32>) -> Result<(), MsmError> {
        match (&self.gpu, &mut bases.gpu) {
            (Some(ctx), Some(set)) => ctx.build_table(set, c).await,
            (None, Some(_)) => Err(MsmError::ForeignBases),
            (_, None) => Ok(()),
        }
    }

    /// Checks that every point of `bases` is in the prime-order subgroup:
    /// on the GPU where the GPU holds them ([`GpuContext::check_subgroup`]),
    /// else with arkworks on the CPU, as while a warm-up has not compiled
    /// the GPU's test yet (no caller waits on that compile). Typed points
    /// are trusted at upload (arkworks' checked deserialization refuses
    /// such points); call this for points from elsewhere.
    /// [`MsmError::InvalidBase`] names the first point outside.
    pub async fn check_subgroup<C: GpuCurve>(&self, bases: &EngineBases<C>) -> Result<(), MsmError> {
        let compiled = |ctx: &GpuContext| self.warm.is_none() || ctx.subgroup_is_warm();
        match (&self.gpu, &bases.gpu, &bases.host) {
            (Some(ctx), Some(set), host) if host.is_none() || compiled(ctx) => ctx.check_subgroup(set).await,
            (_, _, Some(host)) => match first_outside_subgroup(host) {
                None => Ok(()),
                Some(index) => Err(MsmError::InvalidBase {
                    index,
                    defect: crate::base_format::BaseDefect::NotInSubgroup,
                }),
            },
            _ => Err(MsmError::ForeignBases),
        }
    }

    /// Blocking [`Engine::build_table`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn build_table_blocking<C: GpuCurve>(&self, bases: &mut EngineBases<C>, c: Option<u32>) -> Result<(), MsmError> {
        pollster::block_on(self.build_table(bases, c))
    }

    /// The MSM of the first `scalars.len()` bases with `scalars`.
    pub async fn msm<C: GpuCurve>(
        &self,
        bases: &EngineBases<C>,
        scalars: &[C::ScalarField],
    ) -> Result<Projective<C>, MsmError> {
        Ok(self.msm_batch(bases, &[scalars]).await?.remove(0))
    }

    /// One MSM per scalar vector over the same bases; the vectors the GPU
    /// takes run as one batch.
    pub async fn msm_batch<C: GpuCurve>(
        &self,
        bases: &EngineBases<C>,
        vectors: &[&[C::ScalarField]],
    ) -> Result<Vec<Projective<C>>, MsmError> {
        let mut out = vec![Projective::<C>::default(); vectors.len()];
        let mut on_gpu = Vec::new();
        for (k, v) in vectors.iter().enumerate() {
            if v.len() > bases.len {
                return Err(MsmError::LengthMismatch {
                    bases: bases.len,
                    scalars: v.len(),
                });
            }
            match (self.route(v.len()), &bases.gpu, &bases.host) {
                (Route::Gpu, Some(_), _) | (_, Some(_), None) => on_gpu.push(k),
                (_, _, Some(host)) => {
                    let _span = tracing::debug_span!("msm.cpu", n = v.len()).entered();
                    tracing::debug!(n = v.len(), crossover = ?self.crossover, "below the crossover: arkworks on the CPU");
                    out[k] = Projective::<C>::msm(&host[..v.len()], v).expect("equal lengths");
                }
                (_, None, None) => unreachable!("bases are kept on the host or the GPU"),
            }
        }
        if !on_gpu.is_empty() {
            // bases only another engine's GPU holds (this one has no context,
            // or fell back to the CPU): its context refuses them too
            let (Some(gpu), Some(resident)) = (self.gpu.as_ref(), bases.gpu.as_ref()) else {
                return Err(MsmError::ForeignBases);
            };
            let picked: Vec<&[C::ScalarField]> = on_gpu.iter().map(|&k| vectors[k]).collect();
            let results = gpu.msm_batch(resident, &picked).await?;
            for (k, r) in on_gpu.into_iter().zip(results) {
                out[k] = r;
            }
        }
        Ok(out)
    }

    /// Blocking [`Engine::msm`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_blocking<C: GpuCurve>(
        &self,
        bases: &EngineBases<C>,
        scalars: &[C::ScalarField],
    ) -> Result<Projective<C>, MsmError> {
        pollster::block_on(self.msm(bases, scalars))
    }

    /// Blocking [`Engine::msm_batch`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_batch_blocking<C: GpuCurve>(
        &self,
        bases: &EngineBases<C>,
        vectors: &[&[C::ScalarField]],
    ) -> Result<Vec<Projective<C>>, MsmError> {
        pollster::block_on(self.msm_batch(bases, vectors))
    }
}

/// The first of `points` outside the prime-order subgroup (arkworks' test,
/// on the library's host pool natively).
fn first_outside_subgroup<C: GpuCurve>(points: &[Affine<C>]) -> Option<usize> {
    let outside = |p: &Affine<C>| !p.is_in_correct_subgroup_assuming_on_curve();
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        crate::host::install(|| points.par_iter().position_first(outside))
    }
    #[cfg(target_arch = "wasm32")]
    points.iter().position(outside)
}

/// Dropping an engine stops its warm-up before the next size class and
/// waits for the compiles in flight (natively), so that no driver thread
/// outlives it into the process's exit.
impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(w) = &self.warm {
            w.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropping an engine stops its warm-up before the next size class and
    /// joins its thread: none outlives the engine (into a process's exit).
    #[cfg(feature = "diagnostics")]
    #[test]
    fn a_dropped_engine_stops_and_joins_its_warm_up() {
        Engine::hold_warm_ups_for_test(true);
        let engine = Engine::new_blocking(&EngineOptions {
            crossover: Some(256),
            warm_up: Some(true),
            max_points: Some(1024),
            ..Default::default()
        });
        let Ok(engine) = engine else {
            Engine::hold_warm_ups_for_test(false);
            return; // no adapter here
        };
        let warm = engine.warm.clone().expect("a warm-up was asked for");
        drop(engine);
        let left = Arc::strong_count(&warm);
        Engine::hold_warm_ups_for_test(false);
        assert_eq!(left, 1, "the warm-up thread ended with the engine");
        assert_eq!(warm.progress(), (0, 3), "no size class compiled after the drop");
    }

    /// MSM futures stay `Send`, so provers can spawn them on any executor.
    #[test]
    fn futures_are_send() {
        fn send<T: Send>(_: T) {}
        let opts = EngineOptions::default();
        send(Engine::new(&opts));
        if let Ok(e) = Engine::new_blocking(&EngineOptions {
            backend: Backend::Cpu,
            ..Default::default()
        }) {
            send(e.upload_bases::<Bn254>(&[]));
            let b = e.upload_bases_blocking::<Bn254>(&[]).unwrap();
            send(e.msm(&b, &[]));
        }
    }
}
