//! The loop budget under a loop cap: the walker's steps, and the passes
//! beside it, where row-loop field code spends loop iterations inside every
//! multiplication.

use super::{bucket_search_steps, geometry, AdapterBounds, LOOP_BUDGET};
use crate::config::MsmConfig;
use crate::error::MsmError;

/// Field multiplications in one XYZZ addition with its doubling case
/// (`xyzz_add_q`: 14, or 6 then `xyzz_double`'s 9), rounded up.
pub(crate) const ADD_MULS: u64 = 24;

/// Loop iterations of one point addition beside the walker with `mul_loops`
/// iterations a multiplication (the loop's own step included).
fn addition_loops(mul_loops: u32) -> u64 {
    ADD_MULS * mul_loops as u64 + 1
}

impl AdapterBounds {
    /// The most walker iterations one invocation may run under the loop cap:
    /// each iteration spends the slot loops, a bucket search per slot (at
    /// worst every slot opens a segment behind an empty bucket), the tree's
    /// two level loops and, on one invocation, an inversion; the tasks'
    /// starts take up to four searches per slot once.
    pub fn walker_max_steps(&self, config: &MsmConfig, total_buckets: u64) -> u64 {
        let s = config.walker_slots as u64;
        let slot_loops = if config.walker_fused { 2 * s } else { 3 * s };
        let levels = geometry::tree_leaves(config.walker_tpb).trailing_zeros() as u64;
        let search = bucket_search_steps(total_buckets);
        let per_iteration = slot_loops + s * search + 2 * levels + self.inversion_loops as u64 + 4;
        (LOOP_BUDGET as u64 - s - 4 * s * search) / per_iteration
    }

    /// The longest reduce segment (buckets) one invocation may sum under the
    /// loop cap: two additions a bucket, then two a bit of its weight.
    pub fn reduce_max_segment(&self) -> u32 {
        if !self.loop_capped || self.mul_loops == 0 {
            return u32::MAX;
        }
        let per_add = addition_loops(self.mul_loops);
        let fits = |per: u64| (2 * per + 2 * per.ilog2() as u64 + 2) * per_add <= LOOP_BUDGET as u64;
        let mut per = 1u64;
        while per < 1 << 20 && fits(2 * per) {
            per *= 2;
        }
        per as u32
    }
}

/// A reduce segment of `per` buckets keeps the loop budget.
pub(crate) fn check_reduce_segment(bounds: &AdapterBounds, per: u32) -> Result<(), MsmError> {
    let max_per = bounds.reduce_max_segment();
    if per <= max_per {
        return Ok(());
    }
    Err(MsmError::invalid_config(
        "reduce_segment",
        format!(
            "this adapter stops loops after 65,535 iterations per invocation: with this field code's row \
             loops a reduce segment may hold at most {max_per} buckets, not {per}"
        ),
    ))
}

/// Additions of walker_combine's longest owner chain over `tasks` walker
/// tasks: a block's worth at each level below the top (the levels the
/// shader builds), the top level's length, and the tail.
fn combine_max_adds(tasks: u64) -> u64 {
    let block = geometry::COMBINE_BLOCK as u64;
    let (mut levels, mut len) = (0u64, tasks);
    while levels < geometry::COMBINE_MAX_LEVELS as u64 && len > block {
        levels += 1;
        len = len.div_ceil(block);
    }
    block * levels + len + 1
}

