//! The Montgomery multiplication `fq_mul` of each limb layout: lazy 13-bit
//! limbs and no-carry CIOS (16-bit, or 32-bit limbs with 64-bit products),
//! each as straight-line rows or as a loop over them; the 13-bit one also
//! with its limb loops kept.

use std::fmt::Write;

use super::Gen;

/// Rows of the multiplication a loop iteration of [`super::FieldCode::Rows`]:
/// two halved the walker's cost of one on the H200 (1.15x -> 1.08x the
/// straight-line walker, BN254 G1) for 0.3 s more of compiling.
pub(super) const ROWS_PER_ITERATION: usize = 2;

/// `v` shifted down `k` limbs, zeros in: `Fq(v[k], ..., v[n - 1], 0u, ...)`.
fn shifted(v: &str, n: usize, k: usize) -> String {
    let limbs: Vec<String> = (k..n)
        .map(|j| format!("{v}[{j}]"))
        .chain((0..k).map(|_| "0u".to_string()))
        .collect();
    format!("Fq({})", limbs.join(", "))
}

/// Each generator below writes `fq_mul_raw`, the Montgomery product before
/// its last conditional subtraction (below 2p); this adds `fq_mul`, that
/// product reduced, and `fq_canon`, so the multiplication's code is
/// written once. For operands below 2p every layout's product stays below
/// 2p ((4p^2 + R p) / R < 2p, as 4p < R), and the no-carry CIOS's rows stay
/// below 3p, whose top limb still fits a word: chains of products may skip
/// the subtraction until a value meets an addition or a compare.
pub(super) fn reduced_forms(s: &mut String) {
    s.push_str(
        "// a * b / R mod p, in [0, p).\nfn fq_mul(a: Fq, b: Fq) -> Fq {\n    return fq_reduce_once(fq_mul_raw(a, b));\n}\n\n\
         // A value below 2p (a raw product) into [0, p).\nfn fq_canon(a: Fq) -> Fq {\n    return fq_reduce_once(a);\n}\n\n",
    );
}

