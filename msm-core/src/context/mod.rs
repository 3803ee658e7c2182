//! The GPU context: adapter, device, the shader library for the chosen field
//! layout, explicit bind-group layouts per pass, and caches of compiled
//! pipelines and per-plan scratch. Build it once and reuse it.

mod buffers;
mod defaults;
mod disk_cache;
mod health;
mod options;
mod pool;
mod pools;
mod scratch;
mod scopes;
mod staging;
pub(crate) mod pipelines;
mod waiter;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use msm_wgsl::{FieldCode, FieldLayout, FieldOptions, ShaderLibrary};

pub use crate::adapter::{
    default_field_code, default_inversion, default_layout, has_loop_cap, is_swiftshader, list_adapters, AdapterClass,
};
pub use disk_cache::PipelineCacheDir;
pub(crate) use health::LiveGuard;
pub use health::LiveMemory;
pub(crate) use options::Counters;
pub use options::{ContextOptions, CreatedObjects, LimitsChoice};
pub use pipelines::{Background, CompileRecord, DEFAULT_COMPILE_TIMEOUT};
pub use waiter::DEFAULT_GPU_TIMEOUT;
pub(crate) use scopes::{Scopes, Verdict};
pub(crate) use scratch::{Scratch, MAX_TIMESTAMPS};
pub(crate) use staging::Staging;

use crate::config::{MsmConfig, ReduceOn};
use crate::curve::Curve;
use crate::plan::profile::{Profile, ProfileRange, ProfileSource};
use crate::error::MsmError;
use crate::knobs::KnobOverrides;
use crate::plan::AdapterBounds;

/// One adapter's device, queue, shaders, layouts and caches.
pub struct GpuContext {
    /// Unique per context: [`crate::Bases`] remember theirs.
    pub(crate) id: u64,
    /// Drives the device while futures wait for it (native).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) poller: waiter::Poller,
    /// How long one wait for the GPU may take.
    pub(crate) gpu_timeout: std::time::Duration,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    shaders: ShaderLibrary,
    pub(crate) pipelines: pipelines::PipelineCache,
    /// Scratch, staging and result buffers kept between calls.
    pools: pools::Pools,
    /// The caller's knobs, over the profile's.
    knobs: KnobOverrides,
    profile: Option<Profile>,
    /// The adapter class's knobs by size, where no profile is loaded.
    builtin_ranges: Vec<ProfileRange>,
    profile_source: ProfileSource,
    timestamps: bool,
    pub(crate) counters: Counters,
    /// The first GPU error nobody was waiting for (out of memory, a lost
    /// device...); reported by the next MSM instead of wgpu's default panic.
    device_error: Arc<Mutex<Option<String>>>,
    /// Why the device was lost, from wgpu's device-lost callback.
    lost: Arc<Mutex<Option<String>>>,
    /// Resident base sets of this context, counted by [`crate::Bases`].
    pub(crate) live_bases: Arc<health::LiveBases>,
    /// Bytes of the device's largest device-local memory heap, where the
    /// backend says (read once).
    device_memory: Option<u64>,
    /// Kept alive with the device (on the web, dropping it loses the device).
    _instance: Option<(wgpu::Instance, wgpu::Adapter)>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .field("field", &self.shaders.options())
            .finish()
    }
}

impl GpuContext {
    /// Requests an adapter (high performance, or the first whose name matches
    /// `opts.adapter_name`) and a device with the adapter's full limits.
    pub async fn new(opts: &ContextOptions) -> Result<Self, MsmError> {
        use tracing::Instrument;
        Self::create(opts).instrument(tracing::info_span!("msm.context")).await
    }

