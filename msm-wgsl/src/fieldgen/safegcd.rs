//! Bernstein and Yang's safegcd for `fq_inv`, variable time (an MSM's inputs
//! are public): divsteps in rounds of K on the low bits of f and g, then one
//! update of the full values with the round's matrix.
//!
//! Each divstep depends only on f's and g's low bits and on eta (= -delta),
//! so a round needs no approximation of the high bits (Pornin's bingcd does),
//! and it runs in native 32-bit integers: the trailing zeros of g are shifted
//! out at once, and while eta says no swap can come, up to eta + 1 steps are
//! one multiply-add g += w f with w = -g f^(-1) mod 2^n. The full values live
//! in signed K-bit limbs: K = 30 with 64-bit accumulators (`safegcd64`, the
//! layouts with 64-bit integers), K = 14 in 32-bit integers (`safegcd`, every
//! layout). The variable d with d x = f (mod p) is divided by 2^K exactly by
//! adding a multiple of p each round, and stays in (-2p, p). It stops when g
//! is 0: f = ±1 and x^(-1) = ±d.

use std::fmt::Write;

use num_bigint::BigUint;

use crate::layout::{to_limbs, FieldConstants};

/// Divsteps that bring g to 0 from any 0 <= g <= f < 2^bits, f odd: Bernstein
/// and Yang ("Fast constant-time gcd computation and modular inversion",
/// theorem 11.2) bound them by floor((49 bits + 57) / 17) from 46 bits; the
/// constant 80 (their bound below 46 bits) leaves a step or two of margin:
/// 736 for BN254's Fq, 1102 for BLS12-381's.
pub const fn divsteps_bound(bits: u32) -> u32 {
    (49 * bits + 80) / 17
}

/// The shape of one safegcd: steps a round, accumulator width, limbs, rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafegcdShape {
    /// Divsteps a round (K), and the bits of every limb but the top one.
    pub k: u32,
    /// 64-bit accumulators (K = 30) or 32-bit ones (K = 14).
    pub wide: bool,
    /// Limbs of the full values (the top limb signed).
    pub limbs: usize,
    /// The rounds' bound: the loop stops earlier, when g is 0.
    pub rounds: u32,
}

impl SafegcdShape {
    /// The shape for a `bits`-bit modulus. Products of a K-bit limb and a
    /// matrix entry (|u| + |v| <= 2^K), plus a multiple of p below 2^(K+1)
    /// and the carry, fit the accumulator: 2^(2K+2) < 2^31 for K = 14.
    pub const fn new(bits: u32, wide: bool) -> Self {
        let k = if wide { 30 } else { 14 };
        SafegcdShape {
            k,
            wide,
            // values in (-2p, 2p) with the sign in the top limb
            limbs: (bits + 2).div_ceil(k) as usize,
            rounds: (divsteps_bound(bits) + 1).div_ceil(k) + 1,
        }
    }

    /// Loop iterations one inversion may spend: a round's steps take at most
    /// K + 1 passes of its inner loop (each after the first ends a step).
    pub const fn max_loop_iterations(self) -> u32 {
        self.rounds * (self.k + 2)
    }

    fn acc(self) -> &'static str {
        if self.wide {
            "i64"
        } else {
            "i32"
        }
    }

    /// A literal of the accumulator type.
    fn lit(self, v: i64) -> String {
        if self.wide {
            format!("{v}li")
        } else {
            format!("{v}i")
        }
    }
}

