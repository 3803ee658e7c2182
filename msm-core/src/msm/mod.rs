//! The MSM on the GPU: preprocess -> stream_walker -> walker_combine -> reduce,
//! then the host's Horner step over the window sums.
//!
//! [`GpuContext::msm_with`] is the checked entry point (lengths, layout, empty
//! input); it calls the unchecked core, which splits the input into chunks
//! (base parts, binding limits, `max_chunk_points`), records and submits each
//! chunk behind the previous one, and maps one results buffer at the end.

mod readback;
mod record;
mod scratch;
mod upload;

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ff::Zero;

pub use readback::{bucket_point, record_point};
pub(crate) use readback::{decode_window_sums, RESULT_STRIDE, WINDOW_BYTES};
pub(crate) use scratch::Scratch;

use crate::bases::{BasePart, Bases};
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::cpu;
use crate::error::MsmError;
use crate::layout::{MsmParams, SCALARS_CANONICAL, SCALARS_MONTGOMERY};
use crate::passes::Pass;
use crate::plan::Plan;
use crate::repr::FieldRepr;

/// Where the time of one MSM went.
#[derive(Clone, Debug, Default)]
pub struct MsmTimings {
    /// GPU time per pass in ms (index: [`Pass::index`]), from timestamp
    /// queries; `None` when the context has no timestamps or timing was off.
    pub gpu_pass_ms: Option<[f64; 4]>,
    /// GPU time per kernel (`pass.entry`, ms), in recording order, summed over
    /// chunks; empty without timestamps.
    pub gpu_kernel_ms: Vec<(String, f64)>,
    /// Host: scalar conversion and upload (wall clock, ms).
    pub upload_ms: f64,
    /// Host: first submit until the window sums are read back (wall clock,
    /// ms; includes the host's reduce when it reduces).
    pub gpu_wall_ms: f64,
    /// Host: Horner over the window sums (wall clock, ms).
    pub host_combine_ms: f64,
}

/// One MSM's result with its plan and timings.
#[derive(Clone, Debug)]
pub struct MsmRun {
    pub result: G1Projective,
    /// The plan of the first chunk (`None` for an empty input).
    pub plan: Option<Plan>,
    pub timings: MsmTimings,
}

