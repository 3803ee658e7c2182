//! Command-line flags shared by the subcommands: adapter, field module and
//! every `MsmConfig` knob. Knob values are handed as text to msm-core's one
//! parser (`MsmConfig::set`), which also serves the browser API and the page.

use msm_core::{ContextOptions, FieldCode, FieldLayout, GpuContext, Inversion, MsmConfig, MsmError, ProfileChoice};

#[derive(clap::Args, Clone, Debug)]
pub struct GpuArgs {
    /// Use the first adapter whose name contains this text (see `msm-cli adapters`).
    #[arg(long)]
    pub adapter: Option<String>,
    /// Field limb layout: 13x20, 16x16 or 32x8-int64 (default: best for the adapter).
    #[arg(long)]
    pub layout: Option<String>,
    /// Field multiplication code: unrolled or looped (default: looped on
    /// SwiftShader, unrolled elsewhere).
    #[arg(long)]
    pub field_code: Option<String>,
    /// Field inversion: fermat, gcd or bingcd (default: fermat under a loop
    /// cap, bingcd with 64-bit integers, gcd elsewhere).
    #[arg(long)]
    pub inversion: Option<String>,
    /// Folder of the pipeline cache kept across processes, or `off`
    /// (default: $MSM_GPU_CACHE_DIR, else the user's cache folder).
    #[arg(long)]
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// Device limits: `adapter` (all it offers) or `default` (WebGPU's
    /// defaults, what a web page gets that asks for none).
    #[arg(long, default_value = "adapter")]
    pub limits: String,
    /// Seconds one wait for the GPU may take before the MSM fails (default 300).
    #[arg(long)]
    pub gpu_timeout: Option<f64>,
    /// Tuned profile: `auto` (this adapter's, written by `msm-cli tune`),
    /// `off` (built-in defaults) or a file.
    #[arg(long, default_value = "auto")]
    pub profile: std::path::PathBuf,
}

#[derive(clap::Args, Clone, Debug, Default)]
pub struct KnobArgs {
    /// Any knob as NAME=VALUE (repeatable; names as in `MsmConfig`, e.g.
    /// walker_tpb=256 or walker_split=buckets).
    #[arg(long = "knob", short = 'k', value_name = "NAME=VALUE")]
    pub knobs: Vec<String>,
    /// Window width c in bits (default: from n).
    #[arg(long)]
    pub window_bits: Option<String>,
    /// Threads per workgroup of stream_walker.
    #[arg(long)]
    pub wtpb: Option<String>,
    /// Where pref_scratch lives: private or workgroup.
    #[arg(long)]
    pub prefmem: Option<String>,
    /// Slots per walker thread (S).
    #[arg(long)]
    pub ws: Option<String>,
    /// Keep dx in registers for the inverse pass (true/false).
    #[arg(long)]
    pub cachedx: Option<String>,
    /// Fuse the inverse and peel passes (true/false).
    #[arg(long)]
    pub fused: Option<String>,
    /// Walker threads (default: from n).
    #[arg(long)]
    pub wthreads: Option<String>,
    /// Walker tasks: equal (equal shares) or buckets (aligned to bucket starts).
    #[arg(long)]
    pub split: Option<String>,
    /// Split the MSM into chunks of at most this many points (default: only
    /// where the adapter's bindings require it).
    #[arg(long)]
    pub max_chunk_points: Option<String>,
    /// Where the reduce step runs: auto (GPU, host on SwiftShader), gpu or host.
    #[arg(long)]
    pub reduce: Option<String>,
}

impl KnobArgs {
    /// No knob was given: the context's profile decides.
    pub fn is_empty(&self) -> bool {
        let flags = [
            &self.window_bits,
            &self.wtpb,
            &self.prefmem,
            &self.ws,
            &self.cachedx,
            &self.fused,
            &self.wthreads,
            &self.split,
            &self.max_chunk_points,
            &self.reduce,
        ];
        self.knobs.is_empty() && flags.iter().all(|f| f.is_none())
    }

