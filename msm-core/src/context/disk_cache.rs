//! A driver pipeline cache kept on disk, so that a second process reuses the
//! first one's compiled pipelines where the driver has no cache of its own.
//! Only where the adapter offers `PIPELINE_CACHE` (Vulkan) and a cache folder
//! is usable; anything unreadable is ignored (a cache, never an error).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where a context keeps its pipeline cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PipelineCacheDir {
    /// `$MSM_GPU_CACHE_DIR`, else `$XDG_CACHE_HOME/msm-gpu`, else
    /// `$HOME/.cache/msm-gpu` (native only).
    #[default]
    Default,
    /// No disk cache.
    Off,
    /// This folder.
    At(PathBuf),
}

impl PipelineCacheDir {
    fn resolve(&self) -> Option<PathBuf> {
        match self {
            PipelineCacheDir::Off => None,
            PipelineCacheDir::At(p) => Some(p.clone()),
            PipelineCacheDir::Default => {
                let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
                env("MSM_GPU_CACHE_DIR")
                    .or_else(|| env("XDG_CACHE_HOME").map(|p| p.join("msm-gpu")))
                    .or_else(|| env("HOME").map(|p| p.join(".cache").join("msm-gpu")))
            }
        }
    }
}

pub(crate) struct DiskCache {
    pub(crate) cache: wgpu::PipelineCache,
    path: PathBuf,
    /// New pipelines were compiled since the last save.
    pub(crate) dirty: AtomicBool,
}

impl DiskCache {
    /// The cache for `device` from `dir`, keyed by adapter (vendor, device)
    /// and this library's version and field module; `None` where the adapter
    /// has no pipeline cache or there is no folder.
    pub(crate) fn open(
        device: &wgpu::Device,
        info: &wgpu::AdapterInfo,
        dir: &PipelineCacheDir,
        module_tag: &str,
    ) -> Option<Self> {
        if cfg!(target_arch = "wasm32") || !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let key = wgpu::util::pipeline_cache_key(info)?;
        let dir = dir.resolve()?;
        let path = dir.join(format!("{key}-{}-{module_tag}.bin", env!("CARGO_PKG_VERSION")));
        let data = std::fs::read(&path).ok();
        // SAFETY: the data was written by `save` below from `get_data` of a
        // cache of an adapter with the same `pipeline_cache_key`, which wgpu
        // checks again (with the driver version) before using it; `fallback`
        // makes unusable data start an empty cache instead of failing.
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("msm pipelines"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        Some(DiskCache {
            cache,
            path,
            dirty: AtomicBool::new(false),
        })
    }

    /// Writes the cache out if new pipelines joined it (atomically: a temp
    /// file, then a rename). Failures are ignored.
    pub(crate) fn save(&self) {
        if !self.dirty.swap(false, Ordering::Relaxed) {
            return;
        }
        let Some(data) = self.cache.get_data() else { return };
        let Some(dir) = self.path.parent() else { return };
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&tmp, &data))
            .and_then(|_| std::fs::rename(&tmp, &self.path));
    }
}
