//! `fq_sqr_raw`, the Montgomery square before its last subtraction (below
//! 2p for an operand below 2p), written for squaring where the straight-line
//! layouts allow: each cross product a_i a_j (i < j) once, doubled, instead
//! of twice. 8 limbs of 32 bits: 36 products and the 64 of the reduction
//! (128 in the multiplication). Elsewhere it is the multiplication of a by
//! a: row loops, 16-bit limbs, and 20 limbs of 13 bits, where a routine of
//! its own (210 + 400 products against 800) put a second ~800-line
//! straight-line routine beside the product in the walker.

use std::fmt::Write;

use super::{FieldCode, Gen};
use crate::layout::FieldLayout;

/// `fq_sqr`, the raw square reduced, whichever way `fq_sqr_raw` is written.
const FQ_SQR: &str =
    "// a * a / R mod p, in [0, p).\nfn fq_sqr(a: Fq) -> Fq {\n    return fq_reduce_once(fq_sqr_raw(a));\n}\n\n";

/// `fq_sqr_raw` as the raw product of a by a.
fn by_multiplication(s: &mut String) {
    s.push_str(
        "// a * a / R mod p, below 2p (the multiplication's code).\n\
         fn fq_sqr_raw(a: Fq) -> Fq {\n    return fq_mul_raw(a, a);\n}\n\n",
    );
}

impl Gen<'_> {
    /// `fq_sqr_raw` for `layout` under `code`, and `fq_sqr` over it.
    pub(super) fn sqr(&self, s: &mut String, layout: FieldLayout, code: FieldCode) {
        match (layout, code) {
            (FieldLayout::Limbs32x8, FieldCode::Unrolled) => self.sqr_wide(s),
            _ => by_multiplication(s),
        }
        s.push_str(FQ_SQR);
    }

    /// 32-bit limbs: the cross products in rows (each row's carry a fresh
    /// top word), doubled by a one-bit shift of the 2N words (their sum is
    /// below a^2 / 2 < 2^(64 N - 1)), the squares a_i^2 added down the
    /// diagonal, then wide.rs's reduction: a^2 < 4p^2 < p R, so t / R < 2p.
    fn sqr_wide(&self, s: &mut String) {
        let n = self.n;
        s.push_str("// Montgomery square: a * a / R mod p, below 2p.\nfn fq_sqr_raw(a: Fq) -> Fq {\n");
        for k in 0..2 * n {
            writeln!(s, "    var t{k} = 0u;").unwrap();
        }
        s.push_str("    var C: u32;\n");
        for i in 0..n - 1 {
            writeln!(s, "    // cross row {i}\n    C = 0u;").unwrap();
            for j in i + 1..n {
                let k = format!("t{}", i + j);
                self.mac(s, true, &k, &k, &format!("a[{i}]"), &format!("a[{j}]"), Some("C"), "C");
            }
            writeln!(s, "    t{} = C;", i + n).unwrap();
        }
        s.push_str("    // doubled\n");
        for k in (1..2 * n).rev() {
            writeln!(s, "    t{k} = (t{k} << 1u) | (t{} >> 31u);", k - 1).unwrap();
        }
        s.push_str("    t0 = t0 << 1u;\n    // the squares down the diagonal\n    C = 0u;\n");
        for i in 0..n {
            let (lo, hi) = (2 * i, 2 * i + 1);
            self.mac(
                s,
                true,
                &format!("t{lo}"),
                &format!("t{lo}"),
                &format!("a[{i}]"),
                &format!("a[{i}]"),
                Some("C"),
                "C",
            );
            writeln!(
                s,
                "    {{ let x = u64(t{hi}) + u64(C); t{hi} = u32(x); C = u32(x >> 32u); }}"
            )
            .unwrap();
        }
        self.redc_rows(s);
        let top: Vec<String> = (n..2 * n).map(|k| format!("t{k}")).collect();
        writeln!(s, "    return array<u32, {n}>({});\n}}\n", top.join(", ")).unwrap();
    }
}
