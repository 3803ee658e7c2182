//! A prover's first MSMs through the `Engine`: it compiles the GPU pipelines
//! in the background from creation and runs each call on the CPU until that
//! call's pipelines are ready, so the first call waits on no compile. Prints
//! one JSON line per group: creation, the first call (and where it ran),
//! calls made while warming up, the time until ready, the first GPU call;
//! every result is checked against arkworks.
//!
//!     cargo run --release -p msm-core --example warm_up -- --logn 16 --groups all

use std::error::Error;
use std::time::Instant;

use ark_ec::short_weierstrass::Affine;
use ark_ec::{CurveGroup, VariableBaseMSM};
use clap::Parser;
use msm_core::{Bls12_381, Bn254, ContextOptions, Curve, Engine, EngineOptions, GpuCurve};

#[derive(Parser)]
struct Args {
    /// log2 of the MSM's points
    #[arg(long, default_value_t = 16)]
    logn: u32,
    /// Groups, comma-separated (bn254-g1, bls12-381-g1, bn254-g2, bls12-381-g2) or `all`
    #[arg(long, default_value = "bn254-g1")]
    groups: String,
    /// Crossover (points) from which MSMs belong on the GPU (default: the adapter's)
    #[arg(long)]
    crossover: Option<usize>,
    /// Warm up in the background (default: the engine's: on a GPU adapter where Auto may use it)
    #[arg(long)]
    warm_up: Option<bool>,
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let names = if args.groups == "all" {
        "bn254-g1,bls12-381-g1,bn254-g2,bls12-381-g2".to_string()
    } else {
        args.groups.clone()
    };
    for name in names.split(',') {
        let curve = Curve::from_name(name.trim()).ok_or_else(|| format!("unknown group `{name}`"))?;
        match curve {
            Curve::Bn254G1 => first_contact::<Bn254>(&args, curve)?,
            Curve::Bls12_381G1 => first_contact::<Bls12_381>(&args, curve)?,
            Curve::Bn254G2 => first_contact::<ark_bn254::g2::Config>(&args, curve)?,
            Curve::Bls12_381G2 => first_contact::<ark_bls12_381::g2::Config>(&args, curve)?,
        }
    }
    Ok(())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn first_contact<C: GpuCurve>(args: &Args, curve: Curve) -> Result<(), Box<dyn Error>> {
    let n = 1usize << args.logn;
    let (bases, scalars) = msm_core::sample::inputs_of::<C>(n, 1);
    let want = <ark_ec::short_weierstrass::Projective<C> as VariableBaseMSM>::msm(&bases, &scalars)
        .map_err(|_| "lengths")?
        .into_affine();
    let t0 = Instant::now();
    let engine = Engine::new_blocking(&EngineOptions {
        context: ContextOptions {
            curve,
            ..Default::default()
        },
        crossover: args.crossover,
        max_points: Some(n),
        warm_up: args.warm_up,
        ..Default::default()
    })?;
    let created = ms(t0);
    let resident = engine.upload_bases_blocking::<C>(&bases)?;
    let uploaded = ms(t0);
    let check = |got: Affine<C>| {
        if got == want {
            Ok(())
        } else {
            Err(format!("{curve}: wrong result"))
        }
    };
    let t = Instant::now();
    let first_route = engine.route(n);
    check(engine.msm_blocking(&resident, &scalars)?.into_affine())?;
    let first_call = ms(t);
    println!(
        "{}",
        serde_json::json!({"group": curve.to_string(), "n": n, "engine_new_ms": created, "bases_uploaded_ms": uploaded,
            "first_call_route": format!("{first_route:?}"), "first_call_ms": first_call, "correct": true})
    );
    // calls keep coming while the pipelines compile
    let mut cpu_calls = 0;
    while !engine.is_ready() && engine.route(n) == msm_core::Route::Cpu && engine.fallback_reason().is_none() {
        check(engine.msm_blocking(&resident, &scalars)?.into_affine())?;
        cpu_calls += 1;
    }
    // from here calls of this size go to the GPU (or the warm-up failed)
    let gpu_route_from = ms(t0);
    pollster::block_on(engine.warm_up())?;
    let ready = ms(t0);
    let t = Instant::now();
    let gpu_route = engine.route(n);
    check(engine.msm_blocking(&resident, &scalars)?.into_affine())?;
    let first_gpu_call = ms(t);
    let t = Instant::now();
    check(engine.msm_blocking(&resident, &scalars)?.into_affine())?;
    let warm_call = ms(t);
    println!(
        "{}",
        serde_json::json!({
            "group": curve.to_string(), "n": n,
            "adapter": engine.gpu().map(|g| g.adapter_info().name.clone()),
            "engine_new_ms": created, "bases_uploaded_ms": uploaded,
            "first_call_route": format!("{first_route:?}"), "first_call_ms": first_call,
            "cpu_calls_while_warming": cpu_calls, "gpu_route_from_ms": gpu_route_from, "ready_ms": ready,
            "gpu_call_route": format!("{gpu_route:?}"), "first_gpu_call_ms": first_gpu_call,
            "warm_call_ms": warm_call, "fallback": engine.fallback_reason(), "correct": true,
        })
    );
    Ok(())
}
