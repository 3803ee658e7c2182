//! MSM checks of any group against arkworks, on a context of that group:
//! shared by the BLS12-381 G1 test and the G2 tests.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{CurveConfig, VariableBaseMSM};
use ark_ff::{BigInteger, PrimeField};
use msm_core::sample::{adversarial_of, inputs_of};
use msm_core::{ContextOptions, Curve, GpuContext, GpuCurve, MsmConfig, ReduceOn, Scalars};

type Fr<C> = <C as CurveConfig>::ScalarField;

/// A context of `curve` in the adapter's default layout (its pipelines
/// compile once per context: keep one per test binary). Lavapipe compiles
/// a pipeline inside the first submit that uses it, for minutes with wide
/// coordinates and a cold shader cache: the wait allows half an hour.
pub fn context_of(curve: Curve) -> GpuContext {
    let ctx = GpuContext::new_blocking(&ContextOptions {
        curve,
        gpu_timeout: Some(std::time::Duration::from_secs(1800)),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("a {curve} context: {e}"));
    assert_eq!(ctx.curve(), curve);
    ctx
}

pub fn reference<C: GpuCurve>(bases: &[Affine<C>], scalars: &[Fr<C>]) -> Projective<C> {
    Projective::<C>::msm(&bases[..scalars.len()], scalars).unwrap()
}

/// Seeded inputs of `sizes`, then scalars near r as field elements and as
/// integers >= r (any 256-bit value reduces mod r on the GPU).
pub fn check_sizes_and_scalars_near_r<C: GpuCurve>(ctx: &GpuContext, sizes: &[usize]) {
    let curve = C::CURVE;
    for (i, &n) in sizes.iter().enumerate() {
        let (bases, scalars) = inputs_of::<C>(n, 40 + i as u64);
        let b = ctx.upload_bases_blocking(&bases).unwrap();
        let run = ctx.msm_blocking_with(&b, &scalars, &ctx.config_for(n)).unwrap();
        let plan = run.plan.unwrap();
        assert!(plan.windows * plan.c > curve.scalar_bits(), "{curve} n = {n}: {plan:?}");
        assert_eq!(run.result, reference(&bases, &scalars), "{curve} n = {n}");
    }
    let (bases, _) = inputs_of::<C>(64, 9);
    let b = ctx.upload_bases_blocking(&bases).unwrap();
    let near: Vec<Fr<C>> = (1..=64u64).map(|k| -Fr::<C>::from(k)).collect();
    assert_eq!(
        ctx.msm_blocking(&b, &near).unwrap(),
        reference(&bases, &near),
        "{curve}"
    );
    let mut big: Vec<ark_ff::BigInt<4>> = near.iter().map(|s| s.into_bigint()).collect();
    for (k, v) in big.iter_mut().enumerate().step_by(3) {
        // v + r < 2^256: the same scalar mod r
        v.add_with_carry(&Fr::<C>::MODULUS);
        assert!(v.num_bits() <= 256, "{k}");
    }
    let config = ctx.config_for(64);
    let run = pollster::block_on(ctx.msm_scalars_with(&b, Scalars::Canonical(&big), &config)).unwrap();
    assert_eq!(run.result, reference(&bases, &near), "{curve} integers >= r");
}

/// Every adversarial class of `msm_core::sample` at `n` points.
pub fn check_adversarial<C: GpuCurve>(ctx: &GpuContext, n: usize) {
    for (name, bases, scalars) in adversarial_of::<C>(n, 5) {
        let b = ctx.upload_bases_blocking(&bases).unwrap();
        let got = ctx.msm_blocking(&b, &scalars).unwrap();
        assert_eq!(got, reference(&bases, &scalars), "{} {name}", C::CURVE);
    }
}

/// A batch with a prefix vector, equal vectors (joint jobs), the host
/// reduce, base parts of 300 points, and (given `table_c`) a table of
/// shifted bases of that width with a prefix through it.
pub fn check_batches_tables_and_host_reduce<C: GpuCurve>(ctx: &GpuContext, n: usize, table_c: Option<u32>) {
    let curve = C::CURVE;
    let (bases, scalars) = inputs_of::<C>(n, 77);
    let mut b = ctx.upload_bases_blocking(&bases).unwrap();
    let short = &scalars[..n / 3];
    let got = ctx.msm_batch_blocking(&b, &[&scalars, short]).unwrap();
    assert_eq!(
        got,
        vec![reference(&bases, &scalars), reference(&bases, short)],
        "{curve}"
    );
    let quarters: Vec<&[Fr<C>]> = scalars.chunks(n / 4).collect();
    let got = ctx.msm_batch_blocking(&b, &quarters).unwrap();
    let want: Vec<Projective<C>> = quarters.iter().map(|v| reference(&bases, v)).collect();
    assert_eq!(got, want, "{curve} joint");
    let host = MsmConfig {
        reduce: ReduceOn::Host,
        ..ctx.config_for(n)
    };
    let run = ctx.msm_blocking_with(&b, &scalars, &host).unwrap();
    assert_eq!(run.result, reference(&bases, &scalars), "{curve} host reduce");
    let parts = ctx.upload_bases_in_parts(&bases, 300);
    assert_eq!(parts.parts(), n.div_ceil(300));
    let got = ctx.msm_blocking(&parts, &scalars).unwrap();
    assert_eq!(got, reference(&bases, &scalars), "{curve} parts");
    let Some(table_c) = table_c else { return };
    ctx.build_table_blocking(&mut b, Some(table_c)).unwrap();
    let table = MsmConfig {
        bases_table: true,
        ..ctx.config_for(n)
    };
    let run = ctx.msm_blocking_with(&b, &scalars, &table).unwrap();
    assert!(run.plan.unwrap().table);
    assert_eq!(run.result, reference(&bases, &scalars), "{curve} table");
    let got = pollster::block_on(ctx.msm_batch_with(&b, &[Scalars::of::<C>(short)], &table)).unwrap();
    assert_eq!(got.results, vec![reference(&bases, short)], "{curve} table prefix");
}

/// Bases from bytes ([`GpuContext::upload_bases_bytes`]) in both formats,
/// identities among them, with scalars as bytes, against arkworks; the
/// first point off the curve is named, a wrong length refused.
pub fn check_bases_from_bytes<C: GpuCurve>(ctx: &GpuContext, n: usize) {
    use msm_core::cpu::bases::encode_point;
    use msm_core::{BaseDefect, BaseFormat, HostBytes, MsmError};
    let curve = C::CURVE;
    let (mut bases, scalars) = inputs_of::<C>(n, 23);
    bases[1] = Affine::<C>::identity();
    let want = reference(&bases, &scalars);
    let scalar_bytes: Vec<u8> = scalars.iter().flat_map(|s| s.into_bigint().to_bytes_le()).collect();
    for format in [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery] {
        let bytes: Vec<u8> = bases.iter().flat_map(|p| encode_point(p, format)).collect();
        let b = pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&bytes), format))
            .unwrap_or_else(|e| panic!("{curve} {format:?}: {e}"));
        assert_eq!(b.len(), n);
        let run = pollster::block_on(ctx.msm_scalars_with(
            &b,
            Scalars::Bytes(HostBytes::slice(&scalar_bytes)),
            &ctx.config_for(n),
        ))
        .unwrap();
        assert_eq!(run.result, want, "{curve} {format:?}");
        // point 3 moved off the curve: refused by index
        let mut bad = bytes.clone();
        bad[3 * curve.point_bytes() + curve.point_bytes() / 2 - 2] ^= 1;
        let e = pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&bad), format)).unwrap_err();
        assert!(
            matches!(
                e,
                MsmError::InvalidBase {
                    index: 3,
                    defect: BaseDefect::NotOnCurve | BaseDefect::NotCanonical
                }
            ),
            "{curve} {format:?}: {e}"
        );
        let e = pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&bytes[1..]), format)).unwrap_err();
        assert!(matches!(e, MsmError::InvalidInput(_)), "{curve}: {e}");
        check_bytes_against_the_twin::<C>(ctx, &bases[..48.min(n)], format);
    }
    check_subgroup_refusals::<C>(ctx);
}

