//! Resident bases checked for membership in the prime-order subgroup on the
//! GPU (beside `msm-wgsl/shaders/subgroup.wgsl`): every point of the set,
//! one invocation each in a round of short dispatches, by its group's
//! endomorphism test (BLS12-381's G1 and
//! G2, BN254's G2; BN254's G1 has cofactor 1 and runs nothing). Uploads from
//! bytes run it behind the conversion; points a caller uploads typed are
//! trusted unless the caller asks ([`GpuContext::check_subgroup`]).

use bytemuck::{Pod, Zeroable};
use msm_wgsl::ShaderId;

use super::{BasePart, BaseSet};
use crate::context::pipelines::PipelineJob;
use crate::context::GpuContext;
use crate::cpu::bases::BaseDefect;
use crate::curve::Curve;
use crate::error::MsmError;

/// Points per workgroup of every entry point (override `WG`).
const WG: u32 = 64;

/// Points one round of dispatches tests: their accumulators (4 or 8
/// coordinates each) are the scratch, 50 MB at most.
const BATCH_POINTS: usize = 1 << 17;

/// Twin of WGSL `SubgroupParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SubgroupParams {
    n: u32,
    first: u32,
    offset: u32,
    second: u32,
}

/// The kernels of the test of `curve` in dispatch order, with whether `add`
/// adds the second step's base: `begin`, then per bit of k below its top a
/// doubling and, where the bit is set, an addition; for the two-step test
/// `mid` and the same again; then `finish`.
fn steps(curve: Curve) -> Vec<(&'static str, bool)> {
    let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
    let bits = 128 - t.k.leading_zeros();
    let mut out = Vec::new();
    for second in [false, true].into_iter().take(if t.two_step { 2 } else { 1 }) {
        out.push((if second { "mid" } else { "begin" }, second));
        for b in (0..bits.saturating_sub(1)).rev() {
            out.push(("dbl", second));
            if (t.k >> b) & 1 == 1 {
                out.push(("add", second));
            }
        }
    }
    out.push(("finish", false));
    out
}

/// The test's kernels for `curve` (`mid` only in the two-step test).
pub(crate) fn subgroup_jobs(curve: Curve) -> Vec<PipelineJob> {
    let two_step = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords()).two_step;
    ["begin", "dbl", "add", "mid", "finish"]
        .into_iter()
        .filter(|e| two_step || *e != "mid")
        .map(|e| (ShaderId::Subgroup, e, vec![("WG", WG as f64)], None))
        .collect()
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
        self.record_subgroup_checks(&bases.parts, &bad, BATCH_POINTS).await?;
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
    /// curve), lowering `bad` to the first point outside the subgroup: a
    /// round of short dispatches (`steps`) per batch of at most `batch`
    /// points (and [`BATCH_POINTS`]).
    pub(crate) async fn record_subgroup_checks(
        &self,
        parts: &[BasePart],
        bad: &wgpu::Buffer,
        batch: usize,
    ) -> Result<(), MsmError> {
        let batch = batch.clamp(1, BATCH_POINTS);
        let curve = self.curve();
        let jobs = subgroup_jobs(curve);
        self.precompile(jobs.clone()).await?;
        let mut pipelines = std::collections::HashMap::new();
        for (id, entry, overrides, pass) in &jobs {
            pipelines.insert(*entry, self.pipeline(*id, entry, overrides, *pass).await?);
        }
        let two_step = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords()).two_step;
        let longest = parts.iter().map(|p| p.len).max().unwrap_or(0).min(batch);
        let stride = if two_step { 8 } else { 4 };
        let degree = if curve.coords() == msm_wgsl::Coords::Fq2 { 2 } else { 1 };
        let coord_bytes = 4 * degree * msm_wgsl::layout::packed_words(&curve.field().modulus()) as u64;
        let acc_usage = wgpu::BufferUsages::STORAGE;
        let acc = self.create_buffer(
            "subgroup.acc",
            (longest.max(1) * stride) as u64 * coord_bytes,
            acc_usage,
        );
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let steps = steps(curve);
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("subgroup"),
        });
        for part in parts.iter().filter(|p| p.len > 0) {
            for offset in (0..part.len).step_by(batch) {
                let n = (part.len - offset).min(batch);
                let groups = self.grid((n as u32).div_ceil(WG));
                // a uniform per batch and step kind: the encoder is submitted once
                let mut params = Vec::new();
                for second in [0, 1] {
                    let buf =
                        self.create_buffer("subgroup.params", std::mem::size_of::<SubgroupParams>() as u64, usage);
                    let p = SubgroupParams {
                        n: n as u32,
                        first: (part.start + offset) as u32,
                        offset: offset as u32,
                        second,
                    };
                    self.queue.write_buffer(&buf, 0, bytemuck::bytes_of(&p));
                    params.push(buf);
                }
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("subgroup"),
                    timestamp_writes: None,
                });
                for &(entry, second) in &steps {
                    let params = &params[second as usize];
                    let bindings: &[(u32, &wgpu::Buffer)] = match entry {
                        "dbl" => &[(0, params), (3, &part.flags), (5, &acc)],
                        "begin" | "add" => &[(0, params), (1, &part.x), (2, &part.y), (3, &part.flags), (5, &acc)],
                        _ => &[
                            (0, params),
                            (1, &part.x),
                            (2, &part.y),
                            (3, &part.flags),
                            (4, bad),
                            (5, &acc),
                        ],
                    };
                    self.dispatch_in(&mut pass, "subgroup", &pipelines[entry], bindings, groups);
                }
            }
        }
        self.queue.submit([enc.finish()]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::steps;
    use crate::curve::Curve;

    /// The dispatches compute [k]P by double-and-add from k's top bit.
    #[test]
    fn steps_double_and_add_over_k() {
        for curve in [Curve::Bls12_381G1, Curve::Bn254G2, Curve::Bls12_381G2] {
            let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
            let mut k = 0u128;
            let mut ks = Vec::new();
            for (entry, _) in steps(curve) {
                match entry {
                    "begin" | "mid" => {
                        if entry == "mid" {
                            ks.push(k);
                        }
                        k = 1;
                    }
                    "dbl" => k *= 2,
                    "add" => k += 1,
                    _ => ks.push(k),
                }
            }
            assert!(ks.iter().all(|&got| got == t.k), "{curve}: {ks:?} against {}", t.k);
            assert_eq!(ks.len(), if t.two_step { 2 } else { 1 });
        }
    }
}
