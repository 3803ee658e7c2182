//! The MSM on the GPU: preprocess -> stream_walker -> walker_combine -> reduce,
//! then the host's Horner step over the window sums.
//!
//! [`GpuContext::msm_with`] and [`GpuContext::msm_batch_with`] are the
//! checked entry points (lengths, layout); they call the unchecked core
//! (`run`), which cuts the input into jobs (vectors, base parts, binding
//! limits, `max_chunk_points`), stages them, submits once and maps one
//! results buffer at the end.

mod batch;
mod jobs;
mod memory;
mod plans;
mod readback;
mod record;
mod run;
mod scratch;
mod upload;

use ark_ec::short_weierstrass::Projective;
use ark_ff::BigInt;

pub use batch::MsmBatchRun;
pub use readback::{bucket_point, record_point};
pub(crate) use readback::{decode_window_sums, host_window_sums, xyzz_to_projective};
pub(crate) use record::Clears;

use crate::bases::{BaseSet, Bases};
use crate::curve::{Bn254, Curve, GpuCurve};
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::error::MsmError;
use crate::host_bytes::HostBytes;
use crate::layout::{SCALARS_CANONICAL, SCALARS_MONTGOMERY};
use crate::passes::Pass;
use crate::plan::Plan;
pub(crate) use plans::CallPlans;
pub use memory::{msm_memory_on, MsmMemory};

/// Where the time of one MSM went.
#[derive(Clone, Debug, Default)]
pub struct MsmTimings {
    /// GPU time per pass in ms (index: `Pass::index`), from timestamp
    /// queries; `None` when the context has no timestamps or timing was off.
    pub gpu_pass_ms: Option<[f64; 4]>,
    /// GPU time per kernel (`pass.entry`, ms), in recording order, summed over
    /// chunks; empty without timestamps.
    pub gpu_kernel_ms: Vec<(String, f64)>,
    /// Host: chunking, plans and pipeline lookups before the first upload
    /// (wall clock, ms).
    pub prepare_ms: f64,
    /// Host: scalar conversion and upload (wall clock, ms).
    pub upload_ms: f64,
    /// Host: binding, recording and submitting the passes (wall clock, ms).
    pub submit_ms: f64,
    /// Host: waiting for the results after the last submission (wall clock,
    /// ms): the GPU's remaining work, the scalars' copy and the readback.
    pub wait_ms: f64,
    /// GPU: first kernel's start to last kernel's end, summed over chunks
    /// (ms; timed runs only): the passes plus the gaps between kernels.
    pub gpu_span_ms: Option<f64>,
    /// Host: first submit until the window sums are read back (wall clock,
    /// ms; includes the host's reduce when it reduces).
    pub gpu_wall_ms: f64,
    /// Host: Horner over the window sums (wall clock, ms).
    pub host_combine_ms: f64,
}

/// One MSM's result with its plan and timings.
pub struct MsmRun<C: GpuCurve = Bn254> {
    pub result: Projective<C>,
    /// The plan of the first chunk (`None` for an empty input).
    pub plan: Option<Plan>,
    pub timings: MsmTimings,
}

impl MsmTimings {
    /// The passes' names in the order of [`MsmTimings::gpu_pass_ms`].
    pub fn pass_names() -> [&'static str; 4] {
        Pass::ALL.map(Pass::name)
    }
}

impl<C: GpuCurve> Clone for MsmRun<C> {
    fn clone(&self) -> Self {
        MsmRun {
            result: self.result,
            plan: self.plan,
            timings: self.timings.clone(),
        }
    }
}

impl<C: GpuCurve> std::fmt::Debug for MsmRun<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MsmRun")
            .field("result", &self.result)
            .field("plan", &self.plan)
            .field("timings", &self.timings)
            .finish()
    }
}

