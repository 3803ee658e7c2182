/**
 * Knobs of an MSM; keys left out keep the context's values (the knobs it
 * was given, else the size's defaults: `configFor(points)`; the defaults
 * below are small sizes'). Keys are the camelCase (or snake_case) knob
 * names; values may also be given as strings (as URL parameters are),
 * "auto" for automatic choices. Generated from msm-core's knob table.
 */
export interface MsmOptions {
  /** Window width c in bits (2..=20). Default: auto. */
  windowBits?: number | "auto";
  /** Threads per workgroup of the stream walker: a pipeline override constant. Default: 256. */
  walkerTpb?: number;
  /** Where the walker keeps its prefix products (pref_scratch). Default: private. */
  walkerPrefMem?: "private" | "workgroup";
  /** Slots per walker thread, S. Default: 4. */
  walkerSlots?: number;
  /** Keep each slot's dx for the inverse pass instead of re-gathering x from memory. Default: false. */
  walkerCacheDx?: boolean;
  /** Fuse the inverse and peel passes. Default: false. */
  walkerFused?: boolean;
  /** Write the walker's slot loops out S times. Default: false. */
  walkerUnroll?: boolean;
  /** The walker's field code written out straight (no row loops) where the context's is row loops: a larger shader that compiles slower and runs a few percent faster at large sizes (built in for BN254 G1 on discrete GPUs from 2^17, where measured so). Default: false. */
  walkerStraight?: boolean;
  /** Number of walker threads. Default: auto. */
  walkerThreads?: number | "auto";
  /** How the walker's tasks follow bucket boundaries: equal shares, or aligned to the buckets they start in. Default: equal. */
  walkerSplit?: "equal" | "buckets";
  /** Per-pass GPU timestamps where the context has them. Default: false. */
  timing?: boolean;
  /** Split an MSM into chunks of at most this many points, summed on the host. Default: auto. */
  maxChunkPoints?: number | "auto";
  /** Buckets per reduce segment (one invocation's running sum), rounded down to a power of two. Default: auto. */
  reduceSegment?: number | "auto";
  /** Batches of equal-length vectors run as joint MSMs of up to this many points (and `max_chunk_points`): one plan whose rows of buckets are vector x window, so short vectors fill the GPU together. Default: 4194304. */
  jointPoints?: number;
  /** A batch staged at once is submitted in waves: a wave closes once it holds this many scalars, and the host writes the next wave while the GPU runs it (H200: a 2^24 table's four parts 126.7 -> 114.6 ms). Default: 2097152. */
  wavePoints?: number;
  /** A vector's runs of at least this many jobs of one plan (a table's parts from 2^23, bases in parts, equal chunks) reduce once: each job adds its bucket sums into the chain's running sums (one addition a bucket) and only the last runs reduce over them, instead of one reduce a job summed on the host. Default: 4. */
  chainJobs?: number;
  /** reduce's last step (each row's group sums into its window sum) runs on the host for plans with at most this many group sums (rows x groups): a short readback and two additions a group instead of the `windows` kernel (0.25-1 ms of dependent additions; natively the host folds rows in chunks on its thread pool). Default: 0. */
  hostWindowsMax?: number;
  /** scatter fills the slots of at most this many buckets at a time: one round over the scalars per range of buckets, so that the slots being written stay in the GPU's cache until they are whole. Default: 0. */
  scatterBuckets?: number;
  /** Use the bases' table of shifted copies where they have one (`GpuContext::build_table`) and `window_bits` is automatic or the table's: every window adds into one row of buckets. Default: true. */
  basesTable?: boolean;
  /** Build the bases' table on the k-th call over them (its width automatic for the call's length) where they have none and it fits half the device's memory beside the resident sets. Default: 0. */
  tableAfter?: number;
  /** Where the bucket sums become window sums. Default: auto. */
  reduce?: "auto" | "gpu" | "host";
}