    async fn create(opts: &ContextOptions) -> Result<Self, MsmError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = match &opts.adapter_name {
            Some(name) => {
                let needle = name.to_lowercase();
                instance
                    .enumerate_adapters(wgpu::Backends::all())
                    .await
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&needle))
                    .ok_or_else(|| MsmError::NoAdapter {
                        filter: format!(" matching `{name}`"),
                    })?
            }
            None => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    ..Default::default()
                })
                .await
                .map_err(|_| MsmError::NoAdapter { filter: String::new() })?,
        };
        let info = adapter.get_info();
        let available = adapter.features();
        let layout = opts.field_layout.unwrap_or_else(|| default_layout(available));
        let mut features = wgpu::Features::empty();
        if layout.needs_int64() {
            if !available.contains(wgpu::Features::SHADER_INT64) {
                return Err(MsmError::LayoutUnsupported {
                    layout,
                    adapter: info.name.clone(),
                });
            }
            features |= wgpu::Features::SHADER_INT64;
        }
        let timestamps = opts.timestamps && available.contains(wgpu::Features::TIMESTAMP_QUERY);
        if timestamps {
            features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        if opts.pipeline_cache != PipelineCacheDir::Off && available.contains(wgpu::Features::PIPELINE_CACHE) {
            features |= wgpu::Features::PIPELINE_CACHE;
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("msm"),
                required_features: features,
                required_limits: match opts.limits {
                    LimitsChoice::Adapter => adapter.limits(),
                    LimitsChoice::WebGpuDefaults => wgpu::Limits::default(),
                },
                ..Default::default()
            })
            .await
            .map_err(|e| MsmError::RequestDevice {
                adapter: info.name.clone(),
                message: e.to_string(),
            })?;
        let field = FieldOptions {
            field: opts.curve.field(),
            coords: opts.curve.coords(),
            layout,
            code: opts.field_code.unwrap_or_else(|| default_field_code(&info, opts.curve, layout)),
            inversion: opts.inversion.unwrap_or_else(|| default_inversion(&info, layout)),
        };
        let mut ctx = Self::build(device, queue, info, field, timestamps, &opts.pipeline_cache)?;
        ctx.gpu_timeout = opts.gpu_timeout.unwrap_or(ctx.gpu_timeout);
        ctx.pipelines.timeout = opts.compile_timeout.unwrap_or(pipelines::DEFAULT_COMPILE_TIMEOUT);
        ctx.pipelines.loop_guards = opts.loop_guards;
        ctx.knobs = opts.knobs.clone();
        ctx.builtin_ranges = ctx.fitting_builtin_ranges();
        ctx.load_profile(&opts.profile);
        ctx._instance = Some((instance, adapter));
        let sink = ctx.device_error.clone();
        ctx.device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().get_or_insert_with(|| e.to_string());
        }));
        let lost = ctx.lost.clone();
        ctx.device.set_device_lost_callback(move |reason, message| {
            lost.lock()
                .unwrap()
                .get_or_insert_with(|| format!("{reason:?}: {message}"));
        });
        Ok(ctx)
    }

    /// Blocking [`GpuContext::new`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking(opts: &ContextOptions) -> Result<Self, MsmError> {
        pollster::block_on(Self::new(opts))
    }

    /// Wraps a caller's device. The device must have been created with the
    /// features the layout needs (`SHADER_INT64` for [`FieldLayout::Limbs32x8`],
    /// `TIMESTAMP_QUERY` when `timestamps`).
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        layout: FieldLayout,
        timestamps: bool,
    ) -> Result<Self, MsmError> {
        let field = FieldOptions {
            field: msm_wgsl::BaseField::Bn254,
            coords: msm_wgsl::Coords::Fq,
            layout,
            code: default_field_code(&info, Curve::Bn254G1, layout),
            inversion: default_inversion(&info, layout),
        };
        let mut ctx = Self::build(device, queue, info, field, timestamps, &PipelineCacheDir::Default)?;
        ctx.builtin_ranges = ctx.fitting_builtin_ranges();
        Ok(ctx)
    }

    fn build(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        field: FieldOptions,
        timestamps: bool,
        cache_dir: &PipelineCacheDir,
    ) -> Result<Self, MsmError> {
        if field.layout.needs_int64() && !device.features().contains(wgpu::Features::SHADER_INT64) {
            return Err(MsmError::LayoutUnsupported {
                layout: field.layout,
                adapter: info.name.clone(),
            });
        }
        if !field.inversion.supports(field.layout) {
            return Err(MsmError::invalid_config(
                "inversion",
                format!(
                    "the {} inversion needs 64-bit shader integers; layout {} has none",
                    field.inversion, field.layout
                ),
            ));
        }
        let timestamps = timestamps && device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut tag = format!("{}-{:?}-{}", field.layout, field.code, field.inversion).to_lowercase();
        let group = Curve::of(field.field, field.coords);
        if group != Curve::Bn254G1 {
            tag = format!("{tag}-{group}");
        }
        let disk = disk_cache::DiskCache::open(&device, &info, cache_dir, &tag);
        let device_memory = health::device_local_heap(&device);
        let class = AdapterClass::of(&info);
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Ok(GpuContext {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            #[cfg(not(target_arch = "wasm32"))]
            poller: waiter::Poller::new(device.clone()),
            gpu_timeout: default_gpu_timeout(class),
            pipelines: pipelines::PipelineCache::new(&device, disk),
            device,
            queue,
            info,
            shaders: ShaderLibrary::with_options(field)?,
            pools: pools::Pools::new(),
            knobs: KnobOverrides::new(),
            profile: None,
            builtin_ranges: Vec::new(),
            profile_source: ProfileSource::BuiltIn { class, ignored: None },
            timestamps,
            counters: Counters::default(),
            device_error: Arc::default(),
            lost: Arc::default(),
            live_bases: Arc::default(),
            device_memory,
            _instance: None,
        })
    }

    /// How long one wait for the GPU may take before it fails with
    /// [`MsmError::Timeout`].
    pub fn gpu_timeout(&self) -> std::time::Duration {
        self.gpu_timeout
    }

    /// Changes [`GpuContext::gpu_timeout`].
    pub fn set_gpu_timeout(&mut self, timeout: std::time::Duration) {
        self.gpu_timeout = timeout;
    }

    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    pub fn field_layout(&self) -> FieldLayout {
        self.shaders.layout()
    }

    /// The curve group this context's shaders run.
    pub fn curve(&self) -> Curve {
        let opts = self.shaders.options();
        Curve::of(opts.field, opts.coords)
    }

    /// Refuses a typed call for another curve than the context's.
    pub(crate) fn check_curve(&self, asked: Curve) -> Result<(), MsmError> {
        match self.curve() {
            c if c == asked => Ok(()),
            context => Err(MsmError::WrongCurve { context, asked }),
        }
    }

    /// How this context's field module is generated.
    pub fn field_options(&self) -> FieldOptions {
        self.shaders.options()
    }

    pub(crate) fn shaders(&self) -> &ShaderLibrary {
        &self.shaders
    }

    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    diagnostics_pub! {
        /// What the adapter allows, as the planner sees it.
        fn bounds(&self) -> AdapterBounds {
            let field = self.field_options();
            AdapterBounds::from_limits(
                &self.device.limits(),
                self.has_loop_cap(),
                self.shaders.inversion().max_loop_iterations_in(self.curve().field()),
                (field.mul_loops(), field.for_walker().mul_loops()),
                self.field_layout().needs_int64(),
                self.curve(),
            )
        }
    }

    /// Whether GPU timestamp queries are enabled on this context.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// The adapter is a CPU implementation (lavapipe, SwiftShader, WARP...).
    pub fn is_software(&self) -> bool {
        self.adapter_class().is_software()
    }

    /// Lists the adapters this machine offers (name, backend, device type,
    /// driver): the names `ContextOptions::adapter_name` matches.
    pub async fn list_adapters() -> Vec<wgpu::AdapterInfo> {
        list_adapters().await
    }

    /// What the adapter is (see [`AdapterClass`]).
    pub fn adapter_class(&self) -> AdapterClass {
        AdapterClass::of(&self.info)
    }

    /// SwiftShader, natively or behind Chromium's WebGPU.
    pub fn is_swiftshader(&self) -> bool {
        is_swiftshader(&self.info)
    }

    /// How this context's field multiplication is written.
    pub fn field_code(&self) -> FieldCode {
        self.shaders.field_code()
    }

    /// Whether `config` reduces on the host on this adapter.
    pub fn reduces_on_host(&self, config: &MsmConfig) -> bool {
        match config.reduce {
            ReduceOn::Auto => self.is_swiftshader(),
            ReduceOn::Gpu => false,
            ReduceOn::Host => true,
        }
    }

    /// lavapipe/llvmpipe stop every loop of an invocation after 65,535 iterations
    /// in total, silently; work per invocation must stay below that there.
    pub fn has_loop_cap(&self) -> bool {
        has_loop_cap(&self.info)
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    #[cfg(feature = "diagnostics")]
    /// GPU objects created through this context so far.
    pub fn created_objects(&self) -> CreatedObjects {
        let c = &self.counters;
        CreatedObjects {
            buffers: c.buffers.load(Ordering::Relaxed),
            bind_groups: c.bind_groups.load(Ordering::Relaxed),
            query_sets: c.query_sets.load(Ordering::Relaxed),
            pipelines: c.pipelines.load(Ordering::Relaxed),
            buffer_bytes: c.buffer_bytes.load(Ordering::Relaxed),
        }
    }

    /// Fails with [`MsmError::DeviceLost`] once the device is lost, else with
    /// the first GPU error that reached no error scope since the last call
    /// (contexts from [`GpuContext::new`] only: a caller's device keeps the
    /// caller's error and device-lost handlers).
    pub(crate) fn check_device_error(&self) -> Result<(), MsmError> {
        self.check_lost()?;
        match self.device_error.lock().unwrap().take() {
            Some(message) => Err(MsmError::Device(message)),
            None => Ok(()),
        }
    }
}

/// The GPU wait allowed where the options name none. A software adapter
/// compiles a pipeline's machine code at its first dispatch, inside that
/// wait (lavapipe: minutes for G2's straight-line kernels from a cold
/// shader cache), so it also gets the compile timeout.
fn default_gpu_timeout(class: AdapterClass) -> std::time::Duration {
    match class.is_software() {
        true => waiter::DEFAULT_GPU_TIMEOUT + pipelines::DEFAULT_COMPILE_TIMEOUT,
        false => waiter::DEFAULT_GPU_TIMEOUT,
    }
}
