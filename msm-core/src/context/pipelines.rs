//! Compiled pipelines, cached by (shader, entry point, override constants);
//! the explicit bind-group layout of each pass; how long each pipeline took
//! to compile; compiling a plan's missing pipelines in parallel; and, where
//! the adapter has one, a driver pipeline cache persisted on disk.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use msm_wgsl::ShaderId;

use super::disk_cache::DiskCache;
use super::waiter::AsyncMutex;
#[cfg(not(target_arch = "wasm32"))]
use super::waiter::{Slot, SlotFuture};
use super::GpuContext;
use crate::error::MsmError;
use crate::passes::{bind_group_layout, Pass};

/// Key of a cached pipeline: the shader, its entry point and its override
/// constants (as bits).
type PipelineKey = (ShaderId, &'static str, Vec<(&'static str, u64)>);

/// One pipeline a context compiled, and how long its creation took (wall
/// clock; native creation compiles synchronously).
#[derive(Clone, Debug, PartialEq)]
pub struct CompileRecord {
    pub shader: &'static str,
    pub entry: &'static str,
    pub overrides: Vec<(&'static str, f64)>,
    pub ms: f64,
}

/// How long one compile of a context's missing pipelines may take unless
/// the context's options say otherwise (minutes: a software adapter
/// compiles G2's passes for that long).
pub const DEFAULT_COMPILE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(900);

/// A pipeline to compile: shader, entry point, overrides, and the pass whose
/// explicit layout it uses (`None`: derived from the shader).
pub(crate) type PipelineJob = (ShaderId, &'static str, Vec<(&'static str, f64)>, Option<Pass>);

pub(crate) struct PipelineCache {
    modules: Mutex<HashMap<ShaderId, wgpu::ShaderModule>>,
    pipelines: Mutex<HashMap<PipelineKey, wgpu::ComputePipeline>>,
    /// Per pass (order of [`Pass::ALL`]): its bind-group layout and the
    /// pipeline layout built on it.
    layouts: Vec<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>,
    log: Mutex<Vec<CompileRecord>>,
    /// Held while pipelines compile (an async lock: a waiting caller's
    /// thread is not blocked).
    compiling: AsyncMutex,
    /// Warm-ups compiling in the background (the engine's): a table's
    /// build waits for them rather than compiling in its call.
    background: std::sync::atomic::AtomicUsize,
    /// How long one compile may take before the call waiting for it fails
    /// with [`MsmError::Timeout`] (natively).
    pub(crate) timeout: std::time::Duration,
    pub(crate) disk: Option<DiskCache>,
    /// Whether modules keep the translator's guard counter in every loop
    /// ([`crate::ContextOptions::loop_guards`]).
    pub(crate) loop_guards: bool,
}

fn key(job: &PipelineJob) -> PipelineKey {
    (job.0, job.1, job.2.iter().map(|(k, v)| (*k, v.to_bits())).collect())
}

impl PipelineCache {
    pub(crate) fn new(device: &wgpu::Device, disk: Option<DiskCache>) -> Self {
        let layouts = Pass::ALL
            .iter()
            .map(|&pass| {
                let bgl = bind_group_layout(device, pass);
                let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(pass.name()),
                    bind_group_layouts: &[Some(&bgl)],
                    immediate_size: 0,
                });
                (bgl, pl)
            })
            .collect();
        PipelineCache {
            modules: Mutex::default(),
            pipelines: Mutex::default(),
            layouts,
            log: Mutex::default(),
            compiling: AsyncMutex::default(),
            background: Default::default(),
            timeout: DEFAULT_COMPILE_TIMEOUT,
            disk,
            loop_guards: false,
        }
    }

    pub(crate) fn bind_group_layout(&self, pass: Pass) -> &wgpu::BindGroupLayout {
        &self.layouts[pass.index()].0
    }
}

