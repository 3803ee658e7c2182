//! A Groth16 prover over a snarkjs key whose MSMs run on msm-core's
//! engines (G1's and G2's), the key's queries resident between proofs.
//!
//! The proof is snarkjs's (`groth16_prove.js`) term for term, so given the
//! same r and s it is snarkjs's proof byte for byte:
//! π_A = α + Σ w·A + r·δ, π_B = β + Σ w·B + s·δ (G2),
//! π_C = Σ w·C + Σ h·H + s·π_A + r·(β + Σ w·B + s·δ)(G1) - r·s·δ.

use std::time::Instant;

use ark_bn254::Fr;
use ark_ff::PrimeField;
use msm_core::{Curve, Engine, EngineBases, EngineOptions};

use crate::error::CircomError;
use crate::proof::{Proof, QuerySums};
use crate::qap;
use crate::wtns::Witness;
use crate::zkey::{Coef, VerifyingKey, ZKey};

type G1 = ark_bn254::g1::Config;
type G2 = ark_bn254::g2::Config;

/// How a [`Prover`] runs its MSMs.
#[derive(Clone, Debug)]
pub struct ProverOptions {
    /// Both engines' options; the context's curve is set per group.
    pub engine: EngineOptions,
    /// Check, as the key is uploaded, that G2's query lies in the
    /// prime-order subgroup (BN254's G2 has a large cofactor; G1's points
    /// need only be on the curve, which reading the key checks): on the
    /// GPU, or on the CPU while an `Auto` engine's warm-up has not compiled
    /// the GPU's test.
    pub check_subgroup: bool,
}

impl Default for ProverOptions {
    fn default() -> Self {
        ProverOptions {
            engine: EngineOptions::default(),
            check_subgroup: true,
        }
    }
}

/// Where one proof's time went (wall clock, ms).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProofTimes {
    /// A, B, C at the domain and on the odd coset (the FFTs): H's scalars.
    pub qap_ms: f64,
    /// A, B and C's MSMs in G1 (from the proof's start, beside the FFTs).
    pub g1_msm_ms: f64,
    /// B's MSM in G2 (from the proof's start, beside the FFTs).
    pub g2_msm_ms: f64,
    /// H's MSM, after its scalars.
    pub h_msm_ms: f64,
    pub total_ms: f64,
}

/// A proving key held open: its coefficients on the host, its queries on
/// the engines' GPUs (or the host, where an engine runs on the CPU).
pub struct Prover {
    n_vars: usize,
    n_public: usize,
    domain_size: usize,
    vk: VerifyingKey,
    coefs: Vec<Coef>,
    g1: Engine,
    g2: Engine,
    a: EngineBases<G1>,
    b_g1: EngineBases<G1>,
    c: EngineBases<G1>,
    h: EngineBases<G1>,
    b_g2: EngineBases<G2>,
}

