//! A CPU twin of the generated code, step for step in the same integer
//! widths, against x^(p-2); it also counts the rounds and inner passes.

use super::*;
use crate::layout::BaseField;

struct Twin {
    sh: SafegcdShape,
    p: Vec<i64>,
    pinv: u32,
    rounds: u32,
    passes: u32,
}

impl Twin {
    fn new(p: &BigUint, wide: bool) -> Self {
        let sh = SafegcdShape::new(p.bits() as u32, wide);
        let pl = to_limbs(p, sh.k, sh.limbs).into_iter().map(i64::from).collect();
        let kbits = BigUint::from(1u64 << sh.k);
        let pinv = p.modpow(&(BigUint::from(1u64 << (sh.k - 1)) - 1u8), &kbits);
        let pinv = pinv.to_u32_digits()[0];
        Twin {
            sh,
            p: pl,
            pinv,
            rounds: 0,
            passes: 0,
        }
    }

    /// The accumulator's value, checked to fit its width.
    fn fit(&self, v: i64) -> i64 {
        if !self.sh.wide {
            assert!(
                v >= i32::MIN as i64 && v <= i32::MAX as i64,
                "i32 accumulator overflow: {v}"
            );
        }
        v
    }

    fn steps(&mut self, f0: u32, g0: u32, eta0: i32) -> (i32, i32, i32, i32, i32) {
        let k = self.sh.k;
        let inv32 = |f: u32| {
            let mut x = 3u32.wrapping_mul(f) ^ 2;
            for _ in 0..3 {
                x = x.wrapping_mul(2u32.wrapping_sub(f.wrapping_mul(x)));
            }
            x
        };
        let (mut f, mut g, mut eta) = (f0, g0, eta0);
        let (mut u, mut v, mut q, mut r) = (1i32, 0i32, 0i32, 1i32);
        let mut left = k;
        let mut finv = inv32(f);
        for _ in 0..=k {
            self.passes += 1;
            let z = g.trailing_zeros().min(left);
            g >>= z;
            u <<= z;
            v <<= z;
            eta -= z as i32;
            left -= z;
            if left == 0 {
                break;
            }
            if eta < 0 {
                eta = -eta;
                (f, g) = (g, 0u32.wrapping_sub(f));
                (u, v, q, r) = (q, r, -u, -v);
                finv = inv32(f);
            }
            let n = (eta as u32 + 1).min(left);
            let w = 0u32.wrapping_sub(g.wrapping_mul(finv)) & ((1u32 << n) - 1);
            g = g.wrapping_add(w.wrapping_mul(f));
            q += w as i32 * u;
            r += w as i32 * v;
        }
        assert_eq!(left, 0, "steps left after the pass bound");
        assert!(u.unsigned_abs() + v.unsigned_abs() <= 1 << k && q.unsigned_abs() + r.unsigned_abs() <= 1 << k);
        (u, v, q, r, eta)
    }

