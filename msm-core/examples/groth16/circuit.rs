//! The statement both provers prove: "I know x_0 whose chain ends at x_n",
//! with the hash-like round x_{i+1} = x_i^2 + k_i x_i + c_i over the curve's
//! scalar field F, one R1CS constraint a round:
//! x_i * (x_i + k_i) = x_{i+1} - c_i. x_0 .. x_{n-1} are private, x_n public.

use ark_ff::PrimeField;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The chain's private start and its round constants (k_i, c_i).
#[derive(Clone)]
pub struct Chain<F> {
    pub x0: F,
    pub rounds: Vec<(F, F)>,
}

impl<F: PrimeField> Chain<F> {
    /// `rounds` rounds (one constraint each; at least one) with constants and
    /// start drawn from `seed`.
    pub fn new(rounds: usize, seed: u64) -> Self {
        assert!(rounds >= 1, "the chain needs at least one round");
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let x0 = F::rand(&mut rng);
        let rounds = (0..rounds).map(|_| (F::rand(&mut rng), F::rand(&mut rng))).collect();
        Chain { x0, rounds }
    }

    /// x_n, the public output.
    pub fn output(&self) -> F {
        self.rounds.iter().fold(self.x0, |x, &(k, c)| round(x, k, c))
    }
}

fn round<F: PrimeField>(x: F, k: F, c: F) -> F {
    x * x + k * x + c
}

impl<F: PrimeField> ConstraintSynthesizer<F> for Chain<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let last = self.rounds.len() - 1;
        let mut x = self.x0;
        let mut var = cs.new_witness_variable(|| Ok(x))?;
        for (i, &(k, c)) in self.rounds.iter().enumerate() {
            let next = round(x, k, c);
            let next_var = if i == last {
                cs.new_input_variable(|| Ok(next))?
            } else {
                cs.new_witness_variable(|| Ok(next))?
            };
            cs.enforce_r1cs_constraint(
                || LinearCombination::from(var),
                || LinearCombination::from(var) + (k, Variable::One),
                || LinearCombination::from(next_var) - (c, Variable::One),
            )?;
            (x, var) = (next, next_var);
        }
        Ok(())
    }
}
