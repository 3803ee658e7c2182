// Layouts shared by the host and every pass. Keep in sync with msm-core's
// `layout.rs` (a test asserts the sizes match).

// Bit 31 of an l0_index entry: the digit was negative (subtract the base).
const SIGN_BIT: u32 = 0x80000000u;
// Marks "no bucket" in a PointRecord.
const NO_BUCKET: u32 = 0xffffffffu;

// Per-MSM parameters (uniform).
struct MsmParams {
    // number of points
    n: u32,
    // window width c in bits
    c: u32,
    // number of windows T = ceil(255 / c)
    windows: u32,
    // buckets per window B = 2^(c - 1)
    buckets: u32,
    // stream-walker tasks K = walker threads * S
    tasks: u32,
    // reduce segments per window
    segments: u32,
    // index of this chunk's first point in the resident bases
    base_offset: u32,
    _pad0: u32,
}

// An affine point with its bucket: a final bucket sum, or a walker partial.
struct PointRecord {
    x: array<u32, 8>,
    y: array<u32, 8>,
    // 1 if (x, y) is a point, 0 if the sum is the identity
    valid: u32,
    bucket: u32,
    // head partials: 1 if the task's bucket continues into the next task
    through: u32,
    _pad: u32,
}
