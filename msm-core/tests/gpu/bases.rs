//! Bases from bytes, converted and checked on the GPU (`shaders/bases.wgsl`):
//! the same resident planes as the host conversion of arkworks points, in
//! every layout and both formats, across part and dispatch splits; the first
//! bad point found and explained as the CPU twin does, on edge and fuzzed
//! encodings.

use crate::common;

use ark_bn254::{Fq, Fr, G1Affine};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField, Zero};
use ark_serialize::CanonicalSerialize;
use common::{ctx, rng};
use msm_core::cpu::bases::{decode_base, BaseDefect};
use msm_core::{cpu, BaseFormat, FieldLayout, GpuContext, HostBytes, MsmError, Scalars};
use rand::Rng;

fn points(n: usize, seed: u64) -> Vec<G1Affine> {
    let (mut pts, _) = msm_core::sample::inputs(n, seed);
    // identities and a point with its negation mixed in
    for i in (0..n).step_by(7) {
        pts[i] = G1Affine::zero();
    }
    if n > 3 {
        pts[3] = -pts[1];
    }
    pts
}

fn arkworks_bytes(pts: &[G1Affine]) -> Vec<u8> {
    let mut v = Vec::new();
    for p in pts {
        p.serialize_uncompressed(&mut v).unwrap();
    }
    v
}

fn raw_bytes(pts: &[G1Affine]) -> Vec<u8> {
    pts.iter()
        .flat_map(|p| match p.xy() {
            Some((x, y)) => [x.into_bigint().to_bytes_le(), y.into_bigint().to_bytes_le()].concat(),
            None => vec![0u8; 64],
        })
        .collect()
}

/// ffjavascript's layout (snarkjs's keys): arkworks' own limbs.
fn montgomery_bytes(pts: &[G1Affine]) -> Vec<u8> {
    pts.iter()
        .flat_map(|p| msm_core::cpu::bases::encode_point(p, BaseFormat::Montgomery))
        .collect()
}

fn upload(ctx: &GpuContext, bytes: &[u8], format: BaseFormat) -> Result<msm_core::Bases, MsmError> {
    pollster::block_on(ctx.upload_bases_bytes(HostBytes::slice(bytes), format))
}

fn planes(ctx: &GpuContext, b: &msm_core::Bases) -> Vec<msm_core::diagnostics::BasePlanes> {
    pollster::block_on(ctx.read_bases(b)).unwrap()
}

#[test]
fn bytes_give_the_host_conversion_in_every_layout() {
    common::fast_lavapipe_compile();
    let pts = points(300, 11);
    for layout in FieldLayout::ALL {
        let Some(ctx) = ctx(layout) else { continue };
        let want = planes(ctx, &ctx.upload_bases_blocking(&pts).unwrap());
        for (format, bytes) in [
            (BaseFormat::Arkworks, arkworks_bytes(&pts)),
            (BaseFormat::Raw, raw_bytes(&pts)),
            (BaseFormat::Montgomery, montgomery_bytes(&pts)),
        ] {
            let got = upload(ctx, &bytes, format).unwrap_or_else(|e| panic!("{layout} {format:?}: {e}"));
            assert_eq!(got.len(), pts.len());
            assert_eq!(planes(ctx, &got), want, "{layout} {format:?}");
        }
    }
}

#[test]
fn parts_and_dispatches_split_the_same_way() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let pts = points(37, 12);
    let bytes = arkworks_bytes(&pts);
    let split =
        pollster::block_on(ctx.upload_bases_bytes_with(HostBytes::slice(&bytes), BaseFormat::Arkworks, 16, 5)).unwrap();
    assert_eq!(split.parts(), 3);
    let whole = ctx.upload_bases_in_parts(&pts, 16);
    assert_eq!(planes(ctx, &split), planes(ctx, &whole));
    let scalars: Vec<Fr> = msm_core::sample::inputs(37, 13).1;
    let run = ctx.msm_blocking(&split, &scalars).unwrap();
    assert_eq!(run.into_affine(), cpu::msm_reference(&pts, &scalars).into_affine());
}

/// BN254's G1 has cofactor 1: every point on the curve passes the check.
#[test]
fn every_bn254_g1_point_is_in_the_group() {
    common::fast_lavapipe_compile();
    common::msms::check_subgroup_refusals::<ark_bn254::g1::Config>(ctx(FieldLayout::Limbs13x20).unwrap());
}

#[test]
fn empty_and_ragged_inputs() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let empty = upload(ctx, &[], BaseFormat::Arkworks).unwrap();
    assert_eq!(empty.len(), 0);
    assert!(ctx.msm_blocking(&empty, &[]).unwrap().is_zero());
    let e = upload(ctx, &[0u8; 65], BaseFormat::Arkworks).unwrap_err();
    assert!(
        matches!(e, MsmError::InvalidInput(ref m) if m.contains("65 bytes")),
        "{e}"
    );
}

