//! The knobs' one vocabulary: every knob's name, its value syntax and its
//! default, parsed in one place for the command line, the browser API and
//! the bench page. Names are `MsmConfig`'s field names (snake_case); the
//! camelCase spelling (JS) and a short alias (command line, page URLs) are
//! accepted too. Enum values parse and print through `FromStr` / `Display`.

use std::fmt;
use std::str::FromStr;

use crate::config::{MsmConfig, PrefMem, ReduceOn, TaskSplit};
use crate::engine::Backend;
use crate::error::MsmError;

/// One knob of [`MsmConfig`].
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// The field name.
    pub name: &'static str,
    /// The JS (camelCase) name.
    pub camel: &'static str,
    /// A short alias (command-line flags and page URLs of earlier versions).
    pub alias: &'static str,
    /// What values it takes.
    pub values: &'static str,
}

/// Every knob, in `MsmConfig`'s field order.
pub const KNOBS: &[Knob] = &[
    Knob {
        name: "window_bits",
        camel: "windowBits",
        alias: "c",
        values: "2..=20, or auto",
    },
    Knob {
        name: "walker_tpb",
        camel: "walkerTpb",
        alias: "wtpb",
        values: "threads per workgroup, 1..=adapter limit",
    },
    Knob {
        name: "walker_pref_mem",
        camel: "walkerPrefMem",
        alias: "prefmem",
        values: "private | workgroup",
    },
    Knob {
        name: "walker_slots",
        camel: "walkerSlots",
        alias: "ws",
        values: "1..=16",
    },
    Knob {
        name: "walker_cache_dx",
        camel: "walkerCacheDx",
        alias: "cachedx",
        values: "true | false",
    },
    Knob {
        name: "walker_fused",
        camel: "walkerFused",
        alias: "fused",
        values: "true | false",
    },
    Knob {
        name: "walker_unroll",
        camel: "walkerUnroll",
        alias: "unroll",
        values: "true | false",
    },
    Knob {
        name: "walker_threads",
        camel: "walkerThreads",
        alias: "wthreads",
        values: "a count, or auto",
    },
    Knob {
        name: "walker_split",
        camel: "walkerSplit",
        alias: "split",
        values: "equal | buckets",
    },
    Knob {
        name: "timing",
        camel: "timing",
        alias: "timing",
        values: "true | false",
    },
    Knob {
        name: "max_chunk_points",
        camel: "maxChunkPoints",
        alias: "chunk",
        values: "a count, or auto",
    },
    Knob {
        name: "reduce",
        camel: "reduce",
        alias: "reduce",
        values: "auto | gpu | host",
    },
];

/// The knob a name (field name, camelCase or alias) refers to.
pub fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS
        .iter()
        .find(|k| k.name == name || k.camel == name || k.alias == name)
}

/// Text names of an enum's values, both ways.
macro_rules! named_values {
    ($t:ty, $what:literal, [$(($v:path, $s:literal)),+ $(,)?]) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self {
                    $($v => $s,)+
                })
            }
        }

        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($s => Ok($v),)+
                    other => Err(format!(
                        concat!("{:?} is not a ", $what, " (expected {})"),
                        other,
                        [$($s),+].join(" | ")
                    )),
                }
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

named_values!(
    PrefMem,
    "pref memory",
    [(PrefMem::Private, "private"), (PrefMem::Workgroup, "workgroup")]
);
named_values!(
    ReduceOn,
    "reduce place",
    [
        (ReduceOn::Auto, "auto"),
        (ReduceOn::Gpu, "gpu"),
        (ReduceOn::Host, "host")
    ]
);
named_values!(
    Backend,
    "backend",
    [(Backend::Auto, "auto"), (Backend::Gpu, "gpu"), (Backend::Cpu, "cpu")]
);
named_values!(
    TaskSplit,
    "task split",
    [(TaskSplit::Equal, "equal"), (TaskSplit::Buckets, "buckets")]
);

fn auto_or<T: FromStr>(v: &str) -> Result<Option<T>, String>
where
    T::Err: fmt::Display,
{
    if v == "auto" {
        return Ok(None);
    }
    v.parse().map(Some).map_err(|e: T::Err| format!("{v:?}: {e}"))
}

fn parse<T: FromStr>(v: &str) -> Result<T, String>
where
    T::Err: fmt::Display,
{
    v.parse().map_err(|e: T::Err| format!("{v:?}: {e}"))
}

fn show<T: fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "auto".to_string(), |v| v.to_string())
}

