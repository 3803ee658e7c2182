//! The `scalar` module: a curve's Fr (BN254's or BLS12-381's), generated
//! like the Fq module.

use std::fmt::Write;

use num_bigint::BigUint;

use super::{array_lit, Gen};
use crate::layout::{BaseField, FieldConstants, FieldLayout};

/// The `scalar` module of BN254 ([`scalar_module_for`]).
pub fn scalar_module() -> String {
    scalar_module_for(BaseField::Bn254)
}

/// The `scalar` module of `field`'s curve: its Fr in 16-bit limbs
/// (portable), just what the GPU needs to read scalars as arkworks holds
/// them: `fr_from_mont` turns arkworks' Montgomery form (R = 2^256 for both
/// curves' 4-limb Fr) into the canonical value, and `fr_unpack` / `fr_pack`
/// move between words and limbs. Generated like the Fq module, with Fr's
/// modulus and the `fr` prefix.
pub fn scalar_module_for(field: BaseField) -> String {
    let layout = FieldLayout::Limbs16x16;
    let r = field.scalar_modulus();
    let c = FieldConstants::for_modulus(layout, r.clone());
    assert_eq!((c.words, c.r_bits), (8, 256), "a scalar field of 8 words, R = 2^256");
    let g = Gen::new(&c, field);
    let mut s = String::new();
    g.header(&mut s);
    g.pack(&mut s);
    g.reduce_once(&mut s);
    g.mul_cios(&mut s, false);
    super::mul::reduced_forms(&mut s);
    let mut raw_one = vec![0u32; g.n];
    raw_one[0] = 1;
    writeln!(
        s,
        "// Montgomery form (R = 2^256) -> plain value.\nfn fq_from_mont(a: Fq) -> Fq {{\n    return fq_mul(a, {});\n}}",
        array_lit(&raw_one)
    )
    .unwrap();
    let mut s = s
        .replacen(" Fq, ", " Fr (scalars), ", 1)
        .replace("fq_", "fr_")
        .replace("FQ_", "FR_")
        .replace("Fq", "Fr");
    reduce_words_mod_r(&mut s, &r);
    s.push_str("// A scalar's little-endian words.\nalias FrWords = array<u32, 8>;\n");
    s
}

/// `fr_reduce_words`: any 256-bit word (8 x u32, little-endian) mod r, by
/// floor((2^256 - 1) / r) conditional subtractions of r (five for BN254,
/// two for BLS12-381), straight-line and in 32-bit arithmetic. Canonical
/// scalars then give the sum of the integers reduced mod r times the
/// points: every point has order r, so s P = (s mod r) P.
fn reduce_words_mod_r(s: &mut String, modulus: &BigUint) {
    let r = crate::layout::to_limbs(modulus, 32, 8);
    let top = (BigUint::from(1u8) << 256usize) - 1u8;
    let times = (&top / modulus).to_u32_digits().first().copied().unwrap_or(0);
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
    let body = (0..times).fold("a".to_string(), |acc, _| format!("fr_sub_r_if_ge({acc})"));
    writeln!(
        s,
        "// Any 256-bit word mod r.\nfn fr_reduce_words(a: array<u32, 8>) -> array<u32, 8> {{\n    return {body};\n}}"
    )
    .unwrap();
}
