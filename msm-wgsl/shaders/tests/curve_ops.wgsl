// Test entry point: one curve operation per invocation, selected by OP.
// Points are packed words: affine (x, y) in the first 2 FQ_WORDS, XYZZ in
// XYZZ_WORDS. Keep OP
// codes in sync with msm-core's `diagnostics::CurveOp`.
#import curve

override OP: u32 = 0u;

@group(0) @binding(0) var<storage, read> in_a: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(1) var<storage, read> in_b: array<array<u32, XYZZ_WORDS>>;
@group(0) @binding(2) var<storage, read_write> out: array<array<u32, XYZZ_WORDS>>;

fn coordinate(v: array<u32, XYZZ_WORDS>, k: u32) -> Fq {
    var w: FqWords;
    for (var j = 0u; j < FQ_WORDS; j++) {
        w[j] = v[FQ_WORDS * k + j];
    }
    return fq_unpack(w);
}

fn load_affine(v: array<u32, XYZZ_WORDS>) -> Affine {
    return Affine(coordinate(v, 0u), coordinate(v, 1u));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    let va = in_a[i];
    let vb = in_b[i];
    var r = xyzz_identity();
    switch OP {
        // affine + affine through the shared-inverse formula (x differ)
        case 0u: {
            let p = load_affine(va);
            let q = load_affine(vb);
            r = xyzz_from_affine(affine_add_with_inv(p, q, fq_inv(fq_sub(q.x, p.x))));
        }
        // affine doubling with the inverse of 2y
        case 1u: {
            let p = load_affine(va);
            r = xyzz_from_affine(affine_double_with_inv(p, fq_inv(fq_double(p.y))));
        }
        case 2u: { r = xyzz_double(xyzz_unpack(va)); }
        case 3u: { r = xyzz_add_affine(xyzz_unpack(va), load_affine(vb)); }
        case 4u: { r = xyzz_add(xyzz_unpack(va), xyzz_unpack(vb)); }
        case 5u: { r = xyzz_neg(xyzz_unpack(va)); }
        case 6u: { r = xyzz_from_affine(affine_neg(load_affine(va))); }
        // both points affine (zz = zzz = 1), as walker_combine's owners' first step
        case 7u: {
            r = xyzz_add_pq(xyzz_from_affine(load_affine(va)), xyzz_from_affine(load_affine(vb)), true, true);
        }
        // affine a (flagged) plus XYZZ b, as an owner's tail plus a block's sum
        case 8u: { r = xyzz_add_pq(xyzz_from_affine(load_affine(va)), xyzz_unpack(vb), true, false); }
        default: {}
    }
    out[i] = xyzz_pack(r);
}
