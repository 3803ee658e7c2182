//! Debug entry points of the MSM: every intermediate buffer read back after
//! each pass (for the per-pass tests against the CPU twins), and runs of a
//! prefix of the passes (for per-pass benches). Slow; not the hot path.

use ark_bn254::{Fr, G1Projective};

use crate::bases::{BasePart, Bases};
use crate::config::MsmConfig;
use crate::context::GpuContext;
use crate::context::Scratch;
use crate::cpu;
use crate::error::MsmError;
use crate::layout::{PointRecord, POINT_RECORD_BYTES};
use crate::msm::{decode_window_sums, xyzz_to_projective, Clears, Scalars};
use crate::passes::{walker_combine, Buf, Pass};
use crate::plan::Plan;
use crate::repr::FieldCodec;

/// Every intermediate buffer, read back after each pass.
#[derive(Clone, Debug)]
pub struct MsmStages {
    pub plan: Plan,
    pub counts: Vec<u32>,
    pub offsets: Vec<u32>,
    pub l0_index: Vec<u32>,
    /// bucket_sums after stream_walker (before walker_combine)
    pub walker_sums: Vec<PointRecord>,
    pub partials: Vec<PointRecord>,
    /// bucket_sums after walker_combine
    pub bucket_sums: Vec<PointRecord>,
    /// walker_combine's XYZZ sums of split buckets (32 words per task)
    pub split_sums: Vec<u32>,
    /// walker_combine's block levels (level 1 first): each element's sum
    /// and flags (bit 0: in a chain, bit 1: the chain continues past it)
    pub chain_levels: Vec<Vec<(G1Projective, u32)>>,
    /// reduce's `segments` kernel: (T, U) per (row, segment), flattened
    /// (empty when the host reduces)
    pub reduce_segments: Vec<G1Projective>,
    /// reduce's `groups` kernel: (E, V) per (row, group), flattened
    pub reduce_groups: Vec<G1Projective>,
    /// reduce's sums per row (vector x window)
    pub window_sums: Vec<G1Projective>,
    /// The first vector's MSM
    pub result: G1Projective,
    /// Each vector's MSM (one unless the plan is joint)
    pub results: Vec<G1Projective>,
}

/// The one part of a base set that fits a single binding (the diagnostic
/// entry points run one chunk only).
fn single_part(bases: &Bases) -> Result<&BasePart, MsmError> {
    match bases.parts.as_slice() {
        [part] => Ok(part),
        parts => Err(MsmError::invalid_config(
            "bases",
            format!(
                "these bases are split into {} parts; per-pass runs need bases in one part",
                parts.len()
            ),
        )),
    }
}

impl GpuContext {
    /// BN254's base field codec of this context's layout.
    fn bn254_codec(&self) -> FieldCodec<ark_bn254::Fq> {
        FieldCodec::new(self.field_layout(), msm_wgsl::BaseField::Bn254)
    }

    fn check_stage_inputs(&self, bases: &Bases, scalars: &[Fr]) -> Result<(), MsmError> {
        self.check_curve(crate::curve::Curve::Bn254G1)?;
        self.check_inputs(bases, scalars.len())?;
        if scalars.is_empty() {
            return Err(MsmError::invalid_config(
                "points",
                "per-pass runs need at least one point",
            ));
        }
        Ok(())
    }

    /// Runs the first `passes` passes (1..=4, order of [`Pass::ALL`]) of one
    /// MSM and waits until the GPU has finished them. For per-pass benches:
    /// time each prefix to the host and take differences.
    pub async fn run_pass_prefix(
        &self,
        bases: &Bases,
        scalars: &[Fr],
        config: &MsmConfig,
        passes: usize,
    ) -> Result<(), MsmError> {
        if !(1..=4).contains(&passes) {
            return Err(MsmError::invalid_config("passes", format!("{passes}: expected 1..=4")));
        }
        self.check_stage_inputs(bases, scalars)?;
        let part = single_part(bases)?;
        // every GPU kernel, the windows step too (each stage is compared)
        let plan = Plan {
            host_windows: false,
            ..self.plan(scalars.len(), config)?
        };
        let pipes = self.pass_pipelines(config, &plan, &Pass::ALL[..passes]).await?;
        let mut s = self.take_scratch(&plan);
        s.write_chunk(&self.queue, Scalars::Fr(scalars), 0)?;
        let groups = s.bind_groups(self, bases.id, 0, part).clone();
        let mut enc = self.device.create_command_encoder(&Default::default());
        self.record(&mut enc, &pipes, &groups, (Clears::of(&s), true), None);
        self.queue.submit([enc.finish()]);
        // The readback is queued behind the passes: its arrival means they finished.
        let done = self.read_words(s.buf(Buf::Counts), 1).await;
        self.put_scratch(s);
        done.map(|_| ())
    }

    /// Runs the passes one at a time and reads every intermediate buffer back
    /// (slow; for per-pass tests against the CPU twins).
    pub async fn msm_stages(&self, bases: &Bases, scalars: &[Fr], config: &MsmConfig) -> Result<MsmStages, MsmError> {
        self.msm_stages_joint(bases, scalars, 1, config).await
    }

