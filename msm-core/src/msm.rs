//! The MSM pipeline on the GPU: preprocess -> stream_walker -> walker_combine
//! -> reduce, then the host's Horner step over the window sums.

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ff::{Field, Zero};
use msm_wgsl::ShaderId;

use crate::bases::{BasePart, Bases};
use crate::config::{AdapterBounds, MsmConfig, Plan};
use crate::cpu;
use crate::error::MsmError;
use crate::gpu::GpuContext;
use crate::layout::{MsmParams, PointRecord, POINT_RECORD_BYTES};
use crate::repr::{FieldRepr, Words};

/// The four passes, in order.
pub const PASSES: [&str; 4] = ["preprocess", "stream_walker", "walker_combine", "reduce"];

/// Where the time of one MSM went.
#[derive(Clone, Debug, Default)]
pub struct MsmTimings {
    /// GPU time per pass in ms (order of [`PASSES`]), from timestamp queries;
    /// `None` when the context has no timestamps or timing was off.
    pub gpu_pass_ms: Option<[f64; 4]>,
    /// Host: scalar conversion and upload (wall clock, ms).
    pub upload_ms: f64,
    /// Host: submit until the window sums are read back (wall clock, ms;
    /// includes the host's reduce when it reduces).
    pub gpu_wall_ms: f64,
    /// Host: Horner over the window sums (wall clock, ms).
    pub host_combine_ms: f64,
}

/// One MSM's result with its plan and timings.
#[derive(Clone, Debug)]
pub struct MsmRun {
    pub result: G1Projective,
    pub plan: Option<Plan>,
    pub timings: MsmTimings,
}

/// Every intermediate buffer, read back after each pass (for per-pass tests).
#[derive(Clone, Debug)]
pub struct MsmStages {
    pub plan: Plan,
    pub counts: Vec<u32>,
    pub offsets: Vec<u32>,
    pub l0_index: Vec<u32>,
    pub l0_bucket: Vec<u32>,
    /// bucket_sums after stream_walker (before walker_combine)
    pub walker_sums: Vec<PointRecord>,
    pub partials: Vec<PointRecord>,
    /// bucket_sums after walker_combine
    pub bucket_sums: Vec<PointRecord>,
    pub window_sums: Vec<G1Projective>,
    pub result: G1Projective,
}

/// Per-MSM scratch buffers of one plan.
pub(crate) struct Scratch {
    plan: Plan,
    params: wgpu::Buffer,
    scalars: wgpu::Buffer,
    counts: wgpu::Buffer,
    offsets: wgpu::Buffer,
    cursor: wgpu::Buffer,
    l0_index: wgpu::Buffer,
    l0_bucket: wgpu::Buffer,
    bucket_sums: wgpu::Buffer,
    partials: wgpu::Buffer,
    chain_levels: [wgpu::Buffer; 3],
    segment_sums: wgpu::Buffer,
    window_sums: wgpu::Buffer,
}

struct Pipelines {
    histogram: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
    walker: wgpu::ComputePipeline,
    combine_blocks: [wgpu::ComputePipeline; 3],
    combine: wgpu::ComputePipeline,
    /// `reduce.segments` and `reduce.windows`; `None` when the host reduces.
    reduce: Option<(wgpu::ComputePipeline, wgpu::ComputePipeline)>,
}

const POINTS_PER_GROUP: u32 = 64;

/// Chain elements per walker_combine block (`BLOCK` in walker_combine.wgsl).
const CHAIN_BLOCK: u32 = 64;
/// Bytes of a WGSL `ChainSum` (32 words of XYZZ and a flags word).
const CHAIN_SUM_BYTES: u64 = 33 * 4;

/// Elements of chain level `level` (level 0: one per walker task).
fn level_len(tasks: u32, level: u32) -> u32 {
    (0..level).fold(tasks, |len, _| len.div_ceil(CHAIN_BLOCK))
}

/// Block levels walker_combine builds: enough that an owner walks at most 63
/// elements per level plus the top level, up to 3.
fn chain_levels(tasks: u32) -> u32 {
    (1..=3).take_while(|&l| level_len(tasks, l - 1) > CHAIN_BLOCK).count() as u32
}

