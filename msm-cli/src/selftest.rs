//! `msm-cli selftest`: the library's self-test on this adapter and driver
//! (`GpuContext::self_test`), in every group or those asked, each case
//! printed as it finishes, with a verdict; exit status 1 when a case fails.

use std::time::Instant;

use msm_core::{Curve, GpuContext, SelfTestCase, SelfTestReport};
use serde::Serialize;

use crate::error::CliError;
use crate::knobs::{GpuArgs, KnobArgs};

#[derive(clap::Args)]
pub struct Args {
    /// Groups to test, comma-separated (bn254-g1, bls12-381-g1, bn254-g2,
    /// bls12-381-g2), or `all`.
    #[arg(long, default_value = "all")]
    groups: String,
    /// Every window width 4..=16 and larger inputs (a covering subset otherwise).
    #[arg(long)]
    full: bool,
    /// Print the reports as one JSON object (cases as they finish go to stderr).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    /// The knobs to test with (those given; the rest from the profile).
    #[command(flatten)]
    knobs: KnobArgs,
}

#[derive(Serialize)]
struct CaseJson<'a> {
    name: &'a str,
    passed: bool,
    detail: &'a str,
    ms: f64,
}

#[derive(Serialize)]
struct GroupJson<'a> {
    group: String,
    adapter: &'a str,
    passed: bool,
    /// Why the group could not run (no context), if so.
    error: Option<String>,
    ms: f64,
    cases: Vec<CaseJson<'a>>,
}

fn groups(spec: &str) -> Result<Vec<Curve>, CliError> {
    if spec == "all" {
        return Ok(Curve::ALL.to_vec());
    }
    spec.split(',')
        .map(|g| {
            Curve::from_name(g.trim()).ok_or_else(|| {
                msm_core::MsmError::invalid_config(
                    "--groups",
                    format!("{g}: expected bn254-g1, bls12-381-g1, bn254-g2, bls12-381-g2 or all"),
                )
                .into()
            })
        })
        .collect()
}

fn line(c: &SelfTestCase) -> String {
    let verdict = if c.passed { "pass" } else { "FAIL" };
    let detail = if c.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", c.detail)
    };
    format!("{verdict}  {:<13} {:>9.1} ms  {}{detail}", c.group.name(), c.ms, c.name)
}

pub fn run(args: &Args) -> Result<(), CliError> {
    if args.gpu.curve != "bn254" || args.gpu.group != "g1" {
        return Err(msm_core::MsmError::invalid_config(
            "--curve",
            "selftest takes its groups as --groups (e.g. --groups bls12-381-g2)",
        )
        .into());
    }
    let t = Instant::now();
    let mut results: Vec<(Curve, Result<SelfTestReport, msm_core::MsmError>)> = Vec::new();
    for group in groups(&args.groups)? {
        let gpu = GpuArgs {
            curve: Curve::of(group.field(), msm_wgsl::Coords::Fq).name().to_string(),
            group: group.coords().group().to_string(),
            ..args.gpu.clone()
        };
        let report = gpu.context(args.knobs.overrides.clone()).map(|ctx: GpuContext| {
            eprintln!("{}: {}", group.name(), crate::knobs::adapter_line(&ctx));
            ctx.self_test_blocking(None, args.full, |c| eprintln!("{}", line(c)))
        });
        if let Err(e) = &report {
            eprintln!("FAIL  {:<13} no context: {e}", group.name());
        }
        results.push((group, report));
    }
    let failed: usize = results
        .iter()
        .map(|(_, r)| {
            r.as_ref()
                .map_or(1, |r| r.failures().count() + usize::from(r.cases.is_empty()))
        })
        .sum();
    if args.json {
        let out: Vec<GroupJson> = results
            .iter()
            .map(|(g, r)| match r {
                Ok(r) => GroupJson {
                    group: g.name().to_string(),
                    adapter: &r.adapter,
                    passed: r.passed(),
                    error: None,
                    ms: r.ms,
                    cases: r
                        .cases
                        .iter()
                        .map(|c| CaseJson {
                            name: &c.name,
                            passed: c.passed,
                            detail: &c.detail,
                            ms: c.ms,
                        })
                        .collect(),
                },
                Err(e) => GroupJson {
                    group: g.name().to_string(),
                    adapter: "",
                    passed: false,
                    error: Some(e.to_string()),
                    ms: 0.0,
                    cases: Vec::new(),
                },
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({ "passed": failed == 0, "seconds": t.elapsed().as_secs_f64(), "groups": out })
        );
    } else {
        for (g, r) in &results {
            match r {
                Ok(r) => println!(
                    "{:<13} {}: {} of {} cases passed in {:.1} s ({})",
                    g.name(),
                    if r.passed() { "pass" } else { "FAIL" },
                    r.cases.iter().filter(|c| c.passed).count(),
                    r.cases.len(),
                    r.ms / 1e3,
                    r.adapter
                ),
                Err(e) => println!("{:<13} FAIL: no context: {e}", g.name()),
            }
        }
        println!(
            "selftest: {} in {:.1} s",
            if failed == 0 {
                "passed".to_string()
            } else {
                format!("{failed} failure(s)")
            },
            t.elapsed().as_secs_f64()
        );
    }
    if failed > 0 {
        return Err(CliError::SelfTestFailed(failed));
    }
    Ok(())
}
