//! A Groth16 prover over BN254 or BLS12-381 whose multi-scalar
//! multiplications all run on the GPU (G2's too, or G2's on the CPU with
//! arkworks): the library's client as a real prover uses it.
//!
//! The witness reduction is ark-groth16's (`LibsnarkReduction`), so given the
//! same randomness r and s the proof must equal ark-groth16's bit for bit.
//! The proving key's queries stay resident on the GPU across proofs, and
//! the circuit's constraint matrices may stay on the host ([`Matrices`]:
//! each proof then synthesises the witness alone). A, B and C's L term need
//! only the assignment: they run on the GPU while the CPU computes h (the
//! reduction's FFTs); then C's H term.

use std::error::Error;
use std::time::Instant;

use ark_ec::pairing::Pairing;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::{Proof, ProvingKey};
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, Matrix, OptimizationGoal, SynthesisError,
    SynthesisMode, R1CS_PREDICATE_LABEL,
};
use msm_core::{Bases, GpuContext, GpuCurve, MsmError};

type Fr<G> = <G as ark_ec::CurveConfig>::ScalarField;

/// A pairing whose groups the GPU runs: `G` is its G1 config and `G2` its
/// G2 config (`ark_bn254::Bn254` with `ark_bn254::g1::Config` and
/// `ark_bn254::g2::Config`; the same for `ark_bls12_381::Bls12_381`).
pub trait GpuPairing<G: GpuCurve, G2: GpuCurve<ScalarField = Fr<G>>>:
    Pairing<G1 = Projective<G>, G1Affine = Affine<G>, G2 = Projective<G2>, G2Affine = Affine<G2>, ScalarField = Fr<G>>
{
}

impl<E, G: GpuCurve, G2: GpuCurve<ScalarField = Fr<G>>> GpuPairing<G, G2> for E where
    E: Pairing<
        G1 = Projective<G>,
        G1Affine = Affine<G>,
        G2 = Projective<G2>,
        G2Affine = Affine<G2>,
        ScalarField = Fr<G>,
    >
{
}

/// Where one proof's time went (wall clock, ms).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProofTimes {
    /// Synthesis of the constraint system (witness generation).
    pub synthesis_ms: f64,
    /// The reduction to h (the FFTs, on the CPU), beside the MSMs below.
    pub fft_ms: f64,
    /// A, B and L in G1 on the GPU, from the end of synthesis.
    pub g1_msm_ms: f64,
    /// B in G2 (GPU or CPU), from the end of synthesis.
    pub g2_msm_ms: f64,
    /// From h to the end of C's H term (waiting for A, B, L included).
    pub h_msm_ms: f64,
    /// The whole proof.
    pub total_ms: f64,
    /// A, B and L's host and GPU times (the GPU's with `Contexts::timing`).
    pub g1: MsmTally,
    /// B in G2's (on the GPU only).
    pub g2: MsmTally,
}

/// Where a proof's MSMs of one group spent their time, summed over them
/// (ms): the GPU's work against the host's waits around it.
#[derive(Clone, Copy, Debug, Default)]
pub struct MsmTally {
    /// The kernels' span, first start to last end (timestamps).
    pub gpu_ms: f64,
    /// Writing the scalars into the staging buffer.
    pub upload_ms: f64,
    /// After the last submission until the results are back.
    pub wait_ms: f64,
}

impl MsmTally {
    fn add(&mut self, t: &msm_core::MsmTimings) {
        self.gpu_ms += t.gpu_span_ms.unwrap_or(0.0);
        self.upload_ms += t.upload_ms;
        self.wait_ms += t.wait_ms;
    }
}

/// One MSM on `ctx` with its configuration for the size, its times added
/// to `tally`.
fn msm_tallied<C: GpuCurve>(
    ctx: &GpuContext,
    bases: &Bases<C>,
    scalars: &[C::ScalarField],
    timing: bool,
    tally: &mut MsmTally,
) -> Result<Projective<C>, MsmError> {
    let mut config = ctx.config_for(scalars.len());
    config.timing = timing;
    let run = ctx.msm_blocking_with(bases, scalars, &config)?;
    tally.add(&run.timings);
    Ok(run.result)
}

