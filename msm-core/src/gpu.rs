//! The GPU context: adapter, device, the shader library for the chosen field
//! layout and a cache of compiled pipelines. Build it once and reuse it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use msm_wgsl::{FieldCode, FieldLayout, ShaderId, ShaderLibrary};

use crate::error::MsmError;

/// How to pick the adapter and the field layout.
#[derive(Clone, Debug, Default)]
pub struct ContextOptions {
    /// Field limb layout; `None` picks [`default_layout`] for the adapter.
    pub field_layout: Option<FieldLayout>,
    /// Only adapters whose name contains this text (case-insensitive).
    pub adapter_name: Option<String>,
    /// Ask for GPU timestamp queries when the adapter has them (per-pass timings).
    pub timestamps: bool,
    /// The knobs [`GpuContext::msm`] uses.
    pub config: crate::config::MsmConfig,
    /// How the field multiplication is written; `None` picks
    /// [`default_field_code`] for the adapter.
    pub field_code: Option<FieldCode>,
}

/// The layout used when none is asked for: 32-bit limbs with 64-bit products
/// where the adapter has `SHADER_INT64` (fastest on the H200, see
/// docs/benchmarks.md), else 13-bit lazy limbs (fastest portable layout).
pub fn default_layout(features: wgpu::Features) -> FieldLayout {
    if features.contains(wgpu::Features::SHADER_INT64) {
        FieldLayout::Limbs32x8
    } else {
        FieldLayout::Limbs13x20
    }
}

/// SwiftShader, natively or behind Chromium's WebGPU (which names no adapter
/// but reports a CPU device).
pub fn is_swiftshader(info: &wgpu::AdapterInfo) -> bool {
    info.name.to_lowercase().contains("swiftshader")
        || info.driver.to_lowercase().contains("swiftshader")
        || (info.backend == wgpu::Backend::BrowserWebGpu && info.device_type == wgpu::DeviceType::Cpu)
}

/// The field code used when none is asked for: looped multiplications on
/// SwiftShader, whose compiler crashes on the unrolled MSM shaders (see
/// docs/benchmarks.md), unrolled everywhere else.
pub fn default_field_code(info: &wgpu::AdapterInfo) -> FieldCode {
    if is_swiftshader(info) {
        FieldCode::Looped
    } else {
        FieldCode::Unrolled
    }
}

/// Key of a cached pipeline: the shader and its override constants (as bits).
type PipelineKey = (ShaderId, &'static str, Vec<(&'static str, u64)>);

/// One adapter's device, queue, shaders and pipeline cache.
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    shaders: ShaderLibrary,
    modules: Mutex<HashMap<ShaderId, wgpu::ShaderModule>>,
    pipelines: Mutex<HashMap<PipelineKey, wgpu::ComputePipeline>>,
    pub(crate) scratch: Mutex<Option<crate::msm::Scratch>>,
    pub(crate) config: crate::config::MsmConfig,
    timestamps: bool,
    /// The first GPU error nobody was waiting for (out of memory, a lost
    /// device...); reported by the next MSM instead of wgpu's default panic.
    device_error: Arc<Mutex<Option<String>>>,
    /// Kept alive with the device: on the web, dropping the instance loses
    /// the device ("a valid external Instance reference no longer exists").
    _instance: Option<(wgpu::Instance, wgpu::Adapter)>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .field("layout", &self.shaders.layout())
            .finish()
    }
}

/// Lists the adapters this machine offers (name, backend, device type, driver).
pub async fn list_adapters() -> Vec<wgpu::AdapterInfo> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    instance
        .enumerate_adapters(wgpu::Backends::all())
        .await
        .iter()
        .map(|a| a.get_info())
        .collect()
}

