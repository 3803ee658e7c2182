// preprocess: signed digits, counting-sort transpose into bucket-major order.
//
// histogram: count the non-zero (point, window) digits of each bucket.
// scan:      exclusive prefix sum of the counts (one workgroup), also seeding
//            the scatter cursors; offsets[T * B] is the entry total E.
// scatter:   write each entry (base index | sign) and its bucket at its slot.
//
// Digits are carry-free signed (Booth) digits: window j reads bits
// [j c, j c + c) and the bit just below, d = v + below - 2^c * top(v), so
// d lies in [-2^(c-1), 2^(c-1)] and s = sum_j d_j 2^(c j) when T c >= 255.
#import config

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> scalars: array<array<u32, 8>>;
@group(0) @binding(2) var<storage, read> base_flags: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> l0_index: array<u32>;
@group(0) @binding(7) var<storage, read_write> l0_bucket: array<u32>;

// The signed digit of window j (c <= 31).
fn window_digit(s: array<u32, 8>, j: u32, c: u32) -> i32 {
    var w = s;
    let lo = j * c;
    var v = 0u;
    if lo < 256u {
        let word = lo / 32u;
        let off = lo % 32u;
        v = w[word] >> off;
        if off + c > 32u && word < 7u {
            v |= w[word + 1u] << (32u - off);
        }
        v &= (1u << c) - 1u;
    }
    var below = 0u;
    if j > 0u && lo - 1u < 256u {
        below = (w[(lo - 1u) / 32u] >> ((lo - 1u) % 32u)) & 1u;
    }
    let top = v >> (c - 1u);
    return i32(v) + i32(below) - i32(top << c);
}

fn point_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 64u;
}

@compute @workgroup_size(64)
fn histogram(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n || base_flags[params.base_offset + i] != 0u {
        return;
    }
    let s = scalars[i];
    for (var j = 0u; j < params.windows; j++) {
        let d = window_digit(s, j, params.c);
        if d != 0 {
            atomicAdd(&counts[j * params.buckets + u32(abs(d)) - 1u], 1u);
        }
    }
}

const SCAN_THREADS: u32 = 256u;
var<workgroup> scan_sums: array<u32, SCAN_THREADS>;

@compute @workgroup_size(SCAN_THREADS)
fn scan(@builtin(local_invocation_index) t: u32) {
    let len = params.windows * params.buckets;
    let chunk = (len + SCAN_THREADS - 1u) / SCAN_THREADS;
    let lo = min(t * chunk, len);
    let hi = min(lo + chunk, len);
    var own = 0u;
    for (var k = lo; k < hi; k++) {
        own += atomicLoad(&counts[k]);
    }
    scan_sums[t] = own;
    workgroupBarrier();
    for (var d = 1u; d < SCAN_THREADS; d <<= 1u) {
        var v = 0u;
        if t >= d {
            v = scan_sums[t - d];
        }
        workgroupBarrier();
        scan_sums[t] += v;
        workgroupBarrier();
    }
    var run = scan_sums[t] - own;
    for (var k = lo; k < hi; k++) {
        offsets[k] = run;
        atomicStore(&cursor[k], run);
        run += atomicLoad(&counts[k]);
    }
    if t == SCAN_THREADS - 1u {
        offsets[len] = scan_sums[t];
    }
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n || base_flags[params.base_offset + i] != 0u {
        return;
    }
    let s = scalars[i];
    for (var j = 0u; j < params.windows; j++) {
        let d = window_digit(s, j, params.c);
        if d != 0 {
            let bucket = j * params.buckets + u32(abs(d)) - 1u;
            let at = atomicAdd(&cursor[bucket], 1u);
            l0_index[at] = i | select(0u, SIGN_BIT, d < 0);
            l0_bucket[at] = bucket;
        }
    }
}
