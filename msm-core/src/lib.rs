//! BN254 and BLS12-381 (G1) multi-scalar multiplication on wgpu.
//!
//! The whole surface a prover uses:
//!
//! | | |
//! | --- | --- |
//! | [`Engine`], [`EngineOptions`], [`EngineBases`], [`Backend`], [`Route`] | MSMs routed between arkworks on the CPU and the GPU |
//! | [`Curve`], [`GpuCurve`], [`Bn254`], [`Bls12_381`] | the curve group a context runs (BN254's G1 unless [`ContextOptions::curve`] says otherwise), named by arkworks' configs in the typed API |
//! | [`GpuContext`], [`ContextOptions`], [`LimitsChoice`], [`PipelineCacheDir`], [`ProfileChoice`], [`ProfileSource`], [`AdapterClass`], [`FieldOptions`] | one adapter's device, shaders and caches |
//! | [`Bases`], [`HostBytes`], [`BaseFormat`], [`BaseDefect`] | resident bases, uploaded once (from points or bytes) |
//! | [`Scalars`], [`MsmRun`], [`MsmBatchRun`], [`MsmTimings`] | inputs and results |
//! | [`SelfTestReport`], [`SelfTestCase`] | [`GpuContext::self_test`]: this adapter's answers against arkworks |
//! | [`MsmConfig`], [`KnobOverrides`], [`PrefMem`], [`ReduceOn`], [`TaskSplit`], [`knobs`] | the knobs, as data |
//! | [`FieldLayout`], [`FieldCode`], [`Inversion`] | the field module's choices |
//! | [`MsmError`] | everything that can fail, typed |
//!
//! ```no_run
//! use ark_bn254::{Fr, G1Affine};
//! use msm_core::{Engine, EngineOptions};
//!
//! # fn main() -> Result<(), msm_core::MsmError> {
//! let points = vec![G1Affine::default(); 1 << 16];
//! let (s1, s2) = (vec![Fr::from(3u64); 1 << 16], vec![Fr::from(5u64); 1 << 10]);
//! // the GPU above the crossover, arkworks below (and where no adapter works)
//! let engine = Engine::new_blocking(&EngineOptions::default())?;
//! let bases = engine.upload_bases_blocking(&points)?; // once: resident
//! let q = engine.msm_blocking(&bases, &s1)?; // or `engine.msm(..).await`
//! let qs = engine.msm_batch_blocking(&bases, &[&s1, &s2])?; // shorter vectors use the first bases
//! # let _ = (q, qs);
//! # Ok(())
//! # }
//! ```
//!
//! `docs/api.md` has the same on one page. The `diagnostics` feature (the CLI, the tests, the benches turn it on)
//! makes the internals public: `passes` (one module per GPU pass beside its
//! WGSL file), `cpu` (the arkworks reference, each pass's CPU twin and the
//! operation counts of a plan), `plan`, `diagnostics` (field and curve
//! primitives and single passes on the GPU), `repr`, `sample`, `headless`
//! and the context's counters and test hooks.

/// A method public with the `diagnostics` feature, crate-private without.
macro_rules! diagnostics_pub {
    ($(#[$m:meta])* async fn $($rest:tt)+) => {
        #[cfg(feature = "diagnostics")]
        $(#[$m])* pub async fn $($rest)+
        #[cfg(not(feature = "diagnostics"))]
        $(#[$m])* #[allow(dead_code)] pub(crate) async fn $($rest)+
    };
    ($(#[$m:meta])* fn $($rest:tt)+) => {
        #[cfg(feature = "diagnostics")]
        $(#[$m])* pub fn $($rest)+
        #[cfg(not(feature = "diagnostics"))]
        $(#[$m])* #[allow(dead_code)] pub(crate) fn $($rest)+
    };
}

/// Modules public with the `diagnostics` feature, private without it (where
/// their test hooks and counters go unused).
macro_rules! diagnostics_modules {
    ($($name:ident),+ $(,)?) => {$(
        #[cfg(feature = "diagnostics")]
        pub mod $name;
        #[cfg(not(feature = "diagnostics"))]
        #[allow(dead_code, unused_imports)]
        mod $name;
    )+};
}

diagnostics_modules!(config, context, cpu, engine, error, layout, msm, passes, plan, repr);

mod adapter;
mod base_format;
mod curve;

mod bases;
#[cfg(not(target_arch = "wasm32"))]
mod host;
mod host_bytes;
pub mod knobs;

/// Field and curve primitives and single passes on the GPU (tests, benches).
#[cfg(feature = "diagnostics")]
pub mod diagnostics;
/// Start-up of the binaries where there is no display session.
#[cfg(feature = "diagnostics")]
pub mod headless;
/// Seeded inputs and adversarial classes.
#[cfg(feature = "sample")]
pub mod sample;
#[cfg(not(feature = "sample"))]
#[allow(dead_code)]
mod sample;
mod selftest;

pub use base_format::{BaseDefect, BaseFormat};
pub use bases::Bases;
pub use config::{MsmConfig, PrefMem, ReduceOn, TaskSplit};
pub use context::{AdapterClass, ContextOptions, GpuContext, LimitsChoice, PipelineCacheDir};
pub use curve::{Bls12_381, Bn254, Curve, GpuCurve};
pub use engine::{Backend, Engine, EngineBases, EngineOptions, Route};
pub use error::MsmError;
pub use host_bytes::HostBytes;
pub use knobs::KnobOverrides;
pub use msm::{MsmBatchRun, MsmRun, MsmTimings, Scalars};
pub use msm_wgsl::{FieldCode, FieldLayout, FieldOptions, Inversion};
pub use plan::profile::{ProfileChoice, ProfileSource};
pub use selftest::{SelfTestCase, SelfTestReport};

#[cfg(feature = "diagnostics")]
pub use {
    bases::{
        auto_table_bits, auto_table_bits_for, auto_table_width, base_part_points, table_bytes, table_part_points,
        table_windows, BaseSet, BASE_BYTES, MAX_TABLE_BITS,
    },
    context::{
        default_field_code, default_inversion, default_layout, is_swiftshader, CompileRecord, CreatedObjects,
        LiveMemory,
    },
    diagnostics::MsmStages,
    msm::{msm_memory_on, MsmMemory},
    passes::Pass,
    plan::profile::Profile,
    plan::Plan,
};
