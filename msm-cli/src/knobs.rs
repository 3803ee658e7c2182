//! Command-line flags shared by the subcommands: adapter, field module and
//! every `MsmConfig` knob, the latter made from msm-core's knob table.

use msm_core::knobs::KNOBS;
use msm_core::{
    ContextOptions, FieldCode, FieldLayout, GpuContext, Inversion, KnobOverrides, MsmConfig, MsmError, ProfileChoice,
};

/// Calls `f::<C>(args...)` with `C` the arkworks config of the group `curve`
/// (a [`msm_core::Curve`]): one dispatch for every command that runs any group.
macro_rules! in_group {
    ($curve:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $curve {
            msm_core::Curve::Bn254G1 => $f::<ark_bn254::g1::Config>($($arg),*),
            msm_core::Curve::Bls12_381G1 => $f::<ark_bls12_381::g1::Config>($($arg),*),
            msm_core::Curve::Bn254G2 => $f::<ark_bn254::g2::Config>($($arg),*),
            msm_core::Curve::Bls12_381G2 => $f::<ark_bls12_381::g2::Config>($($arg),*),
        }
    };
}
pub(crate) use in_group;

#[derive(clap::Args, Clone, Debug)]
pub struct GpuArgs {
    /// Curve: bn254 or bls12-381.
    #[arg(long, default_value = "bn254")]
    pub curve: String,
    /// Group of the curve: g1 (coordinates in Fq) or g2 (in Fq2).
    #[arg(long, default_value = "g1")]
    pub group: String,
    /// Use the first adapter whose name contains this text (see `msm-cli adapters`).
    #[arg(long)]
    pub adapter: Option<String>,
    /// Field limb layout: 13x20, 16x16 or 32x8-int64 (default: best for the adapter).
    #[arg(long)]
    pub layout: Option<String>,
    /// Field multiplication code: unrolled, looped, rows or mixed (default on a
    /// GPU: rows, mixed in 13x20 but for BLS12-381 G2; looped on SwiftShader;
    /// under a loop cap mixed in the 64-bit layout over Fq, else unrolled).
    #[arg(long)]
    pub field_code: Option<String>,
    /// Field inversion: fermat, gcd, bingcd, safegcd or safegcd64 (default:
    /// fermat under a loop cap, safegcd64 with 64-bit integers, safegcd
    /// elsewhere).
    #[arg(long)]
    pub inversion: Option<String>,
    /// Folder of the pipeline cache kept across processes, or `off`
    /// (default: $MSM_GPU_CACHE_DIR, else the user's cache folder).
    #[arg(long)]
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// Device limits: `adapter` (all it offers) or `default` (WebGPU's
    /// defaults, what a web page gets that asks for none).
    #[arg(long, default_value = "adapter")]
    pub limits: String,
    /// Seconds one wait for the GPU may take before the MSM fails (default 300; 1,200 on a software adapter, which compiles at the first dispatch).
    #[arg(long)]
    pub gpu_timeout: Option<f64>,
    /// Tuned profile: `auto` (this adapter's, written by `msm-cli tune`),
    /// `off` (built-in defaults) or a file.
    #[arg(long, default_value = "auto")]
    pub profile: std::path::PathBuf,
    /// Keep the guard counter wgpu's shader translator adds to every loop
    /// (off by default: the shaders' loops all end, and the guards cost
    /// compile time).
    #[arg(long)]
    pub loop_guards: bool,
}

/// Every knob of msm-core's knob table as a flag (`--walker-tpb`, with the
/// table's short alias, e.g. `--wtpb`), plus `--knob NAME=VALUE`: the flags,
/// their help and defaults come from the table, so a new knob needs no code
/// here. Only the knobs given are kept: the rest come from the adapter's
/// tuned profile, else the defaults.
#[derive(Clone, Debug, Default)]
pub struct KnobArgs {
    pub overrides: KnobOverrides,
}

