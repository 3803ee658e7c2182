// Test entry point: one field operation per invocation, selected by OP.
// Inputs and outputs are packed words (FqWords: 8 for BN254, 12 for
// BLS12-381). Keep OP codes in sync with
// msm-core's `diagnostics::FieldOp`.
#import config
#import field

override OP: u32 = 0u;

@group(0) @binding(0) var<storage, read> in_a: array<FqWords>;
@group(0) @binding(1) var<storage, read> in_b: array<FqWords>;
@group(0) @binding(2) var<storage, read_write> out: array<FqWords>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    let a = fq_unpack(in_a[i]);
    let b = fq_unpack(in_b[i]);
    var r = Fq();
    // OP 9 and 10 answer a flag in word 0
    var flag = 0u;
    switch OP {
        case 0u: { r = fq_add(a, b); }
        case 1u: { r = fq_sub(a, b); }
        case 2u: { r = fq_neg(a); }
        case 3u: { r = fq_mul(a, b); }
        case 4u: { r = fq_sqr(a); }
        case 5u: { r = fq_inv(a); }
        case 6u: { r = fq_to_mont(a); }
        case 7u: { r = fq_from_mont(a); }
        case 8u: { r = fq_double(a); }
        case 9u: { flag = u32(fq_eq(a, b)); }
        case 10u: { flag = u32(fq_is_zero(a)); }
        case 11u: { r = fq_mul_raw(a, b); }
        case 12u: { r = fq_sqr_raw(a); }
        default: {}
    }
    var w = fq_pack(r);
    if OP == 9u || OP == 10u {
        w[0] = flag;
    }
    out[i] = w;
}
