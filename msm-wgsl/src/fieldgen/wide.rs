//! Full products and a separate Montgomery reduction over 32-bit limbs, for
//! Fq2's Karatsuba with lazy reduction (three products, two reductions
//! instead of three Montgomery multiplications: five N^2 passes of
//! multiply-accumulates instead of six).
//!
//! Bounds the callers keep: operands below 2^(32 N); a reduced operand is
//! below p, an unreduced sum of two below 2p, and `fq_redc` needs its input
//! below p R (then its result is below 2p, reduced once to below p). Both
//! curves have 4p < R = 2^(32 N), so products of sums (< 4p^2) fit.

use std::fmt::Write;

use super::{array_lit, Gen};

impl Gen<'_> {
    /// `FqWide`, `FQ_P_SQUARED`, `fq_add_unreduced`, `fq_mul_wide`,
    /// `fq_wide_add`, `fq_wide_sub` and `fq_redc` (32-bit limbs only).
    pub(super) fn wide(&self, s: &mut String) {
        assert_eq!(self.w, 32, "the wide product needs 32-bit limbs and 64-bit products");
        let n = self.n;
        let p2 = crate::layout::to_limbs(&(&self.c.modulus * &self.c.modulus), 32, 2 * n);
        let wide: Vec<String> = (0..2 * n).map(|k| format!("t{k}")).collect();
        writeln!(
            s,
            "// Full products ({n2} words) and their Montgomery reduction (Fq2's lazy Karatsuba).\n\
             alias FqWide = array<u32, {n2}>;\n\
             // p^2\n\
             const FQ_P_SQUARED: FqWide = {};\n",
            array_lit(&p2),
            n2 = 2 * n
        )
        .unwrap();
        // a + b < 2p < 2^(32 N): no carry out, no reduction
        word_chain(s, "fq_add_unreduced", "Fq", n, "+");
        // schoolbook rows, each ending in a fresh top word
        s.push_str("// a * b in full.\nfn fq_mul_wide(a: Fq, b: Fq) -> FqWide {\n");
        for k in 0..2 * n {
            writeln!(s, "    var t{k} = 0u;").unwrap();
        }
        s.push_str("    var C: u32;\n");
        for i in 0..n {
            writeln!(s, "    // row {i}\n    C = 0u;\n    {{\n    let bi = b[{i}];").unwrap();
            for j in 0..n {
                let k = format!("t{}", i + j);
                self.mac(s, true, &k, &k, &format!("a[{j}]"), "bi", Some("C"), "C");
            }
            writeln!(s, "    t{} = C;\n    }}", i + n).unwrap();
        }
        writeln!(s, "    return FqWide({});\n}}\n", wide.join(", ")).unwrap();
        // word-wise add and subtract (the caller's bounds: no overflow, no borrow out)
        word_chain(s, "fq_wide_add", "FqWide", 2 * n, "+");
        word_chain(s, "fq_wide_sub", "FqWide", 2 * n, "-");
        s.push_str("// t / R mod p for t < p R, reduced.\nfn fq_redc(t: FqWide) -> Fq {\n");
        for k in 0..2 * n {
            writeln!(s, "    var t{k} = t[{k}];").unwrap();
        }
        s.push_str("    var C: u32;\n");
        self.redc_rows(s);
        writeln!(
            s,
            "    return fq_reduce_once(array<u32, {n}>({}));\n}}\n",
            wide[n..].join(", ")
        )
        .unwrap();
    }

    /// The rows of a Montgomery reduction over words `t0..t(2N-1)` (declared
    /// by the caller, with `C`): row i clears word i and carries into word
    /// i + N; `ov` is the carry out of word i + N, added with the next row's
    /// carry one word up. Leaves t / R in `tN..t(2N-1)`, below 2p for t < p R.
    pub(super) fn redc_rows(&self, s: &mut String) {
        let n = self.n;
        s.push_str("    var m: u32;\n    var ov = 0u;\n");
        for i in 0..n {
            writeln!(s, "    // row {i}\n    m = t{i} * FQ_N0;").unwrap();
            // word i becomes zero: only its carry is kept
            writeln!(
                s,
                "    {{ let x = u64(t{i}) + u64(m) * u64({:#x}u); C = u32(x >> 32u); }}",
                self.c.p[0]
            )
            .unwrap();
            for (j, pj) in self.c.p.iter().enumerate().skip(1) {
                let k = format!("t{}", i + j);
                self.mac(s, true, &k, &k, "m", &format!("{pj:#x}u"), Some("C"), "C");
            }
            let k = i + n;
            writeln!(
                s,
                "    {{ let x = u64(t{k}) + u64(C) + u64(ov); t{k} = u32(x); ov = u32(x >> 32u); }}"
            )
            .unwrap();
        }
    }
}

/// `fn {name}(a: {ty}, b: {ty}) -> {ty}`: word by word `a op b` with the
/// carry (or borrow) chained, none out of the top word by the callers' bounds.
fn word_chain(s: &mut String, name: &str, ty: &str, words: usize, op: &str) {
    let carry = if op == "+" { "x >> 32u" } else { "x >> 63u" };
    writeln!(
        s,
        "fn {name}(a: {ty}, b: {ty}) -> {ty} {{\n    var r: {ty};\n    var c = 0u;"
    )
    .unwrap();
    for k in 0..words {
        writeln!(
            s,
            "    {{ let x = u64(a[{k}]) {op} u64(b[{k}]) {op} u64(c); r[{k}] = u32(x); c = u32({carry}); }}"
        )
        .unwrap();
    }
    s.push_str("    return r;\n}\n\n");
}
