//! `Groth16Key` and `Groth16Witness`: the host half of snarkjs's Groth16
//! prover for circom circuits, in wasm (msm-circom's code), for
//! `groth16Prover` in snarkjs.js, which runs the five MSMs on this
//! package's contexts. Per proof the host work is the witness, H's scalars
//! (A and B from the key's coefficients and six FFTs: `hScalars`, or `abc`
//! and `joinAbc` around ffjavascript's threaded FFTs) and the assembly;
//! snarkjs does the same work in a loop of wasm calls per coefficient and
//! reads the key again in every proof.

use ark_bn254::{Fr, G1Affine, G2Affine};
use ark_ff::PrimeField;
use ark_serialize::CanonicalDeserialize;
use msm_circom::{proof_json, public_json, CircomError, KeyHead, Proof, QuerySums, Witness};
use wasm_bindgen::prelude::*;

use crate::js::{js_error, to_js};
use crate::result::MsmResult;

/// A snarkjs `.zkey` (BN254 Groth16) read once: its sizes, verifying key
/// and coefficients; its queries stay in the caller's bytes
/// (`queryRanges`) for `MsmContext.uploadBasesMontgomery`.
#[wasm_bindgen]
pub struct Groth16Key {
    head: KeyHead,
}

/// A circuit's witness (`.wtns`), checked against its key.
#[wasm_bindgen]
pub struct Groth16Witness {
    values: Witness,
    /// The values as the file holds them: the MSMs' scalars, unconverted.
    bytes: Vec<u8>,
    n_public: usize,
}

/// Limbs as little-endian bytes, appended to `out`.
fn put(out: &mut Vec<u8>, limbs: &[u64; 4]) {
    for l in limbs {
        out.extend_from_slice(&l.to_le_bytes());
    }
}

/// Canonical little-endian words (MSM scalars).
fn words(values: &[Fr]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * values.len());
    values.iter().for_each(|v| put(&mut out, &v.into_bigint().0));
    out
}

/// Montgomery-form words (R = 2^256: arkworks' limbs, ffjavascript's Fr),
/// of every vector, one after another.
fn montgomery(vectors: &[Vec<Fr>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * vectors.iter().map(Vec::len).sum::<usize>());
    vectors.iter().flatten().for_each(|v| put(&mut out, &v.0 .0));
    out
}

fn from_montgomery(bytes: &[u8], what: &str) -> Result<Vec<Fr>, JsError> {
    bytes
        .chunks_exact(32)
        .map(|c| {
            let limbs: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap()));
            let v = ark_ff::BigInt(limbs);
            (v < Fr::MODULUS)
                .then(|| Fr::new_unchecked(v))
                .ok_or_else(|| js_error(format!("Groth16Key.joinAbc: {what}: a value not below r")))
        })
        .collect()
}

fn point<P: CanonicalDeserialize>(r: &MsmResult, what: &str) -> Result<P, JsError> {
    P::deserialize_uncompressed(r.point_bytes()).map_err(|e| js_error(format!("Groth16Key.assemble: {what}: {e}")))
}

#[wasm_bindgen]
impl Groth16Key {
    /// Reads a `.zkey`'s header, verifying key and coefficients (rejects,
    /// naming what is wrong, a truncated file, another kind of file, a
    /// PLONK key, another curve, a bad point of the verifying key).
    pub fn parse(zkey: &[u8]) -> Result<Groth16Key, JsError> {
        KeyHead::from_bytes(zkey)
            .map(|head| Groth16Key { head })
            .map_err(|e| js_error(format!("zkey: {e}")))
    }

    /// Signals, the constant 1 included.
    #[wasm_bindgen(getter, js_name = nVars)]
    pub fn n_vars(&self) -> usize {
        self.head.n_vars
    }

    /// Public signals (outputs, then public inputs).
    #[wasm_bindgen(getter, js_name = nPublic)]
    pub fn n_public(&self) -> usize {
        self.head.n_public
    }

    /// The evaluation domain's size.
    #[wasm_bindgen(getter, js_name = domainSize)]
    pub fn domain_size(&self) -> usize {
        self.head.domain_size
    }

    /// Where A, B in G1, B in G2, C and H lie in the key's bytes: five
    /// `[start, end)` pairs, each ffjavascript's layout.
    #[wasm_bindgen(getter, js_name = queryRanges, unchecked_return_type = "[number, number][]")]
    pub fn query_ranges(&self) -> JsValue {
        let pairs: Vec<[usize; 2]> = self.head.queries.iter().map(|r| [r.start, r.end]).collect();
        to_js(&pairs)
    }

