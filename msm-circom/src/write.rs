//! A proving key written as snarkjs's `.zkey` ([`ZKey::to_bytes`]): the
//! sections [`ZKey::from_bytes`] reads, in snarkjs's order, and section 10
//! (the contributions) empty, so that snarkjs's own tools take the file.

use ark_bn254::{Fq, Fr};
use ark_ff::PrimeField;

use crate::field;
use crate::zkey::ZKey;

/// One section: its type, then its length, then its bytes.
fn section(out: &mut Vec<u8>, ty: u32, body: &[u8]) {
    out.extend(ty.to_le_bytes());
    out.extend((body.len() as u64).to_le_bytes());
    out.extend(body);
}

fn modulus<F: PrimeField<BigInt = ark_ff::BigInt<4>>>(out: &mut Vec<u8>) {
    out.extend(32u32.to_le_bytes());
    out.extend(field::modulus_bytes::<F>());
}

impl ZKey {
    /// The key as a `.zkey` file that this crate and snarkjs read.
    pub fn to_bytes(&self) -> Vec<u8> {
        let g1s = |points: &[ark_bn254::G1Affine]| {
            let mut b = Vec::with_capacity(64 * points.len());
            points.iter().for_each(|p| field::g1_bytes(p, &mut b));
            b
        };
        let vk = &self.vk;
        let mut header = Vec::new();
        modulus::<Fq>(&mut header);
        modulus::<Fr>(&mut header);
        for v in [self.n_vars, self.n_public, self.domain_size] {
            header.extend((v as u32).to_le_bytes());
        }
        field::g1_bytes(&vk.alpha_g1, &mut header);
        field::g1_bytes(&vk.beta_g1, &mut header);
        field::g2_bytes(&vk.beta_g2, &mut header);
        field::g2_bytes(&vk.gamma_g2, &mut header);
        field::g1_bytes(&vk.delta_g1, &mut header);
        field::g2_bytes(&vk.delta_g2, &mut header);
        let mut coefs = Vec::with_capacity(4 + 44 * self.coefs.len());
        coefs.extend((self.coefs.len() as u32).to_le_bytes());
        for c in &self.coefs {
            for w in [c.matrix, c.constraint, c.signal] {
                coefs.extend(w.to_le_bytes());
            }
            field::fr_coef_bytes(&c.value, &mut coefs);
        }
        let mut b_g2 = Vec::with_capacity(128 * self.b_g2.len());
        self.b_g2.iter().for_each(|p| field::g2_bytes(p, &mut b_g2));
        // no contributions: a zero circuit hash and a count of 0
        let contributions = [vec![0u8; 64], vec![0u8; 4]].concat();
        let sections: [(u32, Vec<u8>); 10] = [
            (1, 1u32.to_le_bytes().to_vec()),
            (2, header),
            (3, g1s(&vk.ic)),
            (4, coefs),
            (5, g1s(&self.a)),
            (6, g1s(&self.b_g1)),
            (7, b_g2),
            (8, g1s(&self.c)),
            (9, g1s(&self.h)),
            (10, contributions),
        ];
        let mut out = Vec::with_capacity(sections.iter().map(|s| s.1.len() + 12).sum::<usize>() + 12);
        out.extend(b"zkey");
        out.extend(1u32.to_le_bytes());
        out.extend((sections.len() as u32).to_le_bytes());
        for (ty, body) in &sections {
            section(&mut out, *ty, body);
        }
        out
    }

    /// Writes the key to `path` as a `.zkey` file.
    pub fn write(&self, path: impl AsRef<std::path::Path>) -> Result<(), crate::CircomError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|source| crate::CircomError::Io {
            path: path.display().to_string(),
            source,
        })
    }
}