    /// [`GpuContext::msm_stages`] of a joint plan: `scalars` holds `vectors`
    /// vectors of equal length back to back.
    pub async fn msm_stages_joint(
        &self,
        bases: &Bases,
        scalars: &[Fr],
        vectors: usize,
        config: &MsmConfig,
    ) -> Result<MsmStages, MsmError> {
        if vectors == 0 || !scalars.len().is_multiple_of(vectors) {
            return Err(MsmError::invalid_config(
                "vectors",
                format!("{} scalars are not {vectors} vectors of one length", scalars.len()),
            ));
        }
        let len = scalars.len() / vectors;
        self.check_stage_inputs(bases, &scalars[..len])?;
        let part = single_part(bases)?;
        let plan = Plan {
            host_windows: false,
            ..config.plan_joint(len, vectors, &self.bounds())?
        };
        let mut s = self.new_scratch(&plan);
        s.write_chunk(&self.queue, Scalars::Fr(scalars), 0)?;
        let groups = s.bind_groups(self, bases.id, 0, part).clone();
        let records = |words: Vec<u32>| -> Vec<PointRecord> { bytemuck::cast_slice(&words).to_vec() };
        let rec_words = POINT_RECORD_BYTES / 4;
        let tb = plan.total_buckets() as usize;
        let host_reduce = self.reduces_on_host(config);
        for pass in Pass::ALL {
            if pass == Pass::Reduce && host_reduce {
                break;
            }
            // compile before the first pass runs, so errors surface here
            self.pass_pipelines(config, &plan, &[pass]).await?;
        }
        let counts_buf = s.buf(Buf::Counts).clone();
        let owners_buf = s.buf(Buf::OwnerList).clone();
        let run = |pass: Pass| {
            let groups = groups.clone();
            let (counts, owner_list) = (counts_buf.clone(), owners_buf.clone());
            async move {
                let pipes = self.pass_pipelines(config, &plan, &[pass]).await?;
                let mut enc = self.device.create_command_encoder(&Default::default());
                let clears = Clears {
                    counts: &counts,
                    owner_list: &owner_list,
                };
                self.record(&mut enc, &pipes, &groups, (clears, true), None);
                self.queue.submit([enc.finish()]);
                Ok::<(), MsmError>(())
            }
        };
        run(Pass::Preprocess).await?;
        let counts = self.read_words(s.buf(Buf::Counts), tb).await?;
        let offsets = self.read_words(s.buf(Buf::Offsets), tb + 1).await?;
        let e = offsets[tb] as usize;
        let l0_index = self.read_words(s.buf(Buf::L0Index), e).await?;
        // Mark every bucket record so the test can tell which ones the walker wrote.
        let unwritten = PointRecord {
            valid: 7,
            ..Default::default()
        };
        self.queue
            .write_buffer(s.buf(Buf::BucketSums), 0, bytemuck::cast_slice(&vec![unwritten; tb]));
        run(Pass::StreamWalker).await?;
        let walker_sums = records(self.read_words(s.buf(Buf::BucketSums), tb * rec_words).await?);
        let partials = records(
            self.read_words(s.buf(Buf::Partials), 2 * plan.tasks as usize * rec_words)
                .await?,
        );
        run(Pass::WalkerCombine).await?;
        let bucket_sums = records(self.read_words(s.buf(Buf::BucketSums), tb * rec_words).await?);
        let split_sums = self.read_words(s.buf(Buf::SplitSums), plan.tasks as usize * 32).await?;
        let chain_levels = self.read_chain_levels(&s).await?;
        let (window_sums, reduce_segments, reduce_groups) = if host_reduce {
            (
                crate::msm::host_window_sums::<ark_bn254::g1::Config>(self, &s).await?,
                Vec::new(),
                Vec::new(),
            )
        } else {
            run(Pass::Reduce).await?;
            self.read_reduce(&s).await?
        };
        let results: Vec<G1Projective> = window_sums
            .chunks(plan.windows as usize)
            .map(|rows| cpu::combine_windows(rows, plan.c))
            .collect();
        Ok(MsmStages {
            plan,
            counts,
            offsets,
            l0_index,
            walker_sums,
            partials,
            bucket_sums,
            split_sums,
            chain_levels,
            reduce_segments,
            reduce_groups,
            result: results[0],
            results,
            window_sums,
        })
    }

    /// walker_combine's block levels: (XYZZ sum, flags) per element.
    async fn read_chain_levels(&self, s: &Scratch) -> Result<Vec<Vec<(G1Projective, u32)>>, MsmError> {
        let (repr, tasks) = (self.bn254_codec(), s.plan.tasks);
        let mut levels = Vec::new();
        for level in 1..=walker_combine::chain_levels(tasks) {
            let len = walker_combine::level_len(tasks, level) as usize;
            let words = self.read_words(s.buf(Buf::level(level as usize - 1)), len * 33).await?;
            let elements = words
                .chunks_exact(33)
                .map(|e| Ok((xyzz_to_projective::<ark_bn254::g1::Config>(&repr, &e[..32])?, e[32])))
                .collect::<Result<Vec<_>, MsmError>>()?;
            levels.push(elements);
        }
        Ok(levels)
    }

    /// reduce's window sums, segment sums and group sums.
    async fn read_reduce(&self, s: &Scratch) -> Result<ReduceReadback, MsmError> {
        let (repr, plan) = (self.bn254_codec(), s.plan);
        let points = |words: Vec<u32>| decode_window_sums(&repr, &words, words.len() / 32);
        let segments = 2 * plan.rows() as usize * plan.segments as usize;
        let groups = 2 * plan.rows() as usize * crate::passes::reduce::groups_per_window(&plan) as usize;
        let windows = plan.rows() as usize * 32;
        Ok((
            points(self.read_words(s.buf(Buf::WindowSums), windows).await?)?,
            points(self.read_words(s.buf(Buf::SegmentSums), segments * 32).await?)?,
            points(self.read_words(s.buf(Buf::GroupSums), groups * 32).await?)?,
        ))
    }
}

/// Window sums, segment sums and group sums as reduce left them.
type ReduceReadback = (Vec<G1Projective>, Vec<G1Projective>, Vec<G1Projective>);
