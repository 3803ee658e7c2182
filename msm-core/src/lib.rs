//! BN254 multi-scalar multiplication on wgpu.
//!
//! [`GpuContext`] owns the device, the shader library for one field layout,
//! the passes' bind-group layouts and caches of pipelines and per-plan
//! scratch; build it once. [`passes`] holds one module per GPU pass (bindings,
//! kernels, dispatch sizes) beside its WGSL file; [`cpu`] the arkworks
//! reference, each pass's CPU twin and the operation counts of a plan;
//! [`plan`] derives a plan from the knobs in [`config`]; [`diagnostics`] runs
//! the field and curve primitives and single passes on the GPU for tests and
//! measurements; [`repr`] converts between arkworks values and the GPU's
//! packed form; [`sample`] makes seeded inputs; [`headless`] keeps Vulkan
//! start-up quiet where there is no display session.

mod bases;
pub mod config;
pub mod context;
pub mod cpu;
pub mod diagnostics;
pub mod engine;
pub mod error;
pub mod headless;
mod host_bytes;
pub mod knobs;
pub mod layout;
pub mod msm;
pub mod passes;
pub mod plan;
pub mod repr;
pub mod sample;

pub use bases::{base_part_points, Bases, BASE_BYTES};
pub use config::{MsmConfig, PrefMem, ReduceOn, TaskSplit};
pub use context::{
    default_field_code, default_inversion, default_layout, is_swiftshader, list_adapters, msm_memory_on, AdapterClass,
    CompileRecord, ContextOptions, CreatedObjects, GpuContext, LimitsChoice, LiveMemory, MsmMemory, PipelineCacheDir,
};
pub use cpu::bases::{BaseDefect, BaseFormat};
pub use diagnostics::MsmStages;
pub use engine::profile::{Profile, ProfileChoice, ProfileSource};
pub use engine::{Backend, Engine, EngineBases, EngineOptions, Route};
pub use error::MsmError;
pub use host_bytes::HostBytes;
pub use knobs::KnobOverrides;
pub use msm::{MsmBatchRun, MsmRun, MsmTimings, Scalars};
pub use msm_wgsl::{FieldCode, FieldLayout, Inversion};
pub use passes::Pass;
pub use plan::Plan;
