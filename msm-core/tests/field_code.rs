//! The row-loop field code (`FieldCode::Rows`, and `Mixed`: row loops beside
//! a straight-line walker), which GPUs get by default, against arkworks on
//! lavapipe (whose own default stays straight-line): MSMs of both curves'
//! G1 through every pass, in the layouts the defaults pick.

mod common;

use ark_bls12_381::g1::Config as Bls12_381G1;
use ark_bn254::g1::Config as Bn254G1;
use common::msms;
use msm_core::{ContextOptions, Curve, FieldCode, FieldLayout, GpuContext, GpuCurve};

/// A context of `curve` with `code` in `layout`, or none where the adapter
/// lacks the layout's 64-bit integers.
fn context(curve: Curve, layout: FieldLayout, code: FieldCode) -> Option<GpuContext> {
    let opts = ContextOptions {
        curve,
        field_layout: Some(layout),
        field_code: Some(code),
        gpu_timeout: Some(std::time::Duration::from_secs(1800)),
        ..Default::default()
    };
    match GpuContext::new_blocking(&opts) {
        Ok(ctx) => {
            assert_eq!((ctx.field_code(), ctx.field_layout()), (code, layout));
            Some(ctx)
        }
        Err(msm_core::MsmError::LayoutUnsupported { .. }) => None,
        Err(e) => panic!("{curve} {layout} {code}: {e}"),
    }
}

fn check<C: GpuCurve>(layout: FieldLayout, code: FieldCode) {
    common::fast_lavapipe_compile();
    let Some(ctx) = context(C::CURVE, layout, code) else {
        eprintln!("skipping {layout}: the adapter lacks SHADER_INT64");
        return;
    };
    msms::check_sizes_and_scalars_near_r::<C>(&ctx, &[1, 3, 100, 1000]);
    msms::check_adversarial::<C>(&ctx, 100);
}

/// The 64-bit layout's default on GPUs.
#[test]
fn bn254_row_loops() {
    check::<Bn254G1>(FieldLayout::Limbs32x8, FieldCode::Rows);
}

/// The portable layout's default on GPUs (and in browsers).
#[test]
fn bn254_mixed_portable() {
    check::<Bn254G1>(FieldLayout::Limbs13x20, FieldCode::Mixed);
}

/// BLS12-381's 12 limbs of 32 bits: six iterations of two rows.
#[test]
fn bls12_381_row_loops() {
    check::<Bls12_381G1>(FieldLayout::Limbs32x8, FieldCode::Rows);
}
