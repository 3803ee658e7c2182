//! Compiled pipelines, cached by (shader, entry point, override constants);
//! the explicit bind-group layout of each pass; how long each pipeline took
//! to compile; compiling a plan's missing pipelines in parallel; and, where
//! the adapter has one, a driver pipeline cache persisted on disk.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use msm_wgsl::ShaderId;

use super::disk_cache::DiskCache;
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
    /// Held while pipelines compile: threads that meet a cold context
    /// together wait for the first one's pipelines instead of compiling
    /// copies of their own (native: the web compiles on one thread).
    #[cfg(not(target_arch = "wasm32"))]
    compiling: Mutex<()>,
    pub(crate) disk: Option<DiskCache>,
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
            #[cfg(not(target_arch = "wasm32"))]
            compiling: Mutex::default(),
            disk,
        }
    }

    pub(crate) fn bind_group_layout(&self, pass: Pass) -> &wgpu::BindGroupLayout {
        &self.layouts[pass.index()].0
    }
}

impl GpuContext {
    /// Every pipeline this context compiled so far, in order.
    pub fn compile_log(&self) -> Vec<CompileRecord> {
        self.pipelines.log.lock().unwrap().clone()
    }

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
        let m = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(id.label()),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        cache.modules.lock().unwrap().insert(id, m.clone());
        Ok(m)
    }

    /// The compiled pipeline of entry point `entry` of `id` with override
    /// constants `overrides`, created on first use and cached. `pass` gives
    /// the explicit layout of a pass's shader; `None` derives it from the
    /// shader (diagnostic shaders). Validation errors become `Err`.
    pub async fn pipeline(
        &self,
        id: ShaderId,
        entry: &'static str,
        overrides: &[(&'static str, f64)],
        pass: Option<Pass>,
    ) -> Result<wgpu::ComputePipeline, MsmError> {
        let cache = &self.pipelines;
        let job: PipelineJob = (id, entry, overrides.to_vec(), pass);
        let key = key(&job);
        if let Some(p) = cache.pipelines.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.module(id)?;
        let span = tracing::info_span!("msm.compile", shader = id.label(), entry);
        let t = web_time::Instant::now();
        let pipeline = span.in_scope(|| {
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(id.label()),
                layout: pass.map(|p| &cache.layouts[p.index()].1),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: overrides,
                    ..Default::default()
                },
                cache: cache.disk.as_ref().map(|d| &d.cache),
            })
        });
        let ms = t.elapsed().as_secs_f64() * 1e3;
        tracing::debug!(shader = id.label(), entry, ms, "pipeline compiled");
        self.counters.pipelines.fetch_add(1, Ordering::Relaxed);
        if let Some(err) = scope.pop().await {
            cache.modules.lock().unwrap().remove(&id);
            return Err(MsmError::Validation {
                label: format!("{}::{entry}", id.label()),
                message: err.to_string(),
            });
        }
        cache.log.lock().unwrap().push(CompileRecord {
            shader: id.label(),
            entry,
            overrides: overrides.to_vec(),
            ms,
        });
        if let Some(d) = &cache.disk {
            d.dirty.store(true, Ordering::Relaxed);
        }
        cache.pipelines.lock().unwrap().insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Compiles the pipelines of `jobs` not yet cached: on native in
    /// parallel, one thread each (drivers compile concurrently), after their
    /// modules; then saves the disk cache if it grew.
    pub(crate) async fn precompile(&self, jobs: Vec<PipelineJob>) -> Result<(), MsmError> {
        #[cfg(not(target_arch = "wasm32"))]
        let _one_at_a_time = self.pipelines.compiling.lock().unwrap_or_else(|e| e.into_inner());
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
            for j in &missing {
                self.module(j.0)?;
            }
            let results: Vec<Result<wgpu::ComputePipeline, MsmError>> = std::thread::scope(|s| {
                let handles: Vec<_> = missing
                    .iter()
                    .map(|j| s.spawn(move || pollster::block_on(self.pipeline(j.0, j.1, &j.2, j.3))))
                    .collect();
                handles.into_iter().map(|h| h.join().expect("compile thread")).collect()
            });
            for r in results {
                r?;
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