/// Scalars as a caller holds them; every form goes to the GPU as it is.
#[derive(Clone, Copy, Debug)]
pub enum Scalars<'a> {
    /// arkworks' field elements: their Montgomery limbs are copied straight
    /// into the upload memory and preprocess converts them on the GPU.
    Fr(&'a [ark_bn254::Fr]),
    /// BLS12-381's field elements, as [`Scalars::Fr`] (a context of
    /// [`crate::Curve::Bls12_381G1`] only).
    Bls12_381Fr(&'a [ark_bls12_381::Fr]),
    /// Integers, any 256-bit value: preprocess reduces them mod r, so the
    /// result is the sum of the reduced integers times the points (the
    /// reference is arkworks' `msm` over `from_le_bytes_mod_order`, not
    /// `msm_bigint`, whose result for words of r or more depends on the
    /// host's thread count).
    Canonical(&'a [BigInt<4>]),
    /// The same values as 32 little-endian bytes each, in caller memory (a
    /// JS `Uint8Array` on the web): written to the GPU with no host work.
    /// The length must be a multiple of 32.
    Bytes(HostBytes<'a>),
}

impl<'a> From<crate::curve::FrSlice<'a>> for Scalars<'a> {
    fn from(s: crate::curve::FrSlice<'a>) -> Self {
        match s {
            crate::curve::FrSlice::Bn254(s) => Scalars::Fr(s),
            crate::curve::FrSlice::Bls12_381(s) => Scalars::Bls12_381Fr(s),
        }
    }
}

impl<'a> Scalars<'a> {
    /// The field elements of the group `C`'s scalar field.
    pub fn of<C: GpuCurve>(s: &'a [C::ScalarField]) -> Self {
        C::fr_slice(s).into()
    }
}

impl<'a> From<&'a [ark_bn254::Fr]> for Scalars<'a> {
    fn from(s: &'a [ark_bn254::Fr]) -> Self {
        Scalars::Fr(s)
    }
}

impl<'a> From<&'a [ark_bls12_381::Fr]> for Scalars<'a> {
    fn from(s: &'a [ark_bls12_381::Fr]) -> Self {
        Scalars::Bls12_381Fr(s)
    }
}

impl<'a> Scalars<'a> {
    pub fn len(&self) -> usize {
        match self {
            Scalars::Fr(s) => s.len(),
            Scalars::Bls12_381Fr(s) => s.len(),
            Scalars::Canonical(s) => s.len(),
            Scalars::Bytes(b) => b.len() / 32,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn slice(&self, r: std::ops::Range<usize>) -> Scalars<'a> {
        match *self {
            Scalars::Fr(s) => Scalars::Fr(&s[r]),
            Scalars::Bls12_381Fr(s) => Scalars::Bls12_381Fr(&s[r]),
            Scalars::Canonical(s) => Scalars::Canonical(&s[r]),
            Scalars::Bytes(b) => Scalars::Bytes(b.range(32 * r.start..32 * r.end)),
        }
    }

    /// Byte scalars come in whole 32-byte words; field elements are the
    /// scalar field of the context's `curve`.
    pub(crate) fn check(&self, curve: Curve) -> Result<(), MsmError> {
        let field_of = match self {
            Scalars::Fr(_) => Some(Curve::Bn254G1),
            Scalars::Bls12_381Fr(_) => Some(Curve::Bls12_381G1),
            _ => None,
        };
        if let Some(asked) = field_of.filter(|&f| f.field() != curve.field()) {
            return Err(MsmError::WrongCurve { context: curve, asked });
        }
        match self {
            Scalars::Bytes(b) if !b.len().is_multiple_of(32) => Err(MsmError::InvalidInput(format!(
                "{} bytes of scalars is not a whole number of 32-byte scalars",
                b.len()
            ))),
            _ => Ok(()),
        }
    }

    pub(crate) fn form(&self) -> u32 {
        match self {
            Scalars::Fr(_) | Scalars::Bls12_381Fr(_) => SCALARS_MONTGOMERY,
            Scalars::Canonical(_) | Scalars::Bytes(_) => SCALARS_CANONICAL,
        }
    }
}

impl GpuContext {
    diagnostics_pub! {
        /// Checks `config` against this adapter and returns the plan for `n` points.
        fn plan(&self, n: usize, config: &MsmConfig) -> Result<Plan, MsmError> {
            config.plan(n, &self.bounds())
        }
    }

    /// The MSM of `bases` and `scalars` with `config`, with its plan and
    /// timings. Fewer scalars than bases use the first `scalars.len()` bases
    /// (a lower-degree polynomial over the same SRS), with no re-upload.
    pub async fn msm_with<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        scalars: &[C::ScalarField],
        config: &MsmConfig,
    ) -> Result<MsmRun<C>, MsmError> {
        self.msm_scalars_with(bases, Scalars::of::<C>(scalars), config).await
    }

