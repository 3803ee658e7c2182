//! A diagnostic shader for issue 39's third lever: which units make a
//! 254-bit integer product fastest in a portable layout, u32 integer
//! multiply-adds on 13-bit limbs (the 13x20 layout's columns) or f32 fused
//! multiply-adds on 11-bit limbs.
//!
//! With 11-bit limbs every limb product is below 2^22 and two of them with
//! 2^23 added stay below 2^24, so `fma(a, b, fma(c, d, 2^23))` is exact in
//! f32 whatever the rounding or fusion, and its bits read as a u32 are
//! `0x4B000000 + a b + c d`: one column gets two products for two FMAs and
//! one integer add, and the constant is taken off once a column. The u32
//! route takes one multiply-add a product (13-bit limbs: products below
//! 2^26, columns below 2^32 unreduced).
//!
//! Each invocation chains `x <- lo(x y) + hi(x y) mod 2^(W N)` ITERS times:
//! the full product's columns, their carries, then the halves' sum, so no
//! product can be dropped and [`products_reference`] can check every chain.

use std::fmt::Write;

/// How the limb products of one 254-bit product are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProductStyle {
    /// 20 limbs of 13 bits, u32 multiply-adds (the 13x20 layout's columns).
    Int13x20,
    /// 24 limbs of 11 bits, u32 multiply-adds (the limb count's cost alone).
    Int11x24,
    /// 24 limbs of 11 bits, two products a pair of f32 FMAs.
    F32x11x24,
}

/// 2^23 as f32 bits: a float in [2^23, 2^24) is this plus its integer value.
const MAGIC_BITS: u32 = 0x4B00_0000;

impl ProductStyle {
    pub const ALL: [ProductStyle; 3] = [ProductStyle::Int13x20, ProductStyle::Int11x24, ProductStyle::F32x11x24];

    /// Bits per limb (W).
    pub const fn limb_bits(self) -> u32 {
        match self {
            ProductStyle::Int13x20 => 13,
            _ => 11,
        }
    }

    /// Limbs per operand (N): W N covers 256 bits.
    pub const fn limbs(self) -> usize {
        match self {
            ProductStyle::Int13x20 => 20,
            _ => 24,
        }
    }

    /// Short stable name (command line, reports).
    pub const fn name(self) -> &'static str {
        match self {
            ProductStyle::Int13x20 => "int-13x20",
            ProductStyle::Int11x24 => "int-11x24",
            ProductStyle::F32x11x24 => "f32-11x24",
        }
    }

    /// Parses [`ProductStyle::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The shader: `in_a` and `in_b` hold N limbs an invocation, `out` the
/// chain's last x; overrides ITERS and WG.
pub fn products_module(style: ProductStyle) -> String {
    let (w, n) = (style.limb_bits(), style.limbs());
    let mut s = String::new();
    writeln!(
        s,
        "// {} limb products, chained (msm-wgsl's products.rs; do not edit).\n\
         override ITERS: u32 = 64u;\noverride WG: u32 = 64u;\n\
         alias Limbs = array<u32, {n}>;\nconst MASK: u32 = {:#x}u;\n\
         @group(0) @binding(0) var<storage, read> in_a: array<u32>;\n\
         @group(0) @binding(1) var<storage, read> in_b: array<u32>;\n\
         @group(0) @binding(2) var<storage, read_write> out: array<u32>;\n",
        style.name(),
        (1u32 << w) - 1
    )
    .unwrap();
    if style == ProductStyle::F32x11x24 {
        // straight-line conversions: a loop's array could leave registers
        let floats = |v: &str| -> String {
            let each: Vec<String> = (0..n)
                .map(|i| format!("bitcast<f32>({v}[{i}] | {MAGIC_BITS:#x}u) - 8388608.0"))
                .collect();
            format!("Floats({})", each.join(",\n        "))
        };
        writeln!(
            s,
            "alias Floats = array<f32, {n}>;\n\
             // limbs below 2^23 as exact f32s: each one's bits under 2^23's, less 2^23\n\
             fn to_f32(v: Limbs) -> Floats {{\n    return {};\n}}\n",
            floats("v")
        )
        .unwrap();
        s.push_str("fn step(x: Limbs, yf: Floats) -> Limbs {\n    let xf = to_f32(x);\n");
    } else {
        s.push_str("fn step(x: Limbs, y: Limbs) -> Limbs {\n");
    }
    for k in 0..2 * n {
        writeln!(s, "    var c{k} = 0u;").unwrap();
    }
    for k in 0..2 * n - 1 {
        let pairs: Vec<(usize, usize)> = (0..n).filter(|&i| k >= i && k - i < n).map(|i| (i, k - i)).collect();
        if style == ProductStyle::F32x11x24 {
            for two in pairs.chunks(2) {
                let inner = match two {
                    [_, (i, j)] => format!("fma(xf[{i}], yf[{j}], 8388608.0)"),
                    _ => "8388608.0".to_string(),
                };
                let (i, j) = two[0];
                writeln!(s, "    c{k} += bitcast<u32>(fma(xf[{i}], yf[{j}], {inner}));").unwrap();
            }
            let fix = (pairs.len().div_ceil(2) as u32).wrapping_mul(MAGIC_BITS);
            writeln!(s, "    c{k} -= {fix:#x}u;").unwrap();
        } else {
            for (i, j) in pairs {
                writeln!(s, "    c{k} += x[{i}] * y[{j}];").unwrap();
            }
        }
    }
    // the columns' carries, then lo + hi limb by limb (the top carry dropped)
    for k in 0..2 * n - 1 {
        writeln!(s, "    c{} += c{k} >> {w}u;\n    c{k} &= MASK;", k + 1).unwrap();
    }
    s.push_str("    var r: Limbs;\n    var carry = 0u;\n");
    for j in 0..n {
        writeln!(
            s,
            "    carry += c{j} + c{};\n    r[{j}] = carry & MASK;\n    carry >>= {w}u;",
            j + n
        )
        .unwrap();
    }
    s.push_str("    return r;\n}\n\n");
    let y = if style == ProductStyle::F32x11x24 {
        "to_f32(y)"
    } else {
        "y"
    };
    writeln!(
        s,
        "@compute @workgroup_size(WG)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n    \
         let i = gid.x + gid.y * nwg.x * WG;\n    if i >= arrayLength(&out) / {n}u {{\n        return;\n    }}\n    \
         var x: Limbs;\n    var y: Limbs;\n    for (var j = 0u; j < {n}u; j++) {{\n        \
         x[j] = in_a[i * {n}u + j];\n        y[j] = in_b[i * {n}u + j];\n    }}\n    \
         let yv = {y};\n    for (var k = 0u; k < ITERS; k++) {{\n        x = step(x, yv);\n    }}\n    \
         for (var j = 0u; j < {n}u; j++) {{\n        out[i * {n}u + j] = x[j];\n    }}\n}}"
    )
    .unwrap();
    s
}

