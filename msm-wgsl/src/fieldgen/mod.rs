//! Generates the WGSL field module (`field`) for one [`FieldLayout`].
//!
//! Limb loops are unrolled here, on the host: shaders contain straight-line limb
//! code, which keeps them clear of lavapipe's per-invocation loop budget and gives
//! every driver constant indices. Only the inversion keeps loops.
//! [`FieldCode::Looped`] keeps the multiplication's limb loops instead, for
//! compilers that inline every call and choke on the unrolled code.

use std::fmt::Write;

use crate::layout::{FieldConstants, FieldLayout};

mod inverse;
mod mul;

pub use inverse::Inversion;

/// How the Montgomery multiplication is written out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FieldCode {
    /// Straight-line limb code (fastest on GPUs measured; required under
    /// lavapipe's loop budget).
    #[default]
    Unrolled,
    /// Limb loops in `fq_mul` (13x20 only; the other layouts stay unrolled).
    /// SwiftShader's compiler crashes or runs out of memory on the unrolled
    /// walker_combine and reduce shaders; with loops they compile. Never use it
    /// under a loop cap: one multiplication spends 820 loop iterations.
    Looped,
}

impl FieldCode {
    pub const ALL: [FieldCode; 2] = [FieldCode::Unrolled, FieldCode::Looped];

    pub const fn name(self) -> &'static str {
        match self {
            FieldCode::Unrolled => "unrolled",
            FieldCode::Looped => "looped",
        }
    }
}

impl std::fmt::Display for FieldCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FieldCode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown field code `{s}`: expected unrolled or looped"))
    }
}

/// Everything that shapes the generated field module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldOptions {
    pub layout: FieldLayout,
    pub code: FieldCode,
    pub inversion: Inversion,
}

impl FieldOptions {
    /// Unrolled code and the default inversion for `layout`.
    pub fn new(layout: FieldLayout) -> Self {
        FieldOptions {
            layout,
            ..Default::default()
        }
    }
}

/// The `scalar` module: BN254 Fr in 16-bit limbs (portable), just what the
/// GPU needs to read scalars as arkworks holds them: `fr_from_mont` turns
/// arkworks' Montgomery form (R = 2^256) into the canonical value, and
/// `fr_unpack` / `fr_pack` move between words and limbs. Generated like the
/// Fq module, with Fr's modulus and the `fr` prefix.
pub fn scalar_module() -> String {
    let layout = FieldLayout::Limbs16x16;
    let c = FieldConstants::for_modulus(layout, crate::layout::scalar_modulus());
    let g = Gen::new(&c);
    let mut s = String::new();
    g.header(&mut s);
    g.pack(&mut s);
    g.reduce_once(&mut s);
    g.mul_cios(&mut s, false);
    let mut raw_one = vec![0u32; g.n];
    raw_one[0] = 1;
    writeln!(
        s,
        "// Montgomery form (R = 2^256) -> plain value.\nfn fq_from_mont(a: Fq) -> Fq {{\n    return fq_mul(a, {});\n}}",
        array_lit(&raw_one)
    )
    .unwrap();
    let mut s = s
        .replace("BN254 Fq", "BN254 Fr (scalars)")
        .replace("fq_", "fr_")
        .replace("FQ_", "FR_")
        .replace("Fq", "Fr");
    reduce_words_mod_r(&mut s);
    s
}

/// `fr_reduce_words`: any 256-bit word (8 x u32, little-endian) mod r, by
/// five conditional subtractions of r (2^256 < 6 r), straight-line and in
/// 32-bit arithmetic. Canonical scalars then follow arkworks' `msm_bigint`:
/// every point has order r, so s P = (s mod r) P.
fn reduce_words_mod_r(s: &mut String) {
    let r = crate::layout::to_limbs(&crate::layout::scalar_modulus(), 32, 8);
    s.push_str("// r as 8 little-endian words.\n");
    writeln!(s, "const FR_R_WORDS: array<u32, 8> = {};\n", array_lit(&r)).unwrap();
    s.push_str(
        "// a - r if a >= r, else a (8 words; the borrow chain in 32-bit arithmetic).\n\
         fn fr_sub_r_if_ge(a: array<u32, 8>) -> array<u32, 8> {\n    var d: array<u32, 8>;\n    var borrow = 0u;\n",
    );
    for i in 0..8 {
        writeln!(
            s,
            "    {{ let x = a[{i}] - FR_R_WORDS[{i}]; let y = x - borrow; \
             borrow = select(0u, 1u, a[{i}] < FR_R_WORDS[{i}] || x < borrow); d[{i}] = y; }}"
        )
        .unwrap();
    }
    s.push_str("    let keep = borrow != 0u;\n");
    for i in 0..8 {
        writeln!(s, "    d[{i}] = select(d[{i}], a[{i}], keep);").unwrap();
    }
    s.push_str("    return d;\n}\n\n");
    s.push_str(
        "// Any 256-bit word mod r.\nfn fr_reduce_words(a: array<u32, 8>) -> array<u32, 8> {\n    \
         return fr_sub_r_if_ge(fr_sub_r_if_ge(fr_sub_r_if_ge(fr_sub_r_if_ge(fr_sub_r_if_ge(a)))));\n}\n",
    );
}