    /// Reads a `.wtns` and checks it is this key's circuit's.
    pub fn witness(&self, wtns: &[u8]) -> Result<Groth16Witness, JsError> {
        let w = Witness::from_bytes(wtns).map_err(|e| js_error(format!("wtns: {e}")))?;
        let bytes = Witness::value_bytes(wtns)
            .map_err(|e| js_error(format!("wtns: {e}")))?
            .to_vec();
        if w.0.len() != self.head.n_vars {
            let e = CircomError::WitnessLength {
                witness: w.0.len(),
                circuit: self.head.n_vars,
            };
            return Err(js_error(format!("wtns: {e}")));
        }
        Ok(Groth16Witness {
            values: w,
            bytes,
            n_public: self.head.n_public,
        })
    }

    /// A, B and C = A·B at the domain's points (`domainSize` values each,
    /// one after another, in Montgomery form: ffjavascript's Fr buffers),
    /// for FFTs run elsewhere; `joinAbc` takes their odd-coset evaluations.
    pub fn abc(&self, witness: &Groth16Witness) -> Vec<u8> {
        montgomery(&self.head.abc(&witness.values))
    }

    /// H's scalars (as `hScalars` gives them) from A, B and C evaluated on
    /// the odd coset (ffjavascript's `Fr.fft` of `Fr.batchApplyKey(Fr.ifft(v),
    /// 1, w[power + 1])`, Montgomery form): A·B - C.
    #[wasm_bindgen(js_name = joinAbc)]
    pub fn join_abc(&self, a: &[u8], b: &[u8], c: &[u8]) -> Result<Vec<u8>, JsError> {
        let n = self.head.domain_size;
        if [a, b, c].iter().any(|v| v.len() != 32 * n) {
            return Err(js_error(format!(
                "Groth16Key.joinAbc: expected {n} values of 32 bytes each"
            )));
        }
        let (a, b, c) = (
            from_montgomery(a, "A")?,
            from_montgomery(b, "B")?,
            from_montgomery(c, "C")?,
        );
        let h: Vec<Fr> = a.iter().zip(&b).zip(&c).map(|((a, b), c)| *a * b - c).collect();
        Ok(words(&h))
    }

    /// H's scalars for `witness` (32 little-endian bytes each, one per
    /// domain point), as snarkjs computes them, the FFTs in wasm on one
    /// thread (`abc` and `joinAbc` let ffjavascript's threads run them).
    #[wasm_bindgen(js_name = hScalars)]
    pub fn h_scalars(&self, witness: &Groth16Witness) -> Result<Vec<u8>, JsError> {
        let h = self.head.h_scalars(&witness.values).map_err(js_error)?;
        Ok(words(&h))
    }

    /// The proof from the five MSMs' results (A, B in G1, B in G2, C, H)
    /// and 128 bytes of randomness (r from the first 64, s from the last,
    /// each reduced mod the group order): `{ proof, publicSignals }` as
    /// snarkjs's `groth16.prove` returns them. `verify` checks the pairing
    /// equation first and rejects a proof that fails it.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &self,
        witness: &Groth16Witness,
        a: &MsmResult,
        b1: &MsmResult,
        b2: &MsmResult,
        c: &MsmResult,
        h: &MsmResult,
        randomness: &[u8],
        verify: bool,
    ) -> Result<JsValue, JsError> {
        if randomness.len() != 128 {
            return Err(js_error(format!(
                "Groth16Key.assemble: expected 128 bytes of randomness, got {}",
                randomness.len()
            )));
        }
        let g1 = |r: &MsmResult, what| point::<G1Affine>(r, what).map(|p| p.into());
        let sums = QuerySums {
            a: g1(a, "A")?,
            b_g1: g1(b1, "B (G1)")?,
            b_g2: point::<G2Affine>(b2, "B (G2)")?.into(),
            c: g1(c, "C")?,
            h: g1(h, "H")?,
        };
        let r = Fr::from_le_bytes_mod_order(&randomness[..64]);
        let s = Fr::from_le_bytes_mod_order(&randomness[64..]);
        let proof = Proof::assemble(&self.head.vk, &sums, r, s);
        let public = witness.public();
        if verify && !self.head.vk.verify(public, &proof) {
            return Err(js_error(
                "Groth16Key.assemble: the proof fails the pairing check (a wrong witness, or a wrong MSM)",
            ));
        }
        Ok(to_js(&serde_json::json!({
            "proof": proof_json(&proof),
            "publicSignals": public_json(public),
        })))
    }
}

impl Groth16Witness {
    fn public(&self) -> &[Fr] {
        &self.values.0[1..=self.n_public]
    }
}

#[wasm_bindgen]
impl Groth16Witness {
    /// Every value as 32 little-endian bytes (the scalars of A and B).
    #[wasm_bindgen(getter)]
    pub fn scalars(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The private signals' values (the scalars of C).
    #[wasm_bindgen(getter, js_name = privateScalars)]
    pub fn private_scalars(&self) -> Vec<u8> {
        self.bytes[32 * (self.n_public + 1)..].to_vec()
    }
}
