//! The options objects JS passes in. Knob objects are applied through
//! msm-core's one parser (`MsmConfig::set`): keys are the knobs' camelCase (or
//! snake_case) names, values numbers, booleans or strings ("auto" for the
//! automatic choices), so the page can hand URL parameters through as text.
//! Unknown keys and bad values are errors naming the knob.

use std::collections::BTreeMap;

use msm_core::knobs::KNOBS;
use msm_core::{Curve, FieldLayout, Inversion, KnobOverrides, MsmConfig};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `MsmOptions` in TypeScript: any subset of the knobs; the rest keep the
/// context's values (by default msm-core's defaults).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(transparent)]
pub struct MsmOptions(pub BTreeMap<String, Value>);

/// `GroupOptions` in TypeScript: the curve group a context runs and a
/// sampler or `cpuMsm` works in.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupOptions {
    /// "bn254" (default) or "bls12-381".
    #[serde(default)]
    pub curve: Option<String>,
    /// "g1" (default) or "g2".
    #[serde(default)]
    pub group: Option<String>,
}

impl GroupOptions {
    /// msm-core's curve group.
    pub fn to_core(&self) -> Result<Curve, String> {
        group_of(self.curve.as_deref(), self.group.as_deref())
    }
}

/// The group of a `curve` and `group` option pair (both optional).
fn group_of(curve: Option<&str>, group: Option<&str>) -> Result<Curve, String> {
    Curve::from_names(curve.unwrap_or("bn254"), group.unwrap_or("g1")).map_err(|e| e.to_string())
}

/// The largest MSM a warm-up prepares for unless the options say (points).
pub const DEFAULT_MAX_POINTS: usize = 1 << 20;

/// The largest MSM that runs on the CPU while the GPU warms up, unless the
/// options say: above it a call waits for its pipelines (wasm's one thread
/// would take longer than the compile).
pub const DEFAULT_CPU_MAX_POINTS: usize = 1 << 16;

/// `ContextOptions` in TypeScript.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextOptions {
    /// "bn254" (default) or "bls12-381".
    #[serde(default)]
    pub curve: Option<String>,
    /// "g1" (default) or "g2".
    #[serde(default)]
    pub group: Option<String>,
    /// "13x20" (default on the web) or "16x16"; "32x8-int64" needs 64-bit
    /// shader integers, which WebGPU does not offer.
    #[serde(default)]
    pub field_layout: Option<String>,
    /// "unrolled", "looped", "rows" or "mixed" field multiplication; default
    /// on a GPU: mixed (rows for BLS12-381 G2); looped on SwiftShader
    /// (Chromium's software WebGPU); unrolled under a loop cap.
    #[serde(default)]
    pub field_code: Option<String>,
    /// "fermat" or "gcd"; default: the adapter's (see msm-core).
    #[serde(default)]
    pub inversion: Option<String>,
    /// Request `timestamp-query` for per-pass GPU timings (default true; it is
    /// only used when an MSM asks for `timing`).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// The device limits to request: "adapter" (default: everything the
    /// adapter offers) or "default" (WebGPU's defaults, what a page gets
    /// that asks for nothing).
    #[serde(default)]
    pub limits: Option<String>,
    /// The default knobs of this context's MSMs.
    #[serde(default)]
    pub config: Option<MsmOptions>,
    /// Compile the pipelines in the background from creation, small calls
    /// running on the CPU meanwhile (default: on a GPU, not on a software
    /// adapter); false: each call compiles what it needs when it needs it.
    #[serde(default)]
    pub warm_up: Option<bool>,
    /// The largest MSM the warm-up prepares for (default 2^20 points).
    #[serde(default)]
    pub warm_up_max_points: Option<usize>,
    /// The largest MSM that runs on the CPU while the warm-up runs (default
    /// 2^16 points); larger calls wait for their pipelines.
    #[serde(default)]
    pub cpu_max_points: Option<usize>,
}

/// `BasesOptions` in TypeScript.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BasesOptions {
    /// Build the set's table of shifted bases for this window width (2..=20,
    /// or "auto"); omitted: no table.
    #[serde(default)]
    pub table_bits: Option<Value>,
}

impl BasesOptions {
    /// `None`: no table; `Some(None)`: the automatic width; `Some(Some(c))`.
    pub fn table(&self) -> Result<Option<Option<u32>>, String> {
        match &self.table_bits {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s == "auto" => Ok(Some(None)),
            Some(Value::Number(n)) => match n.as_u64().and_then(|c| u32::try_from(c).ok()) {
                Some(c) => Ok(Some(Some(c))),
                None => Err(format!("tableBits: {n} is not a window width (2..=20)")),
            },
            Some(other) => Err(format!("tableBits: expected a number or \"auto\", got {other}")),
        }
    }
}

impl MsmOptions {
    /// `base` with every knob this object sets replaced.
    pub fn apply(&self, base: &MsmConfig) -> Result<MsmConfig, String> {
        let mut c = base.clone();
        for (name, text) in self.texts()? {
            c.set(name, &text).map_err(|e| e.to_string())?;
        }
        Ok(c)
    }