/// Returns the WGSL text of the unrolled `field` module for `layout`.
pub fn field_module(layout: FieldLayout) -> String {
    field_module_for(&FieldOptions::new(layout))
}

/// Returns the WGSL text of the `field` module as `opts` says.
pub fn field_module_for(opts: &FieldOptions) -> String {
    let layout = opts.layout;
    let c = FieldConstants::new(layout);
    let g = Gen::new(&c);
    let mut s = String::new();
    g.header(&mut s);
    g.pack(&mut s);
    g.compare(&mut s);
    g.reduce_once(&mut s);
    g.reduce_raw(&mut s);
    g.add_sub(&mut s);
    match layout {
        FieldLayout::Limbs13x20 if opts.code == FieldCode::Looped => g.mul_lazy_looped(&mut s),
        FieldLayout::Limbs13x20 => g.mul_lazy(&mut s),
        FieldLayout::Limbs16x16 => g.mul_cios(&mut s, false),
        FieldLayout::Limbs32x8 => g.mul_cios(&mut s, true),
    }
    g.derived(&mut s);
    match opts.inversion {
        Inversion::Fermat => inverse::fermat(&mut s),
        Inversion::BinaryGcd => inverse::binary_gcd(&mut s, &c),
        Inversion::Bingcd => inverse::bingcd(&mut s, &c),
    }
    s
}

struct Gen<'a> {
    c: &'a FieldConstants,
    w: u32,
    n: usize,
}

impl<'a> Gen<'a> {
    fn new(c: &'a FieldConstants) -> Self {
        Gen {
            c,
            w: c.layout.limb_bits(),
            n: c.layout.limb_count(),
        }
    }
}

fn array_lit(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:#x}u")).collect();
    format!("array<u32, {}>({})", v.len(), items.join(", "))
}

