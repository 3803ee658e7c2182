//! `MsmConfig`: the knob table (each knob declared once: type, default,
//! doc, names, values, range) and the knobs' value types. The plan derived
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

crate::knobs::table::knob_table! {
    /// Window width c in bits (2..=20). `None`: chosen from n (see
    /// `crate::plan::auto_window_bits`). Wider windows mean fewer windows
    /// (less walker work) but 2^(c-1) buckets each (more reduce work and memory).
    window_bits: Option<u32> = None;
        camel "windowBits", alias "c", ts "number | \"auto\"", values "2..=20, or auto",
        shader false, range 2..=20;
    /// Threads per workgroup of the stream walker: a pipeline override
    /// constant. The workgroup's slots share one inversion, so more threads
    /// amortise it further, at the cost of a deeper product tree.
    walker_tpb: u32 = 256;
        camel "walkerTpb", alias "wtpb", ts "number", values "threads per workgroup, 1..=adapter limit",
        shader true, range 1..=u32::MAX;
    /// Where the walker keeps its prefix products (pref_scratch).
    walker_pref_mem: PrefMem = PrefMem::Private;
        camel "walkerPrefMem", alias "prefmem", ts "\"private\" | \"workgroup\"", values "private | workgroup",
        shader true;
    /// Slots per walker thread, S. TPB x S additions share one inversion;
    /// larger S amortises the inversion and the tree further at the cost of
    /// registers (or workgroup memory).
    walker_slots: u32 = 4;
        camel "walkerSlots", alias "ws", ts "number", values "1..=16",
        shader true, range 1..=16;
    /// Keep each slot's dx for the inverse pass instead of re-gathering x
    /// from memory. Natively on; the web defaults turn it off (under Tint it
    /// halves the walker's occupancy from 2^20 points).
    walker_cache_dx: bool = true;
        camel "walkerCacheDx", alias "cachedx", ts "boolean", values "true | false",
        shader true;
    /// Fuse the inverse and peel passes. Fewer loads, more live registers.
    walker_fused: bool = false;
        camel "walkerFused", alias "fused", ts "boolean", values "true | false",
        shader true;
    /// Write the walker's slot loops out S times. Constant slot indices let
    /// a driver keep slot state in registers instead of local memory, at the
    /// cost of S copies of the slot code.
    walker_unroll: bool = false;
        camel "walkerUnroll", alias "unroll", ts "boolean", values "true | false",
        shader true;
    /// The walker's field code written out straight (no row loops) where
    /// the context's is row loops: a larger shader that compiles slower and
    /// runs a few percent faster at large sizes (built in for BN254 G1 on
    /// discrete GPUs from 2^17, where measured so).
    walker_straight: bool = false;
        camel "walkerStraight", alias "straight", ts "boolean", values "true | false",
        shader true;
    /// Number of walker threads. `None`: chosen by `crate::plan` from the
    /// entry count and the adapter (task length, occupancy, loop budget).
    walker_threads: Option<u32> = None;
        camel "walkerThreads", alias "wthreads", ts "number | \"auto\"", values "a count, or auto",
        shader false, range 1..=u32::MAX;
    /// How the walker's tasks follow bucket boundaries: equal shares, or
    /// aligned to the buckets they start in.
    walker_split: TaskSplit = TaskSplit::Equal;
        camel "walkerSplit", alias "split", ts "\"equal\" | \"buckets\"", values "equal | buckets",
        shader false;
    /// Per-pass GPU timestamps where the context has them.
    timing: bool = false;
        camel "timing", alias "timing", ts "boolean", values "true | false",
        shader false;
    /// Split an MSM into chunks of at most this many points, summed on the
    /// host. `None`: chunks only where one chunk's buffers would exceed the
    /// adapter's largest binding. Smaller chunks use less GPU memory.
    max_chunk_points: Option<u32> = None;
        camel "maxChunkPoints", alias "chunk", ts "number | \"auto\"", values "a count, or auto",
        shader false, range 1..=u32::MAX;
    /// Buckets per reduce segment (one invocation's running sum), rounded
    /// down to a power of two. `None`: long enough that about 16,384
    /// segments remain, 16..=32 (`crate::plan::reduce_segment`).
    reduce_segment: Option<u32> = None;
        camel "reduceSegment", alias "rseg", ts "number | \"auto\"", values "1..=4096, or auto",
        shader false, range 1..=4096;
    /// Batches of equal-length vectors run as joint MSMs of up to this many
    /// points (and `max_chunk_points`): one plan whose rows of buckets are
    /// vector x window, so short vectors fill the GPU together. 0: each
    /// vector on its own.
    joint_points: u32 = 1 << 22;
        camel "jointPoints", alias "joint", ts "number", values "a count; 0 turns joint batches off",
        shader false, range 0..=u32::MAX;
    /// A batch staged at once is submitted in waves: a wave closes once it
    /// holds this many scalars, and the host writes the next wave while the
    /// GPU runs it (H200: a 2^24 table's four parts 126.7 -> 114.6 ms).
    /// 0: one submission.
    wave_points: u32 = 1 << 21;
        camel "wavePoints", alias "wave", ts "number", values "a count; 0 submits a staged batch at once",
        shader false, range 0..=u32::MAX;
    /// A vector's runs of at least this many jobs of one plan (a table's
    /// parts from 2^23, bases in parts, equal chunks) reduce once: each job
    /// adds its bucket sums into the chain's running sums (one addition a
    /// bucket) and only the last runs reduce over them, instead of one reduce
    /// a job summed on the host. 1 and 2 both chain runs of two; 0 never
    /// chains. Needs the GPU's reduce. H100: a 2^24 table's four parts 107.8
    /// -> 105.8 ms; two jobs (2^23's parts, 2^24 in two chunks) lost 0.3 ms.
    chain_jobs: u32 = 4;
        camel "chainJobs", alias "chain", ts "number", values "a count of jobs; 0 never chains",
        shader false, range 0..=u32::MAX;
    /// reduce's last step (each row's group sums into its window sum) runs
    /// on the host for plans with at most this many group sums (rows x
    /// groups): a short readback and two additions a group instead of the
    /// `windows` kernel (0.25-1 ms of dependent additions; natively the host folds
    /// rows in chunks on its thread pool). 0 (default): always on the GPU.
    /// Built in at 128 for BN254 G1 in the 64-bit layout at 2^16-2^19 on
    /// discrete GPUs, where a table's one row wins (H200: 0.955-0.97x) and
    /// the plain plans' 17 rows stay on the GPU (1.03-1.06x on the host).
    host_windows_max: u32 = 0;
        camel "hostWindowsMax", alias "hostwin", ts "number", values "a count of group sums; 0 keeps the step on the GPU",
        shader false, range 0..=u32::MAX;
    /// scatter fills the slots of at most this many buckets at a time: one
    /// round over the scalars per range of buckets, so that the slots being
    /// written stay in the GPU's cache until they are whole. 0 (default):
    /// every bucket in one round.
    scatter_buckets: u32 = 0;
        camel "scatterBuckets", alias "sbuckets", ts "number", values "a count of buckets; 0 scatters in one round",
        shader false, range 0..=u32::MAX;
    /// Use the bases' table of shifted copies where they have one
    /// (`GpuContext::build_table`) and `window_bits` is automatic or the
    /// table's: every window adds into one row of buckets. false: the
    /// plain bases, one row per window.
    bases_table: bool = true;
        camel "basesTable", alias "usetable", ts "boolean", values "true | false",
        shader false;
    /// Build the bases' table on the k-th call over them (its width
    /// automatic for the call's length) where they have none and it fits
    /// half the device's memory beside the resident sets. Needs
    /// `bases_table` and an automatic `window_bits`. 0 (default): never.
    /// Built in on discrete GPUs for BN254 G1 from 2^16 and BLS12-381 G1 at
    /// 2^16-2^20, at the call that has paid for the build (16 to 128 calls
    /// by size): a set used less often never costs more than twice the best
    /// choice in hindsight.
    table_after: u32 = 0;
        camel "tableAfter", alias "tafter", ts "number", values "a call count; 0 never builds one",
        shader false, range 0..=u32::MAX;
    /// Where the bucket sums become window sums. `auto`: the GPU where the
    /// reduce shader compiles (the host on SwiftShader).
    reduce: ReduceOn = ReduceOn::Auto;
        camel "reduce", alias "reduce", ts "\"auto\" | \"gpu\" | \"host\"", values "auto | gpu | host",
        shader false;
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

    /// What makes the walker's pipeline: its shader variant and its
    /// workgroup size (two configs with the same shape share the pipeline).
    pub fn walker_shape(&self) -> (msm_wgsl::registry::WalkerVariant, u32) {
        (self.walker_variant(), self.walker_tpb)
    }

    /// The shader variant of the stream walker for this config.
    pub fn walker_variant(&self) -> msm_wgsl::registry::WalkerVariant {
        msm_wgsl::registry::WalkerVariant {
            slots: self.walker_slots,
            pref_workgroup: self.walker_pref_mem == PrefMem::Workgroup,
            cache_dx: self.walker_cache_dx,
            fused: self.walker_fused,
            unroll: self.walker_unroll,
            straight: self.walker_straight,
        }
    }
}
