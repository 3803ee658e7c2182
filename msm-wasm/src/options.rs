//! The options objects JS passes in, as serde types over msm-core's knobs.
//! Unknown keys are errors, so a misspelt knob is never silently ignored.

use msm_core::{FieldLayout, MsmConfig, PrefMem, ReduceOn};
use serde::{Deserialize, Serialize};

/// `MsmOptions` in TypeScript: any subset of the knobs; the rest keep the
/// context's values (by default msm-core's defaults).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MsmOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_bits: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_tpb: Option<u32>,
    /// "private" or "workgroup"
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_pref_mem: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_slots: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_cache_dx: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_fused: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walker_threads: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chunk_points: Option<u32>,
    /// "auto", "gpu" or "host"
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce: Option<String>,
}

/// `ContextOptions` in TypeScript.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextOptions {
    /// "13x20" (default on the web) or "16x16"; "32x8-int64" needs 64-bit
    /// shader integers, which WebGPU does not offer.
    #[serde(default)]
    pub field_layout: Option<String>,
    /// "unrolled" or "looped" field multiplication; default: looped on
    /// SwiftShader (Chromium's software WebGPU), unrolled elsewhere.
    #[serde(default)]
    pub field_code: Option<String>,
    /// Request `timestamp-query` for per-pass GPU timings (default true; it is
    /// only used when an MSM asks for `timing`).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// The default knobs of this context's MSMs.
    #[serde(default)]
    pub config: Option<MsmOptions>,
}

impl MsmOptions {
    /// `base` with every knob this object sets replaced.
    pub fn apply(&self, base: &MsmConfig) -> Result<MsmConfig, String> {
        let mut c = base.clone();
        if let Some(v) = self.window_bits {
            c.window_bits = Some(v);
        }
        if let Some(v) = self.walker_tpb {
            c.walker_tpb = v;
        }
        if let Some(v) = &self.walker_pref_mem {
            c.walker_pref_mem = match v.as_str() {
                "private" => PrefMem::Private,
                "workgroup" => PrefMem::Workgroup,
                other => {
                    return Err(format!(
                        "walkerPrefMem: expected \"private\" or \"workgroup\", got {other:?}"
                    ))
                }
            };
        }
        if let Some(v) = self.walker_slots {
            c.walker_slots = v;
        }
        if let Some(v) = self.walker_cache_dx {
            c.walker_cache_dx = v;
        }
        if let Some(v) = self.walker_fused {
            c.walker_fused = v;
        }
        if let Some(v) = self.walker_threads {
            c.walker_threads = Some(v);
        }
        if let Some(v) = self.timing {
            c.timing = v;
        }
        if let Some(v) = self.max_chunk_points {
            c.max_chunk_points = Some(v);
        }
        if let Some(v) = &self.reduce {
            c.reduce = match v.as_str() {
                "auto" => ReduceOn::Auto,
                "gpu" => ReduceOn::Gpu,
                "host" => ReduceOn::Host,
                other => return Err(format!("reduce: expected \"auto\", \"gpu\" or \"host\", got {other:?}")),
            };
        }
        Ok(c)
    }

    /// Every knob of `c`, as JS sees them.
    pub fn from_config(c: &MsmConfig) -> Self {
        MsmOptions {
            window_bits: c.window_bits,
            walker_tpb: Some(c.walker_tpb),
            walker_pref_mem: Some(
                match c.walker_pref_mem {
                    PrefMem::Private => "private",
                    PrefMem::Workgroup => "workgroup",
                }
                .into(),
            ),
            walker_slots: Some(c.walker_slots),
            walker_cache_dx: Some(c.walker_cache_dx),
            walker_fused: Some(c.walker_fused),
            walker_threads: c.walker_threads,
            timing: Some(c.timing),
            max_chunk_points: c.max_chunk_points,
            reduce: Some(
                match c.reduce {
                    ReduceOn::Auto => "auto",
                    ReduceOn::Gpu => "gpu",
                    ReduceOn::Host => "host",
                }
                .into(),
            ),
        }
    }
}

impl ContextOptions {
    /// msm-core's context options.
    pub fn to_core(&self) -> Result<msm_core::ContextOptions, String> {
        let field_layout = match &self.field_layout {
            None => None,
            Some(name) => Some(FieldLayout::from_name(name).ok_or_else(|| {
                format!("fieldLayout: unknown layout {name:?} (expected \"13x20\", \"16x16\" or \"32x8-int64\")")
            })?),
        };
        let config = match &self.config {
            Some(o) => o.apply(&MsmConfig::default()).map_err(|e| format!("config.{e}"))?,
            None => MsmConfig::default(),
        };
        let field_code = match self.field_code.as_deref() {
            None => None,
            Some("unrolled") => Some(msm_core::FieldCode::Unrolled),
            Some("looped") => Some(msm_core::FieldCode::Looped),
            Some(other) => return Err(format!("fieldCode: expected \"unrolled\" or \"looped\", got {other:?}")),
        };
        Ok(msm_core::ContextOptions {
            field_layout,
            field_code,
            adapter_name: None,
            timestamps: self.timestamps.unwrap_or(true),
            config,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msm_options(json: &str) -> Result<MsmOptions, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn knobs_apply_over_the_base() {
        let o = msm_options(r#"{"walkerTpb": 128, "walkerPrefMem": "workgroup", "walkerSlots": 4, "walkerCacheDx": false, "walkerFused": true, "windowBits": 9, "timing": true, "reduce": "host"}"#).unwrap();
        let c = o.apply(&MsmConfig::default()).unwrap();
        let want = MsmConfig {
            window_bits: Some(9),
            walker_tpb: 128,
            walker_pref_mem: PrefMem::Workgroup,
            walker_slots: 4,
            walker_cache_dx: false,
            walker_fused: true,
            timing: true,
            reduce: ReduceOn::Host,
            ..Default::default()
        };
        assert_eq!(c, want);
        assert_eq!(MsmOptions::default().apply(&want).unwrap(), want);
        assert_eq!(
            MsmOptions::from_config(&want).apply(&MsmConfig::default()).unwrap(),
            want
        );
    }

    #[test]
    fn mistakes_are_named() {
        assert!(msm_options(r#"{"walkerTbp": 64}"#).unwrap_err().contains("walkerTbp"));
        assert!(msm_options(r#"{"walkerTpb": "64"}"#).is_err());
        let e = msm_options(r#"{"walkerPrefMem": "shared"}"#)
            .unwrap()
            .apply(&MsmConfig::default())
            .unwrap_err();
        assert!(e.contains("walkerPrefMem") && e.contains("shared"), "{e}");
        let ctx: ContextOptions = serde_json::from_str(r#"{"fieldLayout": "12x22"}"#).unwrap();
        assert!(ctx.to_core().unwrap_err().contains("12x22"));
        let ctx: ContextOptions =
            serde_json::from_str(r#"{"fieldLayout": "16x16", "config": {"walkerSlots": 2}}"#).unwrap();
        let core = ctx.to_core().unwrap();
        assert_eq!(core.field_layout, Some(FieldLayout::Limbs16x16));
        assert_eq!(core.config.walker_slots, 2);
        assert!(core.timestamps);
    }
}