/// A background warm-up in progress on a context, until dropped.
pub struct Background<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Background<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl GpuContext {
    diagnostics_pub! {
        /// Marks a warm-up compiling in the background until the guard is
        /// dropped: meanwhile a call that would build its set's table before
        /// the table's pipelines are compiled runs without it instead of
        /// compiling them (the next call tries again).
        fn background_warm_up(&self) -> Background<'_> {
            self.pipelines.background.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Background(&self.pipelines.background)
        }
    }

    /// Whether a background warm-up is compiling on this context.
    pub(crate) fn warming_in_background(&self) -> bool {
        self.pipelines.background.load(std::sync::atomic::Ordering::Relaxed) > 0
    }

    #[cfg(feature = "diagnostics")]
    /// Every pipeline this context compiled so far, in order.
    pub fn compile_log(&self) -> Vec<CompileRecord> {
        self.pipelines.log.lock().unwrap().clone()
    }

    #[cfg(feature = "diagnostics")]
    /// Whether compiled pipelines persist across processes through a disk
    /// cache of this context's (the adapter has `PIPELINE_CACHE` and a cache
    /// folder was usable); without it only the driver's own cache, if any,
    /// helps a second process.
    pub fn has_pipeline_cache(&self) -> bool {
        self.pipelines.disk.is_some()
    }

    fn module(&self, id: ShaderId) -> Result<wgpu::ShaderModule, MsmError> {
        let cache = &self.pipelines;
        if let Some(m) = cache.modules.lock().unwrap().get(&id) {
            return Ok(m.clone());
        }
        let source = self.shaders().source(id)?;
        // natively the module's own error is named here (else only its
        // pipelines' "invalid module" would be)
        #[cfg(not(target_arch = "wasm32"))]
        let scope = self.catch(&[wgpu::ErrorFilter::Validation]);
        let m = self.shader_module(id.label(), source);
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(MsmError::Validation {
                label: id.label().to_string(),
                message: e.to_string(),
            });
        }
        cache.modules.lock().unwrap().insert(id, m.clone());
        Ok(m)
    }

    /// A WGSL module as every pipeline of this context gets it. Without
    /// [`crate::ContextOptions::loop_guards`], wgpu's translator adds no guard
    /// counter to the loops (its other checks stay): every loop of these
    /// shaders ends by construction, its trip count bounded by the plan
    /// (the tests run them under lavapipe's cap of 65,535 iterations an
    /// invocation), and the guards doubled lavapipe's pipeline creation
    /// (docs/benchmarks.md). A browser's WebGPU applies its own checks.
    pub(crate) fn shader_module(&self, label: &str, source: String) -> wgpu::ShaderModule {
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        if self.pipelines.loop_guards {
            return self.device.create_shader_module(desc);
        }
        let mut checks = wgpu::ShaderRuntimeChecks::checked();
        checks.force_loop_bounding = false;
        // SAFETY: the one check turned off asks that no loop run forever;
        // every loop in this crate's shaders is bounded (above).
        unsafe { self.device.create_shader_module_trusted(desc, checks) }
    }

    diagnostics_pub! {
        /// The compiled pipeline of entry point `entry` of `id` with override
        /// constants `overrides`, created on first use and cached. `pass` gives
        /// the explicit layout of a pass's shader; `None` derives it from the
        /// shader (diagnostic shaders). Validation errors become `Err`. A miss
        /// compiles through `GpuContext::precompile` (natively on threads of
        /// its own, with the context's compile timeout; this future waits
        /// without blocking its thread).
        async fn pipeline(
            &self,
            id: ShaderId,
            entry: &'static str,
            overrides: &[(&'static str, f64)],
            pass: Option<Pass>,
        ) -> Result<wgpu::ComputePipeline, MsmError> {
            let job: PipelineJob = (id, entry, overrides.to_vec(), pass);
            if let Some(p) = self.pipelines.pipelines.lock().unwrap().get(&key(&job)) {
                return Ok(p.clone());
            }
            #[cfg(not(target_arch = "wasm32"))]
            {
                let key = key(&job);
                self.precompile(vec![job]).await?;
                let cached = self.pipelines.pipelines.lock().unwrap().get(&key).cloned();
                cached.ok_or_else(|| MsmError::Device("a compiled pipeline left the cache".into()))
            }
            #[cfg(target_arch = "wasm32")]
            {
                let compiled = self.compile_job(&job)?.run().await;
                self.keep_compiled(&job, compiled)
            }
        }
    }

    /// Whether a compile holds the context's compile lock (a test's probe).
    #[cfg(feature = "diagnostics")]
    pub fn is_compiling(&self) -> bool {
        self.pipelines.compiling.is_locked()
    }

    /// Whether every one of `jobs` is compiled and cached.
    pub(crate) fn is_compiled(&self, jobs: &[PipelineJob]) -> bool {
        let cached = self.pipelines.pipelines.lock().unwrap();
        jobs.iter().all(|j| cached.contains_key(&key(j)))
    }

    /// What compiling `job` takes, owned (so another thread can run it).
    fn compile_job(&self, job: &PipelineJob) -> Result<Compile, MsmError> {
        let (id, entry, overrides, pass) = job;
        Ok(Compile {
            device: self.device.clone(),
            module: self.module(*id)?,
            layout: pass.map(|p| self.pipelines.layouts[p.index()].1.clone()),
            cache: self.pipelines.disk.as_ref().map(|d| d.cache.clone()),
            label: id.label(),
            entry,
            overrides: overrides.clone(),
        })
    }

    /// Caches and logs a compiled pipeline (or forgets a module that failed).
    fn keep_compiled(
        &self,
        job: &PipelineJob,
        compiled: Result<(wgpu::ComputePipeline, f64), MsmError>,
    ) -> Result<wgpu::ComputePipeline, MsmError> {
        let cache = &self.pipelines;
        self.counters.pipelines.fetch_add(1, Ordering::Relaxed);
        let (pipeline, ms) = match compiled {
            Ok(c) => c,
            Err(e) => {
                cache.modules.lock().unwrap().remove(&job.0);
                return Err(e);
            }
        };
        tracing::debug!(shader = job.0.label(), entry = job.1, ms, "pipeline compiled");
        cache.log.lock().unwrap().push(CompileRecord {
            shader: job.0.label(),
            entry: job.1,
            overrides: job.2.clone(),
            ms,
        });
        if let Some(d) = &cache.disk {
            d.dirty.store(true, Ordering::Relaxed);
        }
        cache.pipelines.lock().unwrap().insert(key(job), pipeline.clone());
        Ok(pipeline)
    }

    /// Compiles the pipelines of `jobs` not yet cached, then saves the disk
    /// cache if it grew. Natively each compiles on a thread of its own
    /// (drivers compile concurrently) while this future waits without
    /// blocking its thread; on the web the browser compiles them together.
    pub(crate) async fn precompile(&self, jobs: Vec<PipelineJob>) -> Result<(), MsmError> {
        // A call whose pipelines are all here takes no lock: it must not
        // wait on a warm-up compiling other sizes in the background.
        if self.is_compiled(&jobs) {
            return Ok(());
        }
        // Callers that meet a cold context together wait for the first one's
        // pipelines instead of compiling copies of their own.
        let _one_at_a_time = self.pipelines.compiling.lock().await;
        let missing: Vec<PipelineJob> = {
            let cached = self.pipelines.pipelines.lock().unwrap();
            let mut seen = std::collections::HashSet::new();
            jobs.into_iter()
                .filter(|j| !cached.contains_key(&key(j)) && seen.insert(key(j)))
                .collect()
        };
        if missing.is_empty() {
            return Ok(());
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let compiles = missing
                .iter()
                .map(|j| self.compile_job(j))
                .collect::<Result<Vec<_>, _>>()?;
            let done = Slot::new();
            let filled = done.clone();
            std::thread::Builder::new()
                .name("msm-gpu-compile".into())
                .spawn(move || {
                    let results = std::thread::scope(|s| {
                        let handles: Vec<_> = compiles.into_iter().map(|c| s.spawn(move || c.run())).collect();
                        handles
                            .into_iter()
                            .map(|h| {
                                h.join()
                                    .unwrap_or_else(|_| Err(MsmError::Device("a compile thread panicked".into())))
                            })
                            .collect::<Vec<_>>()
                    });
                    filled.fill(Ok(results));
                })
                .map_err(|e| MsmError::Device(format!("cannot start a compile thread: {e}")))?;
            let results = self.within_compile_timeout(done).await?;
            for (j, r) in missing.iter().zip(results) {
                self.keep_compiled(j, r)?;
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            // The browser compiles them at once; kept alive while wgpu's own
            // (synchronous) creations below find them in its cache.
            let _warm = self.warm_pipelines(&missing).await;
            for j in &missing {
                self.pipeline(j.0, j.1, &j.2, j.3).await?;
            }
        }
        if let Some(d) = &self.pipelines.disk {
            d.save();
        }
        Ok(())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl GpuContext {
    /// Awaits `done`, failing with [`MsmError::Timeout`] once the context's
    /// compile timeout passes (a driver that never returns from a compile).
    /// The compiles go on; their pipelines are not kept.
    async fn within_compile_timeout<T: Send + 'static>(&self, done: std::sync::Arc<Slot<T>>) -> Result<T, MsmError> {
        let timeout = self.pipelines.timeout;
        let watched = done.clone();
        // dropped when this future ends, which ends the watchdog at once
        let (_finished, stop) = std::sync::mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("msm-gpu-compile-watchdog".into())
            .spawn(move || {
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(timeout) {
                    watched.fill(Err(MsmError::Timeout {
                        what: "compiling pipelines",
                        after: timeout,
                    }));
                }
            })
            .map_err(|e| MsmError::Device(format!("cannot start a compile thread: {e}")))?;
        SlotFuture(done).await
    }
}

/// One pipeline to compile, with everything it needs owned.
struct Compile {
    device: wgpu::Device,
    module: wgpu::ShaderModule,
    layout: Option<wgpu::PipelineLayout>,
    cache: Option<wgpu::PipelineCache>,
    label: &'static str,
    entry: &'static str,
    overrides: Vec<(&'static str, f64)>,
}

impl Compile {
    /// Creates the pipeline inside a validation scope; returns it with the
    /// wall time its creation took (natively the driver compiles there).
    fn create(
        &self,
    ) -> (
        wgpu::ComputePipeline,
        f64,
        impl std::future::Future<Output = Option<wgpu::Error>>,
    ) {
        let scope = super::Scopes::push(&self.device, &[wgpu::ErrorFilter::Validation]);
        let span = tracing::info_span!("msm.compile", shader = self.label, entry = self.entry);
        let t = web_time::Instant::now();
        let pipeline = span.in_scope(|| {
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(self.label),
                layout: self.layout.as_ref(),
                module: &self.module,
                entry_point: Some(self.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &self.overrides,
                    ..Default::default()
                },
                cache: self.cache.as_ref(),
            })
        });
        (pipeline, t.elapsed().as_secs_f64() * 1e3, scope.pop())
    }

    fn failed(&self, err: wgpu::Error) -> MsmError {
        MsmError::Validation {
            label: format!("{}::{}", self.label, self.entry),
            message: err.to_string(),
        }
    }

    /// Natively the scope's verdict is ready when `create` returns.
    #[cfg(not(target_arch = "wasm32"))]
    fn run(self) -> Result<(wgpu::ComputePipeline, f64), MsmError> {
        let (pipeline, ms, verdict) = self.create();
        match pollster::block_on(verdict) {
            Some(e) => Err(self.failed(e)),
            None => Ok((pipeline, ms)),
        }
    }

    #[cfg(target_arch = "wasm32")]
    async fn run(self) -> Result<(wgpu::ComputePipeline, f64), MsmError> {
        let (pipeline, ms, verdict) = self.create();
        match verdict.await {
            Some(e) => Err(self.failed(e)),
            None => Ok((pipeline, ms)),
        }
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(module = "/src/context/warm_pipelines.js")]
extern "C" {
    #[wasm_bindgen(js_name = warmPipelines)]
    fn warm_pipelines_js(device: &wasm_bindgen::JsValue, jobs: js_sys::Array) -> js_sys::Promise;
}

#[cfg(target_arch = "wasm32")]
impl GpuContext {
    /// Has the browser compile `jobs` together through
    /// `createComputePipelineAsync` (see `warm_pipelines.js`); resolves to the
    /// pipelines, to keep alive until wgpu has created its own.
    async fn warm_pipelines(&self, jobs: &[PipelineJob]) -> Option<wasm_bindgen::JsValue> {
        use crate::passes::Access;
        use wasm_bindgen::JsValue;
        let device: &JsValue = self.device.as_webgpu()?.as_ref();
        let list = js_sys::Array::new();
        for (id, entry, overrides, pass) in jobs {
            let job = js_sys::Object::new();
            let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&job, &k.into(), v).is_ok();
            let constants = js_sys::Object::new();
            for (name, value) in overrides {
                js_sys::Reflect::set(&constants, &(*name).into(), &(*value).into()).ok()?;
            }
            let bindings: JsValue = match pass {
                None => JsValue::NULL,
                Some(p) => p
                    .bindings()
                    .iter()
                    .map(|b| {
                        let ty = match b.access {
                            Access::Uniform => "uniform",
                            Access::ReadOnly => "read-only-storage",
                            Access::ReadWrite => "storage",
                        };
                        JsValue::from(js_sys::Array::of2(&b.index.into(), &ty.into()))
                    })
                    .collect::<js_sys::Array>()
                    .into(),
            };
            let code = self.shaders().source(*id).ok()?;
            let ok = set("code", &code.into())
                && set("entry", &(*entry).into())
                && set("constants", &constants)
                && set("bindings", &bindings);
            if !ok {
                return None;
            }
            list.push(&job);
        }
        wasm_bindgen_futures::JsFuture::from(warm_pipelines_js(device, list))
            .await
            .ok()
    }
}
