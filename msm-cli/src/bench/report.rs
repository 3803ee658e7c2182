//! What `msm-cli bench` reports: one JSON object (`--json`) or the text
//! below. The JSON keys are flat; the parts only group the code.

use std::collections::BTreeMap;

use msm_core::cpu::cost::OpCounts;
use msm_core::Pass;
use serde::Serialize;

use crate::knobs::adapter_line;
use crate::stats::{summarize, Summary};

#[derive(Serialize)]
pub(super) struct CompileSummary {
    pipelines: usize,
    sum_ms: f64,
    max_ms: f64,
    per_pipeline: Vec<(String, f64)>,
}

impl CompileSummary {
    pub(super) fn of(log: &[msm_core::CompileRecord]) -> Self {
        CompileSummary {
            pipelines: log.len(),
            sum_ms: log.iter().map(|r| r.ms).sum(),
            max_ms: log.iter().map(|r| r.ms).fold(0.0, f64::max),
            per_pipeline: log
                .iter()
                .map(|r| (format!("{}.{}", r.shader, r.entry), r.ms))
                .collect(),
        }
    }
}

/// The adapter, the inputs and the plan.
#[derive(Serialize)]
pub(super) struct Setup {
    pub adapter: String,
    pub backend: String,
    pub driver: String,
    pub software_adapter: bool,
    pub field_layout: String,
    pub field: String,
    pub n: usize,
    pub logn: u32,
    pub seed: u64,
    pub scalars: String,
    pub config: String,
    /// Where the knobs came from: a tuned profile or built-in defaults.
    pub profile: String,
    pub window_bits: u32,
    pub windows: u32,
    pub walker_threads: u32,
    pub walker_tasks: u32,
}

/// The first call and what preceded it.
#[derive(Serialize)]
pub(super) struct Cold {
    /// `--after L`: the cold call came after an MSM of 2^L points.
    pub after_logn: Option<u32>,
    /// Creating the context: instance, adapter, device, the pipeline cache.
    pub context_ms: f64,
    /// From the command's start to the first call's result: what a process
    /// pays before its first MSM (the reference MSM for the check included).
    pub first_result_ms: f64,
    pub input_generation_s: f64,
    pub base_upload_ms: f64,
    /// `--table`: the table's window width and the time it took to build.
    pub table_bits: Option<u32>,
    pub table_build_ms: Option<f64>,
    /// The table the calls built themselves (knob `table_after`): its
    /// width, the call that built it, and the plain calls between the
    /// first and that one, all timed apart from the warm calls.
    pub auto_table_bits: Option<u32>,
    pub auto_table_call_ms: Option<f64>,
    pub plain_before_table_ms: Option<Summary>,
    pub cold_ms: f64,
    pub cold_correct: bool,
    /// Pipelines the first call compiled: count, summed and longest creation
    /// time (wall clock, compiled in parallel), and the per-pipeline list.
    pub compile: CompileSummary,
    /// Compiled pipelines persist across processes in this context's disk cache.
    pub pipeline_cache: bool,
}

/// Warm calls without timestamps: end to end and the host's phases (wall
/// clock): plans and lookups, scalar upload, recording and submission, the
/// wait for results, Horner.
#[derive(Default)]
pub(super) struct WarmRuns {
    pub warm: Vec<f64>,
    pub prepare: Vec<f64>,
    pub upload: Vec<f64>,
    pub submit: Vec<f64>,
    pub wait: Vec<f64>,
    pub wall: Vec<f64>,
    pub combine: Vec<f64>,
}

impl WarmRuns {
    pub(super) fn push(&mut self, ms: f64, t: &msm_core::MsmTimings) {
        self.warm.push(ms);
        self.prepare.push(t.prepare_ms);
        self.upload.push(t.upload_ms);
        self.submit.push(t.submit_ms);
        self.wait.push(t.wait_ms);
        self.wall.push(t.gpu_wall_ms);
        self.combine.push(t.host_combine_ms);
    }
}

/// Calls with per-pass timestamps (their own passes add overhead, so they
/// are reported apart from the warm calls).
#[derive(Default)]
pub(super) struct TimedRuns {
    pub passes: Vec<[f64; 4]>,
    pub kernels: BTreeMap<String, Vec<f64>>,
    pub span: Vec<f64>,
}

