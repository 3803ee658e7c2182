// reduce: window sums W_j = sum_k k B_{j,k} by running sums, then one point
// per window for the host's Horner step Q = sum_j 2^(c j) W_j.
//
// With P buckets a segment, segment g of window j (buckets [gP, gP + P))
// gives T_g = sum (i - gP + 1) B_i and U_g = P sum B_i, and
// W_j = sum_g T_g + sum_g g U_g. The weights g come from suffix sums,
// sum_g g U_g = sum_{k >= 1} sum_{g >= k} U_g, in two levels of trees:
//
// segments: invocation (g, j) walks its buckets down (running += B_i;
//   total += running) and doubles the running sum by P: writes (T_g, U_g).
// groups: group x of row j takes segments x WG.. (a row with fewer
//   segments than WG takes a sub-block of the workgroup): a suffix scan of the U,
//   then E_x = sum T + sum_{k >= 1} suffix_k in a tree, and V_x = sum U;
//   writes (E_x, V_x).
// windows: one workgroup per window does the same over its groups, with
//   the suffixes weighted by WG (doublings): W_j = sum E_x + WG sum_x x V_x.
//
// accumulate (jobs of one chain, LINK_CHAINED: a vector's parts or chunks
//   over one plan): one invocation per bucket adds the job's bucket sum into
//   chain_sums; only the chain's last job runs the kernels above, and its
//   segments read chain_sums instead of the records.
//
// Each kernel has one call site of xyzz_add (operands chosen per step;
// segments' is xyzz_add_q, mixed where the bucket's sum is affine):
// drivers inline every call, and compile time grows faster than the code:
// the first version's seven inlined additions took NVIDIA's compiler 96 s,
// two per kernel still 10-12 s (docs/benchmarks.md).
#import config
#import curve

// workgroup size of segments and groups
override WG: u32 = 64u;
// workgroup size of windows: a row's groups rounded up to a power of two
// (16 at 2^16)
override WIN_WG: u32 = 16u;

@group(0) @binding(0) var<uniform> params: MsmParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> bucket_sums: array<PointRecord>;
@group(0) @binding(3) var<storage, read_write> group_sums: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(4) var<storage, read_write> window_sums: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(5) var<storage, read> split_sums: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(6) var<storage, read_write> segment_sums: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(7) var<storage, read_write> chain_sums: array<array<u32, XYZZ_WORDS>>;

var<workgroup> tree: array<array<u32, XYZZ_WORDS>, WG>;
var<workgroup> win_tree: array<array<u32, XYZZ_WORDS>, WIN_WG>;

// Group sums per window: segments / WG, rounded up.
fn groups_per_window() -> u32 {
    return (params.segments + WG - 1u) / WG;
}

// Lanes of a group in `groups`: WG, or a row's segments rounded up to a
// power of two when fewer, so that rows with few segments share workgroups.
fn group_span() -> u32 {
    return min(WG, 1u << ceil_log2(params.segments));
}

// The bucket sum of bucket b as XYZZ (identity when empty), and whether it
// has zz = zzz = 1 (an affine sum: most buckets; the mixed addition's case).
fn bucket_point(b: u32, affine: ptr<function, bool>) -> Xyzz {
    *affine = false;
    if (params.link & LINK_CHAINED) != 0u {
        return xyzz_unpack(chain_sums[b]);
    }
    return own_bucket(b, affine);
}

// This job's sum of bucket b, from its records (see bucket_point).
fn own_bucket(b: u32, affine: ptr<function, bool>) -> Xyzz {
    *affine = false;
    if counts[b] == 0u {
        return xyzz_identity();
    }
    let rec = bucket_sums[b];
    if rec.valid == VALID_XYZZ {
        return xyzz_unpack(split_sums[rec.through]);
    }
    if rec.valid != 0u {
        *affine = true;
        return xyzz_from_affine(Affine(fq_unpack(rec.x), fq_unpack(rec.y)));
    }
    return xyzz_identity();
}

