//! Knobs a caller gave, merged knob by knob over a base.

use std::fmt;

use super::{invalid, knob, KNOBS};
use crate::config::MsmConfig;
use crate::error::MsmError;

/// Knobs a caller gave, merged knob by knob over a base (the defaults or a
/// tuned profile's knobs for the size): a knob given here always wins, a
/// knob not given keeps the base's value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnobOverrides {
    values: MsmConfig,
    /// Field names given, in table order.
    given: Vec<&'static str>,
}

impl KnobOverrides {
    /// No knob given.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives knob `name` (field name, camelCase or alias) as text.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), MsmError> {
        self.values.set(name, value)?;
        let k = knob(name).expect("set checked the name");
        if !self.given.contains(&k.name) {
            self.given.push(k.name);
            self.given.sort_by_key(|g| KNOBS.iter().position(|k| k.name == *g));
        }
        Ok(())
    }

    /// `self` with knob `name` given.
    pub fn with(mut self, name: &str, value: &str) -> Result<Self, MsmError> {
        self.set(name, value)?;
        Ok(self)
    }

    /// Every `name=value` of `spec` (separated by commas or spaces).
    pub fn parse(spec: &str) -> Result<Self, MsmError> {
        let mut o = Self::new();
        for item in spec.split([',', ' ']).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| invalid(item, "expected name=value".into()))?;
            o.set(name, value)?;
        }
        Ok(o)
    }

    /// Every knob of `config` given: nothing of a profile applies.
    pub fn every(config: &MsmConfig) -> Self {
        KnobOverrides {
            values: config.clone(),
            given: KNOBS.iter().map(|k| k.name).collect(),
        }
    }

    /// The knobs of `config` that differ from the defaults.
    pub fn changed(config: &MsmConfig) -> Self {
        let d = MsmConfig::default();
        KnobOverrides {
            values: config.clone(),
            given: KNOBS
                .iter()
                .map(|k| k.name)
                .filter(|&k| config.get_known(k) != d.get_known(k))
                .collect(),
        }
    }

    /// `base` with every knob given here replaced.
    pub fn over(&self, base: &MsmConfig) -> MsmConfig {
        let mut c = base.clone();
        for name in &self.given {
            c.copy_knob(&self.values, name);
        }
        c
    }

    /// Whether no knob was given.
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// The knobs given, as (field name, value text).
    pub fn given(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        self.given.iter().map(|&k| (k, self.values.get_known(k)))
    }
}

/// The knobs of a config that differ from the defaults: changed ones only.
impl From<MsmConfig> for KnobOverrides {
    fn from(config: MsmConfig) -> Self {
        KnobOverrides::changed(&config)
    }
}

/// `name=value` pairs separated by commas.
impl fmt::Display for KnobOverrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> = self
            .given()
            .filter(|(k, _)| *k != "timing")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&pairs.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Given knobs replace the base's, knob by knob; the rest keep it.
    #[test]
    fn overrides_merge_knob_by_knob() {
        let profile = MsmConfig::default()
            .with_knobs("walker_slots=8,window_bits=12")
            .unwrap();
        let mine = KnobOverrides::parse("timing=true walker_slots=2").unwrap();
        let c = mine.over(&profile);
        assert_eq!((c.walker_slots, c.window_bits, c.timing), (2, Some(12), true));
        // a default value given explicitly still wins
        let d = KnobOverrides::new().with("walker_slots", "4").unwrap();
        assert_eq!(d.over(&profile).walker_slots, 4);
        assert!(KnobOverrides::from(MsmConfig::default()).is_empty());
        let timing = MsmConfig {
            timing: true,
            ..Default::default()
        };
        let o = KnobOverrides::from(timing);
        assert_eq!(o.given().map(|(k, _)| k).collect::<Vec<_>>(), ["timing"]);
        assert_eq!(o.over(&profile).walker_slots, 8, "timing alone keeps the profile");
        assert_eq!(
            KnobOverrides::every(&MsmConfig::default()).over(&profile),
            MsmConfig::default()
        );
    }
}