    /// [`GpuContext::msm_with`] for scalars in any form.
    pub async fn msm_scalars_with<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        scalars: Scalars<'_>,
        config: &MsmConfig,
    ) -> Result<MsmRun<C>, MsmError> {
        let run = self.run_checked::<C>(bases, &[scalars], config).await?;
        Ok(MsmRun {
            result: run.results[0],
            plan: run.plan,
            timings: run.timings,
        })
    }

    /// The one checked path of every MSM entry point (single, batch, the
    /// engine, the browser's): each vector's form and length, the bases'
    /// context, the memory the largest vector needs before anything is
    /// allocated; a GPU failure explained (a lost device, memory refused).
    pub(crate) async fn run_checked<C: GpuCurve>(
        &self,
        bases: &BaseSet,
        vectors: &[Scalars<'_>],
        config: &MsmConfig,
    ) -> Result<run::BatchRun<C>, MsmError> {
        self.check_curve(C::CURVE)?;
        for v in vectors {
            v.check(C::CURVE)?;
            self.check_inputs(bases, v.len())?;
        }
        let longest = vectors.iter().map(Scalars::len).max().unwrap_or(0);
        // the call `table_after` names builds the bases' table first
        self.auto_table(bases, config, longest).await;
        // every plan of the call, derived once: the memory check, the chunks,
        // the pipelines and the scratch share them
        let mut plans = CallPlans::new(config, self.bounds()).over(bases);
        let group = jobs::joint_group(&mut plans, bases, vectors)?;
        let lens: Vec<usize> = vectors.iter().map(Scalars::len).collect();
        self.check_msm(bases, &lens, &mut plans, group)?;
        (run::run_batch(self, bases, vectors, plans, group).await)
            .map_err(|e| self.explain_error(e, bases, longest, config))
    }

    /// The checks of every entry point: lengths (a scalar vector shorter than
    /// the bases uses the first bases) and that the bases are this context's.
    pub(crate) fn check_inputs(&self, bases: &BaseSet, scalars: usize) -> Result<(), MsmError> {
        if scalars > bases.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars,
            });
        }
        if bases.context != self.id {
            return Err(MsmError::ForeignBases);
        }
        Ok(())
    }

    /// The MSM of resident `bases` and `scalars` with the context's config.
    pub async fn msm<C: GpuCurve>(&self, bases: &Bases<C>, scalars: &[C::ScalarField]) -> Result<Projective<C>, MsmError> {
        let config = self.config_for(scalars.len());
        Ok(self.msm_with(bases, scalars, &config).await?.result)
    }

    /// Blocking [`GpuContext::msm`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_blocking<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        scalars: &[C::ScalarField],
    ) -> Result<Projective<C>, MsmError> {
        pollster::block_on(self.msm(bases, scalars))
    }

    /// Blocking [`GpuContext::msm_with`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_blocking_with<C: GpuCurve>(
        &self,
        bases: &Bases<C>,
        scalars: &[C::ScalarField],
        config: &MsmConfig,
    ) -> Result<MsmRun<C>, MsmError> {
        pollster::block_on(self.msm_with(bases, scalars, config))
    }

    /// Sums each job's kernel timestamps into per-kernel and per-pass times.
    pub(crate) fn add_timestamps(
        &self,
        t: &mut MsmTimings,
        timed: &[Vec<(Pass, String)>],
        words: &[u32],
        timestamps_at: impl Iterator<Item = u64>,
    ) {
        let period = self.queue.get_timestamp_period() as f64;
        let mut pass_ms = [0.0; 4];
        let mut span_ms = 0.0;
        for (labels, at) in timed.iter().zip(timestamps_at) {
            let ts = &words[(at / 4) as usize..];
            let tick = |i: usize| ts[2 * i] as u64 | (ts[2 * i + 1] as u64) << 32;
            if !labels.is_empty() {
                let last = 2 * labels.len() - 1;
                span_ms += tick(last).saturating_sub(tick(0)) as f64 * period / 1e6;
            }
            for (i, (pass, label)) in labels.iter().enumerate() {
                let ms = tick(2 * i + 1).saturating_sub(tick(2 * i)) as f64 * period / 1e6;
                pass_ms[pass.index()] += ms;
                match t.gpu_kernel_ms.get_mut(i) {
                    Some(e) if e.0 == *label => e.1 += ms,
                    _ => t.gpu_kernel_ms.push((label.clone(), ms)),
                }
            }
        }
        for pass in Pass::ALL {
            tracing::debug!(pass = pass.name(), gpu_ms = pass_ms[pass.index()], "GPU pass time");
        }
        t.gpu_pass_ms = Some(pass_ms);
        t.gpu_span_ms = Some(span_ms);
    }
}
