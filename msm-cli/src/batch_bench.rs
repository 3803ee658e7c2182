//! `bench --batch K`: K scalar vectors against the resident bases, as one
//! batch against K single calls, interleaved (ABBA), every result checked
//! against arkworks.

use std::time::Instant;

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use msm_core::{Bases, GpuContext, GpuCurve, MsmConfig, MsmError, Scalars};
use rayon::prelude::*;
use serde::Serialize;

use crate::stats::{summarize, Summary};

#[derive(Serialize)]
pub struct BatchReport {
    pub vectors: usize,
    /// K single calls, back to back (wall clock per round).
    pub singles_ms: Summary,
    /// One batch of K vectors (wall clock per round).
    pub batch_ms: Summary,
    /// singles / batch.
    pub speedup: f64,
    pub correct: bool,
    /// Vectors per job of the batch (more than one: joint plans).
    pub vectors_per_job: u32,
    /// One timed batch after the rounds: GPU time per pass (preprocess,
    /// stream_walker, walker_combine, reduce), where the context has timestamps.
    pub batch_gpu_pass_ms: Option<[f64; 4]>,
    /// The same batch's GPU time per kernel (`pass.entry`, ms).
    pub batch_gpu_kernel_ms: Vec<(String, f64)>,
}

/// Times `k` vectors of `bases.len()` scalars as one batch and as single calls.
pub fn measure<C: GpuCurve>(
    ctx: &GpuContext,
    resident: &Bases<C>,
    bases: &[Affine<C>],
    k: usize,
    reps: usize,
    seed: u64,
    (single, joint): (&MsmConfig, &MsmConfig),
) -> Result<BatchReport, MsmError> {
    let n = bases.len();
    let vectors: Vec<Vec<C::ScalarField>> = (0..k)
        .into_par_iter()
        .map(|v| {
            let mut rng = StdRng::seed_from_u64(seed ^ (0x5eed << 8) ^ v as u64);
            (0..n).map(|_| C::ScalarField::rand(&mut rng)).collect()
        })
        .collect();
    let want: Vec<Affine<C>> = vectors
        .iter()
        .map(|v| Projective::<C>::msm(bases, v).expect("equal lengths").into_affine())
        .collect();
    let views: Vec<Scalars<'_>> = vectors.iter().map(|v| Scalars::of::<C>(v)).collect();
    let mut correct = true;
    let singles = |correct: &mut bool| -> Result<f64, MsmError> {
        let t = Instant::now();
        for (v, w) in vectors.iter().zip(&want) {
            *correct &= ctx.msm_blocking_with(resident, v, single)?.result.into_affine() == *w;
        }
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    let batch = |correct: &mut bool| -> Result<f64, MsmError> {
        let t = Instant::now();
        let run = ctx.msm_batch_blocking_with(resident, &views, joint)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        for (r, w) in run.results.iter().zip(&want) {
            *correct &= r.into_affine() == *w;
        }
        Ok(ms)
    };
    // warm both paths, then ABBA
    singles(&mut correct)?;
    batch(&mut correct)?;
    let (mut s, mut b) = (Vec::new(), Vec::new());
    for r in 0..reps.max(1) {
        if r % 2 == 0 {
            s.push(singles(&mut correct)?);
            b.push(batch(&mut correct)?);
        } else {
            b.push(batch(&mut correct)?);
            s.push(singles(&mut correct)?);
        }
    }
    let (singles_ms, batch_ms) = (summarize(&s), summarize(&b));
    let timed = MsmConfig {
        timing: true,
        ..joint.clone()
    };
    let run = ctx.msm_batch_blocking_with(resident, &views, &timed)?;
    for (r, w) in run.results.iter().zip(&want) {
        correct &= r.into_affine() == *w;
    }
    Ok(BatchReport {
        vectors: k,
        singles_ms,
        batch_ms,
        speedup: singles_ms.median / batch_ms.median,
        correct,
        vectors_per_job: run.plan.map_or(1, |p| p.vectors),
        batch_gpu_pass_ms: run.timings.gpu_pass_ms,
        batch_gpu_kernel_ms: run.timings.gpu_kernel_ms,
    })
}