impl clap::Args for KnobArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd.arg(
            clap::Arg::new("knob")
                .long("knob")
                .short('k')
                .value_name("NAME=VALUE")
                .action(clap::ArgAction::Append)
                .help("Any knob as NAME=VALUE (repeatable; names as in `MsmConfig`, e.g. walker_tpb=256)"),
        );
        for k in KNOBS {
            let mut arg = clap::Arg::new(k.name).long(k.flag()).value_name("VALUE").help(format!(
                "{} [{}; default {}]",
                k.summary(),
                k.values,
                k.default_text()
            ));
            if k.alias.len() > 1 && k.alias != k.name {
                arg = arg.visible_alias(k.alias);
            }
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for KnobArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut a = KnobArgs::default();
        a.update_from_arg_matches(m)?;
        Ok(a)
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        let bad = |e: MsmError| clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n"));
        for k in KNOBS {
            if let Some(v) = m.get_one::<String>(k.name) {
                self.overrides.set(k.name, v).map_err(bad)?;
            }
        }
        for spec in m.get_many::<String>("knob").into_iter().flatten() {
            for (name, value) in KnobOverrides::parse(spec).map_err(bad)?.given() {
                self.overrides.set(name, &value).map_err(bad)?;
            }
        }
        Ok(())
    }
}

impl GpuArgs {
    /// The `--curve` and `--group` asked for.
    pub fn curve(&self) -> Result<msm_core::Curve, MsmError> {
        curve_group(&self.curve, &self.group)
    }

    /// Refuses another group than BN254's G1 for `command`, which runs
    /// BN254 G1 alone (`bench`, `gen` and `msm` run every group).
    pub fn bn254_g1_only(&self, command: &str) -> Result<(), MsmError> {
        match self.curve()? {
            msm_core::Curve::Bn254G1 => Ok(()),
            other => Err(MsmError::invalid_config(
                "--curve",
                format!("`{command}` runs BN254 G1 only, not {other}: use `bench` for other groups"),
            )),
        }
    }

    /// Builds the context (timestamps on when the adapter has them).
    pub fn context(&self, knobs: KnobOverrides) -> Result<GpuContext, MsmError> {
        let profile = match self.profile.as_os_str().to_str() {
            Some("auto") => ProfileChoice::Auto,
            Some("off") => ProfileChoice::Off,
            _ => ProfileChoice::File(self.profile.clone()),
        };
        self.context_with_profile(knobs, profile)
    }

    /// [`GpuArgs::context`] with the profile given.
    pub fn context_with_profile(&self, knobs: KnobOverrides, profile: ProfileChoice) -> Result<GpuContext, MsmError> {
        let field_layout = layout_flag(self.layout.as_deref())?;
        let field_code: Option<FieldCode> = parsed(self.field_code.as_deref(), "--field-code")?;
        let inversion: Option<Inversion> = parsed(self.inversion.as_deref(), "--inversion")?;
        let ctx = GpuContext::new_blocking(&ContextOptions {
            curve: self.curve()?,
            field_layout,
            adapter_name: self.adapter.clone(),
            timestamps: true,
            knobs,
            field_code,
            inversion,
            pipeline_cache: cache_flag(self.pipeline_cache.as_ref()),
            profile,
            limits: self
                .limits
                .parse()
                .map_err(|e| MsmError::invalid_config("--limits", e))?,
            gpu_timeout: match self.gpu_timeout {
                Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                Some(s) => {
                    return Err(MsmError::invalid_config(
                        "--gpu-timeout",
                        format!("expected a positive number of seconds, got {s}"),
                    ))
                }
                None => None,
            },
            compile_timeout: None,
            loop_guards: self.loop_guards,
        })?;
        if ctx.is_software() {
            eprintln!(
                "note: running on `{}`, a software (CPU) adapter: no GPU was found; times are not GPU times",
                ctx.adapter_info().name
            );
        }
        Ok(ctx)
    }
}

/// `--layout`'s value, or an error naming the flag.
pub fn layout_flag(name: Option<&str>) -> Result<Option<FieldLayout>, MsmError> {
    name.map(|n| {
        FieldLayout::from_name(n)
            .ok_or_else(|| MsmError::invalid_config("--layout", format!("{n}: expected 13x20, 16x16 or 32x8-int64")))
    })
    .transpose()
}

/// `--pipeline-cache`'s value: a folder, `off`, or the default.
pub fn cache_flag(path: Option<&std::path::PathBuf>) -> msm_core::PipelineCacheDir {
    match path {
        None => msm_core::PipelineCacheDir::Default,
        Some(p) if p.as_os_str() == "off" => msm_core::PipelineCacheDir::Off,
        Some(p) => msm_core::PipelineCacheDir::At(p.clone()),
    }
}

