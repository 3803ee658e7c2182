// subgroup: resident bases checked for membership in the prime-order
// subgroup by the group's endomorphism test (`subgroup_params`, generated
// with its constants): [k]P (twice for BLS12-381 G1, refusing [k]P = P on
// the way) compared with the image of P under phi or psi, negated where
// the test says so. Short kernels for the steps of the double-and-add, the
// host dispatching them in k's bit order, each point's accumulator kept in
// `acc` between dispatches (BN254 G2 compares sums of psi's images of
// [k]P instead, over three short kernels): the whole loop in one kernel was more than
// NVIDIA's compiler takes for BLS12-381 G2 in the 13x20 layout (it crashed
// or ran for minutes), and short kernels compile in seconds everywhere.
// A point outside lowers `bad[0]` to its index in the whole set, as the
// bases kernel does for points it refuses, so one word tells the host the
// first bad point. Identity points (flag 1) pass. BN254's G1 (cofactor 1)
// never runs it.
//
// Entry points: `begin` (acc = P), `dbl` (acc = 2^count acc: a run of
// doublings, so that few dispatches wait on each other), `add` (acc += P, or
// += the second step's base), `mid` (the two-step test: refuse [k]P = P,
// base = acc), `finish` (compare with the endomorphism's image), and for
// BN254 G2 `psi_add` (twice), `psi_cube` and `finish_sum` (A = acc,
// A + P + psi(A) + psi^2(A) against psi^3(2A)).
#import curve
#import jacobian
#import subgroup_params

struct SubgroupParams {
    // points in this dispatch
    n: u32,
    // index in the whole set of this dispatch's first point
    first: u32,
    // index in the part's planes of this dispatch's first point
    offset: u32,
    // 1: `add` adds the second step's base (acc's planes 3..6), else P;
    // `psi_add` takes psi of T (planes 3..6), else of A
    second: u32,
    // doublings one `dbl` runs
    count: u32,
}

@group(0) @binding(0) var<uniform> params: SubgroupParams;
@group(0) @binding(1) var<storage, read> bases_x: array<FqWords>;
@group(0) @binding(2) var<storage, read> bases_y: array<FqWords>;
@group(0) @binding(3) var<storage, read> bases_flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> bad: array<atomic<u32>>;
// per base: its accumulator (Jacobian x, y, z: planes 0..3), then the
// two-step test's second base or BN254 G2's sum T (planes 3..6)
@group(0) @binding(5) var<storage, read_write> acc: array<FqWords>;

override WG: u32 = 64u;
// one Jacobian point a base, two for the two-step test and BN254 G2's sums
const STRIDE: u32 = select(3u, 6u, SUBGROUP_TWO_STEP || SUBGROUP_PSI_SUM);

struct JacSum {
    sum: Jac,
    // p = q: the sum is 2p, left to the caller's doubling
    equal: bool,
}

// p + q in Jacobian coordinates (11 products where `q_affine` says q.z = 1,
// else 16) without a doubling branch.
fn jac_add_distinct(p: Jac, q: Jac, q_affine: bool) -> JacSum {
    if fq_is_zero(p.z) {
        return JacSum(q, false);
    }
    if fq_is_zero(q.z) {
        return JacSum(p, false);
    }
    let z1z1 = fq_sqr(p.z);
    var u1 = p.x;
    var s1 = p.y;
    var z3 = p.z;
    if !q_affine {
        let z2z2 = fq_sqr(q.z);
        u1 = fq_mul(p.x, z2z2);
        s1 = fq_mul(fq_mul(p.y, q.z), z2z2);
        z3 = fq_mul(p.z, q.z);
    }
    let h = fq_sub(fq_mul(q.x, z1z1), u1);
    let r = fq_sub(fq_mul(fq_mul(q.y, p.z), z1z1), s1);
    if fq_is_zero(h) {
        return JacSum(jac_identity(), fq_is_zero(r));
    }
    let hh = fq_sqr(h);
    let hhh = fq_mul(h, hh);
    let v = fq_mul(u1, hh);
    let x3 = fq_sub(fq_sub(fq_sqr(r), hhh), fq_double(v));
    let y3 = fq_sub(fq_mul(r, fq_sub(v, x3)), fq_mul(s1, hhh));
    return JacSum(Jac(x3, y3, fq_mul(z3, h)), false);
}

// a == (x, y), a point that is not the identity.
fn equals_affine(a: Jac, x: Fq, y: Fq) -> bool {
    let zz = fq_sqr(a.z);
    return !fq_is_zero(a.z) && fq_eq(a.x, fq_mul(x, zz)) && fq_eq(a.y, fq_mul(y, fq_mul(zz, a.z)));
}

fn jac_eq(a: Jac, b: Jac) -> bool {
    let ia = fq_is_zero(a.z);
    let ib = fq_is_zero(b.z);
    if ia || ib {
        return ia && ib;
    }
    let az2 = fq_sqr(a.z);
    let bz2 = fq_sqr(b.z);
    return fq_eq(fq_mul(a.x, bz2), fq_mul(b.x, az2))
        && fq_eq(fq_mul(a.y, fq_mul(bz2, b.z)), fq_mul(b.y, fq_mul(az2, a.z)));
}

