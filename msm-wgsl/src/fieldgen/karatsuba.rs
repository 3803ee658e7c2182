//! The product a * b of the lazy 13-bit layout as Karatsuba's split of
//! the limb vectors: 3 half-size products instead of 4 at each level, so 20
//! limbs take 300 limb products at one level and 225 at two, against 400.
//!
//! Why it is exact in u32: each column of a * b is a sum of limb products,
//! and Karatsuba's middle term (a_L + a_H)(b_L + b_H) - z0 - z2 is the same
//! polynomial identity column by column. Every operation here wraps modulo
//! 2^32 and the true column value is below 2^32 (the lazy multiplication's
//! bound: at most 2N products below 2^26 and a carry once the reduction's
//! rows are in), so the wrapped sums, products and differences give it
//! exactly, however large the intermediate sums of limbs grow.

use std::fmt::Write;

use super::Gen;

/// Karatsuba levels of the 13-bit layout's straight-line product: one
/// natively (the walker 0.95-0.98x in 13x20 on the H100 and the H200; two
/// levels gained less, 0.97-1.00x, three lost), none in the browser package,
/// whose walker under Dawn lost 1.41-1.43x at 2^20 with either form
/// (docs/benchmarks.md).
pub(super) const LEVELS: u32 = if cfg!(target_arch = "wasm32") { 0 } else { 1 };

/// Below this many limbs a product is written as schoolbook columns.
const MIN_SPLIT: usize = 4;

/// Where a sub-product's columns go: added (or subtracted) into the
/// columns `c{offset + k}`.
#[derive(Clone, Copy)]
struct Target {
    offset: usize,
    minus: bool,
}

impl Gen<'_> {
    /// Writes a * b (the limb expressions `a` and `b`, equal lengths) into the
    /// columns `c0..`, declared zero before: each sub-product's columns are
    /// folded into them as soon as made, so no level's columns stay live
    /// beside the others' (natively level with binding every level's
    /// columns first; under Tint both forms lost alike).
    pub(super) fn karatsuba_into(&self, s: &mut String, a: &[String], b: &[String], levels: u32) {
        let top = [Target {
            offset: 0,
            minus: false,
        }];
        self.product_into(s, a, b, levels, "k", &top);
    }

    fn product_into(&self, s: &mut String, a: &[String], b: &[String], levels: u32, tag: &str, to: &[Target]) {
        let n = a.len();
        debug_assert_eq!(n, b.len());
        if levels == 0 || n < MIN_SPLIT {
            return schoolbook_into(s, a, b, tag, to);
        }
        let h = n.div_ceil(2);
        let shifted = |by: usize, flip: bool| {
            to.iter().map(move |t| Target {
                offset: t.offset + by,
                minus: t.minus ^ flip,
            })
        };
        // z0 = a_L b_L at 0 and -z0 at h; z2 = a_H b_H at 2h and -z2 at h
        let z0: Vec<Target> = shifted(0, false).chain(shifted(h, true)).collect();
        let z2: Vec<Target> = shifted(2 * h, false).chain(shifted(h, true)).collect();
        self.product_into(s, &a[..h], &b[..h], levels - 1, &format!("{tag}l"), &z0);
        self.product_into(s, &a[h..], &b[h..], levels - 1, &format!("{tag}h"), &z2);
        // zm = (a_L + a_H)(b_L + b_H) at h
        let sum = |v: &[String], name: &str, s: &mut String| -> Vec<String> {
            (0..h)
                .map(|i| {
                    let var = format!("{tag}{name}{i}");
                    match v.get(h + i) {
                        Some(hi) => writeln!(s, "    let {var} = {} + {hi};", v[i]).unwrap(),
                        None => writeln!(s, "    let {var} = {};", v[i]).unwrap(),
                    }
                    var
                })
                .collect()
        };
        let (sa, sb) = (sum(a, "sa", s), sum(b, "sb", s));
        let zm: Vec<Target> = shifted(h, false).collect();
        self.product_into(s, &sa, &sb, levels - 1, &format!("{tag}m"), &zm);
    }
}

/// A schoolbook product's columns, each added into its targets' columns.
fn schoolbook_into(s: &mut String, a: &[String], b: &[String], tag: &str, to: &[Target]) {
    let n = a.len();
    for k in 0..2 * n - 1 {
        let lo = k.saturating_sub(n - 1);
        let terms: Vec<String> = (lo..=k.min(n - 1))
            .map(|i| format!("{} * {}", a[i], b[k - i]))
            .collect();
        let sum = terms.join(" + ");
        if let [t] = to {
            let op = if t.minus { '-' } else { '+' };
            writeln!(s, "    c{} {op}= {sum};", t.offset + k).unwrap();
            continue;
        }
        writeln!(s, "    {{ let {tag}p = {sum};").unwrap();
        for t in to {
            let op = if t.minus { '-' } else { '+' };
            writeln!(s, "    c{} {op}= {tag}p;", t.offset + k).unwrap();
        }
        s.push_str("    }\n");
    }
}

#[cfg(test)]
mod tests {
    use super::super::Gen;
    use crate::layout::{BaseField, FieldConstants, FieldLayout};

    /// The straight-line product's limb multiplications at `levels` (the
    /// reduction's N^2 and one per row for m included).
    fn products(field: BaseField, levels: u32) -> usize {
        let c = FieldConstants::for_field(FieldLayout::Limbs13x20, field);
        let mut body = String::new();
        Gen::new(&c, field).mul_lazy_at(&mut body, levels);
        // the code after the routine's comment line
        body.split_once('\n').unwrap().1.matches(" * ").count()
    }

    /// Each level takes a quarter of a * b's limb products (BN254's 20
    /// limbs: 400, 300, 225; BLS12-381's 30: 900, 675, then 15 splits 8 / 7).
    #[test]
    fn levels_cut_the_limb_products() {
        let redc = |n: usize| n * n + n;
        assert_eq!(products(BaseField::Bn254, 0), 400 + redc(20));
        assert_eq!(products(BaseField::Bn254, 1), 300 + redc(20));
        assert_eq!(products(BaseField::Bn254, 2), 225 + redc(20));
        assert_eq!(products(BaseField::Bls12_381, 0), 900 + redc(30));
        assert_eq!(products(BaseField::Bls12_381, 1), 675 + redc(30));
        assert_eq!(products(BaseField::Bls12_381, 2), 3 * (64 + 49 + 64) + redc(30));
    }
}
