//! `msm-cli`: measurements and tools for the BN254 GPU MSM.

use clap::{Parser, Subcommand};

mod bench;
mod field_bench;
mod inputs;
mod knobs;
mod stats;

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
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Adapters => {
            let adapters = pollster::block_on(msm_core::list_adapters());
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
        Command::FieldBench(args) => field_bench::run(&args),
        Command::Bench(args) => bench::run(&args),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
