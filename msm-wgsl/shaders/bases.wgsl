// bases: resident bases from the caller's bytes, converted and checked on
// the GPU (the host does no per-point work).
//
// Each point arrives as 2 FQ_WORDS little-endian words, x then y (64 bytes
// for BN254):
// - BASES_ARKWORKS: arkworks' uncompressed encoding; the top two bits of y
//   are flags (bit 31: y is "negative", i.e. above (p - 1) / 2; bit 30: the
//   identity, whose coordinates are then zero). Only the one encoding
//   arkworks writes for a point passes.
// - BASES_RAW: plain coordinates; 64 zero bytes are the identity.
// A point is converted to the packed Montgomery form of the field layout
// (x, y planes) with its identity flag. A point that is not canonical, not
// on y^2 = x^3 + b or wrongly flagged lowers `bad[0]` to its index in the
// whole set, so the host learns the first bad point from one word.
#import field

struct BasesParams {
    // points in this dispatch
    n: u32,
    // index in the whole set of this dispatch's first point
    first: u32,
    // BASES_ARKWORKS or BASES_RAW
    format: u32,
    // index in the output planes of this dispatch's first point
    out_offset: u32,
}

const BASES_ARKWORKS: u32 = 0u;
const BASES_RAW: u32 = 1u;
const FLAG_Y_NEGATIVE: u32 = 0x80000000u;
const FLAG_INFINITY: u32 = 0x40000000u;

@group(0) @binding(0) var<uniform> params: BasesParams;
@group(0) @binding(1) var<storage, read> raw: array<array<u32, POINT_WORDS>>;
@group(0) @binding(2) var<storage, read_write> out_x: array<FqWords>;
@group(0) @binding(3) var<storage, read_write> out_y: array<FqWords>;
@group(0) @binding(4) var<storage, read_write> out_flags: array<u32>;
@group(0) @binding(5) var<storage, read_write> bad: array<atomic<u32>>;

override WG: u32 = 64u;
// an affine point's input words
const POINT_WORDS: u32 = 2u * FQ_WORDS;

// a < b over little-endian words.
fn words_lt(a: FqWords, b: FqWords) -> bool {
    var lt = false;
    for (var k = 0u; k < FQ_WORDS; k++) {
        lt = select(lt, a[k] < b[k], a[k] != b[k]);
    }
    return lt;
}

fn words_or(a: FqWords) -> u32 {
    var v = 0u;
    for (var k = 0u; k < FQ_WORDS; k++) {
        v |= a[k];
    }
    return v;
}

// (p - 1) / 2 as words: p >> 1 (p is odd).
fn half_p(p: FqWords) -> FqWords {
    var h: FqWords;
    for (var k = 0u; k < FQ_WORDS; k++) {
        var hi = 0u;
        if k + 1u < FQ_WORDS {
            hi = p[k + 1u] << 31u;
        }
        h[k] = (p[k] >> 1u) | hi;
    }
    return h;
}

@compute @workgroup_size(WG)
fn convert(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n {
        return;
    }
    let w = raw[i];
    var x: FqWords;
    var y: FqWords;
    for (var k = 0u; k < FQ_WORDS; k++) {
        x[k] = w[k];
        y[k] = w[FQ_WORDS + k];
    }
    let top = FQ_WORDS - 1u;
    var flags = 0u;
    if params.format == BASES_ARKWORKS {
        flags = y[top] & (FLAG_Y_NEGATIVE | FLAG_INFINITY);
        y[top] &= ~(FLAG_Y_NEGATIVE | FLAG_INFINITY);
    }
    let zero = (words_or(x) | words_or(y)) == 0u;
    var identity = false;
    var ok = true;
    if params.format == BASES_RAW {
        identity = zero;
    } else if (flags & FLAG_INFINITY) != 0u {
        identity = true;
        ok = zero && flags == FLAG_INFINITY;
    }
    var xm = Fq();
    var ym = Fq();
    if !identity {
        let p = fq_pack(FQ_P);
        ok = words_lt(x, p) && words_lt(y, p);
        if ok {
            xm = fq_mul(fq_unpack(x), FQ_R2);
            ym = fq_mul(fq_unpack(y), FQ_R2);
            let rhs = fq_add(fq_mul(fq_sqr(xm), xm), fq_mul(fq_unpack(CURVE_B), FQ_R2));
            ok = fq_eq(fq_sqr(ym), rhs);
            if params.format == BASES_ARKWORKS {
                let negative = words_lt(half_p(p), y);
                ok = ok && negative == (flags == FLAG_Y_NEGATIVE);
            }
        }
    }
    let o = params.out_offset + i;
    out_x[o] = fq_pack(xm);
    out_y[o] = fq_pack(ym);
    out_flags[o] = u32(identity);
    if !ok {
        atomicMin(&bad[0], params.first + i);
    }
}