impl GpuContext {
    fn bounds(&self) -> AdapterBounds {
        AdapterBounds::from_limits(&self.device.limits(), self.has_loop_cap())
    }

    /// Checks `config` against this adapter and returns the plan for `n` points.
    pub fn plan(&self, n: usize, config: &MsmConfig) -> Result<Plan, MsmError> {
        config.plan(n, &self.bounds())
    }

    async fn pipelines(&self, config: &MsmConfig, plan: &Plan) -> Result<Pipelines, MsmError> {
        let walker = ShaderId::StreamWalker(config.walker_variant());
        Ok(Pipelines {
            histogram: self.pipeline(ShaderId::Preprocess, "histogram", &[]).await?,
            scan: self.pipeline(ShaderId::Preprocess, "scan", &[]).await?,
            scatter: self.pipeline(ShaderId::Preprocess, "scatter", &[]).await?,
            walker: self
                .pipeline(walker, "main", &[("TPB", config.walker_tpb as f64)])
                .await?,
            combine_blocks: [
                self.pipeline(ShaderId::WalkerCombine, "blocks", &[("LEVEL", 1.0)])
                    .await?,
                self.pipeline(ShaderId::WalkerCombine, "blocks", &[("LEVEL", 2.0)])
                    .await?,
                self.pipeline(ShaderId::WalkerCombine, "blocks", &[("LEVEL", 3.0)])
                    .await?,
            ],
            combine: self
                .pipeline(
                    ShaderId::WalkerCombine,
                    "owners",
                    &[("LEVELS", chain_levels(plan.tasks) as f64)],
                )
                .await?,
            reduce: if self.reduces_on_host(config) {
                None
            } else {
                Some((
                    self.pipeline(ShaderId::Reduce, "segments", &[]).await?,
                    self.pipeline(ShaderId::Reduce, "windows", &[]).await?,
                ))
            },
        })
    }

