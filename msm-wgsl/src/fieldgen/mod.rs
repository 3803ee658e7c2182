//! Generates the WGSL field module (`field`) for one [`FieldLayout`].
//!
//! Limb loops are unrolled here, on the host: shaders contain straight-line limb
//! code, which keeps them clear of lavapipe's per-invocation loop budget and gives
//! every driver constant indices. Only the inversion keeps loops.
//! [`FieldCode::Rows`] loops over the multiplication's rows, each written with
//! constant indices: drivers inline every call, and straight-line rows made
//! every multiplication site cost seconds of compiling.
//! [`FieldCode::Looped`] keeps the multiplication's limb loops instead, for
//! compilers that choke on the unrolled code.

use std::fmt::Write;

use num_bigint::BigUint;

use crate::layout::{packed_words, BaseField, Coords, FieldConstants, FieldLayout};

mod bingcd;
mod ext2;
mod inverse;
mod mul;
mod scalar;
mod subgroup;
mod wide;

pub use inverse::Inversion;
pub use scalar::{scalar_module, scalar_module_for};
pub use subgroup::{subgroup_params_module, subgroup_test, SubgroupTest, BLS12_381_ABS_U, BN254_X};

/// How the Montgomery multiplication is written out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FieldCode {
    /// Straight-line limb code (the loop-free code lavapipe's loop budget
    /// needs; on NVIDIA seconds of compiling per multiplication site).
    #[default]
    Unrolled,
    /// Limb loops in `fq_mul` (13x20 only; the other layouts stay unrolled).
    /// SwiftShader's compiler crashes or runs out of memory on the unrolled
    /// walker_combine and reduce shaders; with loops they compile. Never use it
    /// under a loop cap: one multiplication spends 820 loop iterations.
    Looped,
    /// The multiplication's rows as a loop, two rows an iteration written with
    /// constant limb indices (every layout; Fq2 as three Fq products): about
    /// N / 2 times less field code for a driver to compile, and no limb array
    /// in memory. A loop cap counts N / 2 iterations a multiplication.
    Rows,
    /// Row loops in every shader but the stream walker, whose straight-line
    /// multiplications run faster on the GPUs measured: most of `Rows`'s
    /// smaller compile, none of its cost in the hot pass.
    Mixed,
}

impl FieldCode {
    pub const ALL: [FieldCode; 4] = [
        FieldCode::Unrolled,
        FieldCode::Looped,
        FieldCode::Rows,
        FieldCode::Mixed,
    ];

    /// The code of the stream walker's field module under this choice.
    pub const fn for_walker(self) -> FieldCode {
        match self {
            FieldCode::Mixed => FieldCode::Unrolled,
            c => c,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            FieldCode::Unrolled => "unrolled",
            FieldCode::Looped => "looped",
            FieldCode::Rows => "rows",
            FieldCode::Mixed => "mixed",
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
            .ok_or_else(|| format!("unknown field code `{s}`: expected unrolled, looped, rows or mixed"))
    }
}

/// Everything that shapes the generated field module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldOptions {
    /// The field (BN254's Fq unless said).
    pub field: BaseField,
    /// The coordinates' field over it: Fq (G1) or Fq2 (G2).
    pub coords: Coords,
    pub layout: FieldLayout,
    pub code: FieldCode,
    pub inversion: Inversion,
}

impl FieldOptions {
    /// Loop iterations one multiplication of the coordinates spends in the
    /// passes beside the stream walker (a loop cap counts them): none for
    /// straight-line code, N / 2 for row loops (three products over Fq2).
    pub fn mul_loops(&self) -> u32 {
        let n = self.layout.limbs_for(self.field.modulus().bits() as u32) as u32;
        let fq = match self.code {
            FieldCode::Unrolled => 0,
            FieldCode::Rows | FieldCode::Mixed => n / mul::ROWS_PER_ITERATION as u32,
            FieldCode::Looped if self.layout == FieldLayout::Limbs13x20 => n * (2 * n + 2),
            FieldCode::Looped => 0,
        };
        if self.coords == Coords::Fq2 {
            3 * fq
        } else {
            fq
        }
    }