/// CPU twin of one chain: `iters` steps of `x <- lo(x y) + hi(x y) mod
/// 2^(W N)` on limbs below 2^W (the shader's result whatever the style's
/// units, when they are exact).
pub fn products_reference(style: ProductStyle, x: &[u32], y: &[u32], iters: u32) -> Vec<u32> {
    let (w, n) = (style.limb_bits(), style.limbs());
    let mask = (1u64 << w) - 1;
    let mut x: Vec<u64> = x.iter().map(|&v| u64::from(v)).collect();
    for _ in 0..iters {
        let mut c = vec![0u64; 2 * n];
        for i in 0..n {
            for j in 0..n {
                c[i + j] += x[i] * u64::from(y[j]);
            }
        }
        for k in 0..2 * n - 1 {
            c[k + 1] += c[k] >> w;
            c[k] &= mask;
        }
        let mut carry = 0;
        for j in 0..n {
            carry += c[j] + c[j + n];
            x[j] = carry & mask;
            carry >>= w;
        }
    }
    x.iter().map(|&v| v as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column bounds the shader relies on: u32 columns below 2^32 for
    /// every style, and each FMA pair's sum below 2^24 for f32.
    #[test]
    fn columns_and_pairs_stay_in_range() {
        for style in ProductStyle::ALL {
            let (w, n) = (style.limb_bits(), style.limbs() as u64);
            let top = (1u64 << w) - 1;
            assert!(n * top * top + (1 << (32 - w)) < (1 << 32), "{}", style.name());
            assert!(u64::from(style.limb_bits()) * n >= 256);
        }
        let top = (1u64 << 11) - 1;
        assert!((1 << 23) + 2 * top * top < 1 << 24);
    }

    /// One step of the twin against a product written out in full: lo + hi
    /// of (2^264 - 1)^2 mod 2^264 for all-ones limbs.
    #[test]
    fn reference_folds_the_product() {
        let style = ProductStyle::F32x11x24;
        let ones = vec![(1u32 << 11) - 1; 24];
        // (R - 1)^2 = R^2 - 2R + 1: hi = R - 2, lo = 1; lo + hi = R - 1
        assert_eq!(products_reference(style, &ones, &ones, 1), ones);
        let mut one = vec![0u32; 24];
        one[0] = 1;
        assert_eq!(products_reference(style, &ones, &one, 3), ones);
    }

    #[test]
    fn every_style_writes_its_products() {
        for style in ProductStyle::ALL {
            let m = products_module(style);
            let n = style.limbs();
            let count = if style == ProductStyle::F32x11x24 {
                m.matches("fma(xf").count()
            } else {
                m.matches("] * y[").count()
            };
            assert_eq!(count, n * n, "{}", style.name());
            assert_eq!(ProductStyle::from_name(style.name()), Some(style));
        }
    }
}
