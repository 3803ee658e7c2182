//! The knobs as data: every knob of [`MsmConfig`] is declared once, in the
//! table in `config.rs` (name, type, default, doc, JS name, alias, TypeScript
//! type, values, range, whether it picks a shader). From that one table come
//! the struct and its defaults, [`KNOBS`], parsing and printing
//! ([`MsmConfig::set`] / [`MsmConfig::get`]), the range checks, the
//! command line's flags, the browser's options and their TypeScript types
//! ([`typescript_interface`]), and [`KnobOverrides`], which a context merges
//! knob by knob over a tuned profile.

pub use crate::config::KNOBS;
pub use overrides::KnobOverrides;
pub use table::Knob;
pub(crate) use table::KnobValue;

mod overrides;
pub(crate) mod table;
use crate::config::{MsmConfig, PrefMem, ReduceOn, TaskSplit};
use crate::error::MsmError;

impl Knob {
    /// The first sentence of its doc comment.
    pub fn summary(&self) -> String {
        let text = self.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        match text.find(". ") {
            Some(i) => text[..=i].to_string(),
            None => text,
        }
    }

    /// Its value in `MsmConfig::default()`, as text.
    pub fn default_text(&self) -> String {
        MsmConfig::default().get_known(self.name)
    }

    /// The command-line flag (`--walker-tpb`).
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// The knob a name (field name, camelCase or alias) refers to.
pub fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS
        .iter()
        .find(|k| k.name == name || k.camel == name || k.alias == name)
}