    fn scratch(&self, plan: &Plan) -> Scratch {
        let buf = |label: &str, bytes: u64, usage: wgpu::BufferUsages| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(16),
                usage,
                mapped_at_creation: false,
            })
        };
        let st = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let tb = plan.total_buckets();
        let rec = POINT_RECORD_BYTES as u64;
        Scratch {
            plan: *plan,
            params: buf("params", 32, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST),
            scalars: buf("scalars", plan.n as u64 * 32, st),
            counts: buf("preprocess.counts", tb * 4, st),
            offsets: buf("preprocess.offsets", (tb + 1) * 4, st),
            cursor: buf("preprocess.cursor", tb * 4, st),
            l0_index: buf("preprocess.l0_index", plan.max_entries() * 4, st),
            l0_bucket: buf("preprocess.l0_bucket", plan.max_entries() * 4, st),
            bucket_sums: buf("bucket_sums", tb * rec, st),
            partials: buf("stream_walker.partials", 2 * plan.tasks as u64 * rec, st),
            chain_levels: std::array::from_fn(|l| {
                buf(
                    "walker_combine.level",
                    level_len(plan.tasks, l as u32 + 1) as u64 * CHAIN_SUM_BYTES,
                    st,
                )
            }),
            segment_sums: buf(
                "reduce.segment_sums",
                plan.windows as u64 * plan.segments as u64 * 128,
                st,
            ),
            window_sums: buf("reduce.window_sums", plan.windows as u64 * 128, st),
        }
    }

    /// Scratch buffers for `plan`, reused from the previous call when its plan
    /// was the same.
    fn take_scratch(&self, plan: &Plan) -> Scratch {
        match self.scratch.lock().unwrap().take() {
            Some(s) if s.plan == *plan => s,
            _ => self.scratch(plan),
        }
    }

    fn upload_scalars(&self, s: &Scratch, plan: &Plan, scalars: &[Fr], base_offset: usize) {
        let words = scalar_words_all(scalars);
        self.queue.write_buffer(&s.scalars, 0, bytemuck::cast_slice(&words));
        let params = MsmParams {
            base_offset: base_offset as u32,
            ..MsmParams::from(plan)
        };
        self.queue.write_buffer(&s.params, 0, bytemuck::bytes_of(&params));
    }

    /// Records pass `pass` (index into [`PASSES`]).
    #[allow(clippy::too_many_arguments)]
    fn encode_pass(
        &self,
        enc: &mut wgpu::CommandEncoder,
        p: &Pipelines,
        s: &Scratch,
        b: &BasePart,
        pass: usize,
        ts: Option<&wgpu::QuerySet>,
        cfg: &MsmConfig,
    ) {
        let plan = &s.plan;
        if pass == 0 {
            enc.clear_buffer(&s.counts, 0, None);
        }
        let timestamp_writes = ts.map(|q| wgpu::ComputePassTimestampWrites {
            query_set: q,
            beginning_of_pass_write_index: Some(2 * pass as u32),
            end_of_pass_write_index: Some(2 * pass as u32 + 1),
        });
        let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(PASSES[pass]),
            timestamp_writes,
        });
        let point_groups = self.grid(plan.n.div_ceil(POINTS_PER_GROUP));
        match pass {
            0 => {
                self.dispatch_in(
                    &mut cp,
                    "histogram",
                    &p.histogram,
                    &[(0, &s.params), (1, &s.scalars), (2, &b.flags), (3, &s.counts)],
                    point_groups,
                );
                self.dispatch_in(
                    &mut cp,
                    "scan",
                    &p.scan,
                    &[(0, &s.params), (3, &s.counts), (4, &s.offsets), (5, &s.cursor)],
                    (1, 1),
                );
                self.dispatch_in(
                    &mut cp,
                    "scatter",
                    &p.scatter,
                    &[
                        (0, &s.params),
                        (1, &s.scalars),
                        (2, &b.flags),
                        (5, &s.cursor),
                        (6, &s.l0_index),
                        (7, &s.l0_bucket),
                    ],
                    point_groups,
                );
            }
            1 => {
                let groups = self.grid(plan.threads.div_ceil(cfg.walker_tpb));
                self.dispatch_in(
                    &mut cp,
                    "stream_walker",
                    &p.walker,
                    &[
                        (0, &s.params),
                        (1, &b.x),
                        (2, &b.y),
                        (3, &s.offsets),
                        (4, &s.l0_index),
                        (5, &s.l0_bucket),
                        (6, &s.bucket_sums),
                        (7, &s.partials),
                    ],
                    groups,
                );
            }
            2 => {
                let bindings = [
                    (0, &s.params),
                    (1, &s.partials),
                    (2, &s.bucket_sums),
                    (3, &s.chain_levels[0]),
                    (4, &s.chain_levels[1]),
                    (5, &s.chain_levels[2]),
                ];
                for level in 1..=chain_levels(plan.tasks) {
                    let groups = self.grid(level_len(plan.tasks, level).div_ceil(64));
                    self.dispatch_in(
                        &mut cp,
                        "walker_combine.blocks",
                        &p.combine_blocks[level as usize - 1],
                        &bindings,
                        groups,
                    );
                }
                let groups = self.grid(plan.tasks.div_ceil(64));
                self.dispatch_in(&mut cp, "walker_combine.owners", &p.combine, &bindings, groups);
            }
            _ => {
                let Some((segments, windows)) = &p.reduce else {
                    return;
                };
                let groups = self.grid((plan.windows * plan.segments).div_ceil(64));
                self.dispatch_in(
                    &mut cp,
                    "reduce.segments",
                    segments,
                    &[
                        (0, &s.params),
                        (1, &s.counts),
                        (2, &s.bucket_sums),
                        (3, &s.segment_sums),
                    ],
                    groups,
                );
                self.dispatch_in(
                    &mut cp,
                    "reduce.windows",
                    windows,
                    &[(0, &s.params), (3, &s.segment_sums), (4, &s.window_sums)],
                    (plan.windows, 1),
                );
            }
        }
    }

    /// The window sums: read back from the reduce pass, or reduced here from
    /// the bucket sums when the host reduces.
    async fn window_sums(&self, s: &Scratch, host_reduce: bool) -> Result<Vec<G1Projective>, MsmError> {
        if !host_reduce {
            return self.finish(s).await;
        }
        let tb = s.plan.total_buckets() as usize;
        let counts = self.read_words(&s.counts, tb).await?;
        let words = self.read_words(&s.bucket_sums, tb * POINT_RECORD_BYTES / 4).await?;
        let records: &[PointRecord] = bytemuck::cast_slice(&words);
        let repr = FieldRepr::new(self.field_layout());
        // Buckets no entry reached hold stale records: skip them as the GPU pass does.
        let buckets: Vec<Option<G1Affine>> = records
            .iter()
            .zip(&counts)
            .map(|(r, &count)| if count == 0 { Ok(None) } else { record_point(&repr, r) })
            .collect::<Result<_, _>>()?;
        Ok(cpu::window_sums(&s.plan, &buckets))
    }

    /// Reads the window sums and finishes on the host.
    async fn finish(&self, s: &Scratch) -> Result<Vec<G1Projective>, MsmError> {
        let words = self.read_words(&s.window_sums, s.plan.windows as usize * 32).await?;
        let repr = FieldRepr::new(self.field_layout());
        words.chunks_exact(32).map(|w| xyzz_to_projective(&repr, w)).collect()
    }

    /// The MSM of `bases` and `scalars` with `config`, with its plan and timings.
    pub async fn msm_with(&self, bases: &Bases, scalars: &[Fr], config: &MsmConfig) -> Result<MsmRun, MsmError> {
        if bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        if bases.layout != self.field_layout() {
            return Err(MsmError::InvalidConfig(
                "these bases were uploaded by a context of another field layout".into(),
            ));
        }
        if scalars.is_empty() {
            return Ok(MsmRun {
                result: G1Projective::zero(),
                plan: None,
                timings: MsmTimings::default(),
            });
        }
        let chunk = self.chunk_points(scalars.len(), config)?;
        let mut total = MsmRun {
            result: G1Projective::zero(),
            plan: None,
            timings: MsmTimings::default(),
        };
        // Chunks never straddle two base parts: each binds one part's buffers.
        let chunks = bases.parts.iter().flat_map(|part| {
            let part_scalars = &scalars[part.start..part.start + part.len];
            part_scalars
                .chunks(chunk)
                .enumerate()
                .map(move |(k, s)| (part, k * chunk, s))
        });
        for (k, (part, offset, part_scalars)) in chunks.enumerate() {
            let run = self.msm_chunk(part, offset, part_scalars, config).await;
            self.check_device_error()?;
            let run = run?;
            total.result += run.result;
            total.plan = total.plan.or(run.plan);
            let (t, r) = (&mut total.timings, &run.timings);
            t.upload_ms += r.upload_ms;
            t.gpu_wall_ms += r.gpu_wall_ms;
            t.host_combine_ms += r.host_combine_ms;
            t.gpu_pass_ms = match (k, t.gpu_pass_ms, r.gpu_pass_ms) {
                (0, _, p) => p,
                (_, Some(a), Some(b)) => Some(std::array::from_fn(|i| a[i] + b[i])),
                _ => None,
            };
        }
        Ok(total)
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

    /// One chunk: points [base_offset, base_offset + scalars.len()) of `bases`.
    async fn msm_chunk(
        &self,
        bases: &BasePart,
        base_offset: usize,
        scalars: &[Fr],
        config: &MsmConfig,
    ) -> Result<MsmRun, MsmError> {
        let plan = self.plan(scalars.len(), config)?;
        let pipelines = self.pipelines(config, &plan).await?;
        let t0 = web_time::Instant::now();
        let scratch = self.take_scratch(&plan);
        self.upload_scalars(&scratch, &plan, scalars, base_offset);
        let upload_ms = t0.elapsed().as_secs_f64() * 1e3;
        let host_reduce = self.reduces_on_host(config);
        let timing = config.timing && self.has_timestamps();
        let queries = timing.then(|| {
            self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 8,
            })
        });
        let t1 = web_time::Instant::now();
        // Scopes around recording and submission (no await in between, so
        // concurrent MSMs cannot interleave scopes): a GPU error here becomes
        // this call's error, with wgpu's message.
        let oom_scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation_scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("msm") });
        for pass in 0..4 {
            self.encode_pass(&mut enc, &pipelines, &scratch, bases, pass, queries.as_ref(), config);
        }
        let resolved = queries.as_ref().map(|q| {
            let buf = self.storage_out("timestamps", 16);
            let dst = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps.resolve"),
                size: 64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            enc.resolve_query_set(q, 0..8, &dst, 0);
            enc.copy_buffer_to_buffer(&dst, 0, &buf, 0, 64);
            buf
        });
        self.queue.submit([enc.finish()]);
        let validation = validation_scope.pop();
        let oom = oom_scope.pop();
        if let Some(e) = validation.await.or(oom.await) {
            *self.scratch.lock().unwrap() = Some(scratch);
            return Err(MsmError::Device(e.to_string()));
        }
        let window_sums = self.window_sums(&scratch, host_reduce).await;
        let gpu_wall_ms = t1.elapsed().as_secs_f64() * 1e3;
        let gpu_pass_ms = match resolved {
            Some(buf) => {
                let words = self.read_words(&buf, 16).await?;
                let ticks: Vec<u64> = words
                    .chunks_exact(2)
                    .map(|w| w[0] as u64 | (w[1] as u64) << 32)
                    .collect();
                let period = self.queue.get_timestamp_period() as f64;
                Some(std::array::from_fn(|i| {
                    ticks[2 * i + 1].saturating_sub(ticks[2 * i]) as f64 * period / 1e6
                }))
            }
            None => None,
        };
        *self.scratch.lock().unwrap() = Some(scratch);
        let window_sums = window_sums?;
        let t2 = web_time::Instant::now();
        let result = cpu::combine_windows(&window_sums, plan.c);
        let host_combine_ms = t2.elapsed().as_secs_f64() * 1e3;
        Ok(MsmRun {
            result,
            plan: Some(plan),
            timings: MsmTimings {
                gpu_pass_ms,
                upload_ms,
                gpu_wall_ms,
                host_combine_ms,
            },
        })
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

    /// Runs the first `passes` passes (1..=4, order of [`PASSES`]) of one MSM and
    /// waits until the GPU has finished them. For per-pass benches: time each
    /// prefix to the host and take differences.
    pub async fn run_pass_prefix(
        &self,
        bases: &Bases,
        scalars: &[Fr],
        config: &MsmConfig,
        passes: usize,
    ) -> Result<(), MsmError> {
        if !(1..=4).contains(&passes) {
            return Err(MsmError::InvalidConfig(format!("passes = {passes}: expected 1..=4")));
        }
        if scalars.is_empty() || bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        let part = single_part(bases)?;
        let plan = self.plan(scalars.len(), config)?;
        let p = self.pipelines(config, &plan).await?;
        let s = self.take_scratch(&plan);
        self.upload_scalars(&s, &plan, scalars, 0);
        let mut enc = self.device.create_command_encoder(&Default::default());
        for pass in 0..passes {
            self.encode_pass(&mut enc, &p, &s, part, pass, None, config);
        }
        self.queue.submit([enc.finish()]);
        // The readback is queued behind the passes: its arrival means they finished.
        let done = self.read_words(&s.counts, 1).await;
        *self.scratch.lock().unwrap() = Some(s);
        done.map(|_| ())
    }

    /// Runs the passes one at a time and reads every intermediate buffer back
    /// (slow; for per-pass tests against the CPU twins).
    pub async fn msm_stages(&self, bases: &Bases, scalars: &[Fr], config: &MsmConfig) -> Result<MsmStages, MsmError> {
        let plan = self.plan(scalars.len().max(1), config)?;
        if scalars.is_empty() || bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        let part = single_part(bases)?;
        let p = self.pipelines(config, &plan).await?;
        let s = self.scratch(&plan);
        self.upload_scalars(&s, &plan, scalars, 0);
        let records = |words: Vec<u32>| -> Vec<PointRecord> { bytemuck::cast_slice(&words).to_vec() };
        let rec_words = POINT_RECORD_BYTES / 4;
        let tb = plan.total_buckets() as usize;
        let run = |pass: usize| {
            let mut enc = self.device.create_command_encoder(&Default::default());
            self.encode_pass(&mut enc, &p, &s, part, pass, None, config);
            self.queue.submit([enc.finish()]);
        };
        run(0);
        let counts = self.read_words(&s.counts, tb).await?;
        let offsets = self.read_words(&s.offsets, tb + 1).await?;
        let e = offsets[tb] as usize;
        let l0_index = self.read_words(&s.l0_index, e).await?;
        let l0_bucket = self.read_words(&s.l0_bucket, e).await?;
        // Mark every bucket record so the test can tell which ones the walker wrote.
        let unwritten = PointRecord {
            valid: 7,
            ..Default::default()
        };
        self.queue
            .write_buffer(&s.bucket_sums, 0, bytemuck::cast_slice(&vec![unwritten; tb]));
        run(1);
        let walker_sums = records(self.read_words(&s.bucket_sums, tb * rec_words).await?);
        let partials = records(
            self.read_words(&s.partials, 2 * plan.tasks as usize * rec_words)
                .await?,
        );
        run(2);
        let bucket_sums = records(self.read_words(&s.bucket_sums, tb * rec_words).await?);
        run(3);
        let window_sums = self.window_sums(&s, self.reduces_on_host(config)).await?;
        let result = cpu::combine_windows(&window_sums, plan.c);
        Ok(MsmStages {
            plan,
            counts,
            offsets,
            l0_index,
            l0_bucket,
            walker_sums,
            partials,
            bucket_sums,
            window_sums,
            result,
        })
    }
}