    /// Unrolled code and the default inversion for `layout`.
    pub fn new(layout: FieldLayout) -> Self {
        FieldOptions {
            layout,
            ..Default::default()
        }
    }
}

/// The `curve_params` module: the packed coordinate's width (`FqWords`: 8
/// words for BN254's Fq, 12 for BLS12-381's, twice that over Fq2; an XYZZ
/// point is four of them; `FpWords` is the base field's) and the group's b
/// in y^2 = x^3 + b (plain: 3 for BN254 G1, 4 for BLS12-381 G1, the twists'
/// b for G2).
pub fn curve_params_module(field: BaseField, coords: Coords) -> String {
    let base = packed_words(&field.modulus());
    let words = base * coords.degree();
    let (b0, b1) = match coords {
        Coords::Fq => (
            BigUint::from(if field == BaseField::Bn254 { 3u8 } else { 4 }),
            BigUint::ZERO,
        ),
        Coords::Fq2 => ext2::twist_b(field),
    };
    let mut b_words = crate::layout::to_limbs(&b0, 32, base);
    if coords == Coords::Fq2 {
        b_words.extend(crate::layout::to_limbs(&b1, 32, base));
    }
    format!(
        "// {field} {}. Generated by msm-wgsl's fieldgen; do not edit.\n\
         alias FqWords = array<u32, {words}>;\n\
         const FQ_WORDS: u32 = {words}u;\n\
         // the base field's packed words\n\
         alias FpWords = array<u32, {base}>;\n\
         const FP_WORDS: u32 = {base}u;\n\
         // the base field's p, packed (canonical checks of input bytes)\n\
         const FP_P_WORDS: FpWords = {};\n\
         // an XYZZ point's storage words (x, y, zz, zzz)\n\
         const XYZZ_WORDS: u32 = {}u;\n\
         // b in y^2 = x^3 + b, plain\n\
         const CURVE_B: FqWords = {};\n",
        coords.group().to_uppercase(),
        array_lit(&crate::layout::to_limbs(&field.modulus(), 32, base)),
        4 * words,
        array_lit(&b_words)
    )
}

/// Returns the WGSL text of the unrolled `field` module for `layout`.
pub fn field_module(layout: FieldLayout) -> String {
    field_module_for(&FieldOptions::new(layout))
}

/// Returns the WGSL text of the `field` module as `opts` says.
pub fn field_module_for(opts: &FieldOptions) -> String {
    if opts.coords == Coords::Fq2 {
        return ext2::module_for(opts);
    }
    let layout = opts.layout;
    let c = FieldConstants::for_field(layout, opts.field);
    let g = Gen::new(&c, opts.field);
    let mut s = String::from("#import curve_params\n");
    g.header(&mut s);
    g.pack(&mut s);
    g.compare(&mut s);
    g.reduce_once(&mut s);
    g.reduce_raw(&mut s);
    g.add_sub(&mut s);
    let rows = matches!(opts.code, FieldCode::Rows | FieldCode::Mixed);
    match layout {
        FieldLayout::Limbs13x20 if opts.code == FieldCode::Looped => g.mul_lazy_looped(&mut s),
        FieldLayout::Limbs13x20 if rows => g.mul_lazy_rows(&mut s),
        FieldLayout::Limbs13x20 => g.mul_lazy(&mut s),
        _ if rows => g.mul_cios_rows(&mut s, layout == FieldLayout::Limbs32x8),
        FieldLayout::Limbs16x16 => g.mul_cios(&mut s, false),
        FieldLayout::Limbs32x8 => g.mul_cios(&mut s, true),
    }
    g.derived(&mut s);
    match opts.inversion {
        Inversion::Fermat => inverse::fermat(&mut s, &c),
        Inversion::BinaryGcd => inverse::binary_gcd(&mut s, &c),
        Inversion::Bingcd => inverse::bingcd(&mut s, &c),
    }
    s
}

struct Gen<'a> {
    c: &'a FieldConstants,
    field: BaseField,
    w: u32,
    n: usize,
    /// u32 words of the packed form.
    words: usize,
}