    /// The defaults with every flag given applied.
    pub fn config(&self) -> Result<MsmConfig, MsmError> {
        let mut c = MsmConfig::default();
        let flags = [
            ("window_bits", &self.window_bits),
            ("walker_tpb", &self.wtpb),
            ("walker_pref_mem", &self.prefmem),
            ("walker_slots", &self.ws),
            ("walker_cache_dx", &self.cachedx),
            ("walker_fused", &self.fused),
            ("walker_threads", &self.wthreads),
            ("walker_split", &self.split),
            ("max_chunk_points", &self.max_chunk_points),
            ("reduce", &self.reduce),
        ];
        for (name, value) in flags {
            if let Some(v) = value {
                c.set(name, v)?;
            }
        }
        for spec in &self.knobs {
            c = c.with_knobs(spec)?;
        }
        Ok(c)
    }
}

impl GpuArgs {
    /// Builds the context (timestamps on when the adapter has them).
    pub fn context(&self, config: MsmConfig) -> Result<GpuContext, MsmError> {
        let profile = match self.profile.as_os_str().to_str() {
            Some("auto") => ProfileChoice::Auto,
            Some("off") => ProfileChoice::Off,
            _ => ProfileChoice::File(self.profile.clone()),
        };
        self.context_with_profile(config, profile)
    }

    /// [`GpuArgs::context`] with the profile given.
    pub fn context_with_profile(&self, config: MsmConfig, profile: ProfileChoice) -> Result<GpuContext, MsmError> {
        let field_layout = self
            .layout
            .as_deref()
            .map(|n| {
                FieldLayout::from_name(n).ok_or_else(|| {
                    MsmError::InvalidConfig(format!("--layout {n}: expected 13x20, 16x16 or 32x8-int64"))
                })
            })
            .transpose()?;
        let field_code = match self.field_code.as_deref() {
            None => None,
            Some("unrolled") => Some(FieldCode::Unrolled),
            Some("looped") => Some(FieldCode::Looped),
            Some(other) => {
                return Err(MsmError::InvalidConfig(format!(
                    "--field-code {other}: expected unrolled or looped"
                )))
            }
        };
        let inversion = self
            .inversion
            .as_deref()
            .map(|s| {
                s.parse::<Inversion>()
                    .map_err(|e| MsmError::InvalidConfig(format!("--inversion: {e}")))
            })
            .transpose()?;
        let ctx = GpuContext::new_blocking(&ContextOptions {
            field_layout,
            adapter_name: self.adapter.clone(),
            timestamps: true,
            config,
            field_code,
            inversion,
            pipeline_cache: match &self.pipeline_cache {
                None => msm_core::PipelineCacheDir::Default,
                Some(p) if p.as_os_str() == "off" => msm_core::PipelineCacheDir::Off,
                Some(p) => msm_core::PipelineCacheDir::At(p.clone()),
            },
            profile,
            limits: match self.limits.as_str() {
                "adapter" => msm_core::LimitsChoice::Adapter,
                "default" => msm_core::LimitsChoice::WebGpuDefaults,
                other => {
                    return Err(MsmError::InvalidConfig(format!(
                        "--limits: expected adapter or default, got {other:?}"
                    )))
                }
            },
            gpu_timeout: match self.gpu_timeout {
                Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                Some(s) => {
                    return Err(MsmError::InvalidConfig(format!(
                        "--gpu-timeout: expected a positive number of seconds, got {s}"
                    )))
                }
                None => None,
            },
        })?;
        if ctx.is_software() {
            eprintln!(
                "note: running on `{}`, a software (CPU) adapter: no GPU was found; times are not GPU times",
                ctx.adapter_info().name
            );
        }
        Ok(ctx)
    }
}

/// One line describing the adapter.
pub fn adapter_line(ctx: &GpuContext) -> String {
    let i = ctx.adapter_info();
    format!(
        "{} ({:?}, {:?}), driver {} {}",
        i.name, i.backend, i.device_type, i.driver, i.driver_info
    )
}

/// One line describing the field module.
pub fn field_line(ctx: &GpuContext) -> String {
    let f = ctx.field_options();
    format!("{} ({:?} code, {} inversion)", f.layout, f.code, f.inversion)
}

/// One line describing the knobs.
pub fn config_line(c: &MsmConfig) -> String {
    let mut s = format!(
        "tpb={} pref={} S={} cachedx={} fused={} split={}",
        c.walker_tpb, c.walker_pref_mem, c.walker_slots, c.walker_cache_dx, c.walker_fused, c.walker_split
    );
    if let Some(t) = c.walker_threads {
        s += &format!(" threads={t}");
    }
    if let Some(w) = c.window_bits {
        s += &format!(" c={w}");
    }
    if c.walker_unroll {
        s += " unroll";
    }
    s
}
