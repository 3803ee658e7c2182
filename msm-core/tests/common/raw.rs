//! The raw-product check shared by both fields: `fq_mul_raw` and
//! `fq_sqr_raw` take operands below 2p and answer below 2p, congruent to
//! the product (or the square).

use ark_ff::{BigInteger, PrimeField};
use msm_core::diagnostics::FieldOp;
use msm_core::repr::FieldCodec;
use msm_core::{Curve, FieldLayout, GpuContext};

/// Packed 32-bit words as the field's big integer (little-endian).
fn big<F: PrimeField>(w: &[u32]) -> F::BigInt {
    let mut b = F::BigInt::from(0u64);
    for (limb, pair) in b.as_mut().iter_mut().zip(w.chunks(2)) {
        *limb = u64::from(pair[0]) | u64::from(pair[1]) << 32;
    }
    b
}

fn words<F: PrimeField>(b: &F::BigInt) -> Vec<u32> {
    b.as_ref().iter().flat_map(|l| [*l as u32, (*l >> 32) as u32]).collect()
}

/// Runs both raw ops in `group`'s coordinate field on `ctx` over the pairs
/// (a, b), each operand as itself and plus p: every answer below 2p and,
/// less p where needed, equal to arkworks' a b (a^2 for the square).
pub fn check_raw_products<F: PrimeField>(ctx: &GpuContext, group: Curve, layout: FieldLayout, a: &[F], b: &[F]) {
    let codec = FieldCodec::<F>::new(layout, group.field());
    let p = F::MODULUS;
    let mut two_p = p;
    two_p.add_with_carry(&p);
    let plus_p = |x: &F, shift: bool| {
        let mut w = big::<F>(&codec.encode(*x));
        if shift {
            w.add_with_carry(&p);
        }
        words::<F>(&w)
    };
    let code = ctx.field_code();
    for (shift_a, shift_b) in [(false, false), (true, false), (false, true), (true, true)] {
        let aw: Vec<Vec<u32>> = a.iter().map(|x| plus_p(x, shift_a)).collect();
        let bw: Vec<Vec<u32>> = b.iter().map(|x| plus_p(x, shift_b)).collect();
        // the square reads a alone: once with a as itself, once plus p
        let ops: &[FieldOp] = if shift_b {
            &[FieldOp::MulRaw]
        } else {
            &[FieldOp::MulRaw, FieldOp::SqrRaw]
        };
        for &op in ops {
            let out = pollster::block_on(ctx.field_op_in(group, op, &aw, &bw)).unwrap();
            assert_eq!(out.len(), a.len());
            for i in 0..a.len() {
                let what = format!(
                    "{layout} {code} {op:?}: a={} b={} (+p: {shift_a}, {shift_b})",
                    a[i], b[i]
                );
                let mut r = big::<F>(&out[i]);
                assert!(r < two_p, "{what}");
                if r >= p {
                    r.sub_with_borrow(&p);
                }
                let want = if op == FieldOp::SqrRaw {
                    a[i].square()
                } else {
                    a[i] * b[i]
                };
                assert_eq!(codec.decode(&words::<F>(&r)), Some(want), "{what}");
            }
        }
    }
}
