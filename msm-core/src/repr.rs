//! Host-side conversion between arkworks field elements and the GPU's packed form:
//! eight little-endian u32 words holding `a * R mod p`, where R = 2^(W N) is the
//! Montgomery radix of the shader's [`FieldLayout`].

use ark_bn254::Fq;
use ark_ff::{BigInt, Field, PrimeField};
use msm_wgsl::FieldLayout;

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
        }
    }
}