impl Gen<'_> {
    fn mask(&self) -> String {
        if self.w == 32 {
            "0xffffffffu".into()
        } else {
            format!("{:#x}u", (1u32 << self.w) - 1)
        }
    }

    fn limbs(&self, prefix: &str) -> String {
        (0..self.n)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn header(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        let c = self.c;
        writeln!(
            s,
            "// BN254 Fq, {n} limbs of {w} bits, Montgomery radix R = 2^{}.\n\
             // Generated by msm-wgsl's fieldgen.rs from ark-bn254's modulus; do not edit.\n\
             // Values are kept fully reduced (in [0, p)) between operations.\n\
             alias Fq = array<u32, {n}>;\n\
             const FQ_LIMBS: u32 = {n}u;\n\
             const FQ_LIMB_BITS: u32 = {w}u;\n\
             const FQ_MASK: u32 = {};\n\
             // p\n\
             const FQ_P: Fq = {};\n\
             // R mod p: one in Montgomery form\n\
             const FQ_ONE: Fq = {};\n\
             // R^2 mod p: fq_mul(a, FQ_R2) = a * R mod p\n\
             const FQ_R2: Fq = {};\n\
             // n0' = -p^(-1) mod 2^{w}\n\
             const FQ_N0: u32 = {:#x}u;\n\
             // p - 2 in 4-bit windows, most significant first (Fermat inversion)\n\
             const FQ_INV_WINDOWS: array<u32, 64> = {};\n",
            self.c.layout.r_bits(),
            self.mask(),
            array_lit(&c.p),
            array_lit(&c.one_mont),
            array_lit(&c.r2),
            c.n0,
            array_lit(&c.inv_windows),
        )
        .unwrap();
    }

    /// fq_unpack / fq_pack between 8 x u32 words and W-bit limbs.
    fn pack(&self, s: &mut String) {
        let (w, n) = (self.w, self.n);
        s.push_str("// 8 little-endian u32 words -> limbs (bits above 256 are zero).\n");
        s.push_str("fn fq_unpack(v: array<u32, 8>) -> Fq {\n    var r: Fq;\n");
        for i in 0..n {
            let lo = i as u32 * w;
            if lo >= 256 {
                continue;
            }
            let (word, off) = (lo / 32, lo % 32);
            let mut e = if off == 0 {
                format!("v[{word}]")
            } else {
                format!("(v[{word}] >> {off}u)")
            };
            if off + w > 32 && word < 7 {
                e = format!("{e} | (v[{}] << {}u)", word + 1, 32 - off);
            }
            if w < 32 {
                e = format!("({e}) & FQ_MASK");
            }
            writeln!(s, "    r[{i}] = {e};").unwrap();
        }
        s.push_str("    return r;\n}\n\n");
        s.push_str("// limbs -> 8 little-endian u32 words (the value must be < 2^256).\n");
        s.push_str("fn fq_pack(a: Fq) -> array<u32, 8> {\n    var v: array<u32, 8>;\n");
        for word in 0..8u32 {
            let mut parts = Vec::new();
            for i in 0..n {
                let lo = i as u32 * w;
                let hi = lo + w;
                if hi <= word * 32 || lo >= (word + 1) * 32 {
                    continue;
                }
                if lo >= word * 32 {
                    let sh = lo - word * 32;
                    parts.push(if sh == 0 {
                        format!("a[{i}]")
                    } else {
                        format!("(a[{i}] << {sh}u)")
                    });
                } else {
                    parts.push(format!("(a[{i}] >> {}u)", word * 32 - lo));
                }
            }
            writeln!(s, "    v[{word}] = {};", parts.join(" | ")).unwrap();
        }
        s.push_str("    return v;\n}\n\n");
    }

    fn compare(&self, s: &mut String) {
        let n = self.n;
        let ors: Vec<String> = (0..n).map(|i| format!("a[{i}]")).collect();
        writeln!(
            s,
            "fn fq_is_zero(a: Fq) -> bool {{\n    return ({}) == 0u;\n}}\n",
            ors.join(" | ")
        )
        .unwrap();
        let xs: Vec<String> = (0..n).map(|i| format!("(a[{i}] ^ b[{i}])")).collect();
        writeln!(
            s,
            "fn fq_eq(a: Fq, b: Fq) -> bool {{\n    return ({}) == 0u;\n}}\n",
            xs.join(" | ")
        )
        .unwrap();
    }

    /// Emits `d = t - p` with a borrow chain over limbs `t{i}`, then selects.
    fn sub_p_select(&self, s: &mut String, src: &str) {
        self.sub_select(s, src, &self.c.p.clone());
    }

    /// Emits `return t >= k ? t - k : t` for a constant `k`, over limbs `{src}{i}`.
    fn sub_select(&self, s: &mut String, src: &str, p: &[u32]) {
        s.push_str("    var borrow = 0u;\n    var d: Fq;\n");
        for (i, pi) in p.iter().enumerate() {
            if self.w == 32 {
                writeln!(
                    s,
                    "    {{ let x = u64({src}{i}) - u64({pi:#x}u) - u64(borrow); d[{i}] = u32(x); borrow = u32(x >> 63u); }}"
                )
                .unwrap();
            } else {
                writeln!(
                    s,
                    "    {{ let x = {src}{i} - {pi:#x}u - borrow; d[{i}] = x & FQ_MASK; borrow = x >> 31u; }}"
                )
                .unwrap();
            }
        }
        s.push_str("    let keep = borrow != 0u;\n");
        for i in 0..self.n {
            writeln!(s, "    d[{i}] = select(d[{i}], {src}{i}, keep);").unwrap();
        }
        s.push_str("    return d;\n");
    }

    fn reduce_once(&self, s: &mut String) {
        s.push_str("// Subtracts p once if a >= p: maps [0, 2p) onto [0, p).\n");
        s.push_str("fn fq_reduce_once(a: Fq) -> Fq {\n");
        for i in 0..self.n {
            writeln!(s, "    let a{i} = a[{i}];").unwrap();
        }
        self.sub_p_select(s, "a");
        s.push_str("}\n\n");
    }

    /// fq_reduce_raw: any value below 2^256 (< 8p) into [0, p), by conditionally
    /// subtracting 4p, 2p and p.
    fn reduce_raw(&self, s: &mut String) {
        let p = &self.c.modulus;
        let (w, n) = (self.w, self.n);
        for k in [4u32, 2] {
            let kp = crate::layout::to_limbs(&(p * k), w, n);
            writeln!(s, "fn fq_sub_if_ge_{k}p(a: Fq) -> Fq {{").unwrap();
            for i in 0..n {
                writeln!(s, "    let a{i} = a[{i}];").unwrap();
            }
            self.sub_select(s, "a", &kp);
            s.push_str("}\n\n");
        }
        s.push_str("// Any value below 2^256 < 8p into [0, p).\nfn fq_reduce_raw(a: Fq) -> Fq {\n    return fq_reduce_once(fq_sub_if_ge_2p(fq_sub_if_ge_4p(a)));\n}\n\n");
    }

    fn add_sub(&self, s: &mut String) {
        let n = self.n;
        // add
        s.push_str("fn fq_add(a: Fq, b: Fq) -> Fq {\n    var c = 0u;\n");
        for i in 0..n {
            if self.w == 32 {
                writeln!(
                    s,
                    "    let x{i} = u64(a[{i}]) + u64(b[{i}]) + u64(c); let s{i} = u32(x{i}); c = u32(x{i} >> 32u);"
                )
                .unwrap();
            } else {
                writeln!(
                    s,
                    "    let x{i} = a[{i}] + b[{i}] + c; let s{i} = x{i} & FQ_MASK; c = x{i} >> FQ_LIMB_BITS;"
                )
                .unwrap();
            }
        }
        // p < 2^(WN - 2), so a + b < 2p never carries out of the top limb.
        self.sub_p_select(s, "s");
        s.push_str("}\n\n");
        // sub: a - b, plus p when it borrowed (branch-free: p masked by the borrow).
        s.push_str("fn fq_sub(a: Fq, b: Fq) -> Fq {\n    var borrow = 0u;\n    var d: Fq;\n");
        for i in 0..n {
            if self.w == 32 {
                writeln!(s, "    {{ let x = u64(a[{i}]) - u64(b[{i}]) - u64(borrow); d[{i}] = u32(x); borrow = u32(x >> 63u); }}").unwrap();
            } else {
                writeln!(
                    s,
                    "    {{ let x = a[{i}] - b[{i}] - borrow; d[{i}] = x & FQ_MASK; borrow = x >> 31u; }}"
                )
                .unwrap();
            }
        }
        s.push_str("    let pm = 0u - borrow;\n    var c = 0u;\n");
        for (i, pi) in self.c.p.iter().enumerate() {
            if self.w == 32 {
                writeln!(
                    s,
                    "    {{ let x = u64(d[{i}]) + u64({pi:#x}u & pm) + u64(c); d[{i}] = u32(x); c = u32(x >> 32u); }}"
                )
                .unwrap();
            } else {
                writeln!(
                    s,
                    "    {{ let x = d[{i}] + ({pi:#x}u & pm) + c; d[{i}] = x & FQ_MASK; c = x >> FQ_LIMB_BITS; }}"
                )
                .unwrap();
            }
        }
        s.push_str("    return d;\n}\n\n");
    }

    /// Operations built on the core ones, identical for every layout.
    fn derived(&self, s: &mut String) {
        let mut raw_one = vec![0u32; self.n];
        raw_one[0] = 1;
        write!(
            s,
            r#"fn fq_zero() -> Fq {{
    return Fq();
}}

fn fq_one() -> Fq {{
    return FQ_ONE;
}}

fn fq_neg(a: Fq) -> Fq {{
    return fq_sub(Fq(), a);
}}

fn fq_double(a: Fq) -> Fq {{
    return fq_add(a, a);
}}

fn fq_sqr(a: Fq) -> Fq {{
    return fq_mul(a, a);
}}

// Any value below 2^256 (need not be reduced) -> Montgomery form, reduced.
fn fq_to_mont(a: Fq) -> Fq {{
    return fq_mul(fq_reduce_raw(a), FQ_R2);
}}

// Montgomery form -> plain value.
fn fq_from_mont(a: Fq) -> Fq {{
    return fq_mul(a, {raw_one});
}}

"#,
            raw_one = array_lit(&raw_one)
        )
        .unwrap();
    }
}