impl Gen<'_> {
    /// Lazy Montgomery multiplication for 13-bit limbs: columns of a*b and m*p
    /// accumulate in u32 (at most 2N products of < 2^26 each plus a carry, < 2^32),
    /// reducing one limb per row and normalising carries once at the end;
    /// natively a * b is Karatsuba's (karatsuba.rs).
    pub(super) fn mul_lazy(&self, s: &mut String) {
        self.mul_lazy_at(s, super::karatsuba::LEVELS);
    }

    /// [`Gen::mul_lazy`] with a * b in `levels` of Karatsuba (0: row by row,
    /// each row's reduction step after it).
    pub(super) fn mul_lazy_at(&self, s: &mut String, levels: u32) {
        let n = self.n;
        s.push_str("// Lazy Montgomery product: a * b / R mod p, below 2p.\nfn fq_mul_raw(a: Fq, b: Fq) -> Fq {\n");
        for k in 0..2 * n {
            writeln!(s, "    var c{k} = 0u;").unwrap();
        }
        if levels > 0 {
            // a * b's columns first (karatsuba.rs), then the reduction's rows
            let limbs = |v: char| (0..n).map(|i| format!("{v}[{i}]")).collect::<Vec<_>>();
            self.karatsuba_into(s, &limbs('a'), &limbs('b'), levels);
        }
        s.push_str("    var m: u32;\n");
        for i in 0..n {
            if levels == 0 {
                writeln!(s, "    // row {i}").unwrap();
                for j in 0..n {
                    writeln!(s, "    c{} += a[{i}] * b[{j}];", i + j).unwrap();
                }
            }
            self.lazy_redc_row(s, i);
        }
        self.lazy_normalise(s);
    }

    /// Row i's Montgomery step over the lazy columns `c*`: m from column i,
    /// m p added at columns i.., column i's carry moved up (mul and sqr).
    pub(super) fn lazy_redc_row(&self, s: &mut String, i: usize) {
        writeln!(s, "    m = (c{i} * FQ_N0) & FQ_MASK;").unwrap();
        for (j, pj) in self.c.p.iter().enumerate() {
            writeln!(s, "    c{} += m * {pj:#x}u;", i + j).unwrap();
        }
        writeln!(s, "    c{} += c{i} >> {}u;", i + 1, self.w).unwrap();
    }

    /// The lazy columns' upper half carried into limbs and returned.
    pub(super) fn lazy_normalise(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        s.push_str("    // normalise the upper half (the result is < 2p < 2^(W N))\n");
        for j in 0..n {
            let k = n + j;
            if j + 1 < n {
                writeln!(s, "    c{} += c{k} >> {w}u;", k + 1).unwrap();
            }
            writeln!(s, "    let r{j} = c{k} & FQ_MASK;").unwrap();
        }
        writeln!(s, "    return array<u32, {n}>({});\n}}\n", self.limbs("r")).unwrap();
    }

    /// [`Gen::mul_lazy`] with its limb loops kept (same arithmetic, same bounds).
    pub(super) fn mul_lazy_looped(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        write!(
            s,
            r#"// Lazy Montgomery product: a * b / R mod p, below 2p (limb loops kept).
fn fq_mul_raw(a: Fq, b: Fq) -> Fq {{
    var av = a;
    var bv = b;
    var pv = FQ_P;
    var c: array<u32, {n2}>;
    for (var i = 0u; i < {n}u; i++) {{
        let ai = av[i];
        for (var j = 0u; j < {n}u; j++) {{
            c[i + j] += ai * bv[j];
        }}
        let m = (c[i] * FQ_N0) & FQ_MASK;
        for (var j = 0u; j < {n}u; j++) {{
            c[i + j] += m * pv[j];
        }}
        c[i + 1u] += c[i] >> {w}u;
    }}
    var r: Fq;
    for (var j = 0u; j < {n}u; j++) {{
        if j + 1u < {n}u {{
            c[{n}u + j + 1u] += c[{n}u + j] >> {w}u;
        }}
        r[j] = c[{n}u + j] & FQ_MASK;
    }}
    return r;
}}

"#,
            n2 = 2 * n
        )
        .unwrap();
    }

    /// No-carry CIOS Montgomery multiplication (valid because p's top limb is below
    /// (2^W - 1) / 2). With `wide`, limbs are 32 bits and products use u64.
    pub(super) fn mul_cios(&self, s: &mut String, wide: bool) {
        let n = self.n;
        s.push_str("// CIOS Montgomery product: a * b / R mod p, below 2p.\nfn fq_mul_raw(a: Fq, b: Fq) -> Fq {\n");
        for j in 0..n {
            writeln!(s, "    var t{j} = 0u;").unwrap();
        }
        s.push_str("    var A: u32;\n    var C: u32;\n    var m: u32;\n");
        for i in 0..n {
            writeln!(s, "    // row {i}").unwrap();
            writeln!(s, "    {{\n    let bi = b[{i}];").unwrap();
            self.cios_row(s, wide);
            s.push_str("    }\n");
        }
        writeln!(s, "    return array<u32, {n}>({});\n}}\n", self.limbs("t")).unwrap();
    }

    /// One CIOS row for the multiplier limb `bi`: t = (t + a bi + m p) / 2^W.
    fn cios_row(&self, s: &mut String, wide: bool) {
        let (n, p) = (self.n, &self.c.p);
        let mac = |s: &mut String, dst: &str, acc: &str, y: &str, z: &str, carry: Option<&str>, hi: &str| {
            self.mac(s, wide, dst, acc, y, z, carry, hi)
        };
        mac(s, "t0", "t0", "a[0]", "bi", None, "A");
        if wide {
            s.push_str("    m = t0 * FQ_N0;\n");
        } else {
            s.push_str("    m = (t0 * FQ_N0) & FQ_MASK;\n");
        }
        mac(s, "C", "t0", "m", &format!("{:#x}u", p[0]), None, "C");
        for (j, pj) in p.iter().enumerate().skip(1) {
            let (tj, tl) = (format!("t{j}"), format!("t{}", j - 1));
            mac(s, &tj, &tj, &format!("a[{j}]"), "bi", Some("A"), "A");
            mac(s, &tl, &tj, "m", &format!("{pj:#x}u"), Some("C"), "C");
        }
        writeln!(s, "    t{} = C + A;", n - 1).unwrap();
    }

    /// [`Gen::mul_cios`] as a loop over the rows, [`ROWS_PER_ITERATION`] rows
    /// an iteration written with constant indices (b shifts down that many
    /// limbs an iteration): about N / 2 times less code than straight-line
    /// rows, and every limb still in a register.
    pub(super) fn mul_cios_rows(&self, s: &mut String, wide: bool) {
        let (n, k) = (self.n, ROWS_PER_ITERATION);
        self.open_row_loop(
            s,
            "CIOS",
            'b',
            't',
            "    var A: u32;\n    var C: u32;\n    var m: u32;\n",
        );
        for r in 0..k {
            writeln!(s, "    {{\n    let bi = bv[{r}];").unwrap();
            self.cios_row(s, wide);
            s.push_str("    }\n");
        }
        writeln!(s, "    bv = {};\n    }}", shifted("bv", n, k)).unwrap();
        writeln!(s, "    return array<u32, {n}>({});\n}}\n", self.limbs("t")).unwrap();
    }

    /// The start of a row-loop `fq_mul`: the accumulator limbs `{acc}0..`,
    /// `locals`, the shifting copy `{operand}v` of the operand whose limbs the
    /// rows consume, and the loop's head.
    fn open_row_loop(&self, s: &mut String, kind: &str, operand: char, acc: char, locals: &str) {
        let (n, k) = (self.n, ROWS_PER_ITERATION);
        assert_eq!(n % k, 0, "row loops take {k} rows an iteration");
        writeln!(
            s,
            "// {kind} Montgomery product: a * b / R mod p, below 2p (a loop over {operand}'s limbs).\nfn fq_mul_raw(a: Fq, b: Fq) -> Fq {{"
        )
        .unwrap();
        for j in 0..n {
            writeln!(s, "    var {acc}{j} = 0u;").unwrap();
        }
        writeln!(s, "{locals}    var {operand}v = {operand};").unwrap();
        writeln!(s, "    for (var i = 0u; i < {}u; i++) {{", n / k).unwrap();
    }

    /// [`Gen::mul_lazy`] as a loop over the rows, [`ROWS_PER_ITERATION`] an
    /// iteration: the columns a row touches are a window `c0..c(N-1)` that
    /// moves up a column a row (the finished column's carry into the next),
    /// and a shifts down a limb a row; the same sums in the same order as the
    /// straight-line rows, so the same bounds.
    pub(super) fn mul_lazy_rows(&self, s: &mut String) {
        let (w, n, k) = (self.w, self.n, ROWS_PER_ITERATION);
        let p = &self.c.p;
        self.open_row_loop(s, "Lazy", 'a', 'c', "");
        for r in 0..k {
            writeln!(s, "    {{\n    let ai = av[{r}];").unwrap();
            for j in 0..n {
                writeln!(s, "    c{j} += ai * b[{j}];").unwrap();
            }
            s.push_str("    let m = (c0 * FQ_N0) & FQ_MASK;\n");
            for (j, pj) in p.iter().enumerate() {
                writeln!(s, "    c{j} += m * {pj:#x}u;").unwrap();
            }
            writeln!(s, "    c0 = c1 + (c0 >> {w}u);").unwrap();
            for j in 1..n - 1 {
                writeln!(s, "    c{j} = c{};", j + 1).unwrap();
            }
            writeln!(s, "    c{} = 0u;\n    }}", n - 1).unwrap();
        }
        writeln!(s, "    av = {};\n    }}", shifted("av", n, k)).unwrap();
        s.push_str("    // normalise the upper half (the result is < 2p < 2^(W N))\n");
        for j in 0..n {
            if j + 1 < n {
                writeln!(s, "    c{} += c{j} >> {w}u;", j + 1).unwrap();
            }
            writeln!(s, "    let r{j} = c{j} & FQ_MASK;").unwrap();
        }
        s.push_str("    return array<u32, ");
        writeln!(s, "{n}>({});\n}}\n", self.limbs("r")).unwrap();
    }

    /// One multiply-accumulate with carry, `(hi, dst) = acc + y * z + carry`:
    /// with `wide`, 32-bit limbs and a u64 product; else W-bit limbs in u32.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mac(
        &self,
        s: &mut String,
        wide: bool,
        dst: &str,
        acc: &str,
        y: &str,
        z: &str,
        carry: Option<&str>,
        hi: &str,
    ) {
        if wide {
            let cr = carry.map(|c| format!(" + u64({c})")).unwrap_or_default();
            writeln!(
                s,
                "    {{ let x = u64({acc}) + u64({y}) * u64({z}){cr}; {dst} = u32(x); {hi} = u32(x >> 32u); }}"
            )
            .unwrap();
        } else {
            let cr = carry.map(|c| format!(" + {c}")).unwrap_or_default();
            writeln!(
                s,
                "    {{ let x = {acc} + {y} * {z}{cr}; {dst} = x & FQ_MASK; {hi} = x >> {}u; }}",
                self.w
            )
            .unwrap();
        }
    }
}
