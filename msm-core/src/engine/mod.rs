//! The engine a prover holds: one type for every backend. `Backend::Auto`
//! runs arkworks on the CPU below a crossover size measured per adapter
//! (`msm-cli tune`; built-in per adapter class otherwise) and the GPU above
//! it, and falls back to the CPU with one warning when no adapter works;
//! `Backend::Gpu` always uses the GPU and returns its errors;
//! `Backend::Cpu` never opens an adapter. Results are arkworks' either way.
//! Routing decisions and fallbacks are reported through `tracing`.

pub mod profile;

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
    gpu: Option<GpuContext>,
    crossover: Option<usize>,
    fallback: Option<String>,
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
        Ok(Engine {
            backend: opts.backend,
            gpu,
            crossover,
            fallback,
        })
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
        self.gpu.as_ref()
    }

    /// Points from which Auto runs on the GPU (`None`: never).
    pub fn crossover(&self) -> Option<usize> {
        self.crossover
    }

    /// Why Auto fell back to the CPU, if it did.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// Where an MSM of `n` points runs.
    pub fn route(&self, n: usize) -> Route {
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
        let gpu = match (&self.gpu, self.route(points.len())) {
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
    /// else with arkworks on the CPU. Typed points are trusted at upload
    /// (arkworks' checked deserialization refuses such points); call this
    /// for points from elsewhere. [`MsmError::InvalidBase`] names the first
    /// point outside.
    pub async fn check_subgroup<C: GpuCurve>(&self, bases: &EngineBases<C>) -> Result<(), MsmError> {
        match (&self.gpu, &bases.gpu, &bases.host) {
            (Some(ctx), Some(set), _) => ctx.check_subgroup(set).await,
            (_, _, Some(host)) => match host.iter().position(|p| !p.is_in_correct_subgroup_assuming_on_curve()) {
                None => Ok(()),
                Some(index) => Err(MsmError::InvalidBase {
                    index,
                    defect: crate::BaseDefect::NotInSubgroup,
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

#[cfg(test)]
mod tests {
    use super::*;

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