/// Points on the curve but outside the prime-order subgroup are refused by
/// index, from bytes in both formats (across part and dispatch splits) and
/// from typed points when asked (`check_subgroup`); a set without them,
/// identities included, passes.
pub fn check_subgroup_refusals<C: GpuCurve>(ctx: &GpuContext) {
    use msm_core::cpu::bases::encode_point;
    use msm_core::{BaseDefect, BaseFormat, HostBytes, MsmError};
    let curve = C::CURVE;
    let outside = msm_core::sample::outside_subgroup::<C>(3, 31);
    let (mut bases, _) = inputs_of::<C>(48, 32);
    bases[2] = Affine::<C>::identity();
    pollster::block_on(ctx.check_subgroup(&ctx.upload_bases_blocking(&bases).unwrap())).unwrap();
    if outside.is_empty() {
        return; // cofactor 1: nothing is outside
    }
    let refused = |index: usize| {
        move |r: Result<(), MsmError>| match r {
            Err(MsmError::InvalidBase {
                index: i,
                defect: BaseDefect::NotInSubgroup,
            }) if i == index => {}
            other => panic!("{curve}: point {index} outside the subgroup: {other:?}"),
        }
    };
    bases[37] = outside[1];
    bases[41] = -outside[2];
    for format in [BaseFormat::Arkworks, BaseFormat::Raw, BaseFormat::Montgomery] {
        let bytes: Vec<u8> = bases.iter().flat_map(|p| encode_point(p, format)).collect();
        let up = |part: usize, dispatch: usize| {
            pollster::block_on(ctx.upload_bases_bytes_with::<C>(HostBytes::slice(&bytes), format, part, dispatch))
                .map(|_| ())
        };
        refused(37)(up(usize::MAX, usize::MAX));
        refused(37)(up(16, 5));
        // one point earlier, off the curve: the first bad point wins
        let mut damaged = bytes.clone();
        damaged[20 * curve.point_bytes() + curve.point_bytes() / 2 - 2] ^= 1;
        let e = pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&damaged), format)).unwrap_err();
        assert!(matches!(e, MsmError::InvalidBase { index: 20, .. }), "{curve}: {e}");
    }
    // the smallest x's point (BLS12-381 G1's (0, 2), of order 3) first
    let mut small = bases.clone();
    small[0] = outside[0];
    let bytes: Vec<u8> = small
        .iter()
        .flat_map(|p| encode_point(p, BaseFormat::Arkworks))
        .collect();
    refused(0)(
        pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&bytes), BaseFormat::Arkworks)).map(|_| ()),
    );
    // typed points are trusted at upload, refused when checked
    let typed = ctx.upload_bases_blocking(&bases).unwrap();
    refused(37)(pollster::block_on(ctx.check_subgroup(&typed)));
    let split = ctx.upload_bases_in_parts(&small, 16);
    refused(0)(pollster::block_on(ctx.check_subgroup(&split)));
    // a point inside plus one of each small prime order of the cofactor
    for t in super::groups::small_order_points::<C>(&outside) {
        let mut set = bases.clone();
        set[37] = ark_ec::CurveGroup::into_affine(set[36] + t);
        set[41] = set[40];
        refused(37)(pollster::block_on(
            ctx.check_subgroup(&ctx.upload_bases_blocking(&set).unwrap()),
        ));
    }
}

