//! snarkjs's JSON: proof.json (`pi_a`, `pi_b`, `pi_c` as projective
//! triples of decimal strings, affine with z = 1) and public.json (the
//! public signals in decimal).

use ark_bn254::{Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use serde_json::{json, Value};

use crate::proof::Proof;

fn dec<F: ark_ff::PrimeField>(x: F) -> Value {
    Value::String(x.into_bigint().to_string())
}

/// snarkjs writes the identity as (0, 1, 0).
fn g1(p: &G1Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([dec(x), dec(y), "1"]),
        None => json!(["0", "1", "0"]),
    }
}

fn g2(p: &G2Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([[dec(x.c0), dec(x.c1)], [dec(y.c0), dec(y.c1)], ["1", "0"]]),
        None => json!([["0", "0"], ["1", "0"], ["0", "0"]]),
    }
}

/// proof.json as snarkjs writes it.
pub fn proof_json(p: &Proof) -> Value {
    json!({
        "pi_a": g1(&p.a),
        "pi_b": g2(&p.b),
        "pi_c": g1(&p.c),
        "protocol": "groth16",
        "curve": "bn128",
    })
}

/// public.json as snarkjs writes it.
pub fn public_json(public: &[Fr]) -> Value {
    Value::Array(public.iter().map(|x| dec(*x)).collect())
}
