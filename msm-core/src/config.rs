//! `MsmConfig`: the knobs of the pipeline and their defaults. The plan derived
//! from them for one input on one adapter is in [`crate::plan`].

/// Where the stream walker keeps its per-slot prefix products.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrefMem {
    /// `var<private>`: no workgroup-memory cap on occupancy (the measured winner
    /// of the original design).
    #[default]
    Private,
    /// `var<workgroup>`: TPB * S * 32 bytes of workgroup memory per workgroup.
    Workgroup,
}

/// Where the bucket sums become window sums (the reduce pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceOn {
    /// The GPU, except on SwiftShader (Chromium's software WebGPU and its
    /// Vulkan ICD), whose shader compiler crashes on the reduce shader's
    /// inlined point additions: there the host reduces.
    #[default]
    Auto,
    /// The `reduce` pass on the GPU (running sums in segments, then a tree).
    Gpu,
    /// Read the bucket sums back and reduce on the CPU (arkworks): one
    /// readback of windows x buckets records, two additions per bucket.
    Host,
}

/// How the walker cuts the entry stream into tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskSplit {
    /// Equal shares of the stream: every slot walks the same number of
    /// entries, and each task boundary inside a bucket leaves a partial for
    /// walker_combine.
    #[default]
    Equal,
    /// Each task starts at the start of the bucket its equal share starts in,
    /// unless that bucket is longer than a task: only oversized buckets are
    /// split, at the cost of tasks up to twice as long.
    Buckets,
}

/// The pipeline's knobs. `Default` gives the documented defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MsmConfig {
    /// Window width c in bits (2..=20). `None`: chosen from n (see
    /// [`crate::plan::auto_window_bits`]).
    /// Wider windows mean fewer windows (less walker work) but 2^(c-1) buckets each
    /// (more reduce work and memory).
    pub window_bits: Option<u32>,
    /// Threads per workgroup of the stream walker (default 256): a pipeline
    /// override constant. The workgroup's slots share one inversion, so more
    /// threads amortise it further, at the cost of a deeper product tree.
    pub walker_tpb: u32,
    /// Where pref_scratch lives (default private).
    pub walker_pref_mem: PrefMem,
    /// Slots per walker thread, S (1..=16, default 4): TPB x S additions
    /// share one inversion. Larger S amortises the inversion and the tree
    /// further at the cost of registers (or workgroup memory).
    pub walker_slots: u32,
    /// Keep each slot's dx for the inverse pass (default on) instead of
    /// re-gathering x from memory.
    pub walker_cache_dx: bool,
    /// Fuse the inverse and peel passes (default off): fewer loads, more live registers.
    pub walker_fused: bool,
    /// Write the walker's slot loops out S times (default off): constant slot
    /// indices let a driver keep slot state in registers instead of local
    /// memory, at the cost of S copies of the slot code.
    pub walker_unroll: bool,
    /// Number of walker threads; `None`: chosen by [`crate::plan`] from the
    /// entry count and the adapter (task length, occupancy, loop budget).
    pub walker_threads: Option<u32>,
    /// How the walker's tasks follow bucket boundaries (default equal shares).
    pub walker_split: TaskSplit,
    /// Per-pass GPU timestamps when the context has them (default off).
    pub timing: bool,
    /// Split an MSM into chunks of at most this many points, summed on the
    /// host. `None`: chunks only where one chunk's buffers would exceed the
    /// adapter's largest binding. Smaller chunks use less GPU memory.
    pub max_chunk_points: Option<u32>,
    /// Where the reduce step runs (default auto: the GPU where it compiles).
    pub reduce: ReduceOn,
}

impl Default for MsmConfig {
    fn default() -> Self {
        MsmConfig {
            window_bits: None,
            walker_tpb: 256,
            walker_pref_mem: PrefMem::Private,
            walker_slots: 4,
            walker_cache_dx: true,
            walker_fused: false,
            walker_unroll: false,
            walker_threads: None,
            walker_split: TaskSplit::Equal,
            timing: false,
            max_chunk_points: None,
            reduce: ReduceOn::Auto,
        }
    }
}

impl MsmConfig {
    /// The defaults for WGSL that a browser compiles (Dawn's Tint, in
    /// Chrome and under Node): the walker recomputes each slot's dx instead
    /// of caching it. On the H200 under Dawn the cached variant runs the
    /// walker at half occupancy from 2^20 (30.2 against 18.8 ms; 120 against
    /// 72 ms at 2^22) and neither wins below; through naga the cache is worth
    /// 1-4% (docs/benchmarks.md).
    pub fn web() -> Self {
        MsmConfig {
            walker_cache_dx: false,
            ..Default::default()
        }
    }

    /// The shader variant of the stream walker for this config.
    pub fn walker_variant(&self) -> msm_wgsl::registry::WalkerVariant {
        msm_wgsl::registry::WalkerVariant {
            slots: self.walker_slots,
            pref_workgroup: self.walker_pref_mem == PrefMem::Workgroup,
            cache_dx: self.walker_cache_dx,
            fused: self.walker_fused,
            unroll: self.walker_unroll,
        }
    }
}
