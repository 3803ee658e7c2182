//! BN254 multi-scalar multiplication on wgpu.
//!
//! [`GpuContext`] owns the device, the shader library for one field layout and a
//! pipeline cache; build it once. [`diagnostics`] runs the field and curve
//! primitives on the GPU for tests and measurements; [`repr`] converts between
//! arkworks values and the GPU's packed form; [`sample`] makes seeded inputs.

mod bases;
mod buffers;
pub mod config;
pub mod cpu;
pub mod diagnostics;
pub mod error;
pub mod gpu;
pub mod layout;
pub mod msm;
pub mod repr;
pub mod sample;

pub use bases::Bases;
pub use config::{MsmConfig, Plan, PrefMem, ReduceOn};
pub use error::MsmError;
pub use gpu::{default_field_code, default_layout, is_swiftshader, list_adapters, ContextOptions, GpuContext};
pub use msm::{MsmRun, MsmStages, MsmTimings};
pub use msm_wgsl::{FieldCode, FieldLayout};
