// Jacobian coordinates (a = 0): x = X / Z^2, y = Y / Z^3, the identity
// Z = 0. The subgroup test's accumulators and the table's doublings (7
// products a doubling against XYZZ's 9).
#import curve

struct Jac {
    x: Fq,
    y: Fq,
    z: Fq,
}

fn jac_identity() -> Jac {
    return Jac(FQ_ONE, FQ_ONE, Fq());
}

fn jac_from_affine(p: Affine) -> Jac {
    return Jac(p.x, p.y, FQ_ONE);
}

// dbl-2009-l (a = 0), 7 products; the identity and points with y = 0 map
// to Z3 = 0 without a branch.
fn jac_double(p: Jac) -> Jac {
    let a = fq_sqr(p.x);
    let b = fq_sqr(p.y);
    let c = fq_sqr(b);
    let d = fq_double(fq_sub(fq_sub(fq_sqr(fq_add(p.x, b)), a), c));
    let e = fq_add(fq_double(a), a);
    let x3 = fq_sub(fq_sqr(e), fq_double(d));
    let y3 = fq_sub(fq_mul(e, fq_sub(d, x3)), fq_double(fq_double(fq_double(c))));
    return Jac(x3, y3, fq_double(fq_mul(p.y, p.z)));
}
