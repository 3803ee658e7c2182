//! The choices that shape a generated field module: its field, coordinates,
//! limb layout, multiplication code and inversion.

use super::{mul, Inversion};
use crate::layout::{BaseField, Coords, FieldLayout};

/// How the Montgomery multiplication is written out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FieldCode {
    /// Straight-line limb code (the loop-free code lavapipe's loop budget
    /// needs; on NVIDIA seconds of compiling per multiplication site).
    #[default]
    Unrolled,
    /// Limb loops in `fq_mul` (13x20 only; the other layouts stay unrolled).
    /// SwiftShader's compiler crashes or runs out of memory on the unrolled
    /// walker_combine and reduce shaders; with loops they compile. Never use it
    /// under a loop cap: one multiplication spends 820 loop iterations.
    Looped,
    /// The multiplication's rows as a loop, two rows an iteration written with
    /// constant limb indices (every layout; Fq2 as three Fq products): about
    /// N / 2 times less field code for a driver to compile, and no limb array
    /// in memory. A loop cap counts N / 2 iterations a multiplication.
    Rows,
    /// Row loops in every shader but the stream walker, whose straight-line
    /// multiplications run faster on the GPUs measured: most of `Rows`'s
    /// smaller compile, none of its cost in the hot pass.
    Mixed,
}

impl FieldCode {
    pub const ALL: [FieldCode; 4] = [
        FieldCode::Unrolled,
        FieldCode::Looped,
        FieldCode::Rows,
        FieldCode::Mixed,
    ];

    /// The multiplication outside the walker is a row loop.
    pub const fn has_row_loops(self) -> bool {
        matches!(self, FieldCode::Rows | FieldCode::Mixed)
    }

    /// The code of the stream walker's field module under this choice.
    pub const fn for_walker(self) -> FieldCode {
        match self {
            FieldCode::Mixed => FieldCode::Unrolled,
            c => c,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            FieldCode::Unrolled => "unrolled",
            FieldCode::Looped => "looped",
            FieldCode::Rows => "rows",
            FieldCode::Mixed => "mixed",
        }
    }
}

impl std::fmt::Display for FieldCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FieldCode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown field code `{s}`: expected unrolled, looped, rows or mixed"))
    }
}

/// Everything that shapes the generated field module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldOptions {
    /// The field (BN254's Fq unless said).
    pub field: BaseField,
    /// The coordinates' field over it: Fq (G1) or Fq2 (G2).
    pub coords: Coords,
    pub layout: FieldLayout,
    pub code: FieldCode,
    pub inversion: Inversion,
}

impl FieldOptions {
    /// Loop iterations one multiplication of the coordinates spends in the
    /// passes beside the stream walker (a loop cap counts them): none for
    /// straight-line code, N / 2 for row loops (three products over Fq2).
    pub fn mul_loops(&self) -> u32 {
        let n = self.layout.limbs_for(self.field.modulus().bits() as u32) as u32;
        let fq = match self.code {
            FieldCode::Unrolled => 0,
            FieldCode::Rows | FieldCode::Mixed => n / mul::ROWS_PER_ITERATION as u32,
            FieldCode::Looped if self.layout == FieldLayout::Limbs13x20 => n * (2 * n + 2),
            FieldCode::Looped => 0,
        };
        if self.coords == Coords::Fq2 {
            3 * fq
        } else {
            fq
        }
    }

    /// The options of the stream walker's field module (its code differs
    /// under `Mixed`).
    pub fn for_walker(&self) -> FieldOptions {
        FieldOptions {
            code: self.code.for_walker(),
            ..*self
        }
    }

    /// Unrolled code and the default inversion for `layout`.
    pub fn new(layout: FieldLayout) -> Self {
        FieldOptions {
            layout,
            ..Default::default()
        }
    }
}
