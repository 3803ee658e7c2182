//! Host twins of the structs the shaders share (`shaders/shared/config.wgsl`).
//! Keep in sync; the tests assert sizes.

use bytemuck::{Pod, Zeroable};

/// Twin of WGSL `MsmParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MsmParams {
    pub n: u32,
    pub c: u32,
    /// Rows of buckets: windows x vectors.
    pub rows: u32,
    pub buckets: u32,
    pub tasks: u32,
    pub segments: u32,
    pub base_offset: u32,
    /// 1: walker tasks start at bucket starts.
    pub align: u32,
    /// [`SCALARS_CANONICAL`] or [`SCALARS_MONTGOMERY`].
    pub scalar_form: u32,
    /// Digit windows of a scalar.
    pub windows: u32,
    /// Points per vector (scalar i takes base i % vector_len).
    pub vector_len: u32,
    /// 0: one row of buckets per window. Else the bases are a table of
    /// windows this many points apart (the table part's length): every
    /// window adds into one row per vector.
    pub table_stride: u32,
    /// Buckets each round of scatter fills ([`crate::plan::Plan::scatter_span`]).
    pub scatter_span: u32,
    /// [`LINK_CHAINED`] and [`LINK_PRIOR`]: the job's place in a chain of
    /// jobs that share one reduce (0: a lone job).
    pub link: u32,
    /// To 64 bytes: a batch stages its jobs' parameters back to back in
    /// mapped memory, whose writes start at multiples of 8 bytes.
    pub _pad: [u32; 2],
}

/// Twin of WGSL `SCALARS_CANONICAL`: scalars as canonical words.
pub const SCALARS_CANONICAL: u32 = 0;
/// Twin of WGSL `SCALARS_MONTGOMERY`: scalars as arkworks' Montgomery limbs.
pub const SCALARS_MONTGOMERY: u32 = 1;
/// Twin of WGSL `LINK_CHAINED`: the job is one of a chain of jobs whose
/// bucket sums add up in `chain_sums` before the last job's reduce.
pub const LINK_CHAINED: u32 = 2;
/// Twin of WGSL `LINK_PRIOR`: earlier jobs of the chain wrote `chain_sums`.
pub const LINK_PRIOR: u32 = 1;

/// Twin of WGSL `PointRecord`: an affine point (packed Montgomery words) with
/// its bucket; a final bucket sum or a walker partial.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct PointRecord {
    pub x: [u32; 8],
    pub y: [u32; 8],
    pub valid: u32,
    pub bucket: u32,
    pub through: u32,
    pub _pad: u32,
}

pub const POINT_RECORD_BYTES: usize = std::mem::size_of::<PointRecord>();
/// Twin of WGSL `SIGN_BIT`.
pub const SIGN_BIT: u32 = 0x8000_0000;
/// Twin of WGSL `NO_BUCKET`.
pub const NO_BUCKET: u32 = u32::MAX;
/// Twin of WGSL `VALID_XYZZ`: the record's sum is the XYZZ point at index
/// `through` of walker_combine's split sums.
pub const VALID_XYZZ: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_wgsl() {
        // MsmParams: 14 u32 and 2 of padding; PointRecord: 2 x 8 words + 4 u32.
        assert_eq!(std::mem::size_of::<MsmParams>(), 64);
        assert_eq!(std::mem::size_of::<MsmParams>() as u64 % wgpu::MAP_ALIGNMENT, 0);
        assert_eq!(POINT_RECORD_BYTES, 80);
        let cfg = include_str!("../../msm-wgsl/shaders/shared/config.wgsl");
        assert!(cfg.contains("const SIGN_BIT: u32 = 0x80000000u;"));
        assert!(cfg.contains("const NO_BUCKET: u32 = 0xffffffffu;"));
        assert!(cfg.contains("const VALID_XYZZ: u32 = 2u;"));
        assert!(cfg.contains("const SCALARS_CANONICAL: u32 = 0u;"));
        assert!(cfg.contains("const SCALARS_MONTGOMERY: u32 = 1u;"));
        assert!(cfg.contains("const LINK_CHAINED: u32 = 2u;"));
        assert!(cfg.contains("const LINK_PRIOR: u32 = 1u;"));
    }
}
