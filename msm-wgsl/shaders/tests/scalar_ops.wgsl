// Test entry point: one conversion of the scalar module per invocation,
// selected by OP, on little-endian scalar words (FrWords). Keep OP codes in
// sync with msm-core's `diagnostics::ScalarOp`.
#import scalar

override OP: u32 = 0u;

@group(0) @binding(0) var<storage, read> in_a: array<FrWords>;
@group(0) @binding(1) var<storage, read_write> out: array<FrWords>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    switch OP {
        // arkworks' Montgomery form (R = 2^256) -> the canonical value
        case 0u: { out[i] = fr_pack(fr_from_mont(fr_unpack(in_a[i]))); }
        // any 256-bit value mod r
        case 1u: { out[i] = fr_reduce_words(in_a[i]); }
        default: {}
    }
}
