//! The field inversion `fq_inv`, in one of five algorithms.
//!
//! All map 0 to 0. Fermat is branch-free and short in loop iterations (78),
//! which suits adapters with a loop budget; the binary GCD does a fifth of the
//! arithmetic but about 800 loop iterations, most of them a few word operations;
//! bingcd and safegcd (safegcd.rs) do a round of steps on one or two words,
//! then one update of the full values.
//! An MSM inverts once per workgroup iteration on one invocation, so what costs
//! is the latency of that one invocation: measured per adapter
//! (`msm-cli field-bench --op inv`, docs/benchmarks.md).

use std::fmt::Write;

use crate::layout::{FieldConstants, FieldLayout};

pub(super) use super::bingcd::{bingcd, bingcd_rounds, BINGCD_ROUNDS};
pub(super) use super::safegcd::safegcd;
use super::safegcd::SafegcdShape;

/// How `fq_inv` is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Inversion {
    /// a^(p-2) by 4-bit fixed windows: 252 squarings and 78 multiplications.
    #[default]
    Fermat,
    /// The binary extended Euclidean algorithm on the packed words (variable
    /// time; the MSM's inputs are public), then one multiplication by R^3 to
    /// return to Montgomery form.
    BinaryGcd,
    /// Pornin's optimised binary GCD: 31 steps at a time on 64-bit
    /// approximations, then one update of the full values with the steps'
    /// matrix; 18 rounds. Needs 64-bit shader integers (the 32x8-int64
    /// layout). A twelfth of Fermat's latency on one invocation.
    Bingcd,
    /// Bernstein and Yang's safegcd, variable time, in 32-bit integers only
    /// (every layout): rounds of 14 divsteps on the low bits (the trailing
    /// zeros shifted out at once, runs without a swap one multiply-add), then
    /// one update of 14-bit signed limbs.
    Safegcd,
    /// safegcd with 64-bit accumulators: rounds of 30 divsteps and 30-bit
    /// limbs, half the rounds. Needs 64-bit shader integers.
    Safegcd64,
}

impl Inversion {
    pub const ALL: [Inversion; 5] = [
        Inversion::Fermat,
        Inversion::BinaryGcd,
        Inversion::Bingcd,
        Inversion::Safegcd,
        Inversion::Safegcd64,
    ];

    /// Short stable name, used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Inversion::Fermat => "fermat",
            Inversion::BinaryGcd => "gcd",
            Inversion::Bingcd => "bingcd",
            Inversion::Safegcd => "safegcd",
            Inversion::Safegcd64 => "safegcd64",
        }
    }

    /// Whether this inversion runs on `layout` (bingcd and safegcd64 need
    /// 64-bit integers).
    pub const fn supports(self, layout: FieldLayout) -> bool {
        !matches!(self, Inversion::Bingcd | Inversion::Safegcd64) || layout.needs_int64()
    }

    /// Loop iterations one inversion may spend in BN254's Fq (a bound, for
    /// loop budgets; BLS12-381's 381 bits take about 1.5 times as many).
    pub const fn max_loop_iterations(self) -> u32 {
        match self {
            Inversion::Fermat => 78,
            // at most 2 log2(p) halvings and log2(p) subtractions, plus slack
            Inversion::BinaryGcd => 1024,
            // rounds x (31 steps + 1)
            Inversion::Bingcd => BINGCD_ROUNDS * 32 + 4,
            Inversion::Safegcd => SafegcdShape::new(254, false).max_loop_iterations(),
            Inversion::Safegcd64 => SafegcdShape::new(254, true).max_loop_iterations(),
        }
    }

    /// The bound in `field`: BN254's scaled by the modulus' bits (plus
    /// slack), bingcd's by its rounds.
    pub fn max_loop_iterations_in(self, field: crate::BaseField) -> u32 {
        let bits = field.modulus().bits() as u32;
        match self {
            Inversion::Bingcd => bingcd_rounds(bits) * 32 + 4,
            Inversion::Safegcd => SafegcdShape::new(bits, false).max_loop_iterations(),
            Inversion::Safegcd64 => SafegcdShape::new(bits, true).max_loop_iterations(),
            _ => (self.max_loop_iterations() * bits).div_ceil(254) + 8 * u32::from(bits > 254),
        }
    }
}

impl std::fmt::Display for Inversion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Inversion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| format!("unknown inversion `{s}`: expected fermat, gcd, bingcd, safegcd or safegcd64"))
    }
}

