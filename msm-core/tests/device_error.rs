//! A GPU error outside any error scope (here an invalid buffer) is reported by
//! the next MSM as `MsmError::Device`, once, instead of wgpu's default panic.

use ark_bn254::{Fr, G1Affine};
use ark_ec::AffineRepr;
use msm_core::{ContextOptions, GpuContext, MsmError};

#[test]
fn uncaptured_error_is_reported_by_the_next_msm() {
    // A context of its own: the error must not leak into other tests.
    let ctx = GpuContext::new_blocking(&ContextOptions::default()).expect("GPU context");
    let bases = ctx.upload_bases_blocking(&[G1Affine::generator()]).unwrap();
    let scalars = [Fr::from(3u64)];
    let _invalid = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("mappable storage (invalid)"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    match ctx.msm_blocking(&bases, &scalars) {
        Err(MsmError::Device(message)) => assert!(message.to_lowercase().contains("usage"), "{message}"),
        other => panic!("expected a device error, got {other:?}"),
    }
    let want: G1Affine = (G1Affine::generator() * Fr::from(3u64)).into();
    let got: G1Affine = ctx.msm_blocking(&bases, &scalars).unwrap().into();
    assert_eq!(got, want, "the context works again once the error is reported");
}
