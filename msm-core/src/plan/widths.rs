//! The window width and the reduce segment length a plan takes when the
//! knobs leave them automatic.

/// Reduce invocations the plan aims for: segments get longer (less
/// work in reduce's trees) until about this many remain. On the H200 (sweeps
/// of `reduce_segment`, docs/benchmarks.md) 16,384 segments of 16-32
/// buckets beat 65,536 of 4-8 at every size: 2^18 0.82x, 2^20 0.92x.
pub const REDUCE_THREADS: u64 = 16_384;

/// Buckets per reduce segment (one invocation's running sum): a power of two
/// in 16..=32 (8..=32 over a table, whose one row per vector leaves fewer
/// segments: 8 beat 16 by 2-4% at 2^16-2^18 on the H200), long enough that
/// about [`REDUCE_THREADS`] segments remain.
pub fn reduce_segment(rows: u32, buckets: u32, table: bool) -> u32 {
    let per = (rows as u64 * buckets as u64 / REDUCE_THREADS).max(1);
    let least = if table { 8 } else { 16 };
    (1u32 << (63 - per.leading_zeros()).min(31)).clamp(least, 32)
}

use crate::curve::Curve;

/// Bits of a BN254 scalar (< r < 2^254) that land in the top window of
/// width `c` ([`Curve::top_window_bits`] for any curve).
pub fn top_window_bits(c: u32) -> u32 {
    Curve::Bn254G1.top_window_bits(c)
}

/// The window width used when none is configured: about log2(n) - 3, in
/// 4..=16, stepping down while the top window would hold fewer than 4 scalar
/// bits. Such a window puts nearly every point into a handful of buckets
/// (c = 14 has 2 bits there: 4 buckets of n/4 points), which the walker must
/// split into long chains for walker_combine. (Wider windows halve the walker's
/// work per extra bit but double reduce's; docs/benchmarks.md has the H200's
/// ladder of c.)
pub fn auto_window_bits(n: usize) -> u32 {
    auto_window_bits_of(n, Curve::Bn254G1)
}

/// [`auto_window_bits`] for `curve`'s scalars. From 2^18 points a thin top
/// window first tries one bit wider (at most 16): BLS12-381's 256 digit
/// bits at 2^18 take c = 16 (16 full windows) rather than 13, whose 64
/// points a bucket made walker_combine's chains long (H200: GPU 20.1 ->
/// 14.5 ms; at 2^17 the two tie, and BN254's widths never step up).
pub fn auto_window_bits_of(n: usize, curve: Curve) -> u32 {
    let log = usize::BITS - n.max(1).leading_zeros() - 1;
    let mut c = log.saturating_sub(3).clamp(4, 16);
    if log >= 18 && c < 16 && curve.top_window_bits(c) < 4 && curve.top_window_bits(c + 1) >= 4 {
        return c + 1;
    }
    while c > 4 && curve.top_window_bits(c) < 4 {
        c -= 1;
    }
    c
}

/// [`auto_window_bits`] for a field layout with (`int64`) or without 64-bit
/// products. Without, walker_combine's chains at c = 13 cost more than
/// reduce's doubled work at c = 15: 2^16 and 2^17 take c = 15 (on the H200
/// under Dawn, GPU 9.6 -> 7.3 ms at 2^16 and 12.0 -> 9.4 ms at 2^17; c = 12
/// and 14 lose; docs/benchmarks.md). BN254 G1 takes it with 64-bit
/// products too since safegcd shortened the walker's inversion (H200, ABBA:
/// GPU 0.90x at 2^16, 0.89x at 2^17; c = 12 and 14 lose at 2^16).
pub fn auto_window_bits_for(n: usize, int64: bool, curve: Curve) -> u32 {
    let c = auto_window_bits_of(n, curve);
    let log = usize::BITS - n.max(1).leading_zeros() - 1;
    // the wider window, where its top window is not thin (BN254's 15; for
    // BLS12-381, whose 15 leaves 0 bits there, 16)
    let wide = (15..=16).find(|&w| curve.top_window_bits(w) >= 4).unwrap_or(c);
    if (!int64 || curve == Curve::Bn254G1) && (16..=17).contains(&log) {
        wide
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_window_avoids_thin_top_windows() {
        for log in 0..=26 {
            let c = auto_window_bits(1 << log);
            assert!((4..=16).contains(&c));
            assert!(c == 4 || top_window_bits(c) >= 4, "log {log}: c = {c}");
        }
        assert_eq!(auto_window_bits(1 << 16), 13);
        assert_eq!(auto_window_bits(1 << 17), 13);
        assert_eq!(auto_window_bits(1 << 20), 16);
        assert_eq!(auto_window_bits(1 << 22), 16);
        // BN254 G1 takes c = 15 at 2^16 and 2^17 only, in every layout
        for log in 0..=26 {
            let n = 1usize << log;
            let want = if (16..=17).contains(&log) {
                15
            } else {
                auto_window_bits(n)
            };
            assert_eq!(auto_window_bits_for(n, false, Curve::Bn254G1), want, "log {log}");
            assert_eq!(auto_window_bits_for(n, true, Curve::Bn254G1), want, "log {log}");
            assert_eq!(
                auto_window_bits_for(n, true, Curve::Bn254G2),
                auto_window_bits_of(n, Curve::Bn254G2),
                "log {log}"
            );
            let bls = Curve::Bls12_381G1;
            let c = auto_window_bits_for(n, true, bls);
            assert!(c == 4 || bls.top_window_bits(c) >= 4, "log {log}: c = {c}");
            let want = match log {
                16..=17 => 13,
                18.. => 16,
                _ => c,
            };
            assert_eq!(c, want, "BLS12-381 2^{log}");
            let portable = auto_window_bits_for(n, false, bls);
            assert!(portable == 4 || bls.top_window_bits(portable) >= 4, "log {log}: c = {portable}");
        }
    }
}
