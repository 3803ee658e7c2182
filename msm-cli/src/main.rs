//! `msm-cli`: measurements and tools for the BN254 GPU MSM.

use clap::{Parser, Subcommand};

mod batch_bench;
mod bench;
mod calls;
mod error;
mod field_bench;
mod files;
mod generate;
mod inputs;
mod knobs;
mod msm;
mod prove;
mod selftest;
mod setup;
mod soak;
mod stats;
mod sweep;
mod tune;

#[derive(Parser)]
#[command(
    name = "msm-cli",
    version,
    about = "BN254 multi-scalar multiplication on the GPU (wgpu)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The GPU MSM beside arkworks on seeded inputs: cold, warm, per pass, checked.
    Bench(bench::Args),
    /// List the GPU adapters wgpu sees (name, backend, type, driver).
    Adapters,
    /// Chained Montgomery-multiplication throughput of each field limb layout.
    FieldBench(field_bench::Args),
    /// Seeded inputs to files: DIR/bases.bin and DIR/scalars.bin (arkworks, uncompressed).
    Gen(generate::Args),
    /// The GPU MSM of bases and scalars from files, checked against arkworks.
    Msm(msm::Args),
    /// A Groth16 proof of a circom circuit from snarkjs's .zkey and .wtns, every MSM on the GPU.
    Prove(prove::Args),
    /// This adapter's answers against arkworks in every group: scalar forms,
    /// window widths, tables, adversarial inputs, batches, subgroup refusals.
    Selftest(selftest::Args),
    /// An insecure Groth16 key (.zkey) for a circom circuit's .r1cs from a
    /// seed, for benchmarks and tests: whoever has the seed can forge proofs.
    Setup(setup::Args),
    /// Many random MSMs (sizes, knob sets, adversarial inputs) on one context, each checked against arkworks.
    Soak(soak::Args),
    /// One knob at a time from the defaults, timed interleaved (ABBA), checked.
    Sweep(sweep::Args),
    /// Measure this adapter (knob ladder, CPU/GPU crossover) and write its tuned profile.
    Tune(tune::Args),
}

/// `MSM_LOG=info` (or `debug`, `warn`, ...) prints the library's events to
/// stderr, timed from the start: an engine's warm-up, its routes, uploads.
fn init_log() {
    let level = std::env::var("MSM_LOG")
        .ok()
        .and_then(|v| v.parse::<tracing::Level>().ok());
    if let Some(level) = level {
        tracing_subscriber::fmt()
            .with_max_level(level)
            .with_timer(tracing_subscriber::fmt::time::uptime())
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init();
    }
}

fn main() {
    // SAFETY: first thing in main, before any thread starts.
    unsafe { msm_core::headless::skip_display_probe() };
    let cli = Cli::parse();
    init_log();
    let result: Result<(), error::CliError> = match cli.command {
        Command::Adapters => {
            let adapters = pollster::block_on(msm_core::GpuContext::list_adapters());
            if adapters.is_empty() {
                eprintln!("no GPU adapters found");
            }
            for a in adapters {
                println!(
                    "{} | {:?} | {:?} | {} {}",
                    a.name, a.backend, a.device_type, a.driver, a.driver_info
                );
            }
            Ok(())
        }
        Command::FieldBench(args) => field_bench::run(&args).map_err(Into::into),
        Command::Bench(args) => bench::run(&args).map_err(Into::into),
        Command::Gen(args) => generate::run(&args),
        Command::Msm(args) => msm::run(&args),
        Command::Prove(args) => prove::run(&args),
        Command::Selftest(args) => selftest::run(&args),
        Command::Setup(args) => setup::run(&args),
        Command::Soak(args) => soak::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Tune(args) => tune::run(&args),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
