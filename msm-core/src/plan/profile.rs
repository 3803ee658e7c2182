//! Per-adapter tuned defaults. `msm-cli tune` measures the knob ladder and
//! the CPU/GPU crossover on one adapter for one curve group and writes a
//! profile to the user's config folder; a context loads the profile of its
//! adapter, driver, field layout and group, and otherwise uses the built-in
//! defaults of its adapter class and group (`super::builtin`). A profile
//! fills in the knobs the caller did not give, knob by knob: each knob
//! given (`ContextOptions::knobs`) wins over the profile's.
//! A corrupt profile, or one from another adapter or driver, is ignored
//! with a warning, never an error.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::adapter::AdapterClass;
use crate::config::MsmConfig;
use crate::curve::Curve;

/// Version of the profile file format.
pub const PROFILE_FORMAT: u32 = 1;

/// Knobs for one range of sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRange {
    /// Smallest log2 n the knobs apply to.
    pub min_logn: u32,
    /// Largest log2 n the knobs apply to.
    pub max_logn: u32,
    /// Knob name -> value, in `msm_core::knobs` syntax.
    pub knobs: BTreeMap<String, String>,
}

impl ProfileRange {
    /// `base` with these knobs set.
    pub fn apply(&self, base: &MsmConfig) -> Result<MsmConfig, crate::error::MsmError> {
        let mut c = base.clone();
        for (k, v) in &self.knobs {
            c.set(k, v)?;
        }
        Ok(c)
    }
}

/// What `msm-cli tune` measured on one adapter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub format: u32,
    pub adapter: String,
    pub backend: String,
    pub driver: String,
    pub field_layout: String,
    /// The curve group measured ([`Curve::name`]); profiles written before
    /// groups had their own are BN254 G1's.
    #[serde(default = "bn254_g1")]
    pub curve: String,
    /// Smallest n at which the GPU beat arkworks on this machine (`None`:
    /// the GPU never did at the sizes measured).
    pub crossover: Option<usize>,
    pub ranges: Vec<ProfileRange>,
}

/// Where a context's knob defaults came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileSource {
    /// A tuned profile from this file.
    Tuned(PathBuf),
    /// The built-in defaults of this adapter class (no profile, or one that
    /// was ignored: the reason is kept).
    BuiltIn {
        class: AdapterClass,
        ignored: Option<String>,
    },
}

impl std::fmt::Display for ProfileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileSource::Tuned(p) => write!(f, "tuned profile {}", p.display()),
            ProfileSource::BuiltIn { class, ignored: None } => write!(f, "built-in defaults ({class})"),
            ProfileSource::BuiltIn {
                class,
                ignored: Some(why),
            } => write!(f, "built-in defaults ({class}); profile ignored: {why}"),
        }
    }
}

/// Whether a context loads a profile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProfileChoice {
    /// The profile of this adapter in the config folder, if any.
    #[default]
    Auto,
    /// Built-in defaults only.
    Off,
    /// This file.
    File(PathBuf),
}

fn bn254_g1() -> String {
    Curve::Bn254G1.name().into()
}

impl Profile {
    /// An empty profile for this adapter, layout and curve group.
    pub fn new(info: &wgpu::AdapterInfo, field_layout: &str, curve: Curve) -> Self {
        Profile {
            format: PROFILE_FORMAT,
            adapter: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: driver(info),
            field_layout: field_layout.into(),
            curve: curve.name().into(),
            crossover: None,
            ranges: Vec::new(),
        }
    }

    /// Why this profile does not fit the adapter and group, if it does not.
    pub fn mismatch(&self, info: &wgpu::AdapterInfo, field_layout: &str, curve: Curve) -> Option<String> {
        let want = Profile::new(info, field_layout, curve);
        if self.format != PROFILE_FORMAT {
            return Some(format!("format {} (this build reads {PROFILE_FORMAT})", self.format));
        }
        for (what, have, need) in [
            ("adapter", &self.adapter, &want.adapter),
            ("backend", &self.backend, &want.backend),
            ("driver", &self.driver, &want.driver),
            ("field layout", &self.field_layout, &want.field_layout),
            ("curve group", &self.curve, &want.curve),
        ] {
            if have != need {
                return Some(format!("made for {what} `{have}`, this is `{need}`"));
            }
        }
        // every knob must parse, or the profile is not trusted at all
        for r in &self.ranges {
            if let Err(e) = r.apply(&MsmConfig::default()) {
                return Some(format!("bad knobs for 2^{}..2^{}: {e}", r.min_logn, r.max_logn));
            }
        }
        None
    }

    /// The defaults with this profile's knobs for `n` points.
    pub fn config_for(&self, n: usize) -> MsmConfig {
        config_in_ranges(&self.ranges, n)
    }

    /// The file this adapter's profile for `curve` lives in:
    /// `$MSM_GPU_CONFIG_DIR`, else `$XDG_CONFIG_HOME/msm-gpu`, else
    /// `$HOME/.config/msm-gpu` (native only); BN254 G1's name has no group.
    pub fn default_path(info: &wgpu::AdapterInfo, field_layout: &str, curve: Curve) -> Option<PathBuf> {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let dir = env("MSM_GPU_CONFIG_DIR")
            .or_else(|| env("XDG_CONFIG_HOME").map(|p| p.join("msm-gpu")))
            .or_else(|| env("HOME").map(|p| p.join(".config").join("msm-gpu")))?;
        let group = match curve {
            Curve::Bn254G1 => String::new(),
            c => format!("-{c}"),
        };
        let slug: String = format!("{}-{:?}-{field_layout}{group}", info.name, info.backend)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        Some(dir.join(format!("profile-{slug}.json")))
    }

    /// Loads the profile at `path` for this adapter and group: `Ok(None)`
    /// when there is no file, `Err(reason)` when it is unreadable or does
    /// not fit.
    pub fn load(
        path: &std::path::Path,
        info: &wgpu::AdapterInfo,
        field_layout: &str,
        curve: Curve,
    ) -> Result<Option<Self>, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let p: Profile = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        match p.mismatch(info, field_layout, curve) {
            Some(why) => Err(format!("{}: {why}", path.display())),
            None => Ok(Some(p)),
        }
    }

    /// Writes the profile (a temp file, then a rename).
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_string_pretty(self).expect("serialisable"))?;
        std::fs::rename(&tmp, path)
    }
}

/// The driver as a profile records it.
fn driver(info: &wgpu::AdapterInfo) -> String {
    format!("{} {}", info.driver, info.driver_info).trim().to_string()
}

/// The defaults with the first range of `ranges` that holds `n`'s log2.
pub fn config_in_ranges(ranges: &[ProfileRange], n: usize) -> MsmConfig {
    let logn = usize::BITS - n.max(1).leading_zeros() - 1;
    let base = MsmConfig::default();
    match ranges.iter().find(|r| (r.min_logn..=r.max_logn).contains(&logn)) {
        Some(r) => r.apply(&base).unwrap_or(base),
        None => base,
    }
}
