// subgroup: resident bases checked for membership in the prime-order
// subgroup, one point per invocation, by the group's endomorphism test
// (`subgroup_params`, generated with its constants): [k]P (twice for
// BLS12-381 G1, refusing [k]P = P on the way) compared with the image of
// P under phi or psi, negated where the test says so. A point outside
// lowers `bad[0]` to its index in the whole set, as the bases kernel does
// for points it refuses, so one word tells the host the first bad point.
// Identity points (flag 1) pass. BN254's G1 (cofactor 1) never runs it.
#import curve
#import subgroup_params

struct SubgroupParams {
    // points in this dispatch
    n: u32,
    // index in the whole set of this dispatch's first point
    first: u32,
    // index in the part's planes of this dispatch's first point
    offset: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: SubgroupParams;
@group(0) @binding(1) var<storage, read> bases_x: array<FqWords>;
@group(0) @binding(2) var<storage, read> bases_y: array<FqWords>;
@group(0) @binding(3) var<storage, read> bases_flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> bad: array<atomic<u32>>;

override WG: u32 = 64u;

struct Sum {
    sum: Xyzz,
    // p = q: the sum is 2p, left to the caller's doubling
    equal: bool,
}

// p + q (madd-2008-s where `q_affine` says q's zz = zzz = 1, else
// add-2008-s) without the doubling branch of `xyzz_add_q`.
fn add_distinct(p: Xyzz, q: Xyzz, q_affine: bool) -> Sum {
    if xyzz_is_identity(p) {
        return Sum(q, false);
    }
    if xyzz_is_identity(q) {
        return Sum(p, false);
    }
    var u1 = p.x;
    var s1 = p.y;
    var zz = p.zz;
    var zzz = p.zzz;
    if !q_affine {
        u1 = fq_mul(p.x, q.zz);
        s1 = fq_mul(p.y, q.zzz);
        zz = fq_mul(p.zz, q.zz);
        zzz = fq_mul(p.zzz, q.zzz);
    }
    let pp_ = fq_sub(fq_mul(q.x, p.zz), u1);
    let r = fq_sub(fq_mul(q.y, p.zzz), s1);
    if fq_is_zero(pp_) {
        return Sum(xyzz_identity(), fq_is_zero(r));
    }
    let pp = fq_sqr(pp_);
    let ppp = fq_mul(pp_, pp);
    let q_ = fq_mul(u1, pp);
    let x3 = fq_sub(fq_sub(fq_sqr(r), ppp), fq_double(q_));
    let y3 = fq_sub(fq_mul(r, fq_sub(q_, x3)), fq_mul(s1, ppp));
    return Sum(Xyzz(x3, y3, fq_mul(zz, pp), fq_mul(zzz, ppp)), false);
}

// a == (x, y), a point that is not the identity.
fn equals_affine(a: Xyzz, x: Fq, y: Fq) -> bool {
    return !xyzz_is_identity(a) && fq_eq(a.x, fq_mul(x, a.zz)) && fq_eq(a.y, fq_mul(y, a.zzz));
}

@compute @workgroup_size(WG)
fn check(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n {
        return;
    }
    let at = params.offset + i;
    if bases_flags[at] != 0u {
        return;
    }
    let p = Affine(fq_unpack(bases_x[at]), fq_unpack(bases_y[at]));
    // [k]P (then [k]([k]P) for the two-step test), most significant bit
    // first, one doubling or one addition an iteration: the curve code
    // appears once in the shader (lavapipe compiles each copy for a minute).
    // Half-step h: even, a doubling; odd, an addition where k's bit is set.
    // An addition of equal points becomes the next iteration's doubling.
    var base = xyzz_from_affine(p);
    var affine = true;
    var a = xyzz_identity();
    var ok = true;
    let halves = 2u * select(1u, 2u, SUBGROUP_TWO_STEP) * SUBGROUP_K_BITS;
    var h = 0u;
    var double_next = false;
    loop {
        if h >= halves {
            break;
        }
        let j = h / 2u;
        if h == 2u * SUBGROUP_K_BITS && !double_next {
            // the two-step test: [k]P = P is refused, [k]P is the next base
            ok = !equals_affine(a, p.x, p.y);
            base = a;
            affine = false;
            a = xyzz_identity();
        }
        let b = SUBGROUP_K_BITS - 1u - j % SUBGROUP_K_BITS;
        let bit = ((SUBGROUP_K[b / 32u] >> (b % 32u)) & 1u) == 1u;
        if h % 2u == 0u || double_next {
            a = xyzz_double(a);
            double_next = false;
        } else if bit {
            let s = add_distinct(a, base, affine);
            if s.equal {
                double_next = true;
                continue;
            }
            a = s.sum;
        }
        h++;
    }
    let tx = fq_mul(subgroup_frobenius(p.x), fq_mul(fq_unpack(SUBGROUP_ENDO_X), FQ_R2));
    var ty = fq_mul(subgroup_frobenius(p.y), fq_mul(fq_unpack(SUBGROUP_ENDO_Y), FQ_R2));
    if SUBGROUP_NEGATE {
        ty = fq_neg(ty);
    }
    if !(ok && equals_affine(a, tx, ty)) {
        atomicMin(&bad[0], params.first + i);
    }
}