    fn inverse(&mut self, x: &BigUint) -> BigUint {
        let (k, l) = (self.sh.k, self.sh.limbs);
        let mask = (1i64 << k) - 1;
        let mut f = self.p.clone();
        let mut g: Vec<i64> = to_limbs(x, k, l).into_iter().map(i64::from).collect();
        let mut d = vec![0i64; l];
        let mut e = vec![0i64; l];
        e[0] = 1;
        let mut eta = -1i32;
        for _ in 0..self.sh.rounds {
            if g.iter().all(|&x| x == 0) {
                break;
            }
            self.rounds += 1;
            let (u, v, q, r, eta1) = self.steps(f[0] as u32, g[0] as u32, eta);
            eta = eta1;
            let (u, v, q, r) = (u as i64, v as i64, q as i64, r as i64);
            let (dn, en) = (d[l - 1] < 0, e[l - 1] < 0);
            let mut md = if dn { u } else { 0 } + if en { v } else { 0 };
            let mut me = if dn { q } else { 0 } + if en { r } else { 0 };
            let mut cf = self.fit(u * f[0] + v * g[0]);
            let mut cg = self.fit(q * f[0] + r * g[0]);
            let mut cd = self.fit(u * d[0] + v * e[0]);
            let mut ce = self.fit(q * d[0] + r * e[0]);
            md -= (((cd & mask) as u32).wrapping_mul(self.pinv).wrapping_add(md as u32) & mask as u32) as i64;
            me -= (((ce & mask) as u32).wrapping_mul(self.pinv).wrapping_add(me as u32) & mask as u32) as i64;
            cd = self.fit(cd + md * self.p[0]);
            ce = self.fit(ce + me * self.p[0]);
            for c in [cf, cg, cd, ce] {
                assert_eq!(c & mask, 0, "a round's sum not divisible by 2^K");
            }
            (cf, cg, cd, ce) = (cf >> k, cg >> k, cd >> k, ce >> k);
            for j in 1..l {
                cf = self.fit(cf + u * f[j] + v * g[j]);
                cg = self.fit(cg + q * f[j] + r * g[j]);
                cd = self.fit(cd + u * d[j] + v * e[j] + md * self.p[j]);
                ce = self.fit(ce + q * d[j] + r * e[j] + me * self.p[j]);
                (f[j - 1], g[j - 1], d[j - 1], e[j - 1]) = (cf & mask, cg & mask, cd & mask, ce & mask);
                (cf, cg, cd, ce) = (cf >> k, cg >> k, cd >> k, ce >> k);
            }
            (f[l - 1], g[l - 1], d[l - 1], e[l - 1]) = (cf, cg, cd, ce);
            for x in [&f, &g, &d, &e] {
                assert!(x[l - 1].unsigned_abs() < 1 << k, "top limb out of range");
            }
        }
        assert!(g.iter().all(|&x| x == 0), "g not 0 after the rounds' bound");
        let value = |x: &[i64]| {
            x.iter()
                .rev()
                .fold(num_bigint::BigInt::from(0), |acc, &limb| (acc << k) + limb)
        };
        let p = value(&self.p);
        let (fv, dv) = (value(&f), value(&d));
        assert!(dv > -2 * &p && dv < p, "d left (-2p, p)");
        if x.bits() == 0 {
            assert_eq!(dv, 0.into());
            return BigUint::from(0u8);
        }
        assert!(fv == 1.into() || fv == (-1).into(), "gcd not 1");
        let r = ((dv * fv) % &p + &p) % &p;
        r.to_biguint().unwrap()
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Every shape inverts random, edge and small values exactly; the
/// accumulators fit their width; the counts stay under the loop bound.
#[test]
fn twin_inverts_like_fermat() {
    for field in BaseField::ALL {
        let p = field.modulus();
        let words = (p.bits() as usize).div_ceil(32);
        let mut vals: Vec<BigUint> = (0u32..64).map(BigUint::from).collect();
        for i in 0..p.bits() {
            let two = BigUint::from(1u8) << i;
            vals.push(&two % &p);
            vals.push((&two + &p - 1u8) % &p);
            vals.push((&p - &two % &p) % &p);
        }
        vals.push(&p - 1u8);
        vals.push(&p - 2u8);
        let mut st = 0x9e37_79b9_7f4a_7c15u64 ^ words as u64;
        let random: Vec<BigUint> = (0..2000)
            .map(|_| {
                let ws: Vec<u32> = (0..words).map(|_| xorshift(&mut st) as u32).collect();
                BigUint::from_slice(&ws) % &p
            })
            .collect();
        for wide in [false, true] {
            let mut twin = Twin::new(&p, wide);
            let bound = twin.sh.max_loop_iterations();
            for x in vals.iter().chain(&random) {
                let (r0, p0) = (twin.rounds, twin.passes);
                let inv = twin.inverse(x);
                let want = if x.bits() == 0 {
                    BigUint::from(0u8)
                } else {
                    x.modpow(&(&p - 2u8), &p)
                };
                assert_eq!(inv, want, "{field} wide={wide} x={x}");
                assert!(twin.rounds - r0 + twin.passes - p0 <= bound);
            }
            let (r0, p0) = (twin.rounds, twin.passes);
            for x in &random {
                twin.inverse(x);
            }
            let n = random.len() as f64;
            eprintln!(
                "{field} K={}: {:.1} rounds, {:.1} passes an inversion (bounds {}, {bound})",
                twin.sh.k,
                (twin.rounds - r0) as f64 / n,
                (twin.passes - p0) as f64 / n,
                twin.sh.rounds
            );
        }
    }
}