/// Emits `fq_inv` by safegcd for `c`'s modulus.
pub(super) fn safegcd(s: &mut String, c: &FieldConstants, wide: bool) {
    let bits = c.modulus.bits() as u32;
    let sh = SafegcdShape::new(bits, wide);
    let (k, l, w) = (sh.k, sh.limbs, c.words);
    let acc = sh.acc();
    let mask = sh.lit((1i64 << k) - 1);
    let p_limbs = to_limbs(&c.modulus, k, l);
    let kbits = BigUint::from(1u64 << k);
    let pinv = c.modulus.modpow(&(BigUint::from(1u64 << (k - 1)) - 1u8), &kbits);
    let pinv = pinv.to_u32_digits().first().copied().unwrap_or(0);
    debug_assert_eq!((p_limbs[0] as u64 * pinv as u64) % (1u64 << k), 1);

    writeln!(
        s,
        "// safegcd: p in {l} signed limbs of {k} bits, p^(-1) mod 2^{k}, R^3 mod p in limbs."
    )
    .unwrap();
    let p_lits: Vec<String> = p_limbs.iter().map(|x| format!("{x}i")).collect();
    writeln!(
        s,
        "const FQ_SG_P: array<i32, {l}> = array<i32, {l}>({});",
        p_lits.join(", ")
    )
    .unwrap();
    writeln!(s, "const FQ_SG_PINV: u32 = {pinv:#x}u;").unwrap();
    let r3: Vec<String> = c.r3.iter().map(|x| format!("{x:#x}u")).collect();
    writeln!(s, "const FQ_SG_R3: Fq = Fq({});", r3.join(", ")).unwrap();
    writeln!(s, "const FQ_SG_ROUNDS: u32 = {}u;\n", sh.rounds).unwrap();

    steps(s, k);
    limbs_io(s, sh, w);

    // +x + p, +x - p and -x, the carries normalised (p's limbs are constants)
    for (name, x_sign, p_sign) in [
        ("fq_sg_add_p", "+", Some(1)),
        ("fq_sg_sub_p", "+", Some(-1)),
        ("fq_sg_neg", "-", None),
    ] {
        writeln!(
            s,
            "fn {name}(x: array<i32, {l}>) -> array<i32, {l}> {{\n    var r: array<i32, {l}>;\n    var c = {};",
            sh.lit(0)
        )
        .unwrap();
        for (j, &pj) in p_limbs.iter().enumerate() {
            let p_term = p_sign.map_or(String::new(), |sign| format!(" + {}", sh.lit(sign * i64::from(pj))));
            let sum = format!("    c = c {x_sign} {acc}(x[{j}]){p_term};");
            if j + 1 < l {
                writeln!(s, "{sum} r[{j}] = i32(c & {mask}); c = c >> {k}u;").unwrap();
            } else {
                writeln!(s, "{sum} r[{j}] = i32(c);").unwrap();
            }
        }
        s.push_str("    return r;\n}\n\n");
    }

    let zero = (0..l).map(|j| format!("g[{j}]")).collect::<Vec<_>>().join(" | ");
    writeln!(
        s,
        "// x^(-1) (0 maps to 0) by safegcd on the packed value X = x R: d X = f and
// e X = g (mod p) throughout; at the end g = 0, f = ±1 and X^(-1) = ±d, and
// fq_mul(X^(-1), R^3) = x^(-1) R.
fn fq_inv(x: Fq) -> Fq {{
    var f = FQ_SG_P;
    var g = fq_sg_from_words(fq_pack(x));
    var d: array<i32, {l}>;
    var e: array<i32, {l}>;
    e[0] = 1i;
    var eta = -1i;
    for (var round = 0u; round < FQ_SG_ROUNDS; round++) {{
        if ({zero}) == 0i {{
            break;
        }}
        let m = fq_sg_steps(u32(f[0]), u32(g[0]), eta);
        eta = m.eta;
        let dn = d[{top}] < 0i;
        let en = e[{top}] < 0i;
        // multiples of p that bring negative d, e up by p, then the ones
        // that make the sums divisible by 2^{k}
        var md = select(0i, m.u, dn) + select(0i, m.v, en);
        var me = select(0i, m.q, dn) + select(0i, m.r, en);
        var cf = {acc}(m.u) * {acc}(f[0]) + {acc}(m.v) * {acc}(g[0]);
        var cg = {acc}(m.q) * {acc}(f[0]) + {acc}(m.r) * {acc}(g[0]);
        var cd = {acc}(m.u) * {acc}(d[0]) + {acc}(m.v) * {acc}(e[0]);
        var ce = {acc}(m.q) * {acc}(d[0]) + {acc}(m.r) * {acc}(e[0]);
        md = md - i32((u32(cd & {mask}) * FQ_SG_PINV + u32(md)) & {umask}u);
        me = me - i32((u32(ce & {mask}) * FQ_SG_PINV + u32(me)) & {umask}u);
        cd = cd + {acc}(md) * {acc}(FQ_SG_P[0]);
        ce = ce + {acc}(me) * {acc}(FQ_SG_P[0]);
        cf = cf >> {k}u;
        cg = cg >> {k}u;
        cd = cd >> {k}u;
        ce = ce >> {k}u;",
        top = l - 1,
        umask = (1u64 << k) - 1,
    )
    .unwrap();
    for j in 1..l {
        writeln!(
            s,
            "        cf = cf + {acc}(m.u) * {acc}(f[{j}]) + {acc}(m.v) * {acc}(g[{j}]);"
        )
        .unwrap();
        writeln!(
            s,
            "        cg = cg + {acc}(m.q) * {acc}(f[{j}]) + {acc}(m.r) * {acc}(g[{j}]);"
        )
        .unwrap();
        writeln!(s, "        cd = cd + {acc}(m.u) * {acc}(d[{j}]) + {acc}(m.v) * {acc}(e[{j}]) + {acc}(md) * {acc}(FQ_SG_P[{j}]);").unwrap();
        writeln!(s, "        ce = ce + {acc}(m.q) * {acc}(d[{j}]) + {acc}(m.r) * {acc}(e[{j}]) + {acc}(me) * {acc}(FQ_SG_P[{j}]);").unwrap();
        let i = j - 1;
        writeln!(s, "        f[{i}] = i32(cf & {mask});\n        g[{i}] = i32(cg & {mask});\n        d[{i}] = i32(cd & {mask});\n        e[{i}] = i32(ce & {mask});").unwrap();
        writeln!(
            s,
            "        cf = cf >> {k}u;\n        cg = cg >> {k}u;\n        cd = cd >> {k}u;\n        ce = ce >> {k}u;"
        )
        .unwrap();
    }
    let top = l - 1;
    writeln!(
        s,
        "        f[{top}] = i32(cf);
        g[{top}] = i32(cg);
        d[{top}] = i32(cd);
        e[{top}] = i32(ce);
    }}
    // d in (-2p, p); the inverse is d or -d (f = -1), brought into [0, p)
    var r = d;
    if f[{top}] < 0i {{
        r = fq_sg_neg(r);
    }}
    if r[{top}] < 0i {{
        r = fq_sg_add_p(r);
    }}
    if r[{top}] < 0i {{
        r = fq_sg_add_p(r);
    }}
    let t = fq_sg_sub_p(r);
    if t[{top}] >= 0i {{
        r = t;
    }}
    return fq_mul(fq_unpack(fq_sg_to_words(r)), FQ_SG_R3);
}}
"
    )
    .unwrap();
}

