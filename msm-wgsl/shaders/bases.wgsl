// bases: resident bases from the caller's bytes, converted and checked on
// the GPU (the host does no per-point work), in every curve group.
//
// A point arrives as 2 FQ_WORDS words read little-endian from its bytes: x
// then y, each coordinate DEGREE base-field elements of FP_WORDS words.
// - BASES_ARKWORKS (BN254): arkworks' uncompressed encoding, little-endian,
//   c0 before c1; the top two bits of y's last byte are flags (bit 31 of
//   the last word: y is "negative", y > -y in arkworks' order, which
//   compares c1 first; bit 30: the identity, whose coordinates are then
//   zero).
// - BASES_ZCASH (BLS12-381's arkworks encoding): each element big-endian,
//   c1 before c0; the top three bits of the first byte are flags
//   (compressed, identity, sort): uncompressed points carry none, the
//   identity only its own and zero coordinates.
// - BASES_RAW: plain coordinates, little-endian, c0 first; all zero words
//   are the identity.
// - BASES_MONTGOMERY: as BASES_RAW, each element in Montgomery form of
//   radix 2^(32 FP_WORDS) (ffjavascript's: snarkjs's keys).
// A point is converted to the packed Montgomery form of the field layout
// (x, y planes) with its identity flag. A point that is not canonical, not
// on y^2 = x^3 + b or wrongly flagged lowers `bad[0]` to its index in the
// whole set, so the host learns the first bad point from one word (and
// its CPU twin says why).
#import field

struct BasesParams {
    // points in this dispatch
    n: u32,
    // index in the whole set of this dispatch's first point
    first: u32,
    // BASES_ARKWORKS, BASES_RAW, BASES_ZCASH or BASES_MONTGOMERY
    format: u32,
    // index in the output planes of this dispatch's first point
    out_offset: u32,
}

const BASES_ARKWORKS: u32 = 0u;
const BASES_RAW: u32 = 1u;
const BASES_ZCASH: u32 = 2u;
const BASES_MONTGOMERY: u32 = 3u;
// BN254's flags in y's last word
const FLAG_Y_NEGATIVE: u32 = 0x80000000u;
const FLAG_INFINITY: u32 = 0x40000000u;
// zcash's flags in the first byte (x's top word once decoded)
const ZCASH_FLAGS: u32 = 0xe0000000u;

@group(0) @binding(0) var<uniform> params: BasesParams;
@group(0) @binding(1) var<storage, read> raw: array<array<u32, POINT_WORDS>>;
@group(0) @binding(2) var<storage, read_write> out_x: array<FqWords>;
@group(0) @binding(3) var<storage, read_write> out_y: array<FqWords>;
@group(0) @binding(4) var<storage, read_write> out_flags: array<u32>;
@group(0) @binding(5) var<storage, read_write> bad: array<atomic<u32>>;

override WG: u32 = 64u;
// an affine point's input words
const POINT_WORDS: u32 = 2u * FQ_WORDS;
// base-field elements of a coordinate: 1 (Fq) or 2 (Fq2)
const DEGREE: u32 = FQ_WORDS / FP_WORDS;

// The bytes of a word in reverse order.
fn bswap(v: u32) -> u32 {
    return (v >> 24u) | ((v >> 8u) & 0xff00u) | ((v << 8u) & 0xff0000u) | (v << 24u);
}

// Element `d` (c0, c1) of a packed coordinate.
fn part(a: FqWords, d: u32) -> FpWords {
    var e: FpWords;
    for (var k = 0u; k < FP_WORDS; k++) {
        e[k] = a[d * FP_WORDS + k];
    }
    return e;
}

// a < b over little-endian words.
fn words_lt(a: FpWords, b: FpWords) -> bool {
    var lt = false;
    for (var k = 0u; k < FP_WORDS; k++) {
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
fn half_p() -> FpWords {
    let p = FP_P_WORDS;
    var h: FpWords;
    for (var k = 0u; k < FP_WORDS; k++) {
        var hi = 0u;
        if k + 1u < FP_WORDS {
            hi = p[k + 1u] << 31u;
        }
        h[k] = (p[k] >> 1u) | hi;
    }
    return h;
}

// Every element of a coordinate below p.
fn canonical(a: FqWords) -> bool {
    var ok = true;
    for (var d = 0u; d < DEGREE; d++) {
        ok = ok && words_lt(part(a, d), FP_P_WORDS);
    }
    return ok;
}

// y > -y in arkworks' order (the top element decides unless it is zero).
fn y_negative(y: FqWords) -> bool {
    var top = 0u;
    for (var d = 1u; d < DEGREE; d++) {
        if words_or_fp(part(y, d)) != 0u {
            top = d;
        }
    }
    return words_lt(half_p(), part(y, top));
}

fn words_or_fp(a: FpWords) -> u32 {
    var v = 0u;
    for (var k = 0u; k < FP_WORDS; k++) {
        v |= a[k];
    }
    return v;
}

// Coordinate `c` (0: x, 1: y) of the point's words in the packed order
// (c0's little-endian words, then c1's).
fn coordinate(w: array<u32, POINT_WORDS>, c: u32, zcash: bool) -> FqWords {
    var a: FqWords;
    for (var d = 0u; d < DEGREE; d++) {
        // zcash writes c1 before c0, each element big-endian
        let src = (c * DEGREE + select(d, DEGREE - 1u - d, zcash)) * FP_WORDS;
        for (var k = 0u; k < FP_WORDS; k++) {
            a[d * FP_WORDS + k] = select(w[src + k], bswap(w[src + FP_WORDS - 1u - k]), zcash);
        }
    }
    return a;
}

@compute @workgroup_size(WG)
fn convert(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n {
        return;
    }
    let w = raw[i];
    let zcash = params.format == BASES_ZCASH;
    var x = coordinate(w, 0u, zcash);
    var y = coordinate(w, 1u, zcash);
    let top = FQ_WORDS - 1u;
    var flags = 0u;
    if params.format == BASES_ARKWORKS {
        flags = y[top] & (FLAG_Y_NEGATIVE | FLAG_INFINITY);
        y[top] &= ~(FLAG_Y_NEGATIVE | FLAG_INFINITY);
    } else if zcash {
        // the first byte: x's top word (of c1 over Fq2) once decoded
        flags = x[top] & ZCASH_FLAGS;
        x[top] &= ~ZCASH_FLAGS;
    }
    let zero = (words_or(x) | words_or(y)) == 0u;
    var identity = false;
    var ok = true;
    if params.format == BASES_RAW || params.format == BASES_MONTGOMERY {
        identity = zero;
    } else if (flags & FLAG_INFINITY) != 0u {
        // bit 30 is the identity in both encodings
        identity = true;
        ok = zero && flags == FLAG_INFINITY;
    }
    var xm = Fq();
    var ym = Fq();
    if !identity {
        ok = canonical(x) && canonical(y);
        if ok {
            var into = FQ_R2;
            if params.format == BASES_MONTGOMERY {
                into = FQ_RMONT;
            }
            xm = fq_mul(fq_unpack(x), into);
            ym = fq_mul(fq_unpack(y), into);
            let rhs = fq_add(fq_mul(fq_sqr(xm), xm), fq_mul(fq_unpack(CURVE_B), FQ_R2));
            ok = fq_eq(fq_sqr(ym), rhs);
            if params.format == BASES_ARKWORKS {
                ok = ok && y_negative(y) == (flags == FLAG_Y_NEGATIVE);
            } else if zcash {
                ok = ok && flags == 0u;
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
