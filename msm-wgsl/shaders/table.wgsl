// table: a resident table of shifted bases, so that every digit window of an
// MSM adds into one row of buckets (window j's digit of scalar i names the
// point 2^(c j) P_i).
//
// The table of a part of L points holds T windows of L points each, window
// major: point i of window j is at j * stride + i (stride = L). Window 0 is
// the bases themselves (copied by the host); dispatch j fills window j from
// window j - 1: c doublings in XYZZ coordinates, then one inversion per
// point back to affine. Points flagged as the identity stay zero (the MSM
// skips them through the same flags).
#import curve

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

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn shift(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n {
        return;
    }
    let at = params.window * params.stride + i;
    if table_flags[i] != 0u {
        table_x[at] = FqWords();
        table_y[at] = FqWords();
        return;
    }
    let prev = at - params.stride;
    var p = xyzz_from_affine(Affine(fq_unpack(table_x[prev]), fq_unpack(table_y[prev])));
    // A point of the prime-order group never doubles into the identity.
    for (var k = 0u; k < params.c; k++) {
        p = xyzz_double(p);
    }
    // ZZ^3 = ZZZ^2, so 1 / ZZ = ZZ^2 / ZZZ^2: one inversion for both.
    let zzz_inv = fq_inv(p.zzz);
    let zz_inv = fq_mul(fq_sqr(p.zz), fq_sqr(zzz_inv));
    table_x[at] = fq_pack(fq_mul(p.x, zz_inv));
    table_y[at] = fq_pack(fq_mul(p.y, zzz_inv));
}