// Segment g of window j: (T, U) = (sum_i (i - lo + 1) B_i, P sum_i B_i)
// over its buckets [lo, hi). Steps, one addition each: per bucket (walking
// down) running += B_i (mixed where B_i is affine), then total +=
// running; then P * running by
// double-and-add into acc (acc = running, then per bit of P below the top:
// acc += acc, and acc += running where set).
fn segment_sum(j: u32, g: u32) -> array<Xyzz, 2> {
    let per = (params.buckets + params.segments - 1u) / params.segments;
    let lo = min(g * per, params.buckets);
    let hi = min(lo + per, params.buckets);
    var running = xyzz_identity();
    var total = xyzz_identity();
    var acc = xyzz_identity();
    var i = hi;
    var second = false;
    var bit = firstLeadingBit(per);
    // 0: buckets; 1: doublings and additions of the weight; 2: done
    var stage = 0u;
    if i == lo {
        stage = 2u;
    }
    loop {
        if stage == 2u {
            break;
        }
        var a: Xyzz;
        var b: Xyzz;
        // running += B_i with B_i affine: the mixed addition
        var b_affine = false;
        if stage == 0u {
            if second {
                a = total;
                b = running;
            } else {
                a = running;
                let at = j * params.buckets + i - 1u;
                b = bucket_point(at, &b_affine);
            }
        } else {
            a = acc;
            b = acc;
            if second {
                b = running;
            }
        }
        let c = xyzz_add_q(a, b, b_affine);
        if stage == 0u {
            if second {
                total = c;
                i -= 1u;
                if i == lo {
                    acc = running;
                    stage = 1u;
                    if bit == 0u || xyzz_is_identity(running) {
                        stage = 2u;
                    }
                }
            } else {
                running = c;
            }
            second = !second;
        } else {
            acc = c;
            if second {
                second = false;
                bit -= 1u;
            } else if ((per >> (bit - 1u)) & 1u) != 0u {
                second = true;
            } else {
                bit -= 1u;
            }
            if !second && bit == 0u {
                stage = 2u;
            }
        }
    }
    return array<Xyzz, 2>(total, acc);
}

// One invocation per (row, segment), rows back to back: no idle lanes when
// rows have fewer segments than a workgroup.
@compute @workgroup_size(WG)
fn segments(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = gid.x + gid.y * nwg.x * WG;
    let j = s / params.segments;
    let g = s - j * params.segments;
    if j < params.rows {
        let tu = segment_sum(j, g);
        let at = 2u * (j * params.segments + g);
        segment_sums[at] = xyzz_pack(tu[0]);
        segment_sums[at + 1u] = xyzz_pack(tu[1]);
    }
}

// A chain's running bucket sums: chain_sums[b] = (the earlier jobs' sum,
// where LINK_PRIOR) + this job's bucket sum, one invocation per bucket.
@compute @workgroup_size(WG)
fn accumulate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = gid.x + gid.y * nwg.x * WG;
    if b < params.rows * params.buckets {
        var affine = false;
        let own = own_bucket(b, &affine);
        var earlier = xyzz_identity();
        if (params.link & LINK_PRIOR) != 0u {
            earlier = xyzz_unpack(chain_sums[b]);
        }
        chain_sums[b] = xyzz_pack(xyzz_add_q(earlier, own, affine));
    }
}

// ceil(log2(m)) for m >= 1.
fn ceil_log2(m: u32) -> u32 {
    if m <= 1u {
        return 0u;
    }
    return firstLeadingBit(m - 1u) + 1u;
}