/// A circuit's R1CS matrices, made once: with them a proof synthesises the
/// witness alone (no inlining of linear combinations, no matrices), as
/// provers that keep the matrices beside their proving key do; ark-groth16
/// rebuilds them in every proof.
pub struct Matrices<F: PrimeField> {
    matrices: Vec<Matrix<F>>,
    num_inputs: usize,
    num_constraints: usize,
}

impl<F: PrimeField> Matrices<F> {
    /// The matrices of `circuit`'s constraint system.
    pub fn of<C: ConstraintSynthesizer<F>>(circuit: C) -> Result<Self, Box<dyn Error>> {
        let (cs, _, num_inputs) = synthesize(circuit, true)?;
        let num_constraints = cs.num_constraints();
        let matrices = cs
            .to_matrices()?
            .remove(R1CS_PREDICATE_LABEL)
            .ok_or("the constraint system has no R1CS matrices")?;
        Ok(Matrices {
            matrices,
            num_inputs,
            num_constraints,
        })
    }
}

/// The GPU contexts a proof runs on: one per group (G2's absent: G2 on
/// the CPU).
pub struct Contexts<'c> {
    pub g1: &'c GpuContext,
    pub g2: Option<&'c GpuContext>,
    /// GPU timestamps on every MSM (`ProofTimes::g1`, `g2`).
    pub timing: bool,
}

/// A proving key with its queries uploaded once.
pub struct GpuProvingKey<'a, E: GpuPairing<G, G2>, G: GpuCurve, G2: GpuCurve<ScalarField = Fr<G>>> {
    pk: &'a ProvingKey<E>,
    a: Bases<G>,
    b_g1: Bases<G>,
    h: Bases<G>,
    l: Bases<G>,
    b_g2: Option<Bases<G2>>,
}

impl<'a, E: GpuPairing<G, G2>, G: GpuCurve, G2: GpuCurve<ScalarField = Fr<G>>> GpuProvingKey<'a, E, G, G2> {
    /// Uploads `pk`'s A, B (G1), H and L queries, and its B (G2) query where
    /// a G2 context is given.
    pub fn new(ctxs: &Contexts<'_>, pk: &'a ProvingKey<E>) -> Result<Self, MsmError> {
        Ok(GpuProvingKey {
            pk,
            a: ctxs.g1.upload_bases_blocking(&pk.a_query)?,
            b_g1: ctxs.g1.upload_bases_blocking(&pk.b_g1_query)?,
            h: ctxs.g1.upload_bases_blocking(&pk.h_query)?,
            l: ctxs.g1.upload_bases_blocking(&pk.l_query)?,
            b_g2: ctxs.g2.map(|c| c.upload_bases_blocking(&pk.b_g2_query)).transpose()?,
        })
    }

