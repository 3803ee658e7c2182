//! One MSM's resident inputs and arkworks' answer, called again and again by
//! `bench` and `sweep`: each call timed end to end and checked.

use std::time::Instant;

use ark_ec::short_weierstrass::Affine;
use ark_ec::CurveGroup;
use msm_core::{BaseSet, Bases, Bn254, GpuContext, GpuCurve, MsmConfig, MsmError, MsmRun};

/// `--table C|auto` of `bench` and `sweep`.
#[derive(clap::Args)]
pub struct TableArg {
    /// Build the bases' table of shifted copies for window width C (2..=20,
    /// or auto) before the first call: every window then adds into one row
    /// of buckets. Memory: ceil(255 / C) times the bases. The knob
    /// `bases_table=false` runs without it.
    #[arg(long, value_name = "C|auto")]
    pub table: Option<String>,
}

impl TableArg {
    /// Builds the table where asked: its width and the milliseconds it took.
    pub fn build(&self, ctx: &GpuContext, bases: &mut BaseSet) -> Result<Option<(u32, f64)>, MsmError> {
        let Some(text) = &self.table else {
            return Ok(None);
        };
        let c = match text.as_str() {
            "auto" => None,
            t => Some(
                t.parse()
                    .map_err(|e| MsmError::invalid_config("--table", format!("{t:?}: {e}")))?,
            ),
        };
        let t = Instant::now();
        ctx.build_table_blocking(bases, c)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(bases.table_bits().map(|c| (c, ms)))
    }
}

pub struct Calls<'a, C: GpuCurve = Bn254> {
    pub ctx: &'a GpuContext,
    pub bases: &'a Bases<C>,
    pub scalars: &'a [C::ScalarField],
    pub expected: Affine<C>,
}

impl<C: GpuCurve> Calls<'_, C> {
    /// One call: wall-clock ms, the run, and whether it equals arkworks.
    pub fn call(&self, config: &MsmConfig) -> Result<(f64, MsmRun<C>, bool), MsmError> {
        let t = Instant::now();
        let run = self.ctx.msm_blocking_with(self.bases, self.scalars, config)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let ok = run.result.into_affine() == self.expected;
        Ok((ms, run, ok))
    }

    /// One call with per-pass timestamps (`None` where the context has no
    /// timestamp queries): the run and whether it equals arkworks.
    pub fn timed(&self, config: &MsmConfig) -> Result<Option<(MsmRun<C>, bool)>, MsmError> {
        if !self.ctx.has_timestamps() {
            return Ok(None);
        }
        let timed = MsmConfig {
            timing: true,
            ..config.clone()
        };
        let (_, run, ok) = self.call(&timed)?;
        Ok(Some((run, ok)))
    }
}