/// `fq_sg_steps`: K divsteps on the low bits of f (odd) and g, as the
/// matrix (u v; q r) with 2^K (f', g') = (u f + v g, q f + r g).
fn steps(s: &mut String, k: u32) {
    writeln!(
        s,
        "struct FqSgSteps {{
    u: i32,
    v: i32,
    q: i32,
    r: i32,
    eta: i32,
}}

// f^(-1) mod 2^32 for odd f: 5 bits from 3 f xor 2, then Newton (10, 20, 40).
fn fq_sg_inv32(f: u32) -> u32 {{
    var x = (3u * f) ^ 2u;
    x = x * (2u - f * x);
    x = x * (2u - f * x);
    x = x * (2u - f * x);
    return x;
}}

// {k} divsteps on the low {k} bits of f (odd) and g. The rows of the matrix
// scale as the steps go: 2^j f_j = u f + v g and 2^j g_j = q f + r g after j
// steps, |u| + |v| <= 2^j. Even g halves (the f row doubles); an odd g with
// eta < 0 swaps (f, g) = (g, -f); then the next min(eta + 1, steps left)
// steps cannot swap, so they add f wherever g is odd: together g += w f with
// w = -g f^(-1) mod 2^n, and the zeros are shifted out next pass.
fn fq_sg_steps(f0: u32, g0: u32, eta0: i32) -> FqSgSteps {{
    var f = f0;
    var g = g0;
    var eta = eta0;
    var u = 1i;
    var v = 0i;
    var q = 0i;
    var r = 1i;
    var left = {k}u;
    var finv = fq_sg_inv32(f);
    for (var it = 0u; it <= {k}u; it++) {{
        let z = min(countTrailingZeros(g), left);
        g = g >> z;
        u = u << z;
        v = v << z;
        eta = eta - i32(z);
        left = left - z;
        if left == 0u {{
            break;
        }}
        if eta < 0i {{
            eta = -eta;
            let t = f;
            f = g;
            g = 0u - t;
            let tu = u;
            let tv = v;
            u = q;
            v = r;
            q = -tu;
            r = -tv;
            finv = fq_sg_inv32(f);
        }}
        let n = min(u32(eta) + 1u, left);
        let w = (0u - g * finv) & ((1u << n) - 1u);
        g = g + w * f;
        q = q + i32(w) * u;
        r = r + i32(w) * v;
    }}
    return FqSgSteps(u, v, q, r, eta);
}}
"
    )
    .unwrap();
}