/// Scalars as a caller holds them; either form goes to the GPU as it is.
#[derive(Clone, Copy, Debug)]
pub enum Scalars<'a> {
    /// arkworks' field elements: their Montgomery limbs are copied straight
    /// into the upload memory and preprocess converts them on the GPU.
    Fr(&'a [Fr]),
    /// Canonical little-endian words (8 x u32 each), every one below r (as
    /// decoded from files or JS bytes).
    Canonical(&'a [[u32; 8]]),
}

impl<'a> Scalars<'a> {
    pub fn len(&self) -> usize {
        match self {
            Scalars::Fr(s) => s.len(),
            Scalars::Canonical(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn slice(&self, r: std::ops::Range<usize>) -> Scalars<'a> {
        match *self {
            Scalars::Fr(s) => Scalars::Fr(&s[r]),
            Scalars::Canonical(s) => Scalars::Canonical(&s[r]),
        }
    }

    fn form(&self) -> u32 {
        match self {
            Scalars::Fr(_) => SCALARS_MONTGOMERY,
            Scalars::Canonical(_) => SCALARS_CANONICAL,
        }
    }
}

/// One chunk: points [offset, offset + scalars.len()) of base part `part`.
struct Chunk<'a> {
    part_index: usize,
    part: &'a BasePart,
    offset: usize,
    scalars: Scalars<'a>,
    plan: Plan,
}

impl GpuContext {
    /// Checks `config` against this adapter and returns the plan for `n` points.
    pub fn plan(&self, n: usize, config: &MsmConfig) -> Result<Plan, MsmError> {
        config.plan(n, &self.bounds())
    }

    /// The MSM of `bases` and `scalars` with `config`, with its plan and
    /// timings. Fewer scalars than bases use the first `scalars.len()` bases
    /// (a lower-degree polynomial over the same SRS), with no re-upload.
    pub async fn msm_with(&self, bases: &Bases, scalars: &[Fr], config: &MsmConfig) -> Result<MsmRun, MsmError> {
        self.msm_scalars_with(bases, Scalars::Fr(scalars), config).await
    }

    /// [`GpuContext::msm_with`] for scalars in either form (canonical words
    /// are not checked against r here: decoders do that).
    pub async fn msm_scalars_with(
        &self,
        bases: &Bases,
        scalars: Scalars<'_>,
        config: &MsmConfig,
    ) -> Result<MsmRun, MsmError> {
        self.check_inputs(bases, scalars.len())?;
        if scalars.is_empty() {
            return Ok(MsmRun {
                result: G1Projective::zero(),
                plan: None,
                timings: MsmTimings::default(),
            });
        }
        self.run(bases, scalars, config).await
    }

    /// The checks of every entry point: lengths (a scalar vector shorter than
    /// the bases uses the first bases) and the bases' field layout.
    pub(crate) fn check_inputs(&self, bases: &Bases, scalars: usize) -> Result<(), MsmError> {
        if scalars > bases.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars,
            });
        }
        if bases.layout != self.field_layout() {
            return Err(MsmError::InvalidConfig(
                "these bases were uploaded by a context of another field layout".into(),
            ));
        }
        Ok(())
    }

    /// The MSM of resident `bases` and `scalars` with the context's config.
    pub async fn msm(&self, bases: &Bases, scalars: &[Fr]) -> Result<G1Projective, MsmError> {
        Ok(self.msm_with(bases, scalars, &self.config).await?.result)
    }

    /// Blocking [`GpuContext::msm`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_blocking(&self, bases: &Bases, scalars: &[Fr]) -> Result<G1Projective, MsmError> {
        pollster::block_on(self.msm(bases, scalars))
    }

    /// Blocking [`GpuContext::msm_with`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn msm_blocking_with(&self, bases: &Bases, scalars: &[Fr], config: &MsmConfig) -> Result<MsmRun, MsmError> {
        pollster::block_on(self.msm_with(bases, scalars, config))
    }

    /// Uploads `points` and computes one MSM (for one-off use; keep [`Bases`]
    /// to run many MSMs against the same points).
    pub async fn msm_once(&self, points: &[G1Affine], scalars: &[Fr]) -> Result<G1Projective, MsmError> {
        if points.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: points.len(),
                scalars: scalars.len(),
            });
        }
        let bases = self.upload_bases(points);
        self.msm(&bases, scalars).await
    }

    /// Points per chunk: the whole input when its buffers fit the adapter's
    /// bindings (and `max_chunk_points` allows), else the largest power-of-two
    /// share that fits.
    fn chunk_points(&self, n: usize, config: &MsmConfig) -> Result<usize, MsmError> {
        let mut chunk = n.min(config.max_chunk_points.map_or(usize::MAX, |c| c as usize));
        loop {
            match self.plan(chunk, config) {
                Ok(_) => return Ok(chunk),
                Err(MsmError::BindingTooSmall { .. }) if chunk > 1 => chunk = chunk.div_ceil(2),
                Err(e) => return Err(e),
            }
        }
    }

    /// Cuts the input into chunks that never straddle two base parts.
    fn chunks<'a>(
        &self,
        bases: &'a Bases,
        scalars: Scalars<'a>,
        config: &MsmConfig,
    ) -> Result<Vec<Chunk<'a>>, MsmError> {
        let size = self.chunk_points(scalars.len(), config)?;
        let mut out = Vec::new();
        for (part_index, part) in bases.parts.iter().enumerate() {
            // a prefix MSM stops at its last scalar
            let part_len = part.len.min(scalars.len().saturating_sub(part.start));
            let mut offset = 0;
            while offset < part_len {
                let len = size.min(part_len - offset);
                let at = part.start + offset;
                out.push(Chunk {
                    part_index,
                    part,
                    offset,
                    scalars: scalars.slice(at..at + len),
                    plan: self.plan(len, config)?,
                });
                offset += len;
            }
        }
        Ok(out)
    }

    /// Writes a chunk's parameters and scalars into its scratch: the scalars
    /// as they are, straight into the upload memory.
    pub(crate) fn upload_chunk(&self, s: &Scratch, scalars: Scalars<'_>, base_offset: usize) {
        if let Some(size) = wgpu::BufferSize::new(scalars.len() as u64 * 32) {
            let mut view = self
                .queue
                .write_buffer_with(&s.scalars, 0, size)
                .expect("the scalar buffer holds the chunk");
            match scalars {
                Scalars::Fr(f) => upload::fr_limbs(view.slice(..), f),
                Scalars::Canonical(w) => view.copy_from_slice(bytemuck::cast_slice(w)),
            }
        }
        let params = MsmParams {
            base_offset: base_offset as u32,
            scalar_form: scalars.form(),
            ..MsmParams::from(&s.plan)
        };
        self.queue.write_buffer(&s.params, 0, bytemuck::bytes_of(&params));
    }

    /// The unchecked core: every chunk recorded and submitted in order, one
    /// results buffer mapped at the end.
    async fn run(&self, bases: &Bases, scalars: Scalars<'_>, config: &MsmConfig) -> Result<MsmRun, MsmError> {
        let chunks = self.chunks(bases, scalars, config)?;
        let passes = self.passes_for(config);
        let host_reduce = passes.len() < Pass::ALL.len();
        let timing = config.timing && self.has_timestamps();
        let mut pipelines = Vec::with_capacity(chunks.len());
        for c in &chunks {
            pipelines.push(self.pass_pipelines(config, &c.plan, passes).await?);
        }
        let results = self.take_results(chunks.len());
        let mut upload_ms = 0.0;
        let mut timed = Vec::new();
        let mut host_sums = Vec::new();
        let t0 = web_time::Instant::now();
        for (k, (c, pipes)) in chunks.iter().zip(&pipelines).enumerate() {
            let mut s = self.take_scratch(&c.plan);
            let t = web_time::Instant::now();
            self.upload_chunk(&s, c.scalars, c.offset);
            upload_ms += t.elapsed().as_secs_f64() * 1e3;
            let groups = self.bind_groups(&mut s, bases.id, c.part_index, c.part).clone();
            let queries = timing.then(|| self.timing_objects(&mut s).clone());
            // Scopes around recording and submission (no await in between, so
            // concurrent MSMs cannot interleave scopes): a GPU error here
            // becomes this call's error, with wgpu's message.
            let oom_scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let validation_scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") });
            let labels = self.record(&mut enc, pipes, &groups, &s.counts, queries.as_ref().map(|q| &q.0));
            let at = k as u64 * RESULT_STRIDE;
            if !host_reduce {
                enc.copy_buffer_to_buffer(&s.window_sums, 0, &results, at, c.plan.windows as u64 * 128);
            }
            if let Some((q, resolve)) = &queries {
                let n = 2 * labels.len() as u32;
                if n > 0 {
                    enc.resolve_query_set(q, 0..n, resolve, 0);
                    enc.copy_buffer_to_buffer(resolve, 0, &results, at + WINDOW_BYTES, n as u64 * 8);
                }
            }
            self.queue.submit([enc.finish()]);
            let validation = validation_scope.pop();
            let oom = oom_scope.pop();
            if let Some(e) = validation.await.or(oom.await) {
                self.put_scratch(s);
                self.put_results(results);
                return Err(MsmError::Device(e.to_string()));
            }
            if host_reduce {
                let sums = self.host_window_sums(&s).await;
                self.put_scratch(s);
                host_sums.push(sums?);
            } else {
                self.put_scratch(s);
            }
            timed.push(labels);
        }
        let bytes = self.map_read_range(&results, chunks.len() as u64 * RESULT_STRIDE).await;
        self.put_results(results);
        self.check_device_error()?;
        let bytes = bytes?;
        let gpu_wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let stride = (RESULT_STRIDE / 4) as usize;
        let repr = FieldRepr::new(self.field_layout());
        let mut timings = MsmTimings {
            upload_ms,
            gpu_wall_ms,
            ..Default::default()
        };
        let t2 = web_time::Instant::now();
        let mut result = G1Projective::zero();
        for (k, c) in chunks.iter().enumerate() {
            let w = &words[k * stride..(k + 1) * stride];
            let sums = match host_sums.get_mut(k) {
                Some(h) => std::mem::take(h),
                None => decode_window_sums(&repr, w, c.plan.windows as usize)?,
            };
            result += cpu::combine_windows(&sums, c.plan.c);
        }
        timings.host_combine_ms = t2.elapsed().as_secs_f64() * 1e3;
        if timing {
            self.add_timestamps(&mut timings, &timed, words, stride);
        }
        Ok(MsmRun {
            result,
            plan: chunks.first().map(|c| c.plan),
            timings,
        })
    }

    /// Sums each chunk's kernel timestamps into per-kernel and per-pass times.
    fn add_timestamps(&self, t: &mut MsmTimings, timed: &[Vec<(Pass, String)>], words: &[u32], stride: usize) {
        let period = self.queue.get_timestamp_period() as f64;
        let mut pass_ms = [0.0; 4];
        for (k, labels) in timed.iter().enumerate() {
            let ts = &words[k * stride + (WINDOW_BYTES / 4) as usize..];
            let tick = |i: usize| ts[2 * i] as u64 | (ts[2 * i + 1] as u64) << 32;
            for (i, (pass, label)) in labels.iter().enumerate() {
                let ms = tick(2 * i + 1).saturating_sub(tick(2 * i)) as f64 * period / 1e6;
                pass_ms[pass.index()] += ms;
                match t.gpu_kernel_ms.get_mut(i) {
                    Some(e) if e.0 == *label => e.1 += ms,
                    _ => t.gpu_kernel_ms.push((label.clone(), ms)),
                }
            }
        }
        t.gpu_pass_ms = Some(pass_ms);
    }
}
