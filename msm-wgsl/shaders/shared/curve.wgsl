// G1 of the curve: y^2 = x^3 + b over Fq (a = 0; b in `curve_params`),
// on top of the field module.
#import field

// An affine point that is not the identity; callers carry identity separately
// (a flag, or a bucket that is simply absent).
struct Affine {
    x: Fq,
    y: Fq,
}

// Extended Jacobian ("XYZZ") coordinates: x = X / ZZ, y = Y / ZZZ, with
// ZZ^3 = ZZZ^2. The identity is any point with ZZ = 0.
struct Xyzz {
    x: Fq,
    y: Fq,
    zz: Fq,
    zzz: Fq,
}

fn affine_neg(p: Affine) -> Affine {
    return Affine(p.x, fq_neg(p.y));
}

// p + q for p.x != q.x, given inv = 1 / (q.x - p.x) (shared through a batch inversion).
fn affine_add_with_inv(p: Affine, q: Affine, inv: Fq) -> Affine {
    // lambda only meets products: it may stay below 2p; inv below 2p too
    let lambda = fq_mul_raw(fq_sub(q.y, p.y), inv);
    let x3 = fq_sub(fq_sub(fq_sqr(lambda), p.x), q.x);
    let y3 = fq_sub(fq_mul(lambda, fq_sub(p.x, x3)), p.y);
    return Affine(x3, y3);
}

// 2p for p.y != 0, given inv = 1 / (2 p.y).
fn affine_double_with_inv(p: Affine, inv: Fq) -> Affine {
    let xx = fq_sqr(p.x);
    let lambda = fq_mul(fq_add(fq_double(xx), xx), inv);
    let x3 = fq_sub(fq_sqr(lambda), fq_double(p.x));
    let y3 = fq_sub(fq_mul(lambda, fq_sub(p.x, x3)), p.y);
    return Affine(x3, y3);
}

fn xyzz_identity() -> Xyzz {
    return Xyzz(FQ_ONE, FQ_ONE, Fq(), Fq());
}

fn xyzz_is_identity(p: Xyzz) -> bool {
    return fq_is_zero(p.zz);
}

fn xyzz_from_affine(p: Affine) -> Xyzz {
    return Xyzz(p.x, p.y, FQ_ONE, FQ_ONE);
}

fn xyzz_neg(p: Xyzz) -> Xyzz {
    return Xyzz(p.x, fq_neg(p.y), p.zz, p.zzz);
}

// dbl-2008-s-1 (a = 0). The identity (ZZ = 0) and points with y = 0 (V = 0) map
// to ZZ3 = 0, the identity, without a branch.
fn xyzz_double(p: Xyzz) -> Xyzz {
    let u = fq_double(p.y);
    let v = fq_sqr(u);
    let w = fq_mul(u, v);
    let s = fq_mul(p.x, v);
    let xx = fq_sqr(p.x);
    let m = fq_add(fq_double(xx), xx);
    let x3 = fq_sub(fq_sqr(m), fq_double(s));
    let y3 = fq_sub(fq_mul(m, fq_sub(s, x3)), fq_mul(w, p.y));
    return Xyzz(x3, y3, fq_mul(v, p.zz), fq_mul(w, p.zzz));
}

// p + q with q affine (madd-2008-s); handles p = identity, p = q and p = -q.
fn xyzz_add_affine(p: Xyzz, q: Affine) -> Xyzz {
    if xyzz_is_identity(p) {
        return xyzz_from_affine(q);
    }
    let u2 = fq_mul(q.x, p.zz);
    let s2 = fq_mul(q.y, p.zzz);
    let pp_ = fq_sub(u2, p.x);
    let r = fq_sub(s2, p.y);
    if fq_is_zero(pp_) {
        if fq_is_zero(r) {
            return xyzz_double(p);
        }
        return xyzz_identity();
    }
    let pp = fq_sqr(pp_);
    let ppp = fq_mul(pp_, pp);
    let q_ = fq_mul(p.x, pp);
    let x3 = fq_sub(fq_sub(fq_sqr(r), ppp), fq_double(q_));
    let y3 = fq_sub(fq_mul(r, fq_sub(q_, x3)), fq_mul(p.y, ppp));
    return Xyzz(x3, y3, fq_mul(p.zz, pp), fq_mul(p.zzz, ppp));
}