/// `fq_sg_from_words` (packed u32 words to K-bit limbs) and `fq_sg_to_words`
/// (limbs of a value in [0, p) back to words).
fn limbs_io(s: &mut String, sh: SafegcdShape, w: usize) {
    let (k, l) = (sh.k, sh.limbs);
    let umask = (1u64 << k) - 1;
    writeln!(
        s,
        "fn fq_sg_from_words(a: array<u32, {w}>) -> array<i32, {l}> {{\n    var r: array<i32, {l}>;"
    )
    .unwrap();
    for j in 0..l {
        let lo = j as u32 * k;
        let (word, off) = ((lo / 32) as usize, lo % 32);
        if word >= w {
            continue;
        }
        let mut e = if off == 0 {
            format!("a[{word}]")
        } else {
            format!("(a[{word}] >> {off}u)")
        };
        if off + k > 32 && word + 1 < w {
            e = format!("{e} | (a[{}] << {}u)", word + 1, 32 - off);
        }
        writeln!(s, "    r[{j}] = i32(({e}) & {umask}u);").unwrap();
    }
    s.push_str("    return r;\n}\n\n");

    writeln!(
        s,
        "fn fq_sg_to_words(x: array<i32, {l}>) -> array<u32, {w}> {{\n    var r: array<u32, {w}>;"
    )
    .unwrap();
    for word in 0..w {
        let (wlo, whi) = (32 * word as u32, 32 * word as u32 + 32);
        let mut parts = Vec::new();
        for j in 0..l {
            let (lo, hi) = (j as u32 * k, j as u32 * k + k);
            if hi <= wlo || lo >= whi {
                continue;
            }
            parts.push(if lo >= wlo {
                format!("(u32(x[{j}]) << {}u)", lo - wlo)
            } else {
                format!("(u32(x[{j}]) >> {}u)", wlo - lo)
            });
        }
        writeln!(s, "    r[{word}] = {};", parts.join(" | ")).unwrap();
    }
    s.push_str("    return r;\n}\n\n");
}

#[cfg(test)]
mod twin;