impl Prover {
    /// Opens the engines and uploads `key`'s queries.
    pub fn new(key: ZKey, opts: &ProverOptions) -> Result<Self, CircomError> {
        // unless told otherwise an engine's warm-up prepares for the MSMs a
        // proof runs alone: no compiles for sizes this key never runs
        let private = key.n_vars - key.n_public - 1;
        let engine = |curve: Curve, sizes: Vec<usize>| {
            let mut o = opts.engine.clone();
            o.context.curve = curve;
            if o.max_points.is_none() && o.warm_up_sizes.is_none() {
                o.warm_up_sizes = Some(sizes);
            }
            Engine::new_blocking(&o)
        };
        let g1 = engine(Curve::Bn254G1, vec![key.n_vars, private, key.domain_size])?;
        let g2 = engine(Curve::Bn254G2, vec![key.n_vars])?;
        let b_g2 = g2.upload_bases_blocking(&key.b_g2)?;
        if opts.check_subgroup {
            pollster::block_on(g2.check_subgroup(&b_g2)).map_err(|e| match e {
                msm_core::MsmError::InvalidBase { index, .. } => CircomError::InvalidPoint {
                    what: "B (G2)",
                    index,
                    defect: "it is not in the prime-order subgroup",
                },
                e => e.into(),
            })?;
        }
        Ok(Prover {
            a: g1.upload_bases_blocking(&key.a)?,
            b_g1: g1.upload_bases_blocking(&key.b_g1)?,
            c: g1.upload_bases_blocking(&key.c)?,
            h: g1.upload_bases_blocking(&key.h)?,
            b_g2,
            g1,
            g2,
            n_vars: key.n_vars,
            n_public: key.n_public,
            domain_size: key.domain_size,
            vk: key.vk,
            coefs: key.coefs,
        })
    }

    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.vk
    }

    /// The engines (G1's, G2's): their adapters, routes and warm-up.
    pub fn engines(&self) -> (&Engine, &Engine) {
        (&self.g1, &self.g2)
    }

    /// A proof for `witness` with fresh randomness from the operating system.
    pub fn prove(&self, witness: &Witness) -> Result<(Proof, ProofTimes), CircomError> {
        let mut bytes = [0u8; 128];
        getrandom::fill(&mut bytes).expect("the operating system's random source");
        let r = Fr::from_le_bytes_mod_order(&bytes[..64]);
        let s = Fr::from_le_bytes_mod_order(&bytes[64..]);
        self.prove_with(witness, r, s)
    }

    /// A proof for `witness` with randomness `r` and `s` (snarkjs's proof
    /// given the same two; never reuse them for real proofs: they hide the
    /// witness).
    pub fn prove_with(&self, witness: &Witness, r: Fr, s: Fr) -> Result<(Proof, ProofTimes), CircomError> {
        let w = &witness.0;
        if w.len() != self.n_vars {
            return Err(CircomError::WitnessLength {
                witness: w.len(),
                circuit: self.n_vars,
            });
        }
        let start = Instant::now();
        let private = &w[self.n_public + 1..];
        let (g1, g2, h, qap_ms) = std::thread::scope(|scope| {
            // A, B and C need only the witness: they run beside the FFTs.
            let g1 = scope.spawn(|| {
                let out = (|| -> Result<_, CircomError> {
                    let a = self.g1.msm_blocking(&self.a, w)?;
                    let b = self.g1.msm_blocking(&self.b_g1, w)?;
                    let c = self.g1.msm_blocking(&self.c, private)?;
                    Ok((a, b, c))
                })();
                (out, ms(start))
            });
            let g2 = scope.spawn(|| (self.g2.msm_blocking(&self.b_g2, w), ms(start)));
            let h = qap::h_scalars_from(&self.coefs, self.domain_size, w);
            let qap_ms = ms(start);
            let g1 = g1.join().expect("the G1 MSM thread panicked");
            let g2 = g2.join().expect("the G2 MSM thread panicked");
            (g1, g2, h, qap_ms)
        });
        let h_start = Instant::now();
        let h_acc = self.g1.msm_blocking(&self.h, &h)?;
        let h_msm_ms = ms(h_start);
        let ((a_acc, b1_acc, c_acc), g1_msm_ms) = (g1.0?, g1.1);
        let (b2_acc, g2_msm_ms) = (g2.0?, g2.1);

        let sums = QuerySums {
            a: a_acc,
            b_g1: b1_acc,
            b_g2: b2_acc,
            c: c_acc,
            h: h_acc,
        };
        let proof = Proof::assemble(&self.vk, &sums, r, s);
        let times = ProofTimes {
            qap_ms,
            g1_msm_ms,
            g2_msm_ms,
            h_msm_ms,
            total_ms: ms(start),
        };
        Ok((proof, times))
    }

    /// The public signals of `witness` (snarkjs's public.json).
    pub fn public<'w>(&self, witness: &'w Witness) -> &'w [Fr] {
        witness.public(self.n_public)
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
