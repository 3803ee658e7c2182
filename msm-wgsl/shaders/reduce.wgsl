// reduce: window sums W_j = sum_k k B_{j,k} by running sums, then one point
// per window for the host's Horner step Q = sum_j 2^(c j) W_j.
//
// segments: invocation (g, j) sums segment g of window j, buckets [lo, hi),
//   walking down: running += B_i; total += running  =>  total = sum (i - lo
//   + 1) B_i; it adds lo * running (double-and-add, c bits) to weight by
//   digit i + 1, and writes the segment's sum.
// groups: workgroup (x, j) sums segments x * WG.. of window j in a tree.
// windows: one workgroup per window sums its group sums in a tree.
//
// Each kernel has one call site of xyzz_add (segments feeds its one from a
// small state machine): drivers inline every call, and compile time grows
// faster than the code: the first version's seven inlined additions took
// NVIDIA's compiler 96 s, two per kernel still 10-12 s (docs/benchmarks.md).
#import config
#import curve

// workgroup size of segments and groups
override WG: u32 = 64u;
// workgroup size of windows: at least the groups of a window
override WIN_WG: u32 = 256u;

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> bucket_sums: array<PointRecord>;
@group(0) @binding(3) var<storage, read_write> group_sums: array<array<u32, 32>>;
@group(0) @binding(4) var<storage, read_write> window_sums: array<array<u32, 32>>;
@group(0) @binding(5) var<storage, read> split_sums: array<array<u32, 32>>;
@group(0) @binding(6) var<storage, read_write> segment_sums: array<array<u32, 32>>;

var<workgroup> tree: array<array<u32, 32>, WG>;
var<workgroup> win_tree: array<array<u32, 32>, WIN_WG>;

// Group sums per window: segments / WG, rounded up.
fn groups_per_window() -> u32 {
    return (params.segments + WG - 1u) / WG;
}



// The bucket sum of bucket b as XYZZ (identity when empty).
fn bucket_point(b: u32) -> Xyzz {
    if counts[b] == 0u {
        return xyzz_identity();
    }
    let rec = bucket_sums[b];
    if rec.valid == VALID_XYZZ {
        return xyzz_unpack(split_sums[rec.through]);
    }
    if rec.valid != 0u {
        return xyzz_from_affine(Affine(fq_unpack(rec.x), fq_unpack(rec.y)));
    }
    return xyzz_identity();
}

// Segment g of window j: sum_i (i + 1) B_i over its buckets. Steps, one
// addition each: per bucket (walking down) running += B_i, then total +=
// running; then lo * running by double-and-add into acc (acc = running,
// then per bit below the top: acc += acc, and acc += running where set);
// last total += acc.
fn segment_sum(j: u32, g: u32) -> Xyzz {
    let per = (params.buckets + params.segments - 1u) / params.segments;
    let lo = min(g * per, params.buckets);
    let hi = min(lo + per, params.buckets);
    var running = xyzz_identity();
    var total = xyzz_identity();
    var acc = xyzz_identity();
    var i = hi;
    var second = false;
    var bit = 0u;
    if lo > 0u {
        bit = firstLeadingBit(lo);
    }
    // 0: buckets; 1: doublings and additions of the weight; 2: total += acc
    var stage = 0u;
    if i == lo {
        stage = 3u;
    }
    loop {
        if stage == 3u {
            break;
        }
        var a: Xyzz;
        var b: Xyzz;
        switch stage {
            case 0u: {
                if second {
                    a = total;
                    b = running;
                } else {
                    a = running;
                    b = bucket_point(j * params.buckets + i - 1u);
                }
            }
            case 1u: {
                a = acc;
                b = acc;
                if second {
                    b = running;
                }
            }
            default: {
                a = total;
                b = acc;
            }
        }
        let c = xyzz_add(a, b);
        switch stage {
            case 0u: {
                if second {
                    total = c;
                    i -= 1u;
                    if i == lo {
                        stage = 1u;
                        acc = running;
                        if lo == 0u || xyzz_is_identity(running) {
                            stage = 3u;
                        } else if bit == 0u {
                            stage = 2u;
                        }
                    }
                } else {
                    running = c;
                }
                second = !second;
            }
            case 1u: {
                acc = c;
                if second {
                    second = false;
                    bit -= 1u;
                } else if ((lo >> (bit - 1u)) & 1u) != 0u {
                    second = true;
                } else {
                    bit -= 1u;
                }
                if !second && bit == 0u {
                    stage = 2u;
                }
            }
            default: {
                total = c;
                stage = 3u;
            }
        }
    }
    return total;
}

@compute @workgroup_size(WG)
fn segments(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.y;
    let g = gid.x;
    if g < params.segments {
        segment_sums[j * params.segments + g] = xyzz_pack(segment_sum(j, g));
    }
}

@compute @workgroup_size(WG)
fn groups(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let j = wid.y;
    let g = wid.x * WG + li;
    tree[li] = xyzz_pack(xyzz_identity());
    if g < params.segments {
        tree[li] = segment_sums[j * params.segments + g];
    }
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if li < half {
            tree[li] = xyzz_pack(xyzz_add(xyzz_unpack(tree[li]), xyzz_unpack(tree[li + half])));
        }
        workgroupBarrier();
    }
    if li == 0u {
        group_sums[j * groups_per_window() + wid.x] = tree[0];
    }
}

@compute @workgroup_size(WIN_WG)
fn windows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let j = wid.x;
    let groups = groups_per_window();
    win_tree[li] = xyzz_pack(xyzz_identity());
    if li < groups {
        win_tree[li] = group_sums[j * groups + li];
    }
    workgroupBarrier();
    for (var half = WIN_WG / 2u; half > 0u; half >>= 1u) {
        if li < half {
            win_tree[li] = xyzz_pack(xyzz_add(xyzz_unpack(win_tree[li]), xyzz_unpack(win_tree[li + half])));
        }
        workgroupBarrier();
    }
    if li == 0u {
        window_sums[j] = win_tree[0];
    }
}
