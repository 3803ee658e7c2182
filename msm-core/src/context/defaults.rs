//! The context's knob defaults: the caller's knobs over a tuned profile of
//! this adapter, else over the adapter class's built-in knobs by size, each
//! fitted to the device.

use super::GpuContext;
use crate::config::MsmConfig;
use crate::knobs::KnobOverrides;
use crate::plan::builtin;
use crate::plan::profile::{self, Profile, ProfileChoice, ProfileRange, ProfileSource};

impl GpuContext {
    /// The adapter class's built-in knobs by size that fit this device.
    pub(super) fn fitting_builtin_ranges(&self) -> Vec<ProfileRange> {
        builtin::builtin_ranges(&self.info, self.field_layout().name(), &self.bounds())
    }

    /// The knobs the caller gave this context.
    pub fn knobs(&self) -> &KnobOverrides {
        &self.knobs
    }

    /// Replaces the knobs the caller gives (each still over the profile's).
    pub fn set_knobs(&mut self, knobs: KnobOverrides) {
        self.knobs = knobs;
    }

    /// Replaces every knob [`GpuContext::msm`] uses (no profile knob applies).
    pub fn set_config(&mut self, config: MsmConfig) {
        self.knobs = KnobOverrides::every(&config);
    }

    /// The knobs [`GpuContext::msm`] uses without a size in view: the
    /// caller's over the defaults.
    pub fn config(&self) -> MsmConfig {
        self.knobs.over(&MsmConfig::default())
    }

    /// The knobs [`GpuContext::msm`] uses for `n` points: each knob the
    /// caller gave, else the tuned profile's for that size, else the default.
    pub fn config_for(&self, n: usize) -> MsmConfig {
        self.config_for_with(&self.knobs, n)
    }

    /// [`GpuContext::config_for`] with `knobs` in place of the context's
    /// own: for a caller that keeps its knobs and changes them after
    /// creation (the browser package).
    pub fn config_for_with(&self, knobs: &KnobOverrides, n: usize) -> MsmConfig {
        let base = match &self.profile {
            Some(p) => p.config_for(n),
            None => profile::config_in_ranges(&self.builtin_ranges, n),
        };
        knobs.over(&self.fitted(base))
    }

    /// `config` with the walker's workgroup fitted to this adapter and
    /// group: its threads halved (down to 32) until the inversion tree fits
    /// the workgroup memory (G2's is wider). For defaults; the knobs a
    /// caller sets are checked as they are when an MSM runs.
    pub fn fitted(&self, mut config: MsmConfig) -> MsmConfig {
        config.fit_walker_threads(&self.bounds());
        config
    }

    diagnostics_pub! {
        /// The walker configs [`GpuContext::config_for`] picks at any size
        /// (the profile's ranges, or the built-in ones, under the caller's
        /// knobs) that fit the adapter: a caller's knobs are only checked
        /// when they run, and a shape that does not fit is never compiled
        /// ahead.
        fn walker_configs(&self) -> Vec<MsmConfig> {
            self.walker_configs_with(&self.knobs)
        }
    }

    /// [`GpuContext::walker_configs`] with `knobs` in place of the
    /// context's own (as [`GpuContext::config_for_with`]).
    pub(crate) fn walker_configs_with(&self, knobs: &KnobOverrides) -> Vec<MsmConfig> {
        let ranges = self.profile.as_ref().map_or(&self.builtin_ranges, |p| &p.ranges);
        let bounds = self.bounds();
        let mut out: Vec<MsmConfig> = Vec::new();
        for r in ranges {
            let c = self.config_for_with(knobs, 1 << r.min_logn.min(31));
            let new = !out.iter().any(|o| o.walker_shape() == c.walker_shape());
            if new && c.check_walker_fits(&bounds).is_ok() {
                out.push(c);
            }
        }
        out
    }

    /// Where this context's default knobs come from.
    pub fn profile_source(&self) -> &ProfileSource {
        &self.profile_source
    }

    /// Points from which the GPU beats arkworks here: the tuned profile's
    /// measurement, else the built-in one of the adapter class and group
    /// (`None`: never).
    pub fn crossover(&self) -> Option<usize> {
        match &self.profile {
            Some(p) => p.crossover,
            None => builtin::builtin_crossover(&self.info, self.curve()),
        }
    }

    /// Loads the profile `choice` names, if it fits this adapter.
    pub(super) fn load_profile(&mut self, choice: &ProfileChoice) {
        let layout = self.field_layout().to_string();
        let path = match choice {
            ProfileChoice::Off => return,
            ProfileChoice::File(p) => Some(p.clone()),
            ProfileChoice::Auto => Profile::default_path(&self.info, &layout, self.curve()),
        };
        let Some(path) = path.filter(|_| !cfg!(target_arch = "wasm32")) else {
            return;
        };
        match Profile::load(&path, &self.info, &layout, self.curve()) {
            Ok(Some(p)) => {
                self.profile = Some(p);
                self.profile_source = ProfileSource::Tuned(path);
            }
            Ok(None) => {}
            Err(why) => {
                tracing::warn!(%why, "ignoring a tuned MSM profile; using built-in defaults");
                self.profile_source = ProfileSource::BuiltIn {
                    class: self.adapter_class(),
                    ignored: Some(why),
                };
            }
        }
    }
}