/// The warm and timed calls, summarised.
#[derive(Serialize)]
pub(super) struct Warm {
    pub warm_ms: Summary,
    pub warm_correct: bool,
    pub reps: usize,
    /// GPU time per pass, by name.
    pub gpu_pass_ms: Option<BTreeMap<&'static str, Summary>>,
    /// GPU time per kernel (`pass.entry`).
    pub gpu_kernel_ms: Option<BTreeMap<String, Summary>>,
    /// Sum of the passes' GPU times per rep.
    pub gpu_sum_ms: Option<Summary>,
    /// Warm median minus the GPU sum median: what the host adds.
    pub host_overhead_ms: Option<f64>,
    pub gpu_pass_timing: &'static str,
    pub prepare_ms: Summary,
    pub scalar_upload_ms: Summary,
    pub submit_ms: Summary,
    pub wait_ms: Summary,
    pub gpu_wall_ms: Summary,
    pub host_combine_ms: Summary,
    /// Timed runs: first kernel start to last kernel end (passes plus gaps).
    pub gpu_span_ms: Option<Summary>,
}

impl Warm {
    pub(super) fn of(w: &WarmRuns, t: &TimedRuns, reps: usize, correct: bool, timestamps: bool) -> Self {
        let timed = !t.passes.is_empty();
        let gpu_pass_ms = timed.then(|| {
            Pass::ALL
                .iter()
                .map(|p| {
                    let per: Vec<f64> = t.passes.iter().map(|x| x[p.index()]).collect();
                    (p.name(), summarize(&per))
                })
                .collect::<BTreeMap<_, _>>()
        });
        let gpu_sum_ms = timed.then(|| summarize(&t.passes.iter().map(|x| x.iter().sum()).collect::<Vec<f64>>()));
        let warm_ms = summarize(&w.warm);
        Warm {
            warm_ms,
            warm_correct: correct,
            reps,
            gpu_pass_ms,
            gpu_kernel_ms: (!t.kernels.is_empty())
                .then(|| t.kernels.iter().map(|(k, v)| (k.clone(), summarize(v))).collect()),
            gpu_sum_ms,
            host_overhead_ms: gpu_sum_ms.map(|g| warm_ms.median - g.median),
            gpu_pass_timing: if timestamps {
                "gpu timestamps"
            } else {
                "unavailable (no timestamp queries)"
            },
            prepare_ms: summarize(&w.prepare),
            scalar_upload_ms: summarize(&w.upload),
            submit_ms: summarize(&w.submit),
            wait_ms: summarize(&w.wait),
            gpu_wall_ms: summarize(&w.wall),
            host_combine_ms: summarize(&w.combine),
            gpu_span_ms: (!t.span.is_empty()).then(|| summarize(&t.span)),
        }
    }
}

#[derive(Serialize)]
pub(super) struct Report {
    #[serde(flatten)]
    pub setup: Setup,
    /// GPU memory this context holds after the runs (bases, scratch,
    /// staging, results; the context's own count).
    pub gpu_memory_bytes: u64,
    #[serde(flatten)]
    pub cold: Cold,
    #[serde(flatten)]
    pub warm: Warm,
    /// Field multiplications and inversions of this MSM (from its plan and
    /// bucket sizes; an inversion counted as 344 multiplications).
    pub ops: OpCounts,
    pub inversion_share: f64,
    pub arkworks_ms: Option<Summary>,
    /// `--batch K`: one batch of K vectors against K single calls.
    pub batch: Option<crate::batch_bench::BatchReport>,
    pub arkworks_threads: usize,
    pub speedup_vs_arkworks: Option<f64>,
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok (= arkworks)"
    } else {
        "WRONG (differs from arkworks)"
    }
}

fn ms(s: &Summary) -> String {
    format!("{:.3} ms (min {:.3}, max {:.3})", s.median, s.min, s.max)
}

impl Report {
    pub(super) fn print(&self, ctx: &msm_core::GpuContext) {
        self.print_setup(ctx);
        self.print_warm();
        self.print_host();
    }