impl<'a> Gen<'a> {
    fn new(c: &'a FieldConstants, field: BaseField) -> Self {
        Gen {
            c,
            field,
            w: c.layout.limb_bits(),
            n: c.n,
            words: c.words,
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
        let (name, krate) = match self.field {
            BaseField::Bn254 => ("BN254", "ark-bn254"),
            BaseField::Bls12_381 => ("BLS12-381", "ark-bls12-381"),
        };
        writeln!(
            s,
            "// {name} Fq, {n} limbs of {w} bits, Montgomery radix R = 2^{}.\n\
             // Generated by msm-wgsl's fieldgen.rs from {krate}'s modulus; do not edit.\n\
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
             const FQ_INV_WINDOWS: array<u32, {}> = {};\n",
            c.r_bits,
            self.mask(),
            array_lit(&c.p),
            array_lit(&c.one_mont),
            array_lit(&c.r2),
            c.n0,
            c.inv_windows.len(),
            array_lit(&c.inv_windows),
        )
        .unwrap();
    }

    /// fq_unpack / fq_pack between the packed u32 words and W-bit limbs.
    fn pack(&self, s: &mut String) {
        let (w, n, words) = (self.w, self.n, self.words as u32);
        let bits = 32 * words;
        let a = format!("array<u32, {words}>");
        writeln!(
            s,
            "// {words} little-endian u32 words -> limbs (bits above {bits} are zero)."
        )
        .unwrap();
        writeln!(s, "fn fq_unpack(v: {a}) -> Fq {{\n    var r: Fq;").unwrap();
        for i in 0..n {
            let lo = i as u32 * w;
            if lo >= bits {
                continue;
            }
            let (word, off) = (lo / 32, lo % 32);
            let mut e = if off == 0 {
                format!("v[{word}]")
            } else {
                format!("(v[{word}] >> {off}u)")
            };
            if off + w > 32 && word < words - 1 {
                e = format!("{e} | (v[{}] << {}u)", word + 1, 32 - off);
            }
            if w < 32 {
                e = format!("({e}) & FQ_MASK");
            }
            writeln!(s, "    r[{i}] = {e};").unwrap();
        }
        s.push_str("    return r;\n}\n\n");
        writeln!(
            s,
            "// limbs -> {words} little-endian u32 words (the value must be < 2^{bits})."
        )
        .unwrap();
        writeln!(s, "fn fq_pack(a: Fq) -> {a} {{\n    var v: {a};").unwrap();
        for word in 0..words {
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

    /// fq_reduce_raw: any value below 2^(32 words) into [0, p), by
    /// conditionally subtracting 2^k p for k from the largest that fits
    /// down to 1 (4p and 2p for BN254), then p.
    fn reduce_raw(&self, s: &mut String) {
        let p = &self.c.modulus;
        let (w, n) = (self.w, self.n);
        let top = BigUint::from(1u8) << (32 * self.words);
        let steps: Vec<u32> = (1..32u32)
            .rev()
            .filter(|&k| (p << k as usize) < top)
            .map(|k| 1 << k)
            .collect();
        for &k in &steps {
            let kp = crate::layout::to_limbs(&(p * k), w, n);
            writeln!(s, "fn fq_sub_if_ge_{k}p(a: Fq) -> Fq {{").unwrap();
            for i in 0..n {
                writeln!(s, "    let a{i} = a[{i}];").unwrap();
            }
            self.sub_select(s, "a", &kp);
            s.push_str("}\n\n");
        }
        let mut body = "a".to_string();
        for k in &steps {
            body = format!("fq_sub_if_ge_{k}p({body})");
        }
        let bits = 32 * self.words;
        let bound = steps.first().map_or(2, |k| 2 * k);
        writeln!(
            s,
            "// Any value below 2^{bits} < {bound}p into [0, p).\nfn fq_reduce_raw(a: Fq) -> Fq {{\n    return fq_reduce_once({body});\n}}\n"
        )
        .unwrap();
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

// Any value below 2^{bits} (need not be reduced) -> Montgomery form, reduced.
fn fq_to_mont(a: Fq) -> Fq {{
    return fq_mul(fq_reduce_raw(a), FQ_R2);
}}

// Montgomery form -> plain value.
fn fq_from_mont(a: Fq) -> Fq {{
    return fq_mul(a, {raw_one});
}}

"#,
            raw_one = array_lit(&raw_one),
            bits = 32 * self.words,
        )
        .unwrap();
    }
}
