//! The crate's error type.

/// Everything that can go wrong in msm-core. Device loss and validation errors
/// surface here instead of panicking or hanging.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum MsmError {
    #[error(
        "no GPU adapter found{filter}. On a machine without a GPU, install a software \
         Vulkan driver (Debian: `apt-get install mesa-vulkan-drivers libvulkan1`)"
    )]
    NoAdapter { filter: String },
    #[error("adapter `{adapter}` refused a device: {message}")]
    RequestDevice { adapter: String, message: String },
    #[error("field layout {layout} needs 64-bit shader integers, which adapter `{adapter}` lacks")]
    LayoutUnsupported {
        layout: msm_wgsl::FieldLayout,
        adapter: String,
    },
    #[error("shader preprocessing failed: {0}")]
    Shader(#[from] msm_wgsl::PreprocessError),
    #[error("GPU validation error in `{label}`: {message}")]
    Validation { label: String, message: String },
    #[error("GPU buffer readback failed: {0}")]
    Readback(String),
    /// A wait for the GPU outlasted the context's `gpu_timeout`: the GPU is
    /// hung or the work far larger than expected. The context stays usable.
    #[error("{what} waited {after:?} for the GPU without an answer (ContextOptions::gpu_timeout)")]
    Timeout {
        what: &'static str,
        after: std::time::Duration,
    },
    #[error("GPU error: {0}")]
    Device(String),
    /// The device is gone (driver reset, removal, `destroy`): this context
    /// stays unusable; build a new one.
    #[error("the GPU device was lost: {0}; create a new context")]
    DeviceLost(String),
    #[error(
        "{scalars} scalars for {bases} bases: an MSM takes at most one scalar per base \
         (a shorter scalar vector uses the first bases)"
    )]
    LengthMismatch { bases: usize, scalars: usize },
    /// A knob or option the caller gave is refused: `knob` names it (a
    /// knob's field name, or an option such as `field_layout`), `reason`
    /// says why.
    #[error("invalid {knob}: {reason}")]
    InvalidConfig { knob: String, reason: String },
    /// Bases uploaded through another context (each context owns its device
    /// and buffers).
    #[error("these bases were uploaded through another context; upload them through this one")]
    ForeignBases,
    /// A call for another curve group than the context runs (a context's
    /// shaders are generated for one curve: build one per curve).
    #[error("this context runs {context}; {asked} was asked (ContextOptions::curve)")]
    WrongCurve {
        context: crate::curve::Curve,
        asked: crate::curve::Curve,
    },
    /// Inputs the MSM cannot read: malformed scalar bytes, bases that are
    /// not points of the curve (with the index of the first one).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A base point given as bytes is refused (the first such point).
    #[error("base point {index} is refused: {defect}")]
    InvalidBase {
        index: usize,
        defect: crate::base_format::BaseDefect,
    },
    #[error(
        "{what} need {bytes} bytes in one binding; the adapter allows {limit}: use fewer points per chunk \
         (max_chunk_points) or a smaller window_bits"
    )]
    BindingTooSmall { what: &'static str, bytes: u64, limit: u64 },
    /// More GPU memory than the device holds: checked before allocating
    /// where the sizes are known, else the driver's refusal with this call's
    /// planned bytes.
    #[error(
        "{what} need {needed} bytes of GPU memory{}",
        available.map_or_else(String::new, |a| format!("; at most {a} fit"))
    )]
    OutOfMemory {
        what: String,
        needed: u64,
        /// The limit the need was compared with (device memory or the largest
        /// buffer); `None` where the backend does not say.
        available: Option<u64>,
    },
    #[error("the GPU returned a value that is not a reduced field element (a shader bug)")]
    CorruptResult,
}

impl MsmError {
    /// An [`MsmError::InvalidConfig`] naming `knob`.
    pub fn invalid_config(knob: &str, reason: impl Into<String>) -> Self {
        MsmError::InvalidConfig {
            knob: knob.to_string(),
            reason: reason.into(),
        }
    }
}
