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
#import field

override LEAVES: u32 = 256u;
// LEAVES - 1 (at least 1): the inner nodes (an override, as naga sizes
// workgroup arrays by an override's name, not by an expression).
override INNER: u32 = 255u;

var<workgroup> inv_inner: array<FqWords, INNER>;
var<workgroup> inv_leaves: array<FqWords, LEAVES>;

fn tree_get(node: u32) -> FqWords {
    if node >= LEAVES {
        return inv_leaves[node - LEAVES];
    }
    return inv_inner[node - 1u];
}

fn tree_set(node: u32, v: FqWords) {
    if node >= LEAVES {
        inv_leaves[node - LEAVES] = v;
    } else {
        inv_inner[node - 1u] = v;
    }
}

fn batch_inverse(li: u32, x: Fq) -> Fq {
    inv_leaves[li] = fq_pack(x);
    if li + TPB < LEAVES {
        inv_leaves[li + TPB] = fq_pack(FQ_ONE);
    }
    workgroupBarrier();
    for (var half = LEAVES / 2u; half > 0u; half >>= 1u) {
        if li < half {
            let node = half + li;
            let l = fq_unpack(tree_get(2u * node));
            let r = fq_unpack(tree_get(2u * node + 1u));
            inv_inner[node - 1u] = fq_pack(fq_mul(l, r));
        }
        workgroupBarrier();
    }
    if li == 0u {
        tree_set(1u, fq_pack(fq_inv(fq_unpack(tree_get(1u)))));
    }
    workgroupBarrier();
    for (var half = 1u; half < LEAVES; half <<= 1u) {
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