// p + q (add-2008-s); handles either identity, p = q and p = -q.
fn xyzz_add(p: Xyzz, q: Xyzz) -> Xyzz {
    return xyzz_add_q(p, q, false);
}

// p + q, where `q_zz_one` says q's zz = zzz = 1 (a point from affine): then
// four multiplications fewer (madd-2008-s), by a branch in one body, not a
// second inlined copy.
fn xyzz_add_q(p: Xyzz, q: Xyzz, q_zz_one: bool) -> Xyzz {
    return xyzz_add_pq(p, q, false, q_zz_one);
}

// p + q, where each flag says that point's zz = zzz = 1: with both, two
// affine points' sum costs six products instead of fourteen.
fn xyzz_add_pq(p: Xyzz, q: Xyzz, p_zz_one: bool, q_zz_one: bool) -> Xyzz {
    if xyzz_is_identity(p) {
        return q;
    }
    if xyzz_is_identity(q) {
        return p;
    }
    var u1 = p.x;
    var s1 = p.y;
    var zz = p.zz;
    var zzz = p.zzz;
    if !q_zz_one {
        u1 = fq_mul(p.x, q.zz);
        s1 = fq_mul(p.y, q.zzz);
        zz = fq_mul(p.zz, q.zz);
        zzz = fq_mul(p.zzz, q.zzz);
    }
    var u2 = q.x;
    var s2 = q.y;
    if !p_zz_one {
        u2 = fq_mul(q.x, p.zz);
        s2 = fq_mul(q.y, p.zzz);
    }
    let pp_ = fq_sub(u2, u1);
    let r = fq_sub(s2, s1);
    if fq_is_zero(pp_) {
        if fq_is_zero(r) {
            return xyzz_double(p);
        }
        return xyzz_identity();
    }
    let pp = fq_sqr(pp_);
    let ppp = fq_mul(pp_, pp);
    let q_ = fq_mul(u1, pp);
    let x3 = fq_sub(fq_sub(fq_sqr(r), ppp), fq_double(q_));
    let y3 = fq_sub(fq_mul(r, fq_sub(q_, x3)), fq_mul(s1, ppp));
    var zz3 = pp;
    var zzz3 = ppp;
    if !(p_zz_one && q_zz_one) {
        zz3 = fq_mul(zz, pp);
        zzz3 = fq_mul(zzz, ppp);
    }
    return Xyzz(x3, y3, zz3, zzz3);
}

// An XYZZ point as XYZZ_WORDS storage words (x, y, zz, zzz packed), and back.
fn xyzz_pack(p: Xyzz) -> array<u32, XYZZ_WORDS> {
    var v: array<u32, XYZZ_WORDS>;
    let c = array<FqWords, 4>(fq_pack(p.x), fq_pack(p.y), fq_pack(p.zz), fq_pack(p.zzz));
    for (var k = 0u; k < 4u; k++) {
        for (var j = 0u; j < FQ_WORDS; j++) {
            v[FQ_WORDS * k + j] = c[k][j];
        }
    }
    return v;
}

fn xyzz_unpack(v: array<u32, XYZZ_WORDS>) -> Xyzz {
    var c: array<FqWords, 4>;
    for (var k = 0u; k < 4u; k++) {
        for (var j = 0u; j < FQ_WORDS; j++) {
            c[k][j] = v[FQ_WORDS * k + j];
        }
    }
    return Xyzz(fq_unpack(c[0]), fq_unpack(c[1]), fq_unpack(c[2]), fq_unpack(c[3]));
}
