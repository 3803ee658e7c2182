//! Batch MSMs: k scalar vectors against one resident base set in one
//! submission (a PLONK or KZG prover commits to many polynomials over one
//! SRS per round). Each vector may be shorter than the bases (a prefix MSM).

use ark_ec::short_weierstrass::Projective;

use super::{MsmTimings, Scalars};
use crate::bases::Bases;
use crate::curve::{Bn254, GpuCurve};
use crate::config::MsmConfig;
use crate::knobs::KnobOverrides;
use crate::context::GpuContext;
use crate::error::MsmError;
use crate::plan::Plan;

/// A batch's results (in the vectors' order) with the first job's plan and
/// the timings of the whole batch.
pub struct MsmBatchRun<C: GpuCurve = Bn254> {
    pub results: Vec<Projective<C>>,
    pub plan: Option<Plan>,
    pub timings: MsmTimings,
}

impl<C: GpuCurve> Clone for MsmBatchRun<C> {
    fn clone(&self) -> Self {
        MsmBatchRun {
            results: self.results.clone(),
            plan: self.plan,
            timings: self.timings.clone(),
        }
    }
}

impl<C: GpuCurve> std::fmt::Debug for MsmBatchRun<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MsmBatchRun")
            .field("results", &self.results)
            .field("plan", &self.plan)
            .field("timings", &self.timings)
            .finish()
    }
}

impl GpuContext {
    /// The MSM of `bases` with each scalar vector, with the context's config.
    pub async fn msm_batch<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        vectors: &[&[C::ScalarField]],
    ) -> Result<Vec<Projective<C>>, MsmError> {
        let vectors: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::of::<C>(v)).collect();
        let lens: Vec<usize> = vectors.iter().map(Scalars::len).collect();
        let config = self.config_for_batch(&lens);
        Ok(self.msm_batch_with(bases, &vectors, &config).await?.results)
    }

    /// The knobs of a batch of vectors of these lengths: the context's for
    /// the points one job runs (equal vectors run jointly, up to
    /// `joint_points` at once; else the longest vector's).
    pub fn config_for_batch(&self, lens: &[usize]) -> MsmConfig {
        self.config_for_batch_with(self.knobs(), lens)
    }

    /// [`GpuContext::config_for_batch`] with `knobs` in place of the
    /// context's own (as [`GpuContext::config_for_with`]).
    pub fn config_for_batch_with(&self, knobs: &KnobOverrides, lens: &[usize]) -> MsmConfig {
        let longest = lens.iter().copied().max().unwrap_or(0);
        let cap = MsmConfig::default().joint_points as usize;
        let equal = lens.len() >= 2 && lens.iter().all(|&l| l == longest) && 2 * longest <= cap;
        let config = self.config_for_with(knobs, if equal { (longest * lens.len()).min(cap) } else { longest });
        if equal && config.joint_points == 0 {
            return self.config_for_with(knobs, longest);
        }
        config
    }

    /// [`GpuContext::msm_batch`] for scalars in either form, with `config`.
    pub async fn msm_batch_with<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        vectors: &[Scalars<'_>],
        config: &MsmConfig,
    ) -> Result<MsmBatchRun<C>, MsmError> {
        use tracing::Instrument;
        let span = tracing::debug_span!("msm.batch", vectors = vectors.len());
        let run = self.run_checked::<C>(bases, vectors, config).instrument(span).await?;
        Ok(MsmBatchRun {
            results: run.results,
            plan: run.plan,
            timings: run.timings,
        })
    }

    /// Blocking [`GpuContext::msm_batch`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_batch_blocking<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        vectors: &[&[C::ScalarField]],
    ) -> Result<Vec<Projective<C>>, MsmError> {
        pollster::block_on(self.msm_batch(bases, vectors))
    }

    /// Blocking [`GpuContext::msm_batch_with`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_batch_blocking_with<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        vectors: &[Scalars<'_>],
        config: &MsmConfig,
    ) -> Result<MsmBatchRun<C>, MsmError> {
        pollster::block_on(self.msm_batch_with(bases, vectors, config))
    }
}
