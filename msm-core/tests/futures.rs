//! Every public future is `Send` (natively), so provers can `tokio::spawn`
//! them or hold them across threads. The check is at compile time: a
//! future that holds a `!Send` value (wgpu's error-scope guard, a lock
//! guard) across an `.await` fails this file's build.
#![cfg(not(target_arch = "wasm32"))]

use msm_core::{
    BaseFormat, Bases, Bls12_381, Bn254, ContextOptions, Engine, EngineBases, EngineOptions, GpuContext, HostBytes,
    MsmConfig, Scalars,
};

fn send<T: Send>(_: T) {}

/// Never run: type-checked only.
#[allow(dead_code, clippy::too_many_arguments)]
fn every_public_future_is_send(
    ctx: &GpuContext,
    engine: &Engine,
    bases: &mut Bases,
    bls: &Bases<Bls12_381>,
    engine_bases: &mut EngineBases,
    fr: &[ark_bn254::Fr],
    bls_fr: &[ark_bls12_381::Fr],
    config: &MsmConfig,
) {
    send(GpuContext::new(&ContextOptions::default()));
    send(GpuContext::list_adapters());
    send(ctx.check_subgroup(bases));
    send(ctx.self_test(None, false, |_| {}));
    send(ctx.upload_bases::<Bn254>(&[]));
    send(ctx.upload_bases_bytes::<Bn254>(HostBytes::slice(&[]), BaseFormat::Arkworks));
    send(ctx.upload_bases_bytes::<Bls12_381>(HostBytes::slice(&[]), BaseFormat::Raw));
    send(ctx.msm(bases, fr));
    send(ctx.msm(bls, bls_fr));
    send(ctx.msm_with(bases, fr, config));
    send(ctx.msm_scalars_with(bases, Scalars::Fr(fr), config));
    send(ctx.msm_batch(bases, &[fr]));
    send(ctx.msm_batch_with(bases, &[Scalars::Fr(fr)], config));
    send(ctx.build_table(bases, None));
    send(Engine::new(&EngineOptions::default()));
    send(engine.upload_bases::<Bn254>(&[]));
    send(engine.msm(engine_bases, fr));
    send(engine.msm_batch(engine_bases, &[fr]));
    send(engine.build_table(engine_bases, None));
    send(engine.check_subgroup(engine_bases));
    send(engine.warm_up());
}

#[test]
fn public_futures_are_send() {
    // the check is the build of `every_public_future_is_send`; this keeps
    // the function referenced
    let _ = every_public_future_is_send as fn(_, _, _, _, _, _, _, _);
}