/// Text names of an enum's values, both ways.
macro_rules! named_values {
    ($t:ty, $what:literal, [$(($v:path, $s:literal)),+ $(,)?]) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self {
                    $($v => $s,)+
                })
            }
        }

        impl std::str::FromStr for $t {
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

        impl $crate::knobs::KnobValue for $t {
            fn parse_knob(text: &str) -> Result<Self, String> {
                text.parse()
            }
            fn show_knob(&self) -> String {
                self.to_string()
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
pub(crate) use named_values;

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
    TaskSplit,
    "task split",
    [(TaskSplit::Equal, "equal"), (TaskSplit::Buckets, "buckets")]
);

pub(crate) fn invalid(knob: &str, reason: String) -> MsmError {
    MsmError::invalid_config(knob, reason)
}

impl MsmConfig {
    /// Sets the knob `name` (field name, camelCase or alias) from text, e.g.
    /// `set("walker_tpb", "256")`. Unknown names and bad values are errors
    /// that name the knob; ranges are checked when a plan is made.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), MsmError> {
        let k = knob(name).ok_or_else(|| {
            let names: Vec<&str> = KNOBS.iter().map(|k| k.name).collect();
            invalid(name, format!("no such knob (knobs: {})", names.join(", ")))
        })?;
        self.set_known(k.name, value.trim())
            .map_err(|e| invalid(k.name, format!("{e}; expected {}", k.values)))
    }

    /// The value of knob `name` as text (as [`MsmConfig::set`] reads it).
    pub fn get(&self, name: &str) -> Option<String> {
        knob(name).map(|k| self.get_known(k.name))
    }

    /// `self` with every `name=value` of `spec` (separated by commas or
    /// spaces) applied.
    pub fn with_knobs(&self, spec: &str) -> Result<MsmConfig, MsmError> {
        Ok(KnobOverrides::parse(spec)?.over(self))
    }

    /// Every numeric knob inside its declared range (limits of the adapter
    /// are the plan's to check).
    pub fn check_ranges(&self) -> Result<(), MsmError> {
        for k in KNOBS {
            if let (Some((lo, hi)), Some(v)) = (k.range, self.count_of(k.name)) {
                if !(lo..=hi).contains(&v) {
                    return Err(invalid(k.name, format!("{v} is out of range: must be in {lo}..={hi}")));
                }
            }
        }
        Ok(())
    }

    /// The knobs that differ from the defaults, as `name=value` pairs
    /// ("defaults" when none does).
    pub fn describe(&self) -> String {
        let diff = KnobOverrides::changed(self).to_string();
        if diff.is_empty() {
            "defaults".into()
        } else {
            diff
        }
    }
}

/// The TypeScript interface of the knobs (the browser package's
/// `MsmOptions`), with each knob's doc and its default in `defaults`.
pub fn typescript_interface(defaults: &MsmConfig) -> String {
    let mut s = String::from(
        "/**\n * Knobs of an MSM; keys left out keep the context's values (the knobs it\n \
         * was given, else the size's defaults: `configFor(points)`; the defaults\n \
         * below are small sizes'). Keys are the camelCase (or snake_case) knob\n \
         * names; values may also be given as strings (as URL parameters are),\n \
         * \"auto\" for automatic choices. Generated from msm-core's knob table.\n \
         */\nexport interface MsmOptions {\n",
    );
    for k in KNOBS {
        let default = defaults.get_known(k.name);
        s += &format!(
            "  /** {} Default: {default}. */\n  {}?: {};\n",
            k.summary(),
            k.camel,
            k.ts
        );
    }
    s + "}\n"
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
        let knob_of = |e: MsmError| match e {
            MsmError::InvalidConfig { knob, reason } => (knob, reason),
            other => panic!("untyped error {other:?}"),
        };
        let (k, why) = knob_of(c.set("walker_tbp", "64").unwrap_err());
        assert!(k == "walker_tbp" && why.contains("walker_tpb"), "{why}");
        let (k, why) = knob_of(c.set("prefmem", "shared").unwrap_err());
        assert!(k == "walker_pref_mem" && why.contains("shared"), "{why}");
        assert_eq!(knob_of(c.set("walker_slots", "-1").unwrap_err()).0, "walker_slots");
        assert!(c.with_knobs("walker_slots").is_err());
        c.walker_slots = 17;
        assert_eq!(knob_of(c.check_ranges().unwrap_err()).0, "walker_slots");
        c.walker_slots = 16;
        c.window_bits = Some(1);
        assert_eq!(knob_of(c.check_ranges().unwrap_err()).0, "window_bits");
        c.window_bits = None;
        c.max_chunk_points = Some(0);
        assert_eq!(knob_of(c.check_ranges().unwrap_err()).0, "max_chunk_points");
        assert!(MsmConfig::default().check_ranges().is_ok());
    }

    /// A knob marked `shader` changes the walker's shader variant or its
    /// workgroup size; no other knob does.
    #[test]
    fn shader_knobs_are_the_ones_that_pick_a_shader() {
        let d = MsmConfig::default();
        let other = |k: &Knob| -> &'static str {
            match k.values {
                "true | false" if d.get_known(k.name) == "true" => "false",
                "true | false" => "true",
                "private | workgroup" => "workgroup",
                "equal | buckets" => "buckets",
                "auto | gpu | host" => "host",
                _ => "3",
            }
        };
        for k in KNOBS {
            let mut c = d.clone();
            c.set(k.name, other(k)).unwrap();
            assert_ne!(c, d, "{}", k.name);
            let picks = c.walker_shape() != d.walker_shape();
            assert_eq!(picks, k.shader, "{}", k.name);
        }
    }

    /// The table's names and aliases are unique, and every knob appears in
    /// the TypeScript interface with its type and default.
    #[test]
    fn the_table_is_consistent() {
        let mut names: Vec<&str> = KNOBS.iter().flat_map(|k| [k.name, k.camel, k.alias]).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        // a knob may use its own name as alias or camel spelling
        assert!(names.len() >= n - 2 * KNOBS.len(), "{names:?}");
        for k in KNOBS {
            assert!(knob(k.alias).unwrap().name == k.name, "alias {} is taken", k.alias);
            assert!(knob(k.camel).unwrap().name == k.name);
            assert!(!k.summary().is_empty() && k.summary().ends_with('.'), "{}", k.name);
        }
        let ts = typescript_interface(&MsmConfig::web());
        for k in KNOBS {
            let line = format!("  {}?: {};", k.camel, k.ts);
            assert!(ts.contains(&line), "{line}");
            let d = format!("Default: {}. */\n{line}", MsmConfig::web().get_known(k.name));
            assert!(ts.contains(&d), "{d}");
        }
    }
}