    /// Gives `knobs` every knob this object sets (all or none: a bad one
    /// leaves `knobs` as it was).
    pub fn give(&self, knobs: &mut KnobOverrides) -> Result<(), String> {
        let mut out = knobs.clone();
        for (name, text) in self.texts()? {
            out.set(name, &text).map_err(|e| e.to_string())?;
        }
        *knobs = out;
        Ok(())
    }

    /// Each knob's name and value as the one parser reads it.
    fn texts(&self) -> Result<Vec<(&str, String)>, String> {
        let text = |name: &String, value: &Value| match value {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Null => Ok("auto".into()),
            other => Err(format!("{name}: expected a number, boolean or string, got {other}")),
        };
        self.0.iter().map(|(k, v)| Ok((k.as_str(), text(k, v)?))).collect()
    }

    /// Every knob of `c`, as JS sees them (automatic choices left out).
    pub fn from_config(c: &MsmConfig) -> Self {
        let mut map = BTreeMap::new();
        for k in KNOBS {
            let text = c.get(k.name).expect("every knob has a value");
            let value = if text == "auto" {
                continue;
            } else if let Ok(n) = text.parse::<u64>() {
                Value::from(n)
            } else if let Ok(b) = text.parse::<bool>() {
                Value::from(b)
            } else {
                Value::from(text)
            };
            map.insert(k.camel.to_string(), value);
        }
        MsmOptions(map)
    }
}

impl ContextOptions {
    /// Whether the warm-up runs in the background (by default on a GPU: a
    /// software adapter compiles on the CPU the calls would run on), the
    /// largest MSM it prepares for, the largest that runs on the CPU meanwhile.
    pub fn warm_up(&self, software: bool) -> (bool, usize, usize) {
        (
            self.warm_up.unwrap_or(!software),
            self.warm_up_max_points.unwrap_or(DEFAULT_MAX_POINTS),
            self.cpu_max_points.unwrap_or(DEFAULT_CPU_MAX_POINTS),
        )
    }

    /// The context's knobs: the browser's defaults (`MsmConfig::web`'s
    /// differences), then each knob `config` gives. Only these are fixed;
    /// the rest follow the size (`msm_core::plan::builtin`'s web ranges).
    pub fn knobs(&self) -> Result<KnobOverrides, String> {
        let mut knobs = KnobOverrides::changed(&MsmConfig::web());
        if let Some(o) = &self.config {
            o.give(&mut knobs).map_err(|e| format!("config.{e}"))?;
        }
        Ok(knobs)
    }

