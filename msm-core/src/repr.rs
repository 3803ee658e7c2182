//! Host-side conversion between arkworks field elements and the GPU's packed form:
//! eight little-endian u32 words holding `a * R mod p`, where R = 2^(W N) is the
//! Montgomery radix of the shader's [`FieldLayout`].

use ark_bn254::Fq;
use ark_ff::{AdditiveGroup, BigInt, Field, PrimeField};
use msm_wgsl::{BaseField, FieldLayout};

/// Eight little-endian u32 words of a 256-bit value.
pub type Words = [u32; 8];

pub fn bigint_to_words(b: &BigInt<4>) -> Words {
    let mut w = [0u32; 8];
    for (i, limb) in b.0.iter().enumerate() {
        w[2 * i] = *limb as u32;
        w[2 * i + 1] = (*limb >> 32) as u32;
    }
    w
}

pub fn words_to_bigint(w: &Words) -> BigInt<4> {
    let mut b = [0u64; 4];
    for (i, limb) in b.iter_mut().enumerate() {
        *limb = w[2 * i] as u64 | ((w[2 * i + 1] as u64) << 32);
    }
    BigInt(b)
}

/// Converts field elements to and from one layout's Montgomery form.
#[derive(Clone, Copy, Debug)]
pub struct FieldRepr {
    r: Fq,
    r_inv: Fq,
}

// `self` is the layout's constants and the value the argument, as in a codec
#[allow(clippy::wrong_self_convention)]
impl FieldRepr {
    pub fn new(layout: FieldLayout) -> Self {
        let r = Fq::from(2u64).pow([layout.r_bits() as u64]);
        FieldRepr {
            r,
            r_inv: r.inverse().expect("R is invertible mod p"),
        }
    }

    /// `a` in the GPU's packed Montgomery form.
    pub fn to_gpu(&self, a: &Fq) -> Words {
        bigint_to_words(&(*a * self.r).into_bigint())
    }

    /// Reads the GPU's packed Montgomery form; `None` if the words are not a
    /// reduced residue (a value >= p never leaves a correct shader).
    pub fn from_gpu(&self, w: &Words) -> Option<Fq> {
        Fq::from_bigint(words_to_bigint(w)).map(|m| m * self.r_inv)
    }
}

/// arkworks' 64-bit limbs as little-endian u32 words.
pub fn limb_words(limbs: &[u64]) -> Vec<u32> {
    limbs.iter().flat_map(|l| [*l as u32, (*l >> 32) as u32]).collect()
}

/// A canonical element's little-endian u32 words: 8 for BN254's fields,
/// 12 for BLS12-381's Fq.
pub fn canonical_words<F: PrimeField>(a: F) -> Vec<u32> {
    limb_words(a.into_bigint().as_ref())
}

/// Any little-endian words, reduced mod p.
pub fn words_mod<F: PrimeField>(w: &[u32]) -> F {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    F::from_le_bytes_mod_order(&bytes)
}

/// The element whose canonical words are `w`; `None` unless they are below p.
pub fn from_canonical_words<F: PrimeField>(w: &[u32]) -> Option<F> {
    let v = words_mod::<F>(w);
    (canonical_words(v) == w).then_some(v)
}

/// [`FieldRepr`] for the coordinate field of any curve group: arkworks' `F`
/// (a prime field, or Fq2 over one) in the packed Montgomery form of
/// `layout`, R = 2^(W N) with N from the prime field's width. An Fq2
/// element packs as c0's words, then c1's.
#[derive(Clone, Copy, Debug)]
pub struct FieldCodec<F: Field> {
    r: F::BasePrimeField,
    r_inv: F::BasePrimeField,
    /// Words of one prime-field element.
    base_words: usize,
}

impl<F: Field> FieldCodec<F> {
    /// The codec of `field` (the prime field under `F`) in `layout`. Cheap
    /// (no constants generated): every MSM call makes one to read its results.
    pub fn new(layout: FieldLayout, field: BaseField) -> Self {
        assert!(F::extension_degree() <= 2, "coordinates are Fq or Fq2");
        let bits = F::BasePrimeField::MODULUS_BIT_SIZE;
        debug_assert_eq!(field.modulus().bits() as u32, bits, "F is not over {field}'s Fq");
        let r_bits = layout.limb_bits() * layout.limbs_for(bits) as u32;
        let r = F::BasePrimeField::from(2u64).pow([r_bits as u64]);
        FieldCodec {
            r,
            r_inv: r.inverse().expect("R is invertible mod p"),
            base_words: bits.div_ceil(32) as usize,
        }
    }

    /// Words of one packed element.
    pub fn words(&self) -> usize {
        self.base_words * F::extension_degree() as usize
    }

