// Chained field operations, ITERS times per invocation:
//   OP 0: x <- x * y (multiplication throughput);
//   OP 1: x <- y / x = fq_inv(x) * y (inversion throughput; period 2);
//   OP 2: x <- x^2 (squaring throughput).
// Being one long dependent chain, it also shows whether a driver's loop budget
// cut the loop short (the result would be wrong).
#import field

override ITERS: u32 = 64u;
override OP: u32 = 0u;
override WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> in_a: array<FqWords>;
@group(0) @binding(1) var<storage, read> in_b: array<FqWords>;
@group(0) @binding(2) var<storage, read_write> out: array<FqWords>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= arrayLength(&out) {
        return;
    }
    var x = fq_unpack(in_a[i]);
    let y = fq_unpack(in_b[i]);
    if OP == 0u {
        for (var k = 0u; k < ITERS; k++) {
            x = fq_mul(x, y);
        }
    } else if OP == 2u {
        for (var k = 0u; k < ITERS; k++) {
            x = fq_sqr(x);
        }
    } else {
        for (var k = 0u; k < ITERS; k++) {
            x = fq_mul(fq_inv(x), y);
        }
    }
    out[i] = fq_pack(x);
}