/// A copy of `bytes` with point `i`'s encoding damaged in the way `how` says.
fn damage(bytes: &mut [u8], i: usize, how: BaseDefect) {
    let p = &mut bytes[64 * i..64 * i + 64];
    match how {
        BaseDefect::Flags => p[63] |= 0xc0,
        BaseDefect::NotCanonical => {
            // x = p itself: on no curve check before the bound check
            p[..32].copy_from_slice(&Fq::MODULUS.to_bytes_le());
        }
        BaseDefect::NotOnCurve => p[5] ^= 0x10,
        BaseDefect::SignFlag => p[63] ^= 0x80,
        BaseDefect::NotInSubgroup => unreachable!("BN254's G1 has cofactor 1"),
    }
}

#[test]
fn the_first_bad_point_is_named_with_its_defect() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let pts = points(64, 14);
    let good = arkworks_bytes(&pts);
    for defect in [
        BaseDefect::Flags,
        BaseDefect::NotCanonical,
        BaseDefect::NotOnCurve,
        BaseDefect::SignFlag,
    ] {
        let mut bytes = good.clone();
        damage(&mut bytes, 40, defect);
        damage(&mut bytes, 9, defect);
        let twin = decode_base(&bytes[64 * 9..64 * 10].try_into().unwrap(), BaseFormat::Arkworks);
        assert_eq!(twin, Err(defect));
        match upload(ctx, &bytes, BaseFormat::Arkworks) {
            Err(MsmError::InvalidBase { index, defect: d }) => assert_eq!((index, d), (9, defect)),
            other => panic!("{defect:?}: {other:?}"),
        }
    }
    // the identity flag over a point's coordinates; in the raw format, y >= p
    assert!(!pts[2].is_zero() && pts[7].is_zero());
    let mut bytes = good.clone();
    bytes[64 * 7 + 63] |= 0x40; // the identity already carries it: still fine
    bytes[64 * 2 + 63] |= 0x40;
    assert!(matches!(
        upload(ctx, &bytes, BaseFormat::Arkworks),
        Err(MsmError::InvalidBase {
            index: 2,
            defect: BaseDefect::Flags
        })
    ));
    let mut raw = raw_bytes(&pts);
    raw[64 * 5 + 32..64 * 5 + 64].copy_from_slice(&[0xff; 32]);
    assert!(matches!(
        upload(ctx, &raw, BaseFormat::Raw),
        Err(MsmError::InvalidBase {
            index: 5,
            defect: BaseDefect::NotCanonical
        })
    ));
}

#[test]
fn fuzzed_encodings_agree_with_the_twin() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let pts = points(48, 15);
    let mut r = rng(16);
    for round in 0..24 {
        let format = [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery][round % 3];
        let mut bytes = match format {
            BaseFormat::Arkworks => arkworks_bytes(&pts),
            BaseFormat::Raw => raw_bytes(&pts),
            BaseFormat::Montgomery => montgomery_bytes(&pts),
        };
        // a few random bit flips, or none (every third round of each format)
        if (round / 3) % 3 != 0 {
            for _ in 0..r.gen_range(1..4) {
                let at = r.gen_range(0..bytes.len());
                bytes[at] ^= 1 << r.gen_range(0..8);
            }
        }
        let twin = bytes
            .chunks_exact(64)
            .enumerate()
            .find_map(|(i, c)| decode_base(c.try_into().unwrap(), format).err().map(|d| (i, d)));
        match (upload(ctx, &bytes, format), twin) {
            (Ok(b), None) => assert_eq!(b.len(), pts.len()),
            (Err(MsmError::InvalidBase { index, defect }), Some(t)) => assert_eq!((index, defect), t, "round {round}"),
            (got, want) => panic!("round {round}: GPU {got:?}, twin {want:?}"),
        }
    }
}

#[test]
fn bytes_scalars_run_like_field_elements() {
    common::fast_lavapipe_compile();
    let ctx = ctx(FieldLayout::Limbs13x20).unwrap();
    let (pts, scalars) = msm_core::sample::inputs(200, 17);
    let bases = upload(ctx, &arkworks_bytes(&pts), BaseFormat::Arkworks).unwrap();
    let bytes: Vec<u8> = scalars.iter().flat_map(|s| s.into_bigint().to_bytes_le()).collect();
    let config = ctx.config_for(pts.len());
    let run =
        pollster::block_on(ctx.msm_scalars_with(&bases, Scalars::Bytes(HostBytes::slice(&bytes)), &config)).unwrap();
    assert_eq!(
        run.result.into_affine(),
        cpu::msm_reference(&pts, &scalars).into_affine()
    );
    let e = pollster::block_on(ctx.msm_scalars_with(&bases, Scalars::Bytes(HostBytes::slice(&bytes[..33])), &config))
        .unwrap_err();
    assert!(matches!(e, MsmError::InvalidInput(_)), "{e}");
}
