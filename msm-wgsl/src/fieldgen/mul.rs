//! The Montgomery multiplication `fq_mul` of each limb layout: lazy 13-bit
//! limbs (unrolled or looped) and no-carry CIOS (16-bit, or 32-bit limbs with
//! 64-bit products).

use std::fmt::Write;

use super::Gen;

impl Gen<'_> {
    /// Lazy Montgomery multiplication for 13-bit limbs: columns of a*b and m*p
    /// accumulate in u32 (at most 2N products of < 2^26 each plus a carry, < 2^32),
    /// reducing one limb per row and normalising carries once at the end.
    pub(super) fn mul_lazy(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        let p = &self.c.p;
        s.push_str("// Lazy Montgomery product: a * b / R mod p.\nfn fq_mul(a: Fq, b: Fq) -> Fq {\n");
        for k in 0..2 * n {
            writeln!(s, "    var c{k} = 0u;").unwrap();
        }
        s.push_str("    var m: u32;\n");
        for i in 0..n {
            writeln!(s, "    // row {i}").unwrap();
            for j in 0..n {
                writeln!(s, "    c{} += a[{i}] * b[{j}];", i + j).unwrap();
            }
            writeln!(s, "    m = (c{i} * FQ_N0) & FQ_MASK;").unwrap();
            for (j, pj) in p.iter().enumerate() {
                writeln!(s, "    c{} += m * {pj:#x}u;", i + j).unwrap();
            }
            writeln!(s, "    c{} += c{i} >> {w}u;", i + 1).unwrap();
        }
        s.push_str("    // normalise the upper half (the result is < 2p < 2^(W N))\n");
        for j in 0..n {
            let k = n + j;
            if j + 1 < n {
                writeln!(s, "    c{} += c{k} >> {w}u;", k + 1).unwrap();
            }
            writeln!(s, "    let r{j} = c{k} & FQ_MASK;").unwrap();
        }
        s.push_str("    return fq_reduce_once(array<u32, ");
        writeln!(s, "{n}>({}));\n}}\n", self.limbs("r")).unwrap();
    }

    /// [`Gen::mul_lazy`] with its limb loops kept (same arithmetic, same bounds).
    pub(super) fn mul_lazy_looped(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        write!(
            s,
            r#"// Lazy Montgomery product: a * b / R mod p (limb loops kept).
fn fq_mul(a: Fq, b: Fq) -> Fq {{
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
    return fq_reduce_once(r);
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
        let p = &self.c.p;
        s.push_str("// CIOS Montgomery product: a * b / R mod p.\nfn fq_mul(a: Fq, b: Fq) -> Fq {\n");
        for j in 0..n {
            writeln!(s, "    var t{j} = 0u;").unwrap();
        }
        s.push_str("    var A: u32;\n    var C: u32;\n    var m: u32;\n");
        let mac = |s: &mut String, dst: &str, acc: &str, y: &str, z: &str, carry: Option<&str>, hi: &str| {
            self.mac(s, wide, dst, acc, y, z, carry, hi)
        };
        for i in 0..n {
            writeln!(s, "    // row {i}").unwrap();
            writeln!(s, "    {{\n    let bi = b[{i}];").unwrap();
            mac(s, "t0", "t0", "a[0]", "bi", None, "A");
            if wide {
                s.push_str("    m = t0 * FQ_N0;\n");
            } else {
                s.push_str("    m = (t0 * FQ_N0) & FQ_MASK;\n");
            }
            let p0 = format!("{:#x}u", p[0]);
            mac(s, "C", "t0", "m", &p0, None, "C");
            for (j, pj) in p.iter().enumerate().skip(1) {
                mac(
                    s,
                    &format!("t{j}"),
                    &format!("t{j}"),
                    &format!("a[{j}]"),
                    "bi",
                    Some("A"),
                    "A",
                );
                let pj = format!("{pj:#x}u");
                mac(s, &format!("t{}", j - 1), &format!("t{j}"), "m", &pj, Some("C"), "C");
            }
            writeln!(s, "    t{} = C + A;\n    }}", n - 1).unwrap();
        }
        writeln!(
            s,
            "    return fq_reduce_once(array<u32, {n}>({}));\n}}\n",
            self.limbs("t")
        )
        .unwrap();
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
