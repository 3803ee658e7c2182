//! Pornin's binary GCD for `fq_inv` (the bingcd inversion): rounds of 31
//! steps on 64-bit approximations, then one update of the full values.

use std::fmt::Write;

use num_bigint::BigUint;

use super::inverse::{sub_neg, t, words};
use crate::layout::{to_limbs, FieldConstants};

/// Rounds of 31 steps for BN254's Fq: 2 len(p) - 1 = 507 steps need 17; one
/// more is free of harm (a finished state stays finished) and leaves margin.
pub const BINGCD_ROUNDS: u32 = 18;

/// Rounds of 31 steps for a `bits`-bit modulus (18 for 254 bits, 26 for 381).
pub const fn bingcd_rounds(bits: u32) -> u32 {
    (2 * bits - 1).div_ceil(31) + 1
}

/// Pornin's optimised binary GCD (eprint 2020/972) with 64-bit integers.
/// Invariants: a = u y 2^e and b = v y 2^e (mod p) with e = rounds so far;
/// each round does 31 binary-GCD steps on ā, b̄ (the low 31 and top 33 bits
/// of a and b), then applies the steps' matrix to a, b (an exact division by
/// 2^31) and to u, v (a Montgomery division by 2^32). At the end b = 1, so
/// y^(-1) = v 2^ROUNDS, and one multiplication by 2^ROUNDS R^3 returns
/// a^(-1) R for the packed y = a R.
pub(super) fn bingcd(s: &mut String, c: &FieldConstants) {
    let w = c.words;
    let rounds = bingcd_rounds(c.modulus.bits() as u32);
    let p = &c.modulus;
    let r = BigUint::from(1u8) << c.r_bits;
    let fix = ((BigUint::from(1u8) << rounds) * &r * &r * &r) % p;
    let fix = to_limbs(&fix, c.layout.limb_bits(), c.n);
    let p0 = c.p_words[0] as u64;
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv))) & 0xffff_ffff;
    }
    let n0 = (inv as u32).wrapping_neg();
    s.push_str(&t(
        "// bingcd: p as packed words, -p^(-1) mod 2^32, 2^ROUNDS R^3 mod p in limbs.\n",
        w,
    ));
    s.push_str(&words("FQ_P_PACKED", &c.p_words));
    writeln!(s, "const FQ_P_INV32: u32 = {n0:#x}u;").unwrap();
    let fix: Vec<String> = fix.iter().map(|x| format!("{x:#x}u")).collect();
    writeln!(s, "const FQ_BINGCD_FIX: Fq = Fq({});", fix.join(", ")).unwrap();
    writeln!(s, "const FQ_BINGCD_ROUNDS: u32 = {rounds}u;\n").unwrap();

    // x f + y g for x, y < 2^256 and |f| + |g| <= 2^31: 9 words, two's
    // complement. Words widen through u64: naga turns i64(u32) into a sign
    // extension.
    s.push_str(&t("fn w8_lin(x: array<u32, 8>, y: array<u32, 8>, f: i64, g: i64) -> array<u32, 9> {\n    var r: array<u32, 9>;\n    var c = 0li;\n", w));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let t = i64(u64(x[{i}])) * f + i64(u64(y[{i}])) * g + c; r[{i}] = u32(t & 0xffffffffli); c = t >> 32u; }}"
        )
        .unwrap();
    }
    writeln!(s, "    r[{w}] = u32(c & 0xffffffffli);\n    return r;\n}}\n").unwrap();

    // the 9-word value shifted right by 31 (exact), as 8 words and its sign
    s.push_str(&t("struct W8Signed {\n    v: array<u32, 8>,\n    neg: bool,\n}\n\n", w));
    s.push_str(&t(
        "fn w9_shr31(r: array<u32, 9>) -> W8Signed {\n    var v: array<u32, 8>;\n",
        w,
    ));
    for i in 0..w {
        writeln!(s, "    v[{i}] = (r[{i}] >> 31u) | (r[{}] << 1u);", i + 1).unwrap();
    }
    s.push_str(&t("    return W8Signed(v, (r[", w));
    writeln!(s, "{w}] >> 31u) != 0u);\n}}\n").unwrap();

    // (x f + y g) / 2^32 mod p for x, y in [0, p), into [0, p)
    s.push_str(&t("fn w8_lin_mod(x: array<u32, 8>, y: array<u32, 8>, f: i64, g: i64) -> array<u32, 8> {\n    let t = w8_lin(x, y, f, g);\n    let k = t[0] * FQ_P_INV32;\n    var s: array<u32, 9>;\n    var c = 0lu;\n", w));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let z = u64(t[{i}]) + u64(k) * u64(FQ_P_PACKED[{i}]) + c; s[{i}] = u32(z & 0xfffffffflu); c = z >> 32u; }}"
        )
        .unwrap();
    }
    writeln!(s, "    s[{w}] = t[{w}] + u32(c);").unwrap();
    s.push_str(&t("    var v: array<u32, 8>;\n", w));
    for i in 0..w {
        writeln!(s, "    v[{i}] = s[{}];", i + 1).unwrap();
    }
    s.push_str(&t("    if (v[7] >> 31u) != 0u {\n        v = w8_add_p(v);\n    }\n    let d = w8_sub(v, FQ_P_PACKED);\n    if d.borrow == 0u {\n        v = d.v;\n    }\n    return v;\n}\n\n", w));

    s.push_str(&t(
        "fn w8_add_p(a: array<u32, 8>) -> array<u32, 8> {\n    var r: array<u32, 8>;\n    var c = 0lu;\n",
        w,
    ));
    for i in 0..w {
        writeln!(
            s,
            "    {{ let z = u64(a[{i}]) + u64(FQ_P_PACKED[{i}]) + c; r[{i}] = u32(z & 0xfffffffflu); c = z >> 32u; }}"
        )
        .unwrap();
    }
    s.push_str(&t("    return r;\n}\n\n", w));

    sub_neg(s, w);

    s.push_str(&t(
        r#"// The low 31 bits of x and its bits [n - 33, n), as one 64-bit value.
fn w8_approx(x: array<u32, 8>, n: u32) -> u64 {
    var w = x;
    let lo = n - 33u;
    let word = lo / 32u;
    let off = lo % 32u;
    var hi = 0u;
    if word < 7u {
        hi = w[word + 1u];
    }
    let window = ((u64(hi) << 32u) | u64(w[word])) >> off;
    return ((window & 0x1fffffffflu) << 31u) | u64(w[0] & 0x7fffffffu);
}

// The bit length of x, at least 64.
fn w8_len64(x: array<u32, 8>) -> u32 {
    var w = x;
    for (var i = 7u; i >= 2u; i--) {
        if w[i] != 0u {
            return 32u * i + 32u - countLeadingZeros(w[i]);
        }
    }
    return 64u;
}

// a^(-1) (0 maps to 0) by Pornin's optimised binary GCD on the packed value.
fn fq_inv(x: Fq) -> Fq {
    var a = fq_pack(x);
    if (a[0] | a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7]) == 0u {
        return Fq();
    }
    var b = FQ_P_PACKED;
    var u = array<u32, 8>(1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    var v = array<u32, 8>();
    for (var round = 0u; round < FQ_BINGCD_ROUNDS; round++) {
        var both = a;
        for (var i = 0u; i < 8u; i++) {
            both[i] |= b[i];
        }
        let n = w8_len64(both);
        var xa = w8_approx(a, n);
        var xb = w8_approx(b, n);
        var f0 = 1li;
        var g0 = 0li;
        var f1 = 0li;
        var g1 = 1li;
        for (var j = 0u; j < 31u; j++) {
            if (xa & 1lu) != 0lu {
                if xa < xb {
                    let t = xa;
                    xa = xb;
                    xb = t;
                    let tf = f0;
                    f0 = f1;
                    f1 = tf;
                    let tg = g0;
                    g0 = g1;
                    g1 = tg;
                }
                xa = xa - xb;
                f0 = f0 - f1;
                g0 = g0 - g1;
            }
            xa = xa >> 1u;
            f1 = f1 << 1u;
            g1 = g1 << 1u;
        }
        let na = w9_shr31(w8_lin(a, b, f0, g0));
        let nb = w9_shr31(w8_lin(a, b, f1, g1));
        a = na.v;
        b = nb.v;
        if na.neg {
            a = w8_neg(a);
            f0 = -f0;
            g0 = -g0;
        }
        if nb.neg {
            b = w8_neg(b);
            f1 = -f1;
            g1 = -g1;
        }
        let nu = w8_lin_mod(u, v, f0, g0);
        v = w8_lin_mod(u, v, f1, g1);
        u = nu;
    }
    return fq_mul(fq_unpack(v), FQ_BINGCD_FIX);
}
"#,
        w,
    ));
}