impl GpuContext {
    /// Requests an adapter (high performance, or the first whose name matches
    /// `opts.adapter_name`) and a device with the adapter's full limits.
    pub async fn new(opts: &ContextOptions) -> Result<Self, MsmError> {
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
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("msm"),
                required_features: features,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| MsmError::RequestDevice {
                adapter: info.name.clone(),
                message: e.to_string(),
            })?;
        let code = opts.field_code.unwrap_or_else(|| default_field_code(&info));
        let mut ctx = Self::build(device, queue, info, layout, code, timestamps)?;
        ctx.config = opts.config.clone();
        ctx._instance = Some((instance, adapter));
        let sink = ctx.device_error.clone();
        ctx.device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().get_or_insert_with(|| e.to_string());
        }));
        let sink = ctx.device_error.clone();
        ctx.device.set_device_lost_callback(move |reason, message| {
            if reason != wgpu::DeviceLostReason::Destroyed {
                *sink.lock().unwrap() = Some(format!("the device was lost ({reason:?}): {message}"));
            }
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
        let code = default_field_code(&info);
        Self::build(device, queue, info, layout, code, timestamps)
    }

    fn build(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        layout: FieldLayout,
        code: FieldCode,
        timestamps: bool,
    ) -> Result<Self, MsmError> {
        if layout.needs_int64() && !device.features().contains(wgpu::Features::SHADER_INT64) {
            return Err(MsmError::LayoutUnsupported {
                layout,
                adapter: info.name.clone(),
            });
        }
        let timestamps = timestamps && device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        Ok(GpuContext {
            device,
            queue,
            info,
            shaders: ShaderLibrary::with_code(layout, code)?,
            modules: Mutex::default(),
            pipelines: Mutex::default(),
            scratch: Mutex::default(),
            config: Default::default(),
            timestamps,
            device_error: Arc::default(),
            _instance: None,
        })
    }

    /// The knobs [`GpuContext::msm`] uses.
    pub fn config(&self) -> &crate::config::MsmConfig {
        &self.config
    }

    /// Replaces the knobs [`GpuContext::msm`] uses.
    pub fn set_config(&mut self, config: crate::config::MsmConfig) {
        self.config = config;
    }

    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    pub fn field_layout(&self) -> FieldLayout {
        self.shaders.layout()
    }

    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// Whether GPU timestamp queries are enabled on this context.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// The adapter is a CPU implementation (lavapipe, SwiftShader, WARP...).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
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
    pub fn reduces_on_host(&self, config: &crate::config::MsmConfig) -> bool {
        match config.reduce {
            crate::config::ReduceOn::Auto => self.is_swiftshader(),
            crate::config::ReduceOn::Gpu => false,
            crate::config::ReduceOn::Host => true,
        }
    }

    /// lavapipe/llvmpipe stop every loop of an invocation after 65,535 iterations
    /// in total, silently; work per invocation must stay below that there.
    pub fn has_loop_cap(&self) -> bool {
        self.info.driver.to_lowercase().contains("llvmpipe") || self.info.name.to_lowercase().contains("llvmpipe")
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Fails with the first GPU error that reached no error scope since the
    /// last call (contexts from [`GpuContext::new`] only: a caller's device
    /// keeps the caller's error handler).
    pub(crate) fn check_device_error(&self) -> Result<(), MsmError> {
        match self.device_error.lock().unwrap().take() {
            Some(message) => Err(MsmError::Device(message)),
            None => Ok(()),
        }
    }

    /// The compiled pipeline of entry point `entry` of `id` with override
    /// constants `overrides`, created on first use and cached. Validation
    /// errors become `Err`.
    pub async fn pipeline(
        &self,
        id: ShaderId,
        entry: &'static str,
        overrides: &[(&'static str, f64)],
    ) -> Result<wgpu::ComputePipeline, MsmError> {
        let key: PipelineKey = (id, entry, overrides.iter().map(|(k, v)| (*k, v.to_bits())).collect());
        if let Some(p) = self.pipelines.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let cached = self.modules.lock().unwrap().get(&id).cloned();
        let module = match cached {
            Some(m) => m,
            None => {
                let source = self.shaders.source(id)?;
                let m = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(id.label()),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                });
                self.modules.lock().unwrap().insert(id, m.clone());
                m
            }
        };
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(id.label()),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: overrides,
                ..Default::default()
            },
            cache: None,
        });
        if let Some(err) = scope.pop().await {
            self.modules.lock().unwrap().remove(&id);
            return Err(MsmError::Validation {
                label: format!("{}::{entry}", id.label()),
                message: err.to_string(),
            });
        }
        self.pipelines.lock().unwrap().insert(key, pipeline.clone());
        Ok(pipeline)
    }
}