    /// msm-core's context options.
    pub fn to_core(&self) -> Result<msm_core::ContextOptions, String> {
        let field_layout = match &self.field_layout {
            None => None,
            Some(name) => Some(FieldLayout::from_name(name).ok_or_else(|| {
                format!("fieldLayout: unknown layout {name:?} (expected \"13x20\", \"16x16\" or \"32x8-int64\")")
            })?),
        };
        let knobs = self.knobs()?;
        let field_code = match self.field_code.as_deref() {
            None => None,
            Some(s) => Some(
                s.parse::<msm_core::FieldCode>()
                    .map_err(|e| format!("fieldCode: {e}"))?,
            ),
        };
        let inversion = match self.inversion.as_deref() {
            None => None,
            Some(s) => Some(s.parse::<Inversion>().map_err(|e| format!("inversion: {e}"))?),
        };
        let limits = match self.limits.as_deref() {
            None => msm_core::LimitsChoice::Adapter,
            Some(s) => s.parse().map_err(|e| format!("limits: {e}"))?,
        };
        Ok(msm_core::ContextOptions {
            curve: group_of(self.curve.as_deref(), self.group.as_deref())?,
            limits,
            field_layout,
            field_code,
            inversion,
            adapter_name: None,
            timestamps: self.timestamps.unwrap_or(true),
            // no profile on the web: the given knobs over the web ranges
            knobs,
            pipeline_cache: msm_core::PipelineCacheDir::Off,
            // no config folder in a browser
            profile: msm_core::ProfileChoice::Off,
            // the browser's watchdog: a hung GPU loses the device
            gpu_timeout: None,
            compile_timeout: None,
            // the browser's WebGPU checks its shaders its own way
            loop_guards: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msm_core::{PrefMem, ReduceOn, TaskSplit};

    fn msm_options(json: &str) -> Result<MsmOptions, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn knobs_apply_over_the_base() {
        let o = msm_options(r#"{"walkerTpb": 128, "walkerPrefMem": "workgroup", "walkerSlots": "4", "walkerCacheDx": false, "walkerFused": true, "windowBits": 9, "timing": true, "reduce": "host", "walker_split": "buckets"}"#).unwrap();
        let c = o.apply(&MsmConfig::default()).unwrap();
        let want = MsmConfig {
            window_bits: Some(9),
            walker_tpb: 128,
            walker_pref_mem: PrefMem::Workgroup,
            walker_slots: 4,
            walker_cache_dx: false,
            walker_fused: true,
            walker_split: TaskSplit::Buckets,
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

    /// The context fixes only the knobs it is given (and the browser's
    /// defaults): a size's built-in knobs apply under them.
    #[test]
    fn given_knobs_hold_over_a_size_defaults() {
        let mid = MsmConfig {
            walker_tpb: 512,
            walker_threads: Some(65_536),
            ..MsmConfig::default()
        };
        let none: ContextOptions = serde_json::from_str("{}").unwrap();
        let c = none.knobs().unwrap().over(&mid);
        assert_eq!(
            c,
            MsmConfig {
                walker_cache_dx: false,
                ..mid.clone()
            }
        );
        let pinned: ContextOptions = serde_json::from_str(r#"{"config": {"walkerTpb": 256}}"#).unwrap();
        let mut knobs = pinned.knobs().unwrap();
        let c = knobs.over(&mid);
        assert_eq!(
            (c.walker_tpb, c.walker_threads, c.walker_cache_dx),
            (256, Some(65_536), false)
        );
        // setConfig: all of an object or none of it
        let bad = msm_options(r#"{"walkerSlots": 8, "walkerTbp": 64}"#).unwrap();
        assert!(bad.give(&mut knobs).unwrap_err().contains("walkerTbp"));
        assert_eq!(knobs.over(&mid).walker_slots, mid.walker_slots);
        msm_options(r#"{"walkerSlots": 8}"#).unwrap().give(&mut knobs).unwrap();
        assert_eq!((knobs.over(&mid).walker_slots, knobs.over(&mid).walker_tpb), (8, 256));
    }

    #[test]
    fn table_options() {
        let table = |json: &str| {
            serde_json::from_str::<BasesOptions>(json)
                .map_err(|e| e.to_string())?
                .table()
        };
        assert_eq!(table("{}"), Ok(None));
        assert_eq!(table(r#"{"tableBits": 16}"#), Ok(Some(Some(16))));
        assert_eq!(table(r#"{"tableBits": "auto"}"#), Ok(Some(None)));
        assert!(table(r#"{"tableBits": "wide"}"#).unwrap_err().contains("tableBits"));
        assert!(table(r#"{"tableBits": -1}"#).unwrap_err().contains("tableBits"));
        assert!(table(r#"{"table": 16}"#).unwrap_err().contains("unknown field"));
    }

    #[test]
    fn mistakes_are_named() {
        let bad = |json: &str| msm_options(json).unwrap().apply(&MsmConfig::default()).unwrap_err();
        assert!(bad(r#"{"walkerTbp": 64}"#).contains("walkerTbp"));
        assert!(bad(r#"{"walkerTpb": [64]}"#).contains("walkerTpb"));
        let e = bad(r#"{"walkerPrefMem": "shared"}"#);
        assert!(e.contains("walker_pref_mem") && e.contains("shared"), "{e}");
        let ctx: ContextOptions = serde_json::from_str(r#"{"fieldLayout": "12x22"}"#).unwrap();
        assert!(ctx.to_core().unwrap_err().contains("12x22"));
        let ctx: ContextOptions =
            serde_json::from_str(r#"{"fieldLayout": "16x16", "config": {"walkerSlots": 2}, "inversion": "gcd"}"#)
                .unwrap();
        let core = ctx.to_core().unwrap();
        assert_eq!(core.field_layout, Some(FieldLayout::Limbs16x16));
        let config = core.knobs.over(&MsmConfig::default());
        assert_eq!(config.walker_slots, 2);
        // the browser's defaults (Tint-compiled WGSL), knobs applied over them
        assert!(!config.walker_cache_dx);
        assert_eq!(
            config,
            MsmConfig {
                walker_slots: 2,
                ..MsmConfig::web()
            }
        );
        assert_eq!(core.inversion, Some(Inversion::BinaryGcd));
        assert!(core.timestamps);
        assert_eq!(core.limits, msm_core::LimitsChoice::Adapter);
        let ctx: ContextOptions = serde_json::from_str(r#"{"limits": "default"}"#).unwrap();
        assert_eq!(ctx.to_core().unwrap().limits, msm_core::LimitsChoice::WebGpuDefaults);
        let ctx: ContextOptions = serde_json::from_str(r#"{"limits": "max"}"#).unwrap();
        assert!(ctx.to_core().unwrap_err().contains("limits"));
        assert_eq!(core.curve, Curve::Bn254G1);
        let group = |json: &str| {
            let ctx: ContextOptions = serde_json::from_str(json).unwrap();
            let g: GroupOptions = serde_json::from_str(json).unwrap();
            let core = ctx.to_core().map(|c| c.curve);
            assert_eq!(core, g.to_core());
            core
        };
        assert_eq!(group(r#"{"curve": "bls12-381"}"#), Ok(Curve::Bls12_381G1));
        assert_eq!(group(r#"{"group": "g2"}"#), Ok(Curve::Bn254G2));
        assert_eq!(
            group(r#"{"curve": "bls12-381", "group": "g2"}"#),
            Ok(Curve::Bls12_381G2)
        );
        assert!(group(r#"{"curve": "bls12-377"}"#).unwrap_err().contains("bls12-377"));
        assert!(group(r#"{"group": "gt"}"#).unwrap_err().contains("\"g1\" or \"g2\""));
    }
}
