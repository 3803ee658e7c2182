// preprocess: signed digits, counting-sort transpose into bucket-major order.
//
// histogram:   count the non-zero (scalar, window) digits of each bucket;
//              scalar i of a joint plan is vector i / vector_len's, its
//              digits go to that vector's rows of buckets.
// scan_blocks: each workgroup scans a block of SCAN_WG * SCAN_PER_THREAD
//              counts (offsets within the block) and writes the block's total;
// scan_top:    one workgroup turns the block totals into block offsets and
//              writes offsets[rows * B], the entry total E;
// scan_add:    adds each block's offset, seeding the scatter cursors.
// scatter:     write each entry (base index | sign) at its slot (the walker
//              finds an entry's bucket from the offsets). With a table of
//              shifted bases (table.wgsl) window j's entry names the point
//              j * table_stride + base, and every window shares one row.
//
// Scalars arrive as canonical words (any 256-bit value, reduced mod r here),
// or in arkworks' Montgomery form; histogram converts both in place to
// canonical words below r, which scatter then reads.
//
// Digits are carry-free signed (Booth) digits: window j reads bits
// [j c, j c + c) and the bit just below, d = v + below - 2^c * top(v), so
// d lies in [-2^(c-1), 2^(c-1)] and s = sum_j d_j 2^(c j) when T c >= 255.
#import config
#import scalar

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read_write> scalars: array<FrWords>;
@group(0) @binding(2) var<storage, read> base_flags: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> l0_index: array<u32>;
@group(0) @binding(7) var<storage, read_write> block_sums: array<u32>;

// workgroup size of histogram and scatter (one point per invocation)
override WG: u32 = 64u;
// workgroup size of the scans, and counts each scan invocation covers
override SCAN_WG: u32 = 256u;
override SCAN_PER_THREAD: u32 = 4u;

// The signed digit of window j (c <= 31).
fn window_digit(s: FrWords, j: u32, c: u32) -> i32 {
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

// The row of buckets of vector v's window j: its own row per window, or with
// a table one row for every window of the vector.
fn row_of(v: u32, j: u32) -> u32 {
    if params.table_stride != 0u {
        return v;
    }
    return v * params.windows + j;
}

fn point_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn histogram(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let v = i / params.vector_len;
    if base_flags[params.base_offset + i - v * params.vector_len] != 0u {
        return;
    }
    var s = scalars[i];
    if params.scalar_form == SCALARS_MONTGOMERY {
        s = fr_pack(fr_from_mont(fr_unpack(s)));
        scalars[i] = s;
    } else {
        // Canonical words may be any 256-bit value: reduce them mod r.
        let r = fr_reduce_words(s);
        var changed = 0u;
        for (var k = 0u; k < 8u; k++) {
            changed |= r[k] ^ s[k];
        }
        if changed != 0u {
            s = r;
            scalars[i] = s;
        }
    }
    for (var j = 0u; j < params.windows; j++) {
        let d = window_digit(s, j, params.c);
        if d != 0 {
            atomicAdd(&counts[row_of(v, j) * params.buckets + u32(abs(d)) - 1u], 1u);
        }
    }
}

var<workgroup> scan_sums: array<u32, SCAN_WG>;

// Exclusive prefix sum of `own` over the workgroup (Hillis-Steele); the
// workgroup's total is left in scan_sums[SCAN_WG - 1].
fn workgroup_scan(t: u32, own: u32) -> u32 {
    scan_sums[t] = own;
    workgroupBarrier();
    for (var d = 1u; d < SCAN_WG; d <<= 1u) {
        var v = 0u;
        if t >= d {
            v = scan_sums[t - d];
        }
        workgroupBarrier();
        scan_sums[t] += v;
        workgroupBarrier();
    }
    return scan_sums[t] - own;
}

fn scan_len() -> u32 {
    return params.rows * params.buckets;
}

// The first count invocation t of scan block `block` covers.
fn scan_lo(block: u32, t: u32) -> u32 {
    return block * SCAN_WG * SCAN_PER_THREAD + t * SCAN_PER_THREAD;
}

fn scan_blocks_count() -> u32 {
    let per_block = SCAN_WG * SCAN_PER_THREAD;
    return (scan_len() + per_block - 1u) / per_block;
}

@compute @workgroup_size(SCAN_WG)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * nwg.x;
    let len = scan_len();
    let lo = scan_lo(block, t);
    var own = 0u;
    for (var i = 0u; i < SCAN_PER_THREAD; i++) {
        if lo + i < len {
            own += atomicLoad(&counts[lo + i]);
        }
    }
    var run = workgroup_scan(t, own);
    for (var i = 0u; i < SCAN_PER_THREAD; i++) {
        if lo + i < len {
            offsets[lo + i] = run;
            run += atomicLoad(&counts[lo + i]);
        }
    }
    if t == SCAN_WG - 1u && block < scan_blocks_count() {
        block_sums[block] = scan_sums[t];
    }
}

@compute @workgroup_size(SCAN_WG)
fn scan_top(@builtin(local_invocation_index) t: u32) {
    let blocks = scan_blocks_count();
    let chunk = (blocks + SCAN_WG - 1u) / SCAN_WG;
    let lo = min(t * chunk, blocks);
    let hi = min(lo + chunk, blocks);
    var own = 0u;
    for (var k = lo; k < hi; k++) {
        own += block_sums[k];
    }
    var run = workgroup_scan(t, own);
    for (var k = lo; k < hi; k++) {
        let v = block_sums[k];
        block_sums[k] = run;
        run += v;
    }
    if t == SCAN_WG - 1u {
        offsets[scan_len()] = scan_sums[t];
    }
}

@compute @workgroup_size(SCAN_WG)
fn scan_add(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * nwg.x;
    let len = scan_len();
    let lo = scan_lo(block, t);
    if block >= scan_blocks_count() {
        return;
    }
    let base = block_sums[block];
    for (var i = 0u; i < SCAN_PER_THREAD; i++) {
        if lo + i < len {
            let v = offsets[lo + i] + base;
            offsets[lo + i] = v;
            atomicStore(&cursor[lo + i], v);
        }
    }
}

// Workgroup w scatters points (w mod G) * WG.. of round w / G (G point
// groups): only the entries of the round's range of buckets, so that the
// slots being written at one time are few enough to stay in the cache
// until they are whole (the stores, not the atomics, bound this kernel).
@compute @workgroup_size(WG)
fn scatter(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let point_groups = (params.n + WG - 1u) / WG;
    let w = wid.x + wid.y * nwg.x;
    let round = w / point_groups;
    let i = (w - round * point_groups) * WG + t;
    let total = scan_len();
    let lo = round * params.scatter_span;
    if i >= params.n || lo >= total {
        return;
    }
    let hi = min(lo + params.scatter_span, total);
    let v = i / params.vector_len;
    let base = i - v * params.vector_len;
    if base_flags[params.base_offset + base] != 0u {
        return;
    }
    let s = scalars[i];
    for (var j = 0u; j < params.windows; j++) {
        let row = row_of(v, j) * params.buckets;
        if row >= hi || row + params.buckets <= lo {
            continue;
        }
        let d = window_digit(s, j, params.c);
        if d != 0 {
            let bucket = row + u32(abs(d)) - 1u;
            if bucket >= lo && bucket < hi {
                let at = atomicAdd(&cursor[bucket], 1u);
                l0_index[at] = (j * params.table_stride + base) | select(0u, SIGN_BIT, d < 0);
            }
        }
    }
}
