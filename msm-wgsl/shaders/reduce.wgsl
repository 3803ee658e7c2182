// reduce: window sums W_j = sum_k k B_{j,k} by running sums, then one point
// per window for the host's Horner step Q = sum_j 2^(c j) W_j.
//
// segments: thread (j, g) covers buckets [lo, hi) of window j, walking down:
//   running += B_i; total += running  =>  total = sum (i - lo + 1) B_i;
//   it adds lo * running (double-and-add, c bits) to weight by digit i + 1.
// windows: one workgroup per window sums its segment results (tree in
//   workgroup memory).
#import config
#import curve

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> bucket_sums: array<PointRecord>;
@group(0) @binding(3) var<storage, read_write> segment_sums: array<array<u32, 32>>;
@group(0) @binding(4) var<storage, read_write> window_sums: array<array<u32, 32>>;

// k * p for 0 < k < 2^31 (double-and-add below the top bit).
fn xyzz_mul_small(p: Xyzz, k: u32) -> Xyzz {
    var r = p;
    for (var b = firstLeadingBit(k); b > 0u; b--) {
        r = xyzz_double(r);
        if ((k >> (b - 1u)) & 1u) != 0u {
            r = xyzz_add(r, p);
        }
    }
    return r;
}

@compute @workgroup_size(64)
fn segments(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = gid.x + gid.y * nwg.x * 64u;
    if id >= params.windows * params.segments {
        return;
    }
    let j = id / params.segments;
    let g = id % params.segments;
    let per = (params.buckets + params.segments - 1u) / params.segments;
    let lo = min(g * per, params.buckets);
    let hi = min(lo + per, params.buckets);
    var running = xyzz_identity();
    var total = xyzz_identity();
    for (var i = hi; i > lo; i--) {
        let b = j * params.buckets + i - 1u;
        if counts[b] != 0u {
            let rec = bucket_sums[b];
            if rec.valid != 0u {
                running = xyzz_add_affine(running, Affine(fq_unpack(rec.x), fq_unpack(rec.y)));
            }
        }
        total = xyzz_add(total, running);
    }
    if lo > 0u {
        total = xyzz_add(total, xyzz_mul_small(running, lo));
    }
    segment_sums[id] = xyzz_pack(total);
}

const WG_REDUCE: u32 = 64u;
var<workgroup> tree: array<array<u32, 32>, WG_REDUCE>;

@compute @workgroup_size(WG_REDUCE)
fn windows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let j = wid.x;
    var acc = xyzz_identity();
    for (var g = t; g < params.segments; g += WG_REDUCE) {
        acc = xyzz_add(acc, xyzz_unpack(segment_sums[j * params.segments + g]));
    }
    tree[t] = xyzz_pack(acc);
    workgroupBarrier();
    for (var half = WG_REDUCE / 2u; half > 0u; half >>= 1u) {
        if t < half {
            tree[t] = xyzz_pack(xyzz_add(xyzz_unpack(tree[t]), xyzz_unpack(tree[t + half])));
        }
        workgroupBarrier();
    }
    if t == 0u {
        window_sums[j] = tree[0];
    }
}