    fn print_setup(&self, ctx: &msm_core::GpuContext) {
        let (s, c) = (&self.setup, &self.cold);
        println!("adapter      {}", adapter_line(ctx));
        println!("field        {}", s.field);
        println!(
            "inputs       n = 2^{} = {}, seed {}, {} scalars (generated in {:.2} s)",
            s.logn, s.n, s.seed, s.scalars, c.input_generation_s
        );
        println!(
            "plan         c = {}, {} windows, {} walker threads x S = {} tasks; {}",
            s.window_bits, s.windows, s.walker_threads, s.walker_tasks, s.config
        );
        println!("profile      {}", s.profile);
        println!("bases        uploaded once in {:.2} ms", c.base_upload_ms);
        if let (Some(bits), Some(ms)) = (c.table_bits, c.table_build_ms) {
            println!("table        of shifted bases, c = {bits}, built once in {ms:.2} ms");
        }
        if let Some(p) = &c.plain_before_table_ms {
            println!(
                "plain calls  before the table's (table_after): median {:.3} ms (min {:.3}, max {:.3})",
                p.median, p.min, p.max
            );
        }
        if let (Some(bits), Some(ms)) = (c.auto_table_bits, c.auto_table_call_ms) {
            println!("table        of shifted bases, c = {bits}, built by the call after them: {ms:.2} ms");
        }
        println!(
            "gpu memory   {:.1} MiB held by this context",
            self.gpu_memory_bytes as f64 / (1 << 20) as f64
        );
        let first = match c.after_logn {
            Some(l) => format!("first call of this size after one of 2^{l}"),
            None => "first call: pipelines, buffers".into(),
        };
        println!(
            "cold         {:.3} ms ({first})   check: {}",
            c.cold_ms,
            verdict(c.cold_correct)
        );
        println!(
            "  process    context created in {:.0} ms; the first result {:.0} ms after the command started",
            c.context_ms, c.first_result_ms
        );
        println!(
            "  pipelines  {} compiled in parallel: {:.0} ms summed, {:.0} ms the longest; disk pipeline cache {}",
            c.compile.pipelines,
            c.compile.sum_ms,
            c.compile.max_ms,
            if c.pipeline_cache {
                "on"
            } else {
                "unavailable on this adapter"
            }
        );
    }

    fn print_warm(&self) {
        let w = &self.warm;
        println!(
            "warm         {} over {} reps   check: {}",
            ms(&w.warm_ms),
            w.reps,
            verdict(w.warm_correct)
        );
        let (Some(p), Some(k), Some(sum)) = (&w.gpu_pass_ms, &w.gpu_kernel_ms, &w.gpu_sum_ms) else {
            println!("  per pass      {}", w.gpu_pass_timing);
            return;
        };
        for pass in Pass::ALL {
            println!("  {:<15} {}  [gpu timestamps]", pass.name(), ms(&p[pass.name()]));
            for (label, s) in k.iter().filter(|(l, _)| l.starts_with(&format!("{}.", pass.name()))) {
                println!("    {label:<28} {:.3} ms", s.median);
            }
        }
        println!("  gpu sum         {}", ms(sum));
        if let Some(span) = &w.gpu_span_ms {
            println!(
                "  gpu span        {}  (first kernel start to last kernel end)",
                ms(span)
            );
        }
        if let Some(h) = w.host_overhead_ms {
            println!("  host overhead   {h:.3} ms (warm median minus gpu sum median)");
        }
    }

    fn print_host(&self) {
        let (o, w) = (&self.ops, &self.warm);
        println!(
            "ops          {:.1}M field multiplications, {} inversions ({:.2}% of multiplications at 344 each); \
             walker: {:.1}M additions in {} workgroup iterations",
            o.total_muls() as f64 / 1e6,
            o.total_inversions(),
            100.0 * self.inversion_share,
            o.walker_additions as f64 / 1e6,
            o.walker_iterations
        );
        println!("  prepare        {}  [wall clock]", ms(&w.prepare_ms));
        println!("  scalar upload  {}  [wall clock]", ms(&w.scalar_upload_ms));
        println!("  record+submit  {}  [wall clock]", ms(&w.submit_ms));
        println!("  wait           {}  [wall clock]", ms(&w.wait_ms));
        println!("  gpu + readback {}  [wall clock]", ms(&w.gpu_wall_ms));
        println!("  host combine   {}  [wall clock]", ms(&w.host_combine_ms));
        if let Some(b) = &self.batch {
            println!(
                "batch        {} vectors: one batch {}, {} single calls {}: {:.2}x   check: {}",
                b.vectors,
                ms(&b.batch_ms),
                b.vectors,
                ms(&b.singles_ms),
                b.speedup,
                verdict(b.correct)
            );
            if let Some(p) = b.batch_gpu_pass_ms {
                println!(
                    "  batch GPU    {} vectors a job; pre {:.2} / walker {:.2} / combine {:.2} / reduce {:.2} ms",
                    b.vectors_per_job, p[0], p[1], p[2], p[3]
                );
            }
        }
        match (&self.arkworks_ms, self.speedup_vs_arkworks) {
            (Some(a), Some(x)) => println!(
                "arkworks     {} on {} threads (CPU, same inputs); GPU warm median is {:.2}x arkworks' speed",
                ms(a),
                self.arkworks_threads,
                x
            ),
            _ => println!("arkworks     not timed (--cpu-reps 0)"),
        }
    }
}
