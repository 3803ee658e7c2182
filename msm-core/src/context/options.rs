//! What a context is built from, and what it counts.

use std::sync::atomic::AtomicU64;

use msm_wgsl::{FieldCode, FieldLayout, Inversion};

use msm_wgsl::Coords;

use super::PipelineCacheDir;
use crate::curve::Curve;
use crate::error::MsmError;
use crate::plan::profile::ProfileChoice;
use crate::knobs::KnobOverrides;

/// How to pick the adapter and the field module.
#[derive(Clone, Debug, Default)]
pub struct ContextOptions {
    /// The curve group whose MSMs the context runs (its shaders are
    /// generated for that curve's field); BN254's G1 by default.
    pub curve: crate::curve::Curve,
    /// Field limb layout; `None` picks `default_layout` for the adapter.
    pub field_layout: Option<FieldLayout>,
    /// Only adapters whose name contains this text (case-insensitive).
    pub adapter_name: Option<String>,
    /// Ask for GPU timestamp queries when the adapter has them (per-pass timings).
    pub timestamps: bool,
    /// The knobs [`crate::GpuContext::msm`] uses, each over the tuned profile's
    /// value (or the default) for the call's size; `MsmConfig`s convert
    /// (the knobs that differ from the defaults).
    pub knobs: KnobOverrides,
    /// How the field multiplication is written; `None` picks
    /// `default_field_code` for the adapter.
    pub field_code: Option<FieldCode>,
    /// How `fq_inv` is computed; `None` picks `default_inversion`.
    pub inversion: Option<Inversion>,
    /// Where compiled pipelines persist across processes (where the adapter
    /// has a pipeline cache).
    pub pipeline_cache: PipelineCacheDir,
    /// Which tuned profile fills in the knobs `knobs` does not give
    /// (`msm-cli tune` writes them).
    pub profile: ProfileChoice,
    /// The device limits to request.
    pub limits: LimitsChoice,
    /// How long one wait for the GPU may take before it fails with
    /// [`crate::MsmError::Timeout`] (natively; the browser has its own watchdog).
    /// `None`: `DEFAULT_GPU_TIMEOUT` (5 minutes), on a software adapter
    /// plus the compile timeout (it compiles at a pipeline's first dispatch).
    pub gpu_timeout: Option<std::time::Duration>,
    /// How long compiling a call's missing pipelines may take before the
    /// call fails with [`crate::MsmError::Timeout`] (natively).
    /// `None`: `DEFAULT_COMPILE_TIMEOUT` (15 minutes).
    pub compile_timeout: Option<std::time::Duration>,
    /// Keep the guard counter wgpu's shader translator adds to every loop
    /// (off by default: these shaders' loops all end, and the guards cost
    /// compile time; see `GpuContext`'s module creation). Natively only:
    /// a browser's WebGPU applies its own.
    pub loop_guards: bool,
}

/// Which limits a context's device asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitsChoice {
    /// Everything the adapter offers (largest bindings, most workgroup memory).
    #[default]
    Adapter,
    /// WebGPU's defaults (128 MiB per binding, 256 MiB per buffer, 16 KiB of
    /// workgroup memory), what a page gets that asks for nothing: the MSM
    /// then plans smaller chunks and workgroups.
    WebGpuDefaults,
}

impl std::str::FromStr for LimitsChoice {
    type Err = String;

    /// `adapter` or `default` (the CLI's `--limits`, the package's `limits`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "adapter" => Ok(LimitsChoice::Adapter),
            "default" => Ok(LimitsChoice::WebGpuDefaults),
            other => Err(format!("expected \"adapter\" or \"default\", got {other:?}")),
        }
    }
}

/// GPU objects this context has created, by kind (a warm MSM with an
/// unchanged plan creates none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CreatedObjects {
    pub buffers: u64,
    pub bind_groups: u64,
    pub query_sets: u64,
    pub pipelines: u64,
    /// Bytes of all buffers created.
    pub buffer_bytes: u64,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) buffers: AtomicU64,
    pub(crate) bind_groups: AtomicU64,
    pub(crate) query_sets: AtomicU64,
    pub(crate) pipelines: AtomicU64,
    pub(crate) buffer_bytes: AtomicU64,
}

/// Options name curve groups as the CLI and the browser package do.
impl Curve {
    /// The group a curve name (`bn254`, `bls12-381`) and a group name
    /// (`g1`, `g2`) name, in any case: what the CLI's `--curve`/`--group`
    /// and the package's `curve`/`group` options take. The error names the
    /// option that is wrong.
    pub fn from_names(curve: &str, group: &str) -> Result<Curve, MsmError> {
        let g1 = Curve::from_name(curve)
            .filter(|c| c.coords() == Coords::Fq)
            .ok_or_else(|| {
                MsmError::invalid_config(
                    "curve",
                    format!("unknown curve {curve:?} (expected \"bn254\" or \"bls12-381\")"),
                )
            })?;
        match group.to_ascii_lowercase().as_str() {
            "g1" => Ok(g1),
            "g2" => Ok(g1.with_coords(Coords::Fq2)),
            _ => Err(MsmError::invalid_config(
                "group",
                format!("unknown group {group:?} (expected \"g1\" or \"g2\")"),
            )),
        }
    }
}