/// Fermat's a^(p-2) with a 16-entry table (dynamically indexed).
pub(super) fn fermat(s: &mut String, c: &FieldConstants) {
    let w = c.words;
    s.push_str(&t(
        r#"// a^(p-2) = a^(-1) (0 maps to 0), by 4-bit fixed windows: 252 squarings and 78
// multiplications in a 64-iteration loop.
fn fq_inv(a: Fq) -> Fq {
    var table: array<Fq, 16>;
    table[0] = FQ_ONE;
    table[1] = a;
    for (var i = 2u; i < 16u; i++) {
        table[i] = fq_mul(table[i - 1u], a);
    }
    var r = FQ_ONE;
    for (var i = 0u; i < 64u; i++) {
        r = fq_sqr(r);
        r = fq_sqr(r);
        r = fq_sqr(r);
        r = fq_sqr(r);
        r = fq_mul(r, table[FQ_INV_WINDOWS[i]]);
    }
    return r;
}
"#,
        w,
    ));
}

pub(super) fn words(name: &str, v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:#x}u")).collect();
    let n = v.len();
    format!(
        "const {name}: array<u32, {n}> = array<u32, {n}>({});\n",
        items.join(", ")
    )
}

/// Emits `{dst}[i] = a[i] {op} b[i]` over 8 words with the carry or borrow in
/// `c` (u32 only: the carry is recovered by comparison).
fn add_words(s: &mut String, w: usize, dst: &str, a: &str, b: &str) {
    s.push_str(&t("    var c = 0u;\n", w));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let x = {a}[{i}] + {b}[{i}]; let y = x + c; c = select(0u, 1u, x < {a}[{i}]) | select(0u, 1u, y < x); {dst}[{i}] = y; }}"
        )
        .unwrap();
    }
}

fn sub_words(s: &mut String, w: usize, dst: &str, a: &str, b: &str) {
    s.push_str(&t("    var borrow = 0u;\n", w));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let x = {a}[{i}] - {b}[{i}]; let y = x - borrow; borrow = select(0u, 1u, {a}[{i}] < {b}[{i}]) | select(0u, 1u, x < borrow); {dst}[{i}] = y; }}"
        )
        .unwrap();
    }
}

/// `w8_sub` (a - b and its borrow) and `w8_neg` (two's complement) over 8 words.
pub(super) fn sub_neg(s: &mut String, w: usize) {
    s.push_str(&t("// a - b over 8 words, and whether it borrowed.\nstruct W8Diff {\n    v: array<u32, 8>,\n    borrow: u32,\n}\n\n", w));
    s.push_str(&t(
        "fn w8_sub(a: array<u32, 8>, b: array<u32, 8>) -> W8Diff {\n    var d: array<u32, 8>;\n",
        w,
    ));
    sub_words(s, w, "d", "a", "b");
    s.push_str(&t("    return W8Diff(d, borrow);\n}\n\n", w));

    s.push_str(&t("// -a over 8 words (two's complement).\nfn w8_neg(a: array<u32, 8>) -> array<u32, 8> {\n    var r: array<u32, 8>;\n    var c = 1u;\n", w));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let x = ~a[{i}] + c; c = select(0u, 1u, x < c); r[{i}] = x; }}"
        )
        .unwrap();
    }
    s.push_str(&t("    return r;\n}\n\n", w));
}

