//! A Groth16 prover over BN254 or BLS12-381 whose G1 multi-scalar
//! multiplications run on the GPU: the library's client as a real prover
//! uses it.
//!
//! The witness reduction is ark-groth16's (`LibsnarkReduction`), so given the
//! same randomness r and s the proof must equal ark-groth16's bit for bit.
//! The proving key's four G1 queries stay resident on the GPU across proofs;
//! the G2 query runs on the CPU with arkworks, beside the GPU's work.

use std::error::Error;
use std::time::Instant;

use ark_ec::pairing::Pairing;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::{Proof, ProvingKey};
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, OptimizationGoal, SynthesisError, SynthesisMode};
use msm_core::{Bases, GpuContext, GpuCurve, MsmError};

/// A pairing whose G1 the GPU runs: `G` is its G1 config
/// (`ark_bn254::Bn254` with `msm_core::Bn254`, `ark_bls12_381::Bls12_381`
/// with `msm_core::Bls12_381`).
pub trait GpuPairing<G: GpuCurve>:
    Pairing<G1 = Projective<G>, G1Affine = Affine<G>, ScalarField = <G as ark_ec::CurveConfig>::ScalarField>
{
}

impl<E, G: GpuCurve> GpuPairing<G> for E where
    E: Pairing<G1 = Projective<G>, G1Affine = Affine<G>, ScalarField = <G as ark_ec::CurveConfig>::ScalarField>
{
}

/// Where one proof's time went (wall clock, ms).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProofTimes {
    /// Synthesis of the constraint system and the witness reduction to h.
    pub witness_ms: f64,
    /// The four G1 MSMs on the GPU, back to back.
    pub gpu_msm_ms: f64,
    /// The G2 MSM on the CPU (runs while the GPU works).
    pub g2_cpu_ms: f64,
    /// The whole proof.
    pub total_ms: f64,
}

/// A proving key with its G1 queries uploaded once.
pub struct GpuProvingKey<'a, E: GpuPairing<G>, G: GpuCurve> {
    pk: &'a ProvingKey<E>,
    a: Bases<G>,
    b_g1: Bases<G>,
    h: Bases<G>,
    l: Bases<G>,
}

impl<'a, E: GpuPairing<G>, G: GpuCurve> GpuProvingKey<'a, E, G> {
    /// Uploads `pk`'s A, B (G1), H and L queries.
    pub fn new(ctx: &GpuContext, pk: &'a ProvingKey<E>) -> Result<Self, MsmError> {
        Ok(GpuProvingKey {
            pk,
            a: ctx.upload_bases_blocking(&pk.a_query)?,
            b_g1: ctx.upload_bases_blocking(&pk.b_g1_query)?,
            h: ctx.upload_bases_blocking(&pk.h_query)?,
            l: ctx.upload_bases_blocking(&pk.l_query)?,
        })
    }

    /// Proves `circuit` with randomness `r` and `s` (ark-groth16 draws them
    /// from its RNG; here they are given so the two provers can be compared).
    pub fn prove<C: ConstraintSynthesizer<E::ScalarField>>(
        &self,
        ctx: &GpuContext,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimes), Box<dyn Error>> {
        let start = Instant::now();
        let Witness {
            h,
            assignment,
            num_inputs,
        } = witness(circuit)?;
        let witness_ms = ms(start);

        let pk = self.pk;
        let (g1, g2) = std::thread::scope(|scope| {
            // B in G2 over the whole assignment (its first entry is the constant 1).
            let g2 = scope.spawn(|| {
                let t = Instant::now();
                let b = E::G2::msm(&pk.b_g2_query, &assignment).map_err(|n| format!("B2 query length {n}"));
                (b, ms(t))
            });
            let t = Instant::now();
            let g1 = (|| -> Result<_, msm_core::MsmError> {
                let a = ctx.msm_blocking(&self.a, &assignment)?;
                let b = ctx.msm_blocking(&self.b_g1, &assignment)?;
                // h has one coefficient more than the H query (it is zero): a
                // prefix MSM over the resident query.
                let h = ctx.msm_blocking(&self.h, &h[..pk.h_query.len()])?;
                let l = ctx.msm_blocking(&self.l, &assignment[num_inputs..])?;
                Ok((a, b, h, l))
            })();
            (g1.map(|g| (g, ms(t))), g2.join().expect("G2 MSM thread panicked"))
        });
        let ((a_acc, b_acc, h_acc, l_acc), gpu_msm_ms) = g1?;
        let (b2_acc, g2_cpu_ms) = (g2.0?, g2.1);

        // A = alpha + sum a_i(x) + r delta, B = beta + sum b_i(x) + s delta,
        // C = s A + r B - r s delta + sum h_i H_i + sum l_i L_i.
        let delta = pk.delta_g1;
        let a = a_acc + pk.vk.alpha_g1 + delta * r;
        let b_g1 = b_acc + pk.beta_g1 + delta * s;
        let b_g2 = b2_acc + pk.vk.beta_g2 + pk.vk.delta_g2 * s;
        let c: E::G1 = a * s + b_g1 * r - delta * (r * s) + h_acc + l_acc;
        let proof = Proof {
            a: a.into_affine(),
            b: b_g2.into_affine(),
            c: c.into_affine(),
        };
        let times = ProofTimes {
            witness_ms,
            gpu_msm_ms,
            g2_cpu_ms,
            total_ms: ms(start),
        };
        Ok((proof, times))
    }
}

/// What the MSMs take from the circuit.
struct Witness<F> {
    /// The coefficients of h, from ark-groth16's reduction.
    h: Vec<F>,
    /// 1, the public inputs, the private witnesses.
    assignment: Vec<F>,
    /// Instance variables, the constant 1 included.
    num_inputs: usize,
}

/// Synthesises `circuit` and reduces its witness as ark-groth16's prover does.
fn witness<F: PrimeField, C: ConstraintSynthesizer<F>>(circuit: C) -> Result<Witness<F>, Box<dyn Error>> {
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove {
        construct_matrices: true,
        generate_lc_assignments: false,
    });
    circuit.generate_constraints(cs.clone())?;
    cs.finalize();
    // No `is_satisfied` here: ark-groth16 checks it in debug builds only, and
    // it costs as much as the rest of the reduction; an unsatisfied witness
    // gives a proof that does not verify.
    let h = LibsnarkReduction::witness_map::<F, GeneralEvaluationDomain<F>>(cs.clone())?;
    let num_inputs = cs.num_instance_variables();
    let inner = cs.borrow().ok_or(SynthesisError::MissingCS)?;
    let assignment = [inner.instance_assignment()?, inner.witness_assignment()?].concat();
    Ok(Witness {
        h,
        assignment,
        num_inputs,
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
