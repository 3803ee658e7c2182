//! `bench --upload-reps R`: the bases uploaded as arkworks' bytes (converted
//! and checked on the GPU) with and without the subgroup test, ABBA, and the
//! test alone on resident bases: what the check costs an upload.

use std::time::Instant;

use ark_ec::short_weierstrass::Affine;
use msm_core::cpu::bases::encode_point;
use msm_core::{BaseFormat, GpuContext, GpuCurve, HostBytes, MsmError};
use serde::Serialize;

use crate::stats::{summarize, Summary};

/// Milliseconds of each way, over the repetitions.
#[derive(Serialize)]
pub struct UploadCost {
    pub reps: usize,
    pub with_subgroup_ms: Summary,
    pub without_subgroup_ms: Summary,
    pub check_alone_ms: Summary,
}

impl UploadCost {
    pub fn print(&self, n: usize) {
        eprintln!(
            "upload of {n} points as bytes: {:.2} ms with the subgroup test, {:.2} ms without (medians of {}, ABBA); \
             the test alone on resident bases {:.2} ms ({:+.1}% of the unchecked upload)",
            self.with_subgroup_ms.median,
            self.without_subgroup_ms.median,
            self.reps,
            self.check_alone_ms.median,
            100.0 * (self.with_subgroup_ms.median / self.without_subgroup_ms.median - 1.0)
        );
    }
}

/// Times `reps` uploads each way after one of each (compiles), ABBA.
pub fn measure<C: GpuCurve>(ctx: &GpuContext, bases: &[Affine<C>], reps: usize) -> Result<UploadCost, MsmError> {
    let bytes: Vec<u8> = bases
        .iter()
        .flat_map(|p| encode_point(p, BaseFormat::Arkworks))
        .collect();
    let b = HostBytes::slice(&bytes);
    let checked = || -> Result<f64, MsmError> {
        let t = Instant::now();
        pollster::block_on(ctx.upload_bases_bytes::<C>(b, BaseFormat::Arkworks))?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    let trusting = || -> Result<f64, MsmError> {
        let t = Instant::now();
        pollster::block_on(ctx.upload_bases_bytes_trusting_subgroup::<C>(b, BaseFormat::Arkworks))?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    checked()?;
    trusting()?;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for i in 0..reps {
        if i % 2 == 0 {
            with.push(checked()?);
            without.push(trusting()?);
        } else {
            without.push(trusting()?);
            with.push(checked()?);
        }
    }
    let resident = ctx.upload_bases_blocking(bases)?;
    pollster::block_on(ctx.check_subgroup(&resident))?;
    let mut alone = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        pollster::block_on(ctx.check_subgroup(&resident))?;
        alone.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(UploadCost {
        reps,
        with_subgroup_ms: summarize(&with),
        without_subgroup_ms: summarize(&without),
        check_alone_ms: summarize(&alone),
    })
}
