//! The unchecked core. A batch of scalar vectors is cut into jobs (one per
//! vector and chunk, or one per group of short vectors run jointly,
//! `jobs.rs`); every job's parameters and scalars go into one mapped
//! staging buffer, every job is recorded into one encoder behind copies out
//! of it, and the batch is submitted once; one results buffer is mapped at
//! the end. A batch of large jobs (`wave_points`) is staged and submitted
//! in waves instead, so that the host writes the next wave's scalars while
//! the GPU runs the last one.
//! Jobs too large to stage, and the host reduce, submit job by job instead
//! through the queue's writes.

use std::ops::Range;

use ark_ec::short_weierstrass::Projective;
use ark_ff::Zero;

use super::jobs::{cut_jobs, Job};
use super::readback::{decode_rows, host_window_sums, ResultLayout};
use super::record::{Clears, PlanEntry};
use crate::context::{Scratch, Verdict};
use super::{MsmTimings, Scalars};
use crate::bases::BaseSet;
use crate::curve::{Bn254, GpuCurve};
use crate::context::GpuContext;
use crate::cpu;
use crate::error::MsmError;
use crate::layout::MsmParams;
use crate::passes::{Pass, Buf};
use super::plans::CallPlans;
use super::scratch::Held;
use crate::plan::Plan;
use crate::repr::FieldCodec;

const PARAMS_BYTES: u64 = std::mem::size_of::<MsmParams>() as u64;

/// Waves that would stage more than this submit job by job.
const MAX_STAGING_BYTES: u64 = 1 << 30;

/// The batch's waves, from its jobs' point counts: runs of consecutive
/// jobs, each closed once it holds `wave_points` points (the whole batch at
/// 0).
fn waves(points: impl IntoIterator<Item = u64>, wave_points: u32) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut held, mut k) = (0, 0, 0);
    for n in points {
        if wave_points > 0 && held >= u64::from(wave_points) {
            out.push(start..k);
            (start, held) = (k, 0);
        }
        held += n;
        k += 1;
    }
    out.push(start..k);
    out
}

