//! Resident bases from the caller's bytes (beside `msm-wgsl/shaders/bases.wgsl`):
//! the bytes of every group go to the GPU as they are (on the web straight
//! from a JS `Uint8Array`) and the bases kernel converts and checks every
//! point there (BN254's little-endian encoding, BLS12-381's big-endian
//! zcash one, Fq or Fq2 coordinates), so the host does no per-point work.
//! One word comes back: the first bad point, which the CPU twin
//! ([`crate::cpu::bases::decode_point`]) then explains.

use bytemuck::{Pod, Zeroable};
use msm_wgsl::ShaderId;

use super::{BasePart, Bases};
use crate::context::GpuContext;
use crate::cpu::bases::{decode_point, BaseFormat};
use crate::curve::{Curve, GpuCurve};
use crate::error::MsmError;
use crate::host_bytes::HostBytes;

/// Points per workgroup of `convert` (override `WG`).
const WG: u32 = 64;

/// Twin of WGSL `BasesParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct BasesParams {
    n: u32,
    first: u32,
    format: u32,
    out_offset: u32,
}

impl GpuContext {
    /// Uploads bases of the group `C` given as bytes
    /// ([`Curve::point_bytes`] a point, in `format`), converted and checked
    /// on the GPU. Fails with
    /// [`MsmError::InvalidBase`] naming the first point that is not
    /// canonical, not on the curve, not in the format's one encoding or not
    /// in the prime-order subgroup (tested on the GPU too); with [`MsmError::WrongCurve`]
    /// when the context runs another group; with [`MsmError::OutOfMemory`]
    /// or [`MsmError::DeviceLost`] as [`GpuContext::upload_bases`] does.
    pub async fn upload_bases_bytes<C: GpuCurve>(
        &self,
        bytes: HostBytes<'_>,
        format: BaseFormat,
    ) -> Result<Bases<C>, MsmError> {
        self.upload_bases_bytes_with(bytes, format, usize::MAX, usize::MAX)
            .await
    }

