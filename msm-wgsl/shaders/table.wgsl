// table: a resident table of shifted bases, so that every digit window of an
// MSM adds into one row of buckets (window j's digit of scalar i names the
// point 2^(c j) P_i).
//
// The table of a part of L points holds T windows of L points each, window
// major: point i of window j is at j * stride + i (stride = L). Window 0 is
// the bases themselves (copied by the host); dispatch j fills window j from
// window j - 1: c doublings in Jacobian coordinates (7 products each, XYZZ's
// take 9), then back to affine with one inversion per workgroup (Montgomery's
// trick over the workgroup's Z, `batch_inverse`) instead of one per point.
// Points flagged as the identity stay zero (the MSM skips them through the
// same flags).
#import curve
#import jacobian
#import batch_inverse

struct TableParams {
    // points of the part
    n: u32,
    // points per window in the table (the part's length)
    stride: u32,
    // doublings between windows: the window width c
    c: u32,
    // the window this dispatch fills (1..T)
    window: u32,
}

@group(0) @binding(0) var<uniform> params: TableParams;
@group(0) @binding(1) var<storage, read_write> table_x: array<FqWords>;
@group(0) @binding(2) var<storage, read_write> table_y: array<FqWords>;
@group(0) @binding(3) var<storage, read> table_flags: array<u32>;

// the workgroup: the leaves of its inversion tree
override TPB: u32 = 64u;

@compute @workgroup_size(TPB)
fn shift(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let i = gid.x + gid.y * nwg.x * TPB;
    let at = params.window * params.stride + i;
    var live = false;
    if i < params.n {
        live = table_flags[i] == 0u;
    }
    var p = jac_identity();
    if live {
        let prev = at - params.stride;
        p = jac_from_affine(Affine(fq_unpack(table_x[prev]), fq_unpack(table_y[prev])));
        for (var k = 0u; k < params.c; k++) {
            p = jac_double(p);
        }
    }
    // A point of the prime-order group never doubles into the identity; a
    // Z of 0 would zero every inverse of the tree, so it leaves (as zeros).
    let own = live && !fq_is_zero(p.z);
    var z = FQ_ONE;
    if own {
        z = fq_canon(p.z);
    }
    // every invocation takes part: the tree's barriers
    let z_inv = batch_inverse(li, z);
    if i >= params.n {
        return;
    }
    if own {
        let zz_inv = fq_sqr(z_inv);
        table_x[at] = fq_pack(fq_mul(p.x, zz_inv));
        table_y[at] = fq_pack(fq_mul(p.y, fq_mul(zz_inv, z_inv)));
    } else {
        table_x[at] = FqWords();
        table_y[at] = FqWords();
    }
}
