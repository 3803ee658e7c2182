//! WGSL shaders of the BN254 and BLS12-381 MSM.
//!
//! - [`layout`]: the limb layouts of Fq and the constants derived from ark-ff's modulus;
//! - [`fieldgen`]: generates the unrolled `field` module for a layout;
//! - [`preprocess`]: the `#import` / `#ifdef` text preprocessor;
//! - [`products`]: a diagnostic of limb products by u32 or f32 units;
//! - [`registry`]: every shader, expanded to plain WGSL, addressed by [`ShaderId`].

pub mod fieldgen;
pub mod layout;
pub mod preprocess;
pub mod products;
pub mod registry;

pub use fieldgen::{FieldCode, FieldOptions, Inversion};
pub use layout::{BaseField, Coords, FieldConstants, FieldLayout};
pub use preprocess::PreprocessError;
pub use registry::{ShaderId, ShaderLibrary};