// The group's endomorphism (phi, or psi over Fq2) on a Jacobian point: it
// acts on x = X / Z^2 and y = Y / Z^3, and the Frobenius is a field
// automorphism, so Z only goes through the Frobenius.
fn endo(a: Jac) -> Jac {
    let cx = fq_mul(fq_unpack(SUBGROUP_ENDO_X), FQ_R2);
    let cy = fq_mul(fq_unpack(SUBGROUP_ENDO_Y), FQ_R2);
    return Jac(fq_mul(subgroup_frobenius(a.x), cx), fq_mul(subgroup_frobenius(a.y), cy), subgroup_frobenius(a.z));
}

fn load(i: u32, at: u32) -> Jac {
    let b = i * STRIDE + at;
    return Jac(fq_unpack(acc[b]), fq_unpack(acc[b + 1u]), fq_unpack(acc[b + 2u]));
}

fn store(i: u32, at: u32, a: Jac) {
    let b = i * STRIDE + at;
    acc[b] = fq_pack(a.x);
    acc[b + 1u] = fq_pack(a.y);
    acc[b + 2u] = fq_pack(a.z);
}

// This invocation's point index in the dispatch, or n when it has none or
// its point is the identity (which passes).
fn point_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= params.n || bases_flags[params.offset + i] != 0u {
        return params.n;
    }
    return i;
}

fn point(i: u32) -> Affine {
    let at = params.offset + i;
    return Affine(fq_unpack(bases_x[at]), fq_unpack(bases_y[at]));
}

@compute @workgroup_size(WG)
fn begin(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i < params.n {
        store(i, 0u, jac_from_affine(point(i)));
    }
}

@compute @workgroup_size(WG)
fn dbl(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i < params.n {
        var a = load(i, 0u);
        for (var s = 0u; s < params.count; s++) {
            a = jac_double(a);
        }
        store(i, 0u, a);
    }
}

// acc + q where q is P or the second step's base; equal points double.
@compute @workgroup_size(WG)
fn add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let a = load(i, 0u);
    var q: Jac;
    let affine = params.second == 0u;
    if affine {
        q = jac_from_affine(point(i));
    } else {
        q = load(i, 3u);
    }
    let s = jac_add_distinct(a, q, affine);
    if s.equal {
        store(i, 0u, jac_double(a));
    } else {
        store(i, 0u, s.sum);
    }
}

// The two-step test's middle: [k]P = P is refused; [k]P is the second
// step's base and (k's top bit being set) its accumulator.
@compute @workgroup_size(WG)
fn mid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let a = load(i, 0u);
    let p = point(i);
    if equals_affine(a, p.x, p.y) {
        atomicMin(&bad[0], params.first + i);
    }
    if STRIDE == 6u {
        store(i, 3u, a);
    }
}

@compute @workgroup_size(WG)
fn finish(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    // z = 1 stays 1 under the endomorphism: the image is affine
    let t = endo(jac_from_affine(point(i)));
    var ty = t.y;
    if SUBGROUP_NEGATE {
        ty = fq_neg(ty);
    }
    if !equals_affine(load(i, 0u), t.x, ty) {
        atomicMin(&bad[0], params.first + i);
    }
}

// BN254 G2's test: with A = [x]P in acc, P is in G2 iff
// A + psi(A + psi(A)) + P = psi^3(2A). A point of G2 that is not the
// identity meets no equal summands (A, psi(A), psi(B) and P are distinct
// multiples of it mod r), so equal summands refuse the point. Three kernels
// of one addition or less each, T in acc's planes 3..6: the whole
// comparison in one kernel was more than SwiftShader's compiler takes
// (its stack limit, with the looped field code every call inlined).
//
// psi_add: T = A + psi(S), S = A (second = 0) or T (second = 1).
@compute @workgroup_size(WG)
fn psi_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let a = load(i, 0u);
    var s = a;
    if params.second != 0u {
        s = load(i, 3u);
    }
    let t = jac_add_distinct(a, endo(s), false);
    if t.equal {
        atomicMin(&bad[0], params.first + i);
    }
    store(i, 3u, t.sum);
}

// psi_cube: acc = psi^3(2A), A's last use.
@compute @workgroup_size(WG)
fn psi_cube(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i < params.n {
        store(i, 0u, endo(endo(endo(jac_double(load(i, 0u))))));
    }
}

// finish_sum: T + P against psi^3(2A).
@compute @workgroup_size(WG)
fn finish_sum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = point_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let l = jac_add_distinct(load(i, 3u), jac_from_affine(point(i)), true);
    if l.equal || !jac_eq(l.sum, load(i, 0u)) {
        atomicMin(&bad[0], params.first + i);
    }
}
