//! The `scalar` module: BN254 Fr, generated like the Fq module.

use std::fmt::Write;

use super::{array_lit, Gen};
use crate::layout::{BaseField, FieldConstants, FieldLayout};

/// The `scalar` module: BN254 Fr in 16-bit limbs (portable), just what the
/// GPU needs to read scalars as arkworks holds them: `fr_from_mont` turns
/// arkworks' Montgomery form (R = 2^256) into the canonical value, and
/// `fr_unpack` / `fr_pack` move between words and limbs. Generated like the
/// Fq module, with Fr's modulus and the `fr` prefix.
pub fn scalar_module() -> String {
    let layout = FieldLayout::Limbs16x16;
    let c = FieldConstants::for_modulus(layout, crate::layout::scalar_modulus());
    let g = Gen::new(&c, BaseField::Bn254);
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
    s.push_str("// A scalar's little-endian words.\nalias FrWords = array<u32, 8>;\n");
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