    /// Blocking [`GpuContext::upload_bases_bytes`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn upload_bases_bytes_blocking<C: GpuCurve>(
        &self,
        bytes: HostBytes<'_>,
        format: BaseFormat,
    ) -> Result<Bases<C>, MsmError> {
        pollster::block_on(self.upload_bases_bytes(bytes, format))
    }

    /// Compiles what [`GpuContext::upload_bases_bytes`] runs (the
    /// conversion and, where the group has a cofactor, the subgroup test),
    /// so that an upload waits on no compile.
    pub async fn warm_up_bases(&self) -> Result<(), MsmError> {
        self.precompile(self.bases_jobs()).await
    }

    /// Whether [`GpuContext::upload_bases_bytes`] would wait on no compile.
    pub fn bases_are_warm(&self) -> bool {
        self.is_compiled(&self.bases_jobs())
    }

    fn bases_jobs(&self) -> Vec<crate::context::pipelines::PipelineJob> {
        let mut jobs = vec![(ShaderId::Bases, "convert", vec![("WG", WG as f64)], None)];
        if super::subgroup::has_cofactor(self.curve()) {
            jobs.extend(super::subgroup::subgroup_jobs(self.curve()));
        }
        jobs
    }

    diagnostics_pub! {
        /// [`GpuContext::upload_bases_bytes`] with at most `part_points` points a
        /// part and `dispatch_points` a conversion dispatch (each clamped to what
        /// one binding holds): small values exercise the splits on small inputs.
        async fn upload_bases_bytes_with<C: GpuCurve>(
            &self,
            bytes: HostBytes<'_>,
            format: BaseFormat,
            part_points: usize,
            dispatch_points: usize,
        ) -> Result<Bases<C>, MsmError> {
            self.upload_bytes_checked(bytes, format, (part_points, dispatch_points), true).await
        }
    }

    diagnostics_pub! {
        /// [`GpuContext::upload_bases_bytes`] without the subgroup test (its
        /// cost measured against the checked upload: `msm-cli bench
        /// --upload-reps`). Not for untrusted bytes.
        async fn upload_bases_bytes_trusting_subgroup<C: GpuCurve>(
            &self,
            bytes: HostBytes<'_>,
            format: BaseFormat,
        ) -> Result<Bases<C>, MsmError> {
            self.upload_bytes_checked(bytes, format, (usize::MAX, usize::MAX), false).await
        }
    }

    /// The upload from bytes, with the subgroup test where `subgroup`.
    async fn upload_bytes_checked<C: GpuCurve>(
        &self,
        bytes: HostBytes<'_>,
        format: BaseFormat,
        (part_points, dispatch_points): (usize, usize),
        subgroup: bool,
    ) -> Result<Bases<C>, MsmError> {
        let size = C::CURVE.point_bytes();
        if !bytes.len().is_multiple_of(size) {
            return Err(MsmError::InvalidInput(format!(
                "{} bytes of bases is not a whole number of {size}-byte {} points",
                bytes.len(),
                C::CURVE
            )));
        }
        self.check_curve(C::CURVE)?;
        let n = bytes.len() / size;
        self.check_lost()?;
        self.check_bases_fit(n)?;
        let pipeline = self
            .pipeline(ShaderId::Bases, "convert", &[("WG", WG as f64)], None)
            .await?;
        // Error scopes are per thread: popped before any await.
        let oom = self.catch(&[wgpu::ErrorFilter::OutOfMemory]);
        let bad = self.bad_index_buffer();
        let sizes = (part_points, dispatch_points);
        let parts = self.convert_parts(C::CURVE, bytes, format, sizes, &pipeline, &bad);
        let oom = oom.pop();
        // behind the conversion: the first point refused by either test
        if let (true, Ok(parts)) = (subgroup && super::subgroup::has_cofactor(C::CURVE), &parts) {
            // batches of a conversion dispatch's points (tests split them small)
            self.record_subgroup_checks(parts, &bad, dispatch_points).await?;
        }
        let first_bad = self.read_words(&bad, 1).await;
        if let Some(e) = oom.await {
            return Err(MsmError::OutOfMemory {
                what: format!("{n} bases (the driver refused: {e})"),
                needed: super::BaseSet::bytes_of(n, C::CURVE),
                available: self.device_memory(),
            });
        }
        self.check_device_error()?;
        let parts = parts?;
        match first_bad?[0] {
            u32::MAX => Ok(self.new_bases(n, parts)),
            index => Err(explain_refusal::<C>(bytes, format, index as usize)),
        }
    }

    /// Creates the parts of the points of `curve` in `bytes` (at most
    /// `sizes.0` a part) and submits the conversion of every point,
    /// `sizes.1` at most per dispatch (both clamped to what a binding holds).
    fn convert_parts(
        &self,
        curve: Curve,
        bytes: HostBytes<'_>,
        format: BaseFormat,
        sizes: (usize, usize),
        pipeline: &wgpu::ComputePipeline,
        bad: &wgpu::Buffer,
    ) -> Result<Vec<BasePart>, MsmError> {
        let size = curve.point_bytes();
        let n = bytes.len() / size;
        let st = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let plane = st | wgpu::BufferUsages::COPY_SRC;
        let limits = self.device.limits();
        let part_points = sizes.0.clamp(1, self.max_base_part_points());
        let binding_points = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) / size as u64;
        let per_dispatch = (binding_points as usize).min(sizes.1).min(part_points).min(n).max(1);
        let raw = self.create_buffer("bases.raw", (per_dispatch * size) as u64, st);
        let params = self.create_buffer(
            "bases.params",
            std::mem::size_of::<BasesParams>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let mut parts = Vec::new();
        let mut start = 0;
        // An empty set still gets one (minimal) part so bindings stay valid.
        loop {
            let len = part_points.min(n - start);
            let part = BasePart {
                start,
                len,
                x: self.create_buffer("bases.x", (len as u64 * curve.coord_bytes()).max(4), plane),
                y: self.create_buffer("bases.y", (len as u64 * curve.coord_bytes()).max(4), plane),
                flags: self.create_buffer("bases.flags", (len as u64 * 4).max(4), plane),
            };
            let mut done = 0;
            while done < len {
                // Queue order keeps each write behind the dispatch before it.
                let m = per_dispatch.min(len - done);
                let first = start + done;
                bytes
                    .range(first * size..(first + m) * size)
                    .write_to(&self.queue, &raw, 0)?;
                let p = BasesParams {
                    n: m as u32,
                    first: first as u32,
                    format: format.code(curve),
                    out_offset: done as u32,
                };
                self.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
                let mut enc = self
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bases") });
                let groups = self.grid((m as u32).div_ceil(WG));
                let buffers = [&params, &raw, &part.x, &part.y, &part.flags, bad];
                self.dispatch(&mut enc, "bases.convert", pipeline, &buffers, groups, None);
                self.queue.submit([enc.finish()]);
                done += m;
            }
            parts.push(part);
            start += len;
            if start >= n {
                return Ok(parts);
            }
        }
    }
}

/// Why the bases kernel refused point `index` of `bytes`, as the CPU twin
/// says; an index past the points, or a point the twin accepts, is the
/// kernel's fault ([`MsmError::CorruptResult`]).
pub(crate) fn explain_refusal<C: GpuCurve>(bytes: HostBytes<'_>, format: BaseFormat, index: usize) -> MsmError {
    let size = C::CURVE.point_bytes();
    if index >= bytes.len() / size {
        return MsmError::CorruptResult;
    }
    match decode_point::<C>(&bytes.read(index * size..(index + 1) * size), format) {
        Err(defect) => MsmError::InvalidBase { index, defect },
        Ok(_) => MsmError::CorruptResult,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::bases::encode_point;

    /// A refused index is explained by the twin; one past the points (a
    /// kernel that wrote garbage) is a corrupt result, not a panic.
    #[test]
    fn refusals_are_explained_or_corrupt() {
        let (points, _) = crate::sample::inputs(3, 5);
        let mut bytes: Vec<u8> = points
            .iter()
            .flat_map(|p| encode_point(p, BaseFormat::Arkworks))
            .collect();
        bytes[64] ^= 1; // point 1's x: off the curve
        let b = HostBytes::slice(&bytes);
        assert!(matches!(
            explain_refusal::<crate::curve::Bn254>(b, BaseFormat::Arkworks, 1),
            MsmError::InvalidBase { index: 1, .. }
        ));
        for index in [0, 3, 4, u32::MAX as usize - 1] {
            assert!(matches!(
                explain_refusal::<crate::curve::Bn254>(b, BaseFormat::Arkworks, index),
                MsmError::CorruptResult
            ));
        }
    }
}