    /// Proves `circuit` with randomness `r` and `s` (ark-groth16 draws them
    /// from its RNG; here they are given so the two provers can be
    /// compared), over `matrices` where given (else built as ark-groth16
    /// does, in the proof).
    pub fn prove<C: ConstraintSynthesizer<E::ScalarField>>(
        &self,
        ctxs: &Contexts<'_>,
        circuit: C,
        matrices: Option<&Matrices<E::ScalarField>>,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimes), Box<dyn Error>> {
        let start = Instant::now();
        let (cs, assignment, num_inputs) = synthesize(circuit, matrices.is_none())?;
        if let Some(m) = matrices {
            if m.num_inputs != num_inputs {
                return Err(format!(
                    "the matrices are of {} inputs, the circuit has {num_inputs}",
                    m.num_inputs
                )
                .into());
            }
        }
        let synthesis_ms = ms(start);
        let synthesized = Instant::now();

        let (pk, ctx, timing) = (self.pk, ctxs.g1, ctxs.timing);
        let assignment = &assignment;
        let (g1, g2, h, fft_ms) = std::thread::scope(|scope| {
            // A, B and L need only the assignment: the GPU runs them while
            // this thread computes h.
            let g1 = scope.spawn(|| {
                let mut tally = MsmTally::default();
                let abl = (|| -> Result<_, MsmError> {
                    let a = msm_tallied(ctx, &self.a, assignment, timing, &mut tally)?;
                    let b = msm_tallied(ctx, &self.b_g1, assignment, timing, &mut tally)?;
                    let l = msm_tallied(ctx, &self.l, &assignment[num_inputs..], timing, &mut tally)?;
                    Ok((a, b, l))
                })();
                (abl, ms(synthesized), tally)
            });
            // B in G2 over the whole assignment (its first entry is the constant 1).
            let g2 = scope.spawn(|| {
                let mut tally = MsmTally::default();
                let b: Result<Projective<G2>, Box<dyn Error + Send + Sync>> = match (ctxs.g2, &self.b_g2) {
                    (Some(c2), Some(bases)) => {
                        msm_tallied(c2, bases, assignment, timing, &mut tally).map_err(Into::into)
                    }
                    _ => Projective::<G2>::msm(&pk.b_g2_query, assignment)
                        .map_err(|n| format!("B2 query length {n}").into()),
                };
                (b, ms(synthesized), tally)
            });
            let t = Instant::now();
            type D<F> = GeneralEvaluationDomain<F>;
            let h = match matrices {
                Some(m) => LibsnarkReduction::witness_map_from_matrices::<E::ScalarField, D<E::ScalarField>>(
                    &m.matrices,
                    m.num_inputs,
                    m.num_constraints,
                    assignment,
                ),
                None => LibsnarkReduction::witness_map::<E::ScalarField, D<E::ScalarField>>(cs),
            };
            let fft_ms = ms(t);
            let g1 = g1.join().expect("G1 MSM thread panicked");
            let g2 = g2.join().expect("G2 MSM thread panicked");
            (g1, g2, h, fft_ms)
        });
        let h = h?;
        // h has one coefficient more than the H query (it is zero): a prefix
        // MSM over the resident query.
        let h_acc = ctx.msm_blocking(&self.h, &h[..pk.h_query.len()])?;
        let ((a_acc, b_acc, l_acc), g1_msm_ms, g1_tally) = (g1.0?, g1.1, g1.2);
        let (b2_acc, g2_msm_ms, g2_tally) = (g2.0.map_err(|e| e.to_string())?, g2.1, g2.2);
        let h_msm_ms = ms(synthesized) - fft_ms;

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
            synthesis_ms,
            fft_ms,
            g1_msm_ms,
            g2_msm_ms,
            h_msm_ms,
            total_ms: ms(start),
            g1: g1_tally,
            g2: g2_tally,
        };
        Ok((proof, times))
    }
}

/// Synthesises `circuit` as ark-groth16's prover does (with
/// `construct_matrices`; else the witness alone): the constraint system
/// (for the reduction), the assignment (1, the public inputs, the private
/// witnesses) and the count of instance variables (1 included).
#[allow(clippy::type_complexity)]
fn synthesize<F: PrimeField, C: ConstraintSynthesizer<F>>(
    circuit: C,
    construct_matrices: bool,
) -> Result<(ConstraintSystemRef<F>, Vec<F>, usize), Box<dyn Error>> {
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove {
        construct_matrices,
        generate_lc_assignments: false,
    });
    circuit.generate_constraints(cs.clone())?;
    cs.finalize();
    // No `is_satisfied` here: ark-groth16 checks it in debug builds only, and
    // it costs as much as the rest of the reduction; an unsatisfied witness
    // gives a proof that does not verify.
    let num_inputs = cs.num_instance_variables();
    let assignment = {
        let inner = cs.borrow().ok_or(SynthesisError::MissingCS)?;
        [inner.instance_assignment()?, inner.witness_assignment()?].concat()
    };
    Ok((cs, assignment, num_inputs))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