/// An optional flag's value parsed, or an error naming the flag.
pub fn parsed<T: std::str::FromStr<Err = String>>(value: Option<&str>, flag: &str) -> Result<Option<T>, MsmError> {
    value
        .map(|v| v.parse().map_err(|e| MsmError::invalid_config(flag, e)))
        .transpose()
}

/// One line describing the adapter.
pub fn adapter_line(ctx: &GpuContext) -> String {
    let i = ctx.adapter_info();
    format!(
        "{} ({:?}, {:?}), driver {} {}",
        i.name, i.backend, i.device_type, i.driver, i.driver_info
    )
}

/// The group `--curve curve --group group` names.
pub fn curve_group(curve: &str, group: &str) -> Result<msm_core::Curve, MsmError> {
    msm_core::Curve::from_names(curve, group).map_err(|e| match e {
        MsmError::InvalidConfig { knob, reason } => MsmError::invalid_config(&format!("--{knob}"), reason),
        e => e,
    })
}

/// One line describing the field module.
pub fn field_line(ctx: &GpuContext) -> String {
    let f = ctx.field_options();
    let curve = match ctx.curve() {
        msm_core::Curve::Bn254G1 => String::new(),
        c => format!("{c} "),
    };
    format!("{curve}{} ({:?} code, {} inversion)", f.layout, f.code, f.inversion)
}

/// One line describing the knobs (those that differ from the defaults).
pub fn config_line(c: &MsmConfig) -> String {
    c.describe()
}

/// Knob sets given as `;`-separated `name=value,...` lists, each over
/// `base` (`defaults` for `base` itself): `sweep --variants`, `tune --ladder`.
pub fn knob_sets(spec: &str, base: &MsmConfig) -> Result<Vec<MsmConfig>, MsmError> {
    spec.split(';')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| match v {
            "defaults" => Ok(base.clone()),
            _ => base.with_knobs(v),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::{Args, FromArgMatches};

    use super::*;

    fn command() -> clap::Command {
        KnobArgs::augment_args(clap::Command::new("t"))
    }

    /// Knob sets apply over their base; `defaults` is the base itself; a
    /// bad knob is an error.
    #[test]
    fn knob_sets_apply_over_their_base() {
        let base = MsmConfig::default().with_knobs("walker_slots=8").unwrap();
        let sets = knob_sets("defaults; walker_tpb=512;", &base).unwrap();
        assert_eq!(sets.len(), 2);
        assert_eq!(sets[0], base);
        assert_eq!((sets[1].walker_slots, sets[1].walker_tpb), (8, 512));
        assert!(knob_sets("no_such_knob=1", &base).is_err());
    }

    /// Every knob of the table is a flag whose help gives its default.
    #[test]
    fn every_knob_is_a_flag_with_its_default() {
        let help = command().render_long_help().to_string();
        for k in KNOBS {
            let flag = format!("--{}", k.flag());
            assert!(help.contains(&flag), "{flag} missing:\n{help}");
            let default = format!("default {}]", k.default_text());
            assert!(help.contains(&default), "{}: {default} missing", k.name);
        }
    }

    /// Flags, aliases and `--knob` give only the knobs named; a bad value
    /// is refused naming the knob.
    #[test]
    fn flags_give_only_the_knobs_named() {
        let parse = |args: &[&str]| {
            let m = command().try_get_matches_from(args)?;
            KnobArgs::from_arg_matches(&m)
        };
        let a = parse(&[
            "t",
            "--wtpb",
            "128",
            "-k",
            "walker_slots=2,reduce=host",
            "--walker-unroll",
            "true",
        ])
        .unwrap();
        let given: Vec<&str> = a.overrides.given().map(|(k, _)| k).collect();
        assert_eq!(given, ["walker_tpb", "walker_slots", "walker_unroll", "reduce"]);
        let c = a.overrides.over(&MsmConfig::default());
        assert_eq!((c.walker_tpb, c.walker_slots, c.walker_unroll), (128, 2, true));
        assert!(parse(&["t"]).unwrap().overrides.is_empty());
        let e = parse(&["t", "--ws", "many"]).unwrap_err().to_string();
        assert!(e.contains("walker_slots"), "{e}");
    }
}