/// The GPU's verdict on damaged encodings of `points` equals the CPU twin's
/// (`decode_point`): the first bad point and its defect, or none. Rounds of
/// random bit flips, flips of the flag byte's bits, and each coordinate
/// element set to p.
fn check_bytes_against_the_twin<C: GpuCurve>(ctx: &GpuContext, points: &[Affine<C>], format: msm_core::BaseFormat) {
    use ark_ff::Field;
    use msm_core::cpu::bases::{decode_point, encode_point};
    use msm_core::{BaseFormat, HostBytes, MsmError};
    use rand::{Rng, SeedableRng};
    let (curve, size) = (C::CURVE, C::CURVE.point_bytes());
    let good: Vec<u8> = points.iter().flat_map(|p| encode_point(p, format)).collect();
    let zcash = format == BaseFormat::Arkworks && curve.field() == msm_wgsl::BaseField::Bls12_381;
    let flag_byte = if zcash { 0 } else { size - 1 };
    // p in each element's byte order
    let modulus = <<C::BaseField as Field>::BasePrimeField as PrimeField>::MODULUS.to_bytes_le();
    let elem = modulus.len().min(size / (2 * curve.coords().degree()));
    let mut p_bytes = modulus[..elem].to_vec();
    if zcash {
        p_bytes.reverse();
    }
    let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(curve.point_bytes() as u64);
    for round in 0..24 {
        let mut bytes = good.clone();
        let at = r.gen_range(0..points.len()) * size;
        match round % 4 {
            0 => {}
            1 => bytes[at + flag_byte] ^= 0x20 << r.gen_range(0..3),
            2 => {
                let e = r.gen_range(0..size / elem) * elem;
                bytes[at + e..at + e + elem].copy_from_slice(&p_bytes);
            }
            _ => {
                for _ in 0..r.gen_range(1..4) {
                    let i = r.gen_range(0..bytes.len());
                    bytes[i] ^= 1 << r.gen_range(0..8);
                }
            }
        }
        let twin = bytes
            .chunks_exact(size)
            .enumerate()
            .find_map(|(i, b)| decode_point::<C>(b, format).err().map(|d| (i, d)));
        match (
            pollster::block_on(ctx.upload_bases_bytes::<C>(HostBytes::slice(&bytes), format)),
            twin,
        ) {
            (Ok(b), None) => assert_eq!(b.len(), points.len()),
            (Err(MsmError::InvalidBase { index, defect }), Some(t)) => {
                assert_eq!((index, defect), t, "{curve} {format:?} round {round}")
            }
            (got, want) => panic!("{curve} {format:?} round {round}: GPU {got:?}, twin {want:?}"),
        }
    }
}
