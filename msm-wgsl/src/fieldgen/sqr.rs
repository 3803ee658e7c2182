//! `fq_sqr_raw`, the Montgomery square before its last subtraction (below
//! 2p for an operand below 2p), and `fq_sqr` over it: the multiplication of
//! a by a.

/// `fq_sqr_raw` as the raw product of a by a, and `fq_sqr`.
pub(super) fn by_multiplication(s: &mut String) {
    s.push_str(
        "// a * a / R mod p, below 2p (the multiplication's code).\n\
         fn fq_sqr_raw(a: Fq) -> Fq {\n    return fq_mul_raw(a, a);\n}\n\n\
         // a * a / R mod p, in [0, p).\nfn fq_sqr(a: Fq) -> Fq {\n    return fq_reduce_once(fq_sqr_raw(a));\n}\n\n",
    );
}
