//! A circom circuit's constraints and witness as an arkworks constraint
//! system, so that ark-groth16 proves exactly what `msm-cli prove` proves:
//! the same R1CS (read from the `.r1cs` file circom wrote) and the same
//! witness (the `.wtns` of the circuit's witness generator). Signal 0 is
//! the constant one, signals 1..=n_public the public outputs and inputs,
//! the rest private, as circom numbers them.

use std::sync::Arc;

use ark_bn254::Fr;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable};
use msm_circom::{Lc, R1cs, Witness};

/// The circuit with one witness; cheap to clone (ark-groth16 takes the
/// circuit by value for every proof).
#[derive(Clone)]
pub struct CircomCircuit {
    pub r1cs: Arc<R1cs>,
    /// One value a signal, the constant one first.
    pub witness: Arc<Witness>,
}

impl CircomCircuit {
    /// The public signals, as the verifier takes them.
    pub fn public(&self) -> Vec<Fr> {
        self.witness.public(self.r1cs.n_public).to_vec()
    }
}

impl ConstraintSynthesizer<Fr> for CircomCircuit {
    fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        let n = self.r1cs.n_vars;
        if self.witness.0.len() != n {
            return Err(SynthesisError::Unsatisfiable);
        }
        let mut vars = Vec::with_capacity(n);
        vars.push(Variable::One);
        for (i, &v) in self.witness.0.iter().enumerate().skip(1) {
            vars.push(if i <= self.r1cs.n_public {
                cs.new_input_variable(|| Ok(v))?
            } else {
                cs.new_witness_variable(|| Ok(v))?
            });
        }
        let lc = |terms: &Lc| {
            let mut out = LinearCombination::zero();
            for &(signal, coefficient) in terms {
                out += (coefficient, vars[signal as usize]);
            }
            out
        };
        for [a, b, c] in &self.r1cs.constraints {
            cs.enforce_r1cs_constraint(|| lc(a), || lc(b), || lc(c))?;
        }
        Ok(())
    }
}