impl MsmConfig {
    /// Sets the knob `name` (field name, camelCase or alias) from text, e.g.
    /// `set("walker_tpb", "256")`. Unknown names and bad values are errors
    /// that name the knob; ranges are checked when a plan is made.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), MsmError> {
        let k = knob(name).ok_or_else(|| {
            let names: Vec<&str> = KNOBS.iter().map(|k| k.name).collect();
            MsmError::InvalidConfig(format!("unknown knob `{name}` (knobs: {})", names.join(", ")))
        })?;
        let v = value.trim();
        let r: Result<(), String> = (|| {
            match k.name {
                "window_bits" => self.window_bits = auto_or(v)?,
                "walker_tpb" => self.walker_tpb = parse(v)?,
                "walker_pref_mem" => self.walker_pref_mem = parse(v)?,
                "walker_slots" => self.walker_slots = parse(v)?,
                "walker_cache_dx" => self.walker_cache_dx = parse(v)?,
                "walker_fused" => self.walker_fused = parse(v)?,
                "walker_unroll" => self.walker_unroll = parse(v)?,
                "walker_threads" => self.walker_threads = auto_or(v)?,
                "walker_split" => self.walker_split = parse(v)?,
                "timing" => self.timing = parse(v)?,
                "max_chunk_points" => self.max_chunk_points = auto_or(v)?,
                "reduce" => self.reduce = parse(v)?,
                other => unreachable!("knob {other} has no parser"),
            }
            Ok(())
        })();
        r.map_err(|e| MsmError::InvalidConfig(format!("{}: {e}; expected {}", k.name, k.values)))
    }

    /// The value of knob `name` as text (as [`MsmConfig::set`] reads it).
    pub fn get(&self, name: &str) -> Option<String> {
        Some(match knob(name)?.name {
            "window_bits" => show(self.window_bits),
            "walker_tpb" => self.walker_tpb.to_string(),
            "walker_pref_mem" => self.walker_pref_mem.to_string(),
            "walker_slots" => self.walker_slots.to_string(),
            "walker_cache_dx" => self.walker_cache_dx.to_string(),
            "walker_fused" => self.walker_fused.to_string(),
            "walker_unroll" => self.walker_unroll.to_string(),
            "walker_threads" => show(self.walker_threads),
            "walker_split" => self.walker_split.to_string(),
            "timing" => self.timing.to_string(),
            "max_chunk_points" => show(self.max_chunk_points),
            "reduce" => self.reduce.to_string(),
            _ => return None,
        })
    }

    /// `self` with every `name=value` of `spec` (separated by commas or
    /// spaces) applied.
    pub fn with_knobs(&self, spec: &str) -> Result<MsmConfig, MsmError> {
        let mut c = self.clone();
        for item in spec.split([',', ' ']).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| MsmError::InvalidConfig(format!("`{item}`: expected name=value")))?;
            c.set(name, value)?;
        }
        Ok(c)
    }

    /// The knobs that differ from the defaults, as `name=value` pairs
    /// ("defaults" when none does).
    pub fn describe(&self) -> String {
        let d = MsmConfig::default();
        let diff: Vec<String> = KNOBS
            .iter()
            .filter(|k| k.name != "timing" && self.get(k.name) != d.get(k.name))
            .map(|k| format!("{}={}", k.name, self.get(k.name).unwrap()))
            .collect();
        if diff.is_empty() {
            "defaults".into()
        } else {
            diff.join(",")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_round_trips_through_text() {
        let c = MsmConfig::default()
            .with_knobs("window_bits=9,walkerTpb=64,prefmem=workgroup,ws=2,cachedx=false,fused=true,unroll=true")
            .unwrap()
            .with_knobs("walker_threads=77 split=buckets timing=true chunk=1000 reduce=host")
            .unwrap();
        let mut back = MsmConfig::default();
        for k in KNOBS {
            back.set(k.name, &c.get(k.name).unwrap()).unwrap();
        }
        assert_eq!(back, c);
        assert_eq!(c.walker_split, TaskSplit::Buckets);
        assert_eq!(MsmConfig::default().describe(), "defaults");
        assert!(c.describe().contains("walker_tpb=64"));
        let auto = c.with_knobs("window_bits=auto,walker_threads=auto").unwrap();
        assert_eq!((auto.window_bits, auto.walker_threads), (None, None));
    }

    #[test]
    fn mistakes_name_the_knob() {
        let mut c = MsmConfig::default();
        let e = c.set("walker_tbp", "64").unwrap_err().to_string();
        assert!(e.contains("walker_tbp") && e.contains("walker_tpb"), "{e}");
        let e = c.set("prefmem", "shared").unwrap_err().to_string();
        assert!(e.contains("walker_pref_mem") && e.contains("shared"), "{e}");
        let e = c.set("walker_slots", "-1").unwrap_err().to_string();
        assert!(e.contains("walker_slots"), "{e}");
        assert!(c.with_knobs("walker_slots").is_err());
    }
}
