// Layouts shared by the host and every pass. Keep in sync with msm-core's
// `layout.rs` (a test asserts the sizes match).
#import curve_params

// Bit 31 of an l0_index entry: the digit was negative (subtract the base).
const SIGN_BIT: u32 = 0x80000000u;
// Marks "no bucket" in a PointRecord.
const NO_BUCKET: u32 = 0xffffffffu;

// Per-MSM parameters (uniform).
struct MsmParams {
    // number of scalars (every vector's)
    n: u32,
    // window width c in bits
    c: u32,
    // rows of buckets: windows * vectors, or vectors with a table
    rows: u32,
    // buckets per row B = 2^(c - 1)
    buckets: u32,
    // stream-walker tasks K = walker threads * S
    tasks: u32,
    // reduce segments per window
    segments: u32,
    // index of this chunk's first point in the resident bases
    base_offset: u32,
    // 1: walker tasks start at bucket starts (only oversized buckets split)
    align: u32,
    // how scalars arrive: SCALARS_CANONICAL or SCALARS_MONTGOMERY
    scalar_form: u32,
    // digit windows of a scalar T = ceil(255 / c)
    windows: u32,
    // points per vector: scalar i is vector i / vector_len's, of base i % vector_len
    vector_len: u32,
    // 0: one row of buckets per (vector, window). Else the bases are a table
    // whose windows lie this many points apart: window j's digit names point
    // j * table_stride + base, and every window adds into the vector's row.
    table_stride: u32,
    // buckets each round of scatter fills: round r writes only the entries
    // of buckets [r * scatter_span, (r + 1) * scatter_span)
    scatter_span: u32,
    // LINK_* bits: whether this job is one of a chain of jobs whose bucket
    // sums add up before one reduce (reduce.wgsl's accumulate)
    link: u32,
}

// The job is one of a chain: its reduce reads the chain's running bucket
// sums (chain_sums) instead of its own records.
const LINK_CHAINED: u32 = 2u;
// Earlier jobs of the chain have written chain_sums: add onto them.
const LINK_PRIOR: u32 = 1u;

// Scalars as little-endian words, any 256-bit value (preprocess reduces them mod r).
const SCALARS_CANONICAL: u32 = 0u;
// Scalars as arkworks holds them: Montgomery form, R = 2^256 (preprocess
// converts them in place).
const SCALARS_MONTGOMERY: u32 = 1u;

// A PointRecord whose sum is an XYZZ point in walker_combine's split_sums,
// at index `through` (buckets split across walker tasks).
const VALID_XYZZ: u32 = 2u;

// An affine point with its bucket: a final bucket sum, or a walker partial.
struct PointRecord {
    x: FqWords,
    y: FqWords,
    // 1 if (x, y) is a point, 0 if the sum is the identity, VALID_XYZZ if the
    // sum is split_sums[through]
    valid: u32,
    bucket: u32,
    // head partials: 1 if the task's bucket continues into the next task;
    // VALID_XYZZ records: the index of the sum in split_sums
    through: u32,
    _pad: u32,
}