    /// `a` in the GPU's packed Montgomery form.
    pub fn encode(&self, a: F) -> Vec<u32> {
        let mut out = vec![0; self.words()];
        self.encode_into(a, &mut out);
        out
    }

    /// [`FieldCodec::encode`] into `out` (`words()` long), allocating nothing.
    pub fn encode_into(&self, a: F, out: &mut [u32]) {
        for (part, e) in out.chunks_mut(self.base_words).zip(a.to_base_prime_field_elements()) {
            let m = (e * self.r).into_bigint();
            for (pair, limb) in part.chunks_mut(2).zip(m.as_ref()) {
                pair[0] = *limb as u32;
                if let Some(hi) = pair.get_mut(1) {
                    *hi = (*limb >> 32) as u32;
                }
            }
        }
    }

    /// Reads the GPU's packed Montgomery form; `None` unless the words are
    /// `words()` long and each part a reduced residue.
    pub fn decode(&self, w: &[u32]) -> Option<F> {
        if w.len() != self.words() {
            return None;
        }
        // Fq or Fq2: at most two parts, decoded without allocating
        let mut elems = [F::BasePrimeField::ZERO; 2];
        for (e, part) in elems.iter_mut().zip(w.chunks(self.base_words)) {
            *e = self.decode_prime(part)?;
        }
        F::from_base_prime_field_elems(elems[..F::extension_degree() as usize].iter().copied())
    }

    fn decode_prime(&self, w: &[u32]) -> Option<F::BasePrimeField> {
        let mut b = <F::BasePrimeField as PrimeField>::BigInt::default();
        let limbs = b.as_mut();
        if w.len() > 2 * limbs.len() {
            return None;
        }
        for (limb, pair) in limbs.iter_mut().zip(w.chunks(2)) {
            *limb = pair[0] as u64 | pair.get(1).map_or(0, |&h| (h as u64) << 32);
        }
        F::BasePrimeField::from_bigint(b).map(|m| m * self.r_inv)
    }
}

impl From<&FieldRepr> for FieldCodec<Fq> {
    /// BN254's codec of the same layout.
    fn from(repr: &FieldRepr) -> Self {
        FieldCodec {
            r: repr.r,
            r_inv: repr.r_inv,
            base_words: 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_std::UniformRand;

    #[test]
    fn round_trips_every_layout() {
        let mut rng = ark_std::test_rng();
        for layout in FieldLayout::ALL {
            let repr = FieldRepr::new(layout);
            for _ in 0..50 {
                let a = Fq::rand(&mut rng);
                assert_eq!(repr.from_gpu(&repr.to_gpu(&a)), Some(a));
            }
            assert_eq!(repr.from_gpu(&[u32::MAX; 8]), None);
            // the generic codec agrees with it on BN254
            let codec = FieldCodec::<Fq>::new(layout, BaseField::Bn254);
            let a = Fq::rand(&mut rng);
            assert_eq!(codec.encode(a), repr.to_gpu(&a).to_vec());
            let from_repr = FieldCodec::from(&repr);
            assert_eq!(from_repr.decode(&codec.encode(a)), Some(a));
            assert_eq!(from_repr.encode(a), codec.encode(a));
        }
        for layout in FieldLayout::ALL {
            let codec = FieldCodec::<ark_bls12_381::Fq>::new(layout, BaseField::Bls12_381);
            assert_eq!(codec.words(), 12);
            for _ in 0..50 {
                let a = ark_bls12_381::Fq::rand(&mut rng);
                assert_eq!(codec.decode(&codec.encode(a)), Some(a));
            }
            assert_eq!(codec.decode(&[u32::MAX; 12]), None);
        }
        // Fq2: c0's words, then c1's, each as the prime field's
        for layout in FieldLayout::ALL {
            let codec = FieldCodec::<ark_bls12_381::Fq2>::new(layout, BaseField::Bls12_381);
            let base = FieldCodec::<ark_bls12_381::Fq>::new(layout, BaseField::Bls12_381);
            assert_eq!(codec.words(), 24);
            for _ in 0..50 {
                let a = ark_bls12_381::Fq2::rand(&mut rng);
                let w = codec.encode(a);
                assert_eq!(w, [base.encode(a.c0), base.encode(a.c1)].concat());
                assert_eq!(codec.decode(&w), Some(a));
            }
            let bn = FieldCodec::<ark_bn254::Fq2>::new(layout, BaseField::Bn254);
            let a = ark_bn254::Fq2::rand(&mut rng);
            assert_eq!(bn.words(), 16);
            assert_eq!(bn.decode(&bn.encode(a)), Some(a));
            assert_eq!(bn.decode(&bn.encode(a)[..8]), None);
            let mut bad = bn.encode(a);
            bad[15] = u32::MAX;
            assert_eq!(bn.decode(&bad), None);
        }
    }
}