/// Where a wave's scalars start in its staging buffer (its jobs' parameters
/// first), and the buffer's bytes.
fn wave_bytes(jobs: &[Job<'_>]) -> (u64, u64) {
    let scalar_at = (jobs.len() as u64 * PARAMS_BYTES).next_multiple_of(256);
    (scalar_at, scalar_at + jobs.iter().map(Job::scalar_bytes).sum::<u64>())
}

/// A batch's results, the first job's plan and the timings summed over jobs.
pub(crate) struct BatchRun<C: GpuCurve = Bn254> {
    pub(crate) results: Vec<Projective<C>>,
    pub(crate) plan: Option<Plan>,
    pub(crate) timings: MsmTimings,
}

/// Each vector's result from a job's row sums (a joint job's rows hold each
/// vector's windows in turn); vectors on the pool's threads natively.
fn combine_rows<C: GpuCurve>(sums: &[Projective<C>], plan: &Plan) -> Vec<Projective<C>> {
    let rows = sums.chunks(plan.rows_per_vector() as usize);
    // one vector: waking the pool costs more than its Horner step
    #[cfg(not(target_arch = "wasm32"))]
    if plan.vectors > 1 {
        use rayon::prelude::*;
        let rows: Vec<&[Projective<C>]> = rows.collect();
        return crate::host::install(|| rows.into_par_iter().map(|r| cpu::combine_windows(r, plan.c)).collect());
    }
    rows.map(|r| cpu::combine_windows(r, plan.c)).collect()
}

/// Runs every vector of the batch (in joint jobs of `joint_group`
/// vectors where [`super::jobs::joint_group`] said so); results in the
/// vectors' order (the identity for an empty vector).
pub(crate) async fn run_batch<C: GpuCurve>(
    ctx: &GpuContext,
    bases: &BaseSet,
    vectors: &[Scalars<'_>],
    mut plans: CallPlans<'_>,
    joint_group: Option<usize>,
) -> Result<BatchRun<C>, MsmError> {
    let t_prepare = web_time::Instant::now();
    let chain = ctx.chain_threshold(plans.config());
    let jobs = cut_jobs(bases, vectors, &mut plans, joint_group, chain)?;
    let config = plans.config();
    let mut run = BatchRun {
        results: vec![Projective::<C>::zero(); vectors.len()],
        plan: jobs.first().map(|j| j.plan),
        timings: MsmTimings::default(),
    };
    if jobs.is_empty() {
        return Ok(run);
    }
    let passes = ctx.passes_for(config);
    let host_reduce = passes.len() < Pass::ALL.len();
    let used = jobs.iter().map(|j| (j.entry, j.plan));
    let pipelines = ctx.plan_entries(used, plans.plans().len(), config, passes).await?;
    let waves = waves(jobs.iter().map(|j| j.plan.n as u64), config.wave_points);
    let limit = MAX_STAGING_BYTES.min(ctx.device.limits().max_buffer_size);
    let staged = !host_reduce && waves.iter().all(|w| wave_bytes(&jobs[w.clone()]).1 <= limit);
    let layout = ResultLayout::new(jobs.iter().map(|j| &j.plan));
    let results = ctx.take_results(layout.bytes);
    run.timings.prepare_ms = t_prepare.elapsed().as_secs_f64() * 1e3;
    let t0 = web_time::Instant::now();
    let submission = Submission {
        ctx,
        jobs: &jobs,
        pipelines: &pipelines,
        results: (&results, &layout),
        timing: config.timing && ctx.has_timestamps(),
    };
    let recorded = if staged {
        submission
            .in_waves(&waves, &mut run.timings)
            .await
            .map(|(timed, verdicts, index)| (timed, Vec::new(), verdicts, index))
    } else {
        submission
            .each(host_reduce, &mut run.timings)
            .await
            .map(|(timed, sums, index)| (timed, sums, Vec::new(), index))
    };
    let (timed, mut host_sums, verdicts, submitted) = match recorded {
        Ok(r) => r,
        Err(e) => {
            ctx.put_results(results);
            return Err(e);
        }
    };
    let t_wait = web_time::Instant::now();
    let bytes = read_results(ctx, results, layout.bytes, submitted, verdicts).await?;
    run.timings.wait_ms = t_wait.elapsed().as_secs_f64() * 1e3;
    run.timings.gpu_wall_ms = t0.elapsed().as_secs_f64() * 1e3;
    let words: &[u32] = bytemuck::cast_slice(&bytes);
    let codec = FieldCodec::<C::BaseField>::new(ctx.field_layout(), C::CURVE.field());
    let t2 = web_time::Instant::now();
    for (k, j) in jobs.iter().enumerate().filter(|(_, j)| j.reduces) {
        let sums = match host_sums.get_mut(k) {
            Some(h) => std::mem::take(h),
            None => decode_rows::<C>(&codec, &words[(layout.at[k] / 4) as usize..], &j.plan)?,
        };
        for (v, q) in combine_rows(&sums, &j.plan).into_iter().enumerate() {
            run.results[j.first + v] += q;
        }
    }
    run.timings.host_combine_ms = t2.elapsed().as_secs_f64() * 1e3;
    if config.timing && ctx.has_timestamps() {
        let at = jobs.iter().enumerate().map(|(k, j)| layout.timestamps(k, &j.plan));
        ctx.add_timestamps(&mut run.timings, &timed, words, at);
    }
    Ok(run)
}

/// Maps the first `bytes` of the results, then awaits the submissions'
/// error scopes (settled by then: awaited after the readback, not before it).
async fn read_results(
    ctx: &GpuContext,
    results: wgpu::Buffer,
    bytes: u64,
    submitted: wgpu::SubmissionIndex,
    verdicts: Vec<Verdict>,
) -> Result<Vec<u8>, MsmError> {
    let bytes = ctx.map_read_range(&results, bytes, submitted).await;
    // A buffer whose map timed out is still mapping: not for the pool.
    if !matches!(bytes, Err(MsmError::Timeout { .. })) {
        ctx.put_results(results);
    }
    for verdict in verdicts {
        if let Some(e) = verdict.await {
            return Err(MsmError::Device(e.to_string()));
        }
    }
    ctx.check_device_error()?;
    bytes
}

/// The timed kernels of one job, in recording order.
type Labels = Vec<(Pass, String)>;

/// One batch on its way to the GPU: its jobs, their compiled passes, the
/// results buffer and whether kernels are timed, shared by every step of
/// staging, recording and submitting.
struct Submission<'a, 'j> {
    ctx: &'a GpuContext,
    jobs: &'a [Job<'j>],
    pipelines: &'a [Option<PlanEntry>],
    results: (&'a wgpu::Buffer, &'a ResultLayout),
    timing: bool,
}

impl Submission<'_, '_> {
    /// Stages and submits the waves in turn: each wave's writes run while
    /// the GPU runs the waves before it. Returns each job's timed kernel
    /// labels, each wave's error scopes and the last submission.
    async fn in_waves(
        &self,
        waves: &[Range<usize>],
        timings: &mut MsmTimings,
    ) -> Result<(Vec<Labels>, Vec<Verdict>, wgpu::SubmissionIndex), MsmError> {
        let mut timed = Vec::with_capacity(self.jobs.len());
        let mut verdicts = Vec::with_capacity(waves.len());
        let mut submitted = None;
        let mut held = Held::new(self.ctx, self.pipelines.len());
        for wave in waves {
            match self.staged(wave.clone(), timings, &mut held) {
                Ok((labels, verdict, index)) => {
                    timed.extend(labels);
                    verdicts.push(verdict);
                    submitted = Some(index);
                }
                Err(e) => {
                    // the waves already submitted: their scopes popped, their
                    // work left to finish on the queue. The results buffer
                    // goes back to the pool while they run; harmless, as its
                    // next user maps it only after the queue has drained.
                    drop(verdicts);
                    return Err(e);
                }
            }
        }
        Ok((timed, verdicts, submitted.expect("a batch has a wave")))
    }

    /// Stages the jobs `wave`, records them into one encoder and submits it
    /// once. Returns their timed kernel labels.
    fn staged(
        &self,
        wave: Range<usize>,
        timings: &mut MsmTimings,
        held: &mut Held<'_>,
    ) -> Result<(Vec<Labels>, Verdict, wgpu::SubmissionIndex), MsmError> {
        let ctx = self.ctx;
        let jobs = &self.jobs[wave.clone()];
        let (scalar_at, staging_bytes) = wave_bytes(jobs);
        let t = web_time::Instant::now();
        let staging = ctx.take_staging(staging_bytes);
        let scalar_offsets: Vec<u64> = jobs
            .iter()
            .scan(scalar_at, |at, j| {
                let here = *at;
                *at += j.scalar_bytes();
                Some(here)
            })
            .collect();
        let write = || self.write_staging(wave.clone(), &staging, &scalar_offsets, staging_bytes);
        // the scratch of the plans this wave runs
        let mut scratch: Vec<Option<Scratch>> = (self.pipelines.iter().enumerate())
            .map(|(i, e)| e.as_ref().filter(|_| jobs.iter().any(|j| j.entry == i)).map(|e| held.take(i, &e.plan)))
            .collect();
        // Error scopes are per thread: record on this one.
        let scopes = ctx.catch(&[wgpu::ErrorFilter::OutOfMemory, wgpu::ErrorFilter::Validation]);
        let mut enc = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") });
        let mut record = || self.record_all(wave.clone(), &mut enc, &mut scratch, &staging, &scalar_offsets);
        // The pool writes the scalars while this thread records the passes.
        #[cfg(not(target_arch = "wasm32"))]
        let ((upload_ms, written), timed) = {
            let mut wrote = (0.0, Ok(()));
            let timed = crate::host::in_place_scope(|scope| {
                scope.spawn(|_| wrote = write());
                record()
            });
            (wrote, timed)
        };
        #[cfg(target_arch = "wasm32")]
        let ((upload_ms, written), timed) = (write(), record());
        staging.finish_writes();
        timings.upload_ms += upload_ms;
        if let Err(e) = written {
            // Nothing is submitted; the staging buffer goes back to the pool.
            staging.remap();
            ctx.put_staging(staging);
            held.give_all(scratch);
            // popped, their outcome not needed
            drop(scopes);
            return Err(e);
        }
        let submitted = ctx.queue.submit([enc.finish()]);
        staging.remap();
        ctx.put_staging(staging);
        // The scopes' verdicts arrive while the GPU runs: the caller awaits
        // them after the readback instead of before it.
        let verdict = scopes.pop();
        held.give_all(scratch);
        // the part of the wall time not spent waiting for the writes
        timings.submit_ms += (t.elapsed().as_secs_f64() * 1e3 - upload_ms).max(0.0);
        Ok((timed, verdict, submitted))
    }

    /// Writes the parameters and scalars of the jobs `wave` into the mapped
    /// staging buffer. Returns the milliseconds it took and whether every
    /// scalar was readable.
    fn write_staging(
        &self,
        wave: Range<usize>,
        staging: &crate::context::Staging,
        scalar_offsets: &[u64],
        bytes: u64,
    ) -> (f64, Result<(), MsmError>) {
        let _span = tracing::debug_span!("msm.upload_scalars", bytes).entered();
        let t = web_time::Instant::now();
        let mut written = Ok(());
        for (k, j) in self.jobs[wave].iter().enumerate() {
            written = written.and(staging.write_bytes(k as u64 * PARAMS_BYTES, bytemuck::bytes_of(&j.params())));
            let mut at = scalar_offsets[k];
            for v in &j.scalars {
                written = written.and(staging.write_scalars(at, *v));
                at += v.len() as u64 * 32;
            }
        }
        (t.elapsed().as_secs_f64() * 1e3, written)
    }

    /// Records the jobs `wave` behind the copies of their parameters and
    /// scalars out of `staging`. Returns each job's timed kernel labels.
    fn record_all(
        &self,
        wave: Range<usize>,
        enc: &mut wgpu::CommandEncoder,
        scratch: &mut [Option<Scratch>],
        staging: &crate::context::Staging,
        scalar_offsets: &[u64],
    ) -> Vec<Labels> {
        let mut timed = Vec::with_capacity(wave.len());
        for (i, k) in wave.enumerate() {
            let j = &self.jobs[k];
            let s = scratch[j.entry].as_mut().expect("taken for its jobs");
            enc.copy_buffer_to_buffer(&staging.buffer, i as u64 * PARAMS_BYTES, s.buf(Buf::Params), 0, PARAMS_BYTES);
            enc.copy_buffer_to_buffer(
                &staging.buffer,
                scalar_offsets[i],
                s.buf(Buf::Scalars),
                0,
                j.scalar_bytes(),
            );
            timed.push(self.record_job(enc, k, s));
        }
        timed
    }

    /// Records job `k` (its scalars and parameters in its scratch): the
    /// passes over its base part, then the copy of its row sums and
    /// timestamps into the results buffer. Returns its timed kernel labels.
    fn record_job(&self, enc: &mut wgpu::CommandEncoder, k: usize, s: &mut Scratch) -> Labels {
        let ctx = self.ctx;
        let j = &self.jobs[k];
        let entry = self.pipelines[j.entry].as_ref().expect("compiled for its jobs");
        let groups = s.bind_groups(ctx, j.parts_id, j.part_index, j.part).clone();
        let queries = self.timing.then(|| ctx.timing_objects(s).clone());
        let labels = ctx.record(
            enc,
            &entry.pipelines,
            &groups,
            (Clears::of(s), j.reduces),
            queries.as_ref().map(|q| &q.0),
        );
        self.copy_results(enc, s, k, queries.as_ref().map(|q| &q.1), labels.len());
        labels
    }

    /// Submits job by job through the queue's own staging; with the host
    /// reduce, reads each job's buckets back. Returns the timed labels and
    /// the host's window sums (empty without the host reduce).
    async fn each<C: GpuCurve>(
        &self,
        host_reduce: bool,
        timings: &mut MsmTimings,
    ) -> Result<(Vec<Labels>, Vec<Vec<Projective<C>>>, wgpu::SubmissionIndex), MsmError> {
        let (ctx, jobs) = (self.ctx, self.jobs);
        let mut timed = Vec::with_capacity(jobs.len());
        let mut host_sums = Vec::new();
        let mut submitted = None;
        let mut held = Held::new(ctx, self.pipelines.len());
        for (k, j) in jobs.iter().enumerate() {
            let mut s = held.take(j.entry, &j.plan);
            let t = web_time::Instant::now();
            if let Err(e) = s.write_job(&ctx.queue, &j.scalars, &j.params()) {
                held.give(j.entry, s);
                return Err(e);
            }
            timings.upload_ms += t.elapsed().as_secs_f64() * 1e3;
            let t = web_time::Instant::now();
            // Scopes around recording and submission (no await in between, so
            // concurrent MSMs cannot interleave scopes): a GPU error here
            // becomes this call's error, with wgpu's message.
            let scopes = ctx.catch(&[wgpu::ErrorFilter::OutOfMemory, wgpu::ErrorFilter::Validation]);
            let mut enc = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") });
            let labels = self.record_job(&mut enc, k, &mut s);
            submitted = Some(ctx.queue.submit([enc.finish()]));
            let verdict = scopes.pop();
            timings.submit_ms += t.elapsed().as_secs_f64() * 1e3;
            if let Some(e) = verdict.await {
                held.give(j.entry, s);
                return Err(MsmError::Device(e.to_string()));
            }
            if host_reduce {
                let sums = host_window_sums::<C>(ctx, &s).await;
                held.give(j.entry, s);
                host_sums.push(sums?);
            } else {
                held.give(j.entry, s);
            }
            timed.push(labels);
        }
        let submitted = submitted.unwrap_or_else(|| ctx.queue.submit([]));
        Ok((timed, host_sums, submitted))
    }

    /// Copies job `k`'s row sums and timestamps into the results buffer.
    fn copy_results(
        &self,
        enc: &mut wgpu::CommandEncoder,
        s: &Scratch,
        k: usize,
        timestamps: Option<&wgpu::Buffer>,
        kernels: usize,
    ) {
        let (results, layout) = self.results;
        if self.jobs[k].reduces {
            let (from, bytes) = crate::passes::reduce::result_buffer(&s.plan);
            enc.copy_buffer_to_buffer(s.buf(from), 0, results, layout.at[k], bytes);
        }
        if let (Some(resolve), Some((q, _))) = (timestamps, s.timing.as_ref()) {
            let n = 2 * kernels as u32;
            if n > 0 {
                enc.resolve_query_set(q, 0..n, resolve, 0);
                let at = layout.timestamps(k, &s.plan);
                enc.copy_buffer_to_buffer(resolve, 0, results, at, n as u64 * 8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::waves;

    #[test]
    fn waves_close_once_they_hold_wave_points() {
        assert_eq!(waves([5, 5, 5], 0), vec![0..3]);
        assert_eq!(waves([5, 5, 5], 1), vec![0..1, 1..2, 2..3]);
        assert_eq!(waves([5, 5, 5], 10), vec![0..2, 2..3]);
        assert_eq!(waves([5, 5, 5], 11), vec![0..3]);
        assert_eq!(waves([20, 1, 1], 10), vec![0..1, 1..3]);
        assert_eq!(waves([7], 1), vec![0..1]);
    }
}