/// The one part of a base set that fits a single binding (the diagnostic
/// entry points run one chunk only).
fn single_part(bases: &Bases) -> Result<&BasePart, MsmError> {
    match bases.parts.as_slice() {
        [part] => Ok(part),
        parts => Err(MsmError::InvalidConfig(format!(
            "these bases are split into {} parts; per-pass runs need bases in one part",
            parts.len()
        ))),
    }
}

/// Every scalar as canonical words, converted in parallel where threads exist
/// (the conversion out of arkworks' Montgomery form dominates the upload).
fn scalar_words_all(scalars: &[Fr]) -> Vec<u32> {
    let mut words = vec![0u32; scalars.len() * 8];
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        words
            .par_chunks_mut(8 * 4096)
            .zip(scalars.par_chunks(4096))
            .for_each(|(w, s)| {
                for (dst, x) in w.chunks_exact_mut(8).zip(s) {
                    dst.copy_from_slice(&cpu::scalar_words(x));
                }
            });
    }
    #[cfg(target_arch = "wasm32")]
    for (dst, x) in words.chunks_exact_mut(8).zip(scalars) {
        dst.copy_from_slice(&cpu::scalar_words(x));
    }
    words
}

/// An XYZZ point (32 packed words) as a projective point: (X u v^2, Y u^3 v^2,
/// u v) in Jacobian coordinates, u = ZZ, v = ZZZ; no inversion needed.
fn xyzz_to_projective(repr: &FieldRepr, w: &[u32]) -> Result<G1Projective, MsmError> {
    let c: Vec<Fq> = (0..4)
        .map(|k| {
            repr.from_gpu(&<Words>::try_from(&w[8 * k..8 * k + 8]).unwrap())
                .ok_or(MsmError::CorruptResult)
        })
        .collect::<Result<_, _>>()?;
    let (u, v) = (c[2], c[3]);
    if u.is_zero() {
        return Ok(G1Projective::zero());
    }
    let v2 = v.square();
    Ok(G1Projective::new_unchecked(
        c[0] * u * v2,
        c[1] * u.square() * u * v2,
        u * v,
    ))
}

/// A GPU point record as an affine point (`None` when it holds the identity).
pub fn record_point(repr: &FieldRepr, r: &PointRecord) -> Result<Option<G1Affine>, MsmError> {
    if r.valid == 0 {
        return Ok(None);
    }
    let x = repr.from_gpu(&r.x).ok_or(MsmError::CorruptResult)?;
    let y = repr.from_gpu(&r.y).ok_or(MsmError::CorruptResult)?;
    Ok(Some(G1Affine::new_unchecked(x, y)))
}