/// The binary extended Euclidean inversion on packed words (u32 only, so the
/// same code serves every layout). Invariants: u = x1 A, v = x2 A (mod p) for
/// the packed input A; u and v shrink to 1.
pub(super) fn binary_gcd(s: &mut String, c: &FieldConstants) {
    let w = c.words;
    s.push_str(&t(
        "// p as packed words, and R^3 mod p in limbs (binary GCD inversion).\n",
        w,
    ));
    s.push_str(&words("FQ_P_PACKED", &c.p_words));
    let r3: Vec<String> = c.r3.iter().map(|x| format!("{x:#x}u")).collect();
    writeln!(s, "const FQ_R3: Fq = Fq({});\n", r3.join(", ")).unwrap();

    s.push_str(&t(
        "// a >> 1 over 8 words.\nfn w8_shr1(a: array<u32, 8>) -> array<u32, 8> {\n    var r: array<u32, 8>;\n",
        w,
    ));
    for i in 0..w {
        if i + 1 < w {
            writeln!(s, "    r[{i}] = (a[{i}] >> 1u) | (a[{}] << 31u);", i + 1).unwrap();
        } else {
            writeln!(s, "    r[{i}] = a[{i}] >> 1u;").unwrap();
        }
    }
    s.push_str(&t("    return r;\n}\n\n", w));

    s.push_str(&t(
        "// a / 2 mod p for a in [0, p): (a + p) / 2 when a is odd (a + p < 2^255).\n",
        w,
    ));
    s.push_str(&t("fn w8_half_mod(a: array<u32, 8>) -> array<u32, 8> {\n    let m = 0u - (a[0] & 1u);\n    var pm: array<u32, 8>;\n", w));
    for i in 0..w {
        writeln!(s, "    pm[{i}] = FQ_P_PACKED[{i}] & m;").unwrap();
    }
    s.push_str(&t("    var r: array<u32, 8>;\n", w));
    add_words(s, w, "r", "a", "pm");
    s.push_str(&t("    return w8_shr1(r);\n}\n\n", w));

    s.push_str(&t("// a - b mod p for a, b in [0, p).\nfn w8_sub_mod(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> {\n    var d: array<u32, 8>;\n", w));
    sub_words(s, w, "d", "a", "b");
    s.push_str(&t("    let m = 0u - borrow;\n    var pm: array<u32, 8>;\n", w));
    for i in 0..w {
        writeln!(s, "    pm[{i}] = FQ_P_PACKED[{i}] & m;").unwrap();
    }
    s.push_str(&t("    var r: array<u32, 8>;\n", w));
    add_words(s, w, "r", "d", "pm");
    s.push_str(&t("    return r;\n}\n\n", w));

    sub_neg(s, w);

    s.push_str(&t("fn w8_is_one(a: array<u32, 8>) -> bool {\n    return a[0] == 1u && (a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7]) == 0u;\n}\n\n", w));

    s.push_str(&t(
        r#"// a^(-1) (0 maps to 0) by the binary extended Euclidean algorithm on the
// packed value A = a R: u = x1 A and v = x2 A (mod p) throughout, until u or v
// is 1. Then x = A^(-1) and fq_mul(x, R^3) = A^(-1) R^2 = a^(-1) R.
fn fq_inv(a: Fq) -> Fq {
    var u = fq_pack(a);
    if (u[0] | u[1] | u[2] | u[3] | u[4] | u[5] | u[6] | u[7]) == 0u {
        return Fq();
    }
    var v = FQ_P_PACKED;
    var x1 = array<u32, 8>(1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    var x2 = array<u32, 8>();
    loop {
        while (u[0] & 1u) == 0u {
            u = w8_shr1(u);
            x1 = w8_half_mod(x1);
        }
        while (v[0] & 1u) == 0u {
            v = w8_shr1(v);
            x2 = w8_half_mod(x2);
        }
        if w8_is_one(u) || w8_is_one(v) {
            break;
        }
        // both odd, coprime and above 1, so they differ
        let d = w8_sub(u, v);
        if d.borrow == 0u {
            u = d.v;
            x1 = w8_sub_mod(x1, x2);
        } else {
            v = w8_neg(d.v);
            x2 = w8_sub_mod(x2, x1);
        }
    }
    var x = x2;
    if w8_is_one(u) {
        x = x1;
    }
    return fq_mul(fq_unpack(x), FQ_R3);
}
"#,
        w,
    ));
}

/// A fixed fragment of the 8-word inversions' WGSL, widened to `w` words
/// (the identity for 8: BN254's text is unchanged).
pub(super) fn t(text: &str, w: usize) -> String {
    if w == 8 {
        return text.to_string();
    }
    let ors = |v: &str, from: usize| (from..w).map(|i| format!("{v}[{i}]")).collect::<Vec<_>>().join(" | ");
    let one = std::iter::once("1u".to_string())
        .chain((1..w).map(|_| "0u".to_string()))
        .collect::<Vec<_>>()
        .join(", ");
    text.replace(
        "(u[0] | u[1] | u[2] | u[3] | u[4] | u[5] | u[6] | u[7])",
        &format!("({})", ors("u", 0)),
    )
    .replace(
        "(a[0] | a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7])",
        &format!("({})", ors("a", 0)),
    )
    .replace(
        "(a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7])",
        &format!("({})", ors("a", 1)),
    )
    .replace(
        "array<u32, 8>(1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u)",
        &format!("array<u32, {w}>({one})"),
    )
    .replace("array<u32, 8>", &format!("array<u32, {w}>"))
    .replace("array<u32, 9>", &format!("array<u32, {}>", w + 1))
    .replace("W8Diff", &format!("W{w}Diff"))
    .replace("W8Signed", &format!("W{w}Signed"))
    .replace("w8_", &format!("w{w}_"))
    .replace("w9_", &format!("w{}_", w + 1))
    .replace("(v[7] >> 31u)", &format!("(v[{}] >> 31u)", w - 1))
    .replace("a + p < 2^255", "a + p fits the words")
    .replace("word < 7u", &format!("word < {}u", w - 1))
    .replace("var i = 7u", &format!("var i = {}u", w - 1))
    .replace("i < 8u", &format!("i < {w}u"))
    .replace("i < 64u", &format!("i < {}u", 8 * w))
    .replace("over 8 words", &format!("over {w} words"))
    .replace(
        "252 squarings and 78\n// multiplications in a 64-iteration loop",
        &format!(
            "{} squarings and {}\n// multiplications in a {}-iteration loop",
            32 * w - 4,
            8 * w + 14,
            8 * w
        ),
    )
}
