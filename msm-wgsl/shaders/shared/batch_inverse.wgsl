// Montgomery's trick across a workgroup: every invocation gives one non-zero
// value and gets back its inverse, and one fq_inv serves the whole workgroup.
//
// The values are the leaves of a product tree in workgroup memory, in heap
// order (node 1 is the root, node i has children 2i and 2i + 1, leaf li is
// node LEAVES + li; inner node i lives at inv_inner[i - 1], leaf li at
// inv_leaves[li], so that TPB = 256 takes 16,352 bytes and fits WebGPU's
// default 16 KiB with the caller's flags). Up: each node becomes the product of its children. One
// invocation inverts the root. Down: a node holding the inverse of its
// product hands each child the inverse times the sibling's product. Cost:
// 3 (LEAVES - 1) multiplications and one inversion per call.
//
// The importing shader declares `override TPB` (its workgroup size); the host
// sets LEAVES to TPB rounded up to a power of two (leaves past TPB hold one).
// Call it in workgroup-uniform control flow.
//
// With SUBGROUPS (the adapter's subgroup operations; the caller passes its
// subgroup builtins to `subgroup_init` first) the levels of the tree with
// fewer nodes than a subgroup has lanes are one subgroup's work, without
// barriers: it scans the W = min(subgroup size, LEAVES) nodes of that level
// by shuffles into each node's products before and after it, inverts their
// total once and gives node k inv(total) x before_k x after_k. Barriers:
// 2 log2(LEAVES / W) + 1 instead of 2 log2(LEAVES) + 1.
#import field

override LEAVES: u32 = 256u;
// LEAVES - 1 (at least 1): the inner nodes (an override, as naga sizes
// workgroup arrays by an override's name, not by an expression).
override INNER: u32 = 255u;

var<workgroup> inv_inner: array<array<u32, 8>, INNER>;
var<workgroup> inv_leaves: array<array<u32, 8>, LEAVES>;

fn tree_get(node: u32) -> array<u32, 8> {
    if node >= LEAVES {
        return inv_leaves[node - LEAVES];
    }
    return inv_inner[node - 1u];
}

fn tree_set(node: u32, v: array<u32, 8>) {
    if node >= LEAVES {
        inv_leaves[node - LEAVES] = v;
    } else {
        inv_inner[node - 1u] = v;
    }
}

#ifdef SUBGROUPS
var<private> sg_lane: u32;
var<private> sg_size: u32;
var<private> sg_id: u32;

fn subgroup_init(lane: u32, size: u32, id: u32) {
    sg_lane = lane;
    sg_size = size;
    sg_id = id;
}

fn sg_shuffle_up(x: Fq, d: u32) -> Fq {
    let v = fq_pack(x);
    var r: array<u32, 8>;
    for (var i = 0u; i < 8u; i++) {
        r[i] = subgroupShuffleUp(v[i], d);
    }
    return fq_unpack(r);
}

fn sg_shuffle_down(x: Fq, d: u32) -> Fq {
    let v = fq_pack(x);
    var r: array<u32, 8>;
    for (var i = 0u; i < 8u; i++) {
        r[i] = subgroupShuffleDown(v[i], d);
    }
    return fq_unpack(r);
}

fn sg_broadcast_first(x: Fq) -> Fq {
    let v = fq_pack(x);
    var r: array<u32, 8>;
    for (var i = 0u; i < 8u; i++) {
        r[i] = subgroupBroadcast(v[i], 0u);
    }
    return fq_unpack(r);
}

// Every lane's inverse of its value, by one inversion (subgroup-uniform
// flow): Hillis-Steele scans both ways give each lane the products of the
// lanes before and after it.
fn sg_batch_inverse(x: Fq) -> Fq {
    var pre = x;
    var suf = x;
    for (var d = 1u; d < sg_size; d <<= 1u) {
        let a = sg_shuffle_up(pre, d);
        let b = sg_shuffle_down(suf, d);
        if sg_lane >= d {
            pre = fq_mul(pre, a);
        }
        if sg_lane + d < sg_size {
            suf = fq_mul(suf, b);
        }
    }
    var before = sg_shuffle_up(pre, 1u);
    var after = sg_shuffle_down(suf, 1u);
    if sg_lane == 0u {
        before = FQ_ONE;
    }
    if sg_lane + 1u == sg_size {
        after = FQ_ONE;
    }
    var inv_all = FQ_ONE;
    if sg_lane == 0u {
        inv_all = fq_inv(suf);
    }
    return fq_mul(sg_broadcast_first(inv_all), fq_mul(before, after));
}
#endif

fn batch_inverse(li: u32, x: Fq) -> Fq {
    inv_leaves[li] = fq_pack(x);
    if li + TPB < LEAVES {
        inv_leaves[li + TPB] = fq_pack(FQ_ONE);
    }
    workgroupBarrier();
#ifdef SUBGROUPS
    // the level of W nodes, [W, 2W), is the subgroup's
    let top = min(sg_size, LEAVES);
#else
    let top = 1u;
#endif
    for (var half = LEAVES / 2u; half >= top; half >>= 1u) {
        if li < half {
            let node = half + li;
            let l = fq_unpack(tree_get(2u * node));
            let r = fq_unpack(tree_get(2u * node + 1u));
            inv_inner[node - 1u] = fq_pack(fq_mul(l, r));
        }
        workgroupBarrier();
    }
#ifdef SUBGROUPS
    if sg_id == 0u {
        var v = FQ_ONE;
        if sg_lane < top {
            v = fq_unpack(tree_get(top + sg_lane));
        }
        let inv = sg_batch_inverse(v);
        if sg_lane < top {
            tree_set(top + sg_lane, fq_pack(inv));
        }
    }
#else
    if li == 0u {
        tree_set(1u, fq_pack(fq_inv(fq_unpack(tree_get(1u)))));
    }
#endif
    workgroupBarrier();
    for (var half = top; half < LEAVES; half <<= 1u) {
        if li < half {
            let node = half + li;
            let inv = fq_unpack(inv_inner[node - 1u]);
            let l = fq_unpack(tree_get(2u * node));
            let r = fq_unpack(tree_get(2u * node + 1u));
            tree_set(2u * node, fq_pack(fq_mul(inv, r)));
            tree_set(2u * node + 1u, fq_pack(fq_mul(inv, l)));
        }
        workgroupBarrier();
    }
    return fq_unpack(inv_leaves[li]);
}