// Over the segments x WG.. of row j (or all of them, in a sub-block of
// group_span lanes, when fewer than WG): E = sum T + sum_{k >= 1} suffix_k
// of the U (= sum T + sum_k k U_k), V = sum U. Steps: log2(span) of the
// suffix scan, one of E's terms (t + suffix), log2(span) of the tree.
@compute @workgroup_size(WG)
fn groups(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let span = group_span();
    let row_lanes = groups_per_window() * span;
    let lane = (wid.x + wid.y * nwg.x) * WG + li;
    let j = lane / row_lanes;
    let r = lane - j * row_lanes;
    // the lane's segment is r; its index in its group k, its group x
    let k = li % span;
    let x = r / span;
    var t = xyzz_identity();
    tree[li] = xyzz_pack(xyzz_identity());
    if j < params.rows && r < params.segments {
        let at = 2u * (j * params.segments + r);
        t = xyzz_unpack(segment_sums[at]);
        tree[li] = segment_sums[at + 1u];
    }
    workgroupBarrier();
    let levels = ceil_log2(span);
    var v = xyzz_identity();
    for (var step = 0u; step < 2u * levels + 1u; step++) {
        var live = false;
        var a = xyzz_identity();
        var b = xyzz_identity();
        if step < levels {
            let d = 1u << step;
            live = k + d < span;
            if live {
                a = xyzz_unpack(tree[li]);
                b = xyzz_unpack(tree[li + d]);
            }
        } else if step == levels {
            live = true;
            a = t;
            if k == 0u {
                v = xyzz_unpack(tree[li]);
            } else {
                b = xyzz_unpack(tree[li]);
            }
        } else {
            let half = span >> (step - levels);
            live = k < half;
            if live {
                a = xyzz_unpack(tree[li]);
                b = xyzz_unpack(tree[li + half]);
            }
        }
        workgroupBarrier();
        if live {
            tree[li] = xyzz_pack(xyzz_add(a, b));
        }
        workgroupBarrier();
    }
    if k == 0u && j < params.rows {
        let at = 2u * (j * groups_per_window() + x);
        group_sums[at] = tree[li];
        group_sums[at + 1u] = xyzz_pack(v);
    }
}

// Over the groups of window j: W = sum E + WG sum_{k >= 1} suffix_k of the V.
// Steps: ceil(log2(groups)) of the suffix scan, log2(WG) doublings of each
// invocation's suffix, one of W's terms (e + WG suffix), then the tree.
@compute @workgroup_size(WIN_WG)
fn windows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let j = wid.x;
    let groups = groups_per_window();
    var e = xyzz_identity();
    win_tree[li] = xyzz_pack(xyzz_identity());
    if li < groups {
        let at = 2u * (j * groups + li);
        e = xyzz_unpack(group_sums[at]);
        win_tree[li] = group_sums[at + 1u];
    }
    workgroupBarrier();
    let levels = ceil_log2(groups);
    let doublings = ceil_log2(WG);
    var own = xyzz_identity();
    for (var step = 0u; step < 2u * levels + doublings + 1u; step++) {
        var live = false;
        var to_own = false;
        var a = xyzz_identity();
        var b = xyzz_identity();
        if step < levels {
            let d = 1u << step;
            live = li + d < groups;
            if live {
                a = xyzz_unpack(win_tree[li]);
                b = xyzz_unpack(win_tree[li + d]);
            }
        } else if step < levels + doublings {
            if step == levels && li > 0u && li < groups {
                own = xyzz_unpack(win_tree[li]);
            }
            live = !xyzz_is_identity(own);
            to_own = true;
            a = own;
            b = own;
        } else if step == levels + doublings {
            live = true;
            if doublings == 0u && li > 0u && li < groups {
                own = xyzz_unpack(win_tree[li]);
            }
            a = e;
            b = own;
        } else {
            let half = (1u << levels) >> (step - levels - doublings);
            live = li < half;
            if live {
                a = xyzz_unpack(win_tree[li]);
                b = xyzz_unpack(win_tree[li + half]);
            }
        }
        workgroupBarrier();
        if live {
            let c = xyzz_add(a, b);
            if to_own {
                own = c;
            } else {
                win_tree[li] = xyzz_pack(c);
            }
        }
        workgroupBarrier();
    }
    if li == 0u {
        window_sums[j] = win_tree[0];
    }
}
