//! Resident bases checked for membership in the prime-order subgroup on the
//! GPU (beside `msm-wgsl/shaders/subgroup.wgsl`): every point of the set,
//! one invocation each, by its group's endomorphism test (BLS12-381's G1 and
//! G2, BN254's G2; BN254's G1 has cofactor 1 and runs nothing). Uploads from
//! bytes run it behind the conversion; points a caller uploads typed are
//! trusted unless the caller asks ([`GpuContext::check_subgroup`]).

use bytemuck::{Pod, Zeroable};
use msm_wgsl::ShaderId;

use super::{BasePart, BaseSet};
use crate::context::GpuContext;
use crate::cpu::bases::BaseDefect;
use crate::curve::Curve;
use crate::error::MsmError;

/// Points per workgroup of `check` (override `WG`).
const WG: u32 = 64;

/// Twin of WGSL `SubgroupParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SubgroupParams {
    n: u32,
    first: u32,
    offset: u32,
    _pad: u32,
}

/// Whether points of `curve` need the test (a cofactor other than 1).
pub(crate) fn has_cofactor(curve: Curve) -> bool {
    msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords()).checked
}

impl GpuContext {
    /// Checks that every point of `bases` is in the prime-order subgroup,
    /// on the GPU. Points uploaded from bytes were checked already; typed
    /// points ([`GpuContext::upload_bases`]) are trusted as the caller's
    /// arkworks values, whose checked deserialization refuses such points,
    /// unless this is called. Fails with [`MsmError::InvalidBase`] (defect
    /// [`BaseDefect::NotInSubgroup`]) naming the first point outside.
    pub async fn check_subgroup(&self, bases: &BaseSet) -> Result<(), MsmError> {
        if bases.context != self.id {
            return Err(MsmError::ForeignBases);
        }
        self.check_lost()?;
        if !has_cofactor(bases.curve) {
            return Ok(());
        }
        let bad = self.bad_index_buffer();
        self.record_subgroup_checks(&bases.parts, &bad).await?;
        match self.read_words(&bad, 1).await?[0] {
            u32::MAX => Ok(()),
            index if index as usize >= bases.n => Err(MsmError::CorruptResult),
            index => Err(MsmError::InvalidBase {
                index: index as usize,
                defect: BaseDefect::NotInSubgroup,
            }),
        }
    }

    /// Blocking [`GpuContext::check_subgroup`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn check_subgroup_blocking(&self, bases: &BaseSet) -> Result<(), MsmError> {
        pollster::block_on(self.check_subgroup(bases))
    }

    /// One word holding u32::MAX that kernels lower to the first bad index.
    pub(crate) fn bad_index_buffer(&self) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let bad = self.create_buffer("bases.bad", 4, usage);
        self.queue.write_buffer(&bad, 0, &u32::MAX.to_le_bytes());
        bad
    }

    /// Submits the test of every point of `parts` (of this context's
    /// curve), lowering `bad` to the first point outside the subgroup.
    pub(crate) async fn record_subgroup_checks(&self, parts: &[BasePart], bad: &wgpu::Buffer) -> Result<(), MsmError> {
        let pipeline = self
            .pipeline(ShaderId::Subgroup, "check", &[("WG", WG as f64)], None)
            .await?;
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("subgroup"),
        });
        for part in parts.iter().filter(|p| p.len > 0) {
            // a uniform per part: the dispatches share one encoder
            let params = self.create_buffer("subgroup.params", std::mem::size_of::<SubgroupParams>() as u64, usage);
            let p = SubgroupParams {
                n: part.len as u32,
                first: part.start as u32,
                offset: 0,
                _pad: 0,
            };
            self.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
            let groups = self.grid((part.len as u32).div_ceil(WG));
            let buffers = [&params, &part.x, &part.y, &part.flags, bad];
            self.dispatch(&mut enc, "subgroup.check", &pipeline, &buffers, groups, None);
        }
        self.queue.submit([enc.finish()]);
        Ok(())
    }
}