/// Under a loop cap, the field code's loops a plan of `tasks` walker tasks
/// may run: none in the walker (its budget, `walker_max_steps`, counts no
/// row loops), and walker_combine's longest chain within the budget.
pub(crate) fn check_field_loops(bounds: &AdapterBounds, tasks: u32, straight_walker: bool) -> Result<(), MsmError> {
    if !bounds.loop_capped {
        return Ok(());
    }
    let why = if bounds.walker_mul_loops > 0 && !straight_walker {
        "the walker's multiplications loop (use unrolled or mixed field code)"
    } else if combine_max_adds(tasks as u64) * addition_loops(bounds.mul_loops) > LOOP_BUDGET as u64 {
        "walker_combine's chains of additions would pass it with this field code's row loops (use unrolled)"
    } else {
        return Ok(());
    };
    Err(MsmError::invalid_config(
        "field_code",
        format!("this adapter stops loops after 65,535 iterations per invocation: {why}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use msm_wgsl::{BaseField, Coords, FieldCode, FieldLayout, FieldOptions};

    fn opts(field: BaseField, coords: Coords, layout: FieldLayout, code: FieldCode) -> FieldOptions {
        FieldOptions {
            field,
            coords,
            code,
            ..FieldOptions::new(layout)
        }
    }

    fn capped(mul_loops: u32, walker_mul_loops: u32) -> AdapterBounds {
        AdapterBounds {
            loop_capped: true,
            mul_loops,
            walker_mul_loops,
            ..crate::plan::tests::bounds()
        }
    }

    /// Row loops per multiplication, and which plans keep the budget: the
    /// lavapipe defaults (mixed in the 64-bit layout over Fq) at every task
    /// count, BN254's 13x20 row loops below the largest, BLS12-381's 13x20
    /// ones and Fq2's not at large counts, a looping walker never; nothing
    /// without a cap.
    #[test]
    fn field_loops_under_a_cap() {
        use BaseField::*;
        use Coords::*;
        use FieldCode::*;
        use FieldLayout::*;
        assert_eq!(opts(Bn254, Fq, Limbs32x8, Mixed).mul_loops(), 4);
        assert_eq!(opts(Bls12_381, Fq, Limbs32x8, Mixed).mul_loops(), 6);
        assert_eq!(opts(Bn254, Fq, Limbs13x20, Mixed).mul_loops(), 10);
        assert_eq!(opts(Bls12_381, Fq2, Limbs13x20, Rows).mul_loops(), 45);
        assert_eq!(opts(Bn254, Fq2, Limbs32x8, Unrolled).mul_loops(), 0);
        let most = geometry::COMBINE_BLOCK.pow(geometry::COMBINE_MAX_LEVELS + 1);
        for tasks in [1, 64, 65, 4096, 1 << 18, most] {
            assert!(check_field_loops(&capped(4, 0), tasks, false).is_ok(), "{tasks}");
            assert!(check_field_loops(&capped(6, 0), tasks, false).is_ok(), "{tasks}");
            let portable = check_field_loops(&capped(10, 0), tasks, false);
            assert_eq!(portable.is_ok(), tasks < most, "{tasks}");
            assert!(check_field_loops(&capped(4, 4), tasks, false).is_err(), "{tasks}");
            // a straight-line walker spends no row loops
            assert!(check_field_loops(&capped(4, 4), tasks, true).is_ok(), "{tasks}");
            let free = AdapterBounds { loop_capped: false, ..capped(45, 45) };
            assert!(check_field_loops(&free, tasks, false).is_ok(), "{tasks}");
        }
        assert!(check_field_loops(&capped(15, 0), 1 << 18, false).is_err());
        assert!(check_field_loops(&capped(45, 0), 4096, false).is_err());
        assert!(check_field_loops(&capped(45, 0), 8, false).is_ok());
        assert_eq!(combine_max_adds(64), 65);
        assert_eq!(combine_max_adds(65), 64 + 2 + 1);
        assert_eq!(combine_max_adds(most as u64), 3 * 64 + 64 + 1);
    }

    /// The longest reduce segment under the cap with BN254's and
    /// BLS12-381's row loops, and without any.
    #[test]
    fn reduce_segments_keep_the_budget() {
        let b = |mul_loops, loop_capped| AdapterBounds {
            mul_loops,
            loop_capped,
            ..crate::plan::tests::bounds()
        };
        assert_eq!(b(4, true).reduce_max_segment(), 256);
        assert_eq!(b(6, true).reduce_max_segment(), 128);
        assert_eq!(b(0, true).reduce_max_segment(), u32::MAX);
        assert_eq!(b(6, false).reduce_max_segment(), u32::MAX);
        for m in [4u32, 6, 10] {
            let per = b(m, true).reduce_max_segment() as u64;
            let adds = 2 * per + 2 * per.ilog2() as u64 + 2;
            assert!(adds * addition_loops(m) <= LOOP_BUDGET as u64, "{m}");
        }
    }
}
