//! Command-line flags shared by the subcommands: adapter, field layout and
//! every `MsmConfig` knob.

use msm_core::{ContextOptions, FieldCode, FieldLayout, GpuContext, MsmConfig, MsmError, PrefMem, ReduceOn};

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
}

#[derive(clap::Args, Clone, Debug)]
pub struct KnobArgs {
    /// Window width c in bits (default: from n).
    #[arg(long)]
    pub window_bits: Option<u32>,
    /// Threads per workgroup of stream_walker.
    #[arg(long, default_value_t = 96)]
    pub wtpb: u32,
    /// Where pref_scratch lives: private or workgroup.
    #[arg(long, default_value = "private")]
    pub prefmem: String,
    /// Slots per walker thread (S).
    #[arg(long, default_value_t = 8)]
    pub ws: u32,
    /// Keep dx in registers for the inverse pass (true/false).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub cachedx: bool,
    /// Fuse the inverse and peel passes (true/false).
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub fused: bool,
    /// Walker threads (default: from n).
    #[arg(long)]
    pub wthreads: Option<u32>,
    /// Split the MSM into chunks of at most this many points (default: only
    /// where the adapter's bindings require it).
    #[arg(long)]
    pub max_chunk_points: Option<u32>,
    /// Where the reduce step runs: auto (GPU, host on SwiftShader), gpu or host.
    #[arg(long, default_value = "auto")]
    pub reduce: String,
}

pub fn parse_reduce(s: &str) -> Result<ReduceOn, MsmError> {
    match s {
        "auto" => Ok(ReduceOn::Auto),
        "gpu" => Ok(ReduceOn::Gpu),
        "host" => Ok(ReduceOn::Host),
        other => Err(MsmError::InvalidConfig(format!(
            "--reduce {other}: expected auto, gpu or host"
        ))),
    }
}

pub fn parse_prefmem(s: &str) -> Result<PrefMem, MsmError> {
    match s {
        "private" => Ok(PrefMem::Private),
        "workgroup" => Ok(PrefMem::Workgroup),
        other => Err(MsmError::InvalidConfig(format!(
            "--prefmem {other}: expected private or workgroup"
        ))),
    }
}

impl KnobArgs {
    pub fn config(&self) -> Result<MsmConfig, MsmError> {
        Ok(MsmConfig {
            window_bits: self.window_bits,
            walker_tpb: self.wtpb,
            walker_pref_mem: parse_prefmem(&self.prefmem)?,
            walker_slots: self.ws,
            walker_cache_dx: self.cachedx,
            walker_fused: self.fused,
            walker_threads: self.wthreads,
            timing: false,
            max_chunk_points: self.max_chunk_points,
            reduce: parse_reduce(&self.reduce)?,
        })
    }
}

impl GpuArgs {
    /// Builds the context (timestamps on when the adapter has them).
    pub fn context(&self, config: MsmConfig) -> Result<GpuContext, MsmError> {
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
        let ctx = GpuContext::new_blocking(&ContextOptions {
            field_layout,
            adapter_name: self.adapter.clone(),
            timestamps: true,
            config,
            field_code,
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

/// One line describing the knobs.
pub fn config_line(c: &MsmConfig) -> String {
    format!(
        "tpb={} pref={} S={} cachedx={} fused={}",
        c.walker_tpb,
        match c.walker_pref_mem {
            PrefMem::Private => "private",
            PrefMem::Workgroup => "workgroup",
        },
        c.walker_slots,
        c.walker_cache_dx,
        c.walker_fused
    )
}
