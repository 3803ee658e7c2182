//! Resident bases checked for membership in the prime-order subgroup on the
//! GPU (beside `msm-wgsl/shaders/subgroup.wgsl`): every point of the set,
//! one invocation each in a round of short dispatches, by its group's
//! endomorphism test (BLS12-381's G1 and
//! G2, BN254's G2; BN254's G1 has cofactor 1 and runs nothing). A `dbl`
//! dispatch runs a whole run of doublings between additions, and a round
//! covers as many points as one binding (and 256 MiB) holds: each
//! dispatch of a round waits on the one before, so their count is the
//! cost beyond the arithmetic. Uploads from
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

/// Bytes of accumulators (3 or 6 coordinates a point) one round of
/// dispatches may use as scratch.
const ACC_BYTES_MAX: u64 = 256 << 20;

/// Doublings one `dbl` dispatch runs at most: 64, fewer under a loop cap
/// where each multiplication loops `mul_loops` times (one with looped code).
fn max_run(loop_capped: bool, mul_loops: u32) -> u32 {
    if loop_capped && mul_loops > 0 {
        let per_doubling = crate::plan::ADD_MULS * mul_loops as u64 + 1;
        (crate::plan::LOOP_BUDGET as u64 / per_doubling).clamp(1, 64) as u32
    } else {
        64
    }
}

/// Twin of WGSL `SubgroupParams` (uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SubgroupParams {
    n: u32,
    first: u32,
    offset: u32,
    second: u32,
    /// doublings a `dbl` dispatch runs
    count: u32,
    _pad: [u32; 3],
}

/// One dispatch of the test: its entry point, whether it works on the
/// second step, and the doublings a `dbl` runs (1 for the others).
type Step = (&'static str, bool, u32);

/// The kernels of the test of `curve` in dispatch order: `begin`, then per
/// bit of k below its top a doubling and, where the bit is set, an
/// addition, consecutive doublings in one `dbl` of at most `max_run`; for
/// the two-step test `mid` and the same again; then `finish` (or
/// BN254 G2's comparison of psi's images: `psi_add` twice, `psi_cube`,
/// `finish_sum`).
fn steps(curve: Curve, max_run: u32) -> Vec<Step> {
    let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
    let bits = 128 - t.k.leading_zeros();
    let mut out: Vec<Step> = Vec::new();
    for second in [false, true].into_iter().take(if t.two_step { 2 } else { 1 }) {
        out.push((if second { "mid" } else { "begin" }, second, 1));
        for b in (0..bits.saturating_sub(1)).rev() {
            match out.last_mut() {
                Some(("dbl", _, count)) if *count < max_run.max(1) => *count += 1,
                _ => out.push(("dbl", second, 1)),
            }
            if (t.k >> b) & 1 == 1 {
                out.push(("add", second, 1));
            }
        }
    }
    out.extend(finish_steps(&t));
    out
}

/// The kernels that compare [k]P with its target, in dispatch order.
fn finish_steps(t: &msm_wgsl::fieldgen::SubgroupTest) -> Vec<Step> {
    if t.psi_sum {
        vec![
            ("psi_add", false, 1),
            ("psi_add", true, 1),
            ("psi_cube", false, 1),
            ("finish_sum", false, 1),
        ]
    } else {
        vec![("finish", false, 1)]
    }
}

/// The test's kernels for `curve` (`mid` only in the two-step test, one of
/// the finishing kernels).
pub(crate) fn subgroup_jobs(curve: Curve) -> Vec<PipelineJob> {
    let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
    let mut entries = vec!["begin", "dbl", "add"];
    if t.two_step {
        entries.push("mid");
    }
    for (entry, _, _) in finish_steps(&t) {
        if !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries
        .into_iter()
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
        self.record_subgroup_checks(&bases.parts, &bad, usize::MAX).await?;
        match self.read_words(&bad, 1).await?[0] {
            u32::MAX => Ok(()),
            index if index as usize >= bases.n => Err(MsmError::CorruptResult),
            index => Err(MsmError::InvalidBase {
                index: index as usize,
                defect: BaseDefect::NotInSubgroup,
            }),
        }
    }

    /// Whether [`GpuContext::check_subgroup`] would wait on no compile.
    pub(crate) fn subgroup_is_warm(&self) -> bool {
        !has_cofactor(self.curve()) || self.is_compiled(&subgroup_jobs(self.curve()))
    }

    /// Compiles the subgroup test's kernels (none where the curve has no
    /// cofactor).
    pub(crate) async fn warm_up_subgroup(&self) -> Result<(), MsmError> {
        match has_cofactor(self.curve()) {
            true => self.precompile(subgroup_jobs(self.curve())).await,
            false => Ok(()),
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
    /// points (and as many as [`ACC_BYTES_MAX`] of accumulators hold).
    pub(crate) async fn record_subgroup_checks(
        &self,
        parts: &[BasePart],
        bad: &wgpu::Buffer,
        batch: usize,
    ) -> Result<(), MsmError> {
        let curve = self.curve();
        let jobs = subgroup_jobs(curve);
        self.precompile(jobs.clone()).await?;
        let mut pipelines = std::collections::HashMap::new();
        for (id, entry, overrides, pass) in &jobs {
            pipelines.insert(*entry, self.pipeline(*id, entry, overrides, *pass).await?);
        }
        let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
        // a second point a base: the two-step test's base, BN254 G2's sum
        let stride = if t.two_step || t.psi_sum { 6 } else { 3 };
        let degree = if curve.coords() == msm_wgsl::Coords::Fq2 { 2 } else { 1 };
        let coord_bytes = 4 * degree * msm_wgsl::layout::packed_words(&curve.field().modulus()) as u64;
        let acc_max = ACC_BYTES_MAX.min(self.device.limits().max_storage_buffer_binding_size);
        let batch = batch.clamp(1, (acc_max / (stride as u64 * coord_bytes)).max(1) as usize);
        let longest = parts.iter().map(|p| p.len).max().unwrap_or(0).min(batch);
        let acc_usage = wgpu::BufferUsages::STORAGE;
        let acc = self.create_buffer(
            "subgroup.acc",
            (longest.max(1) * stride) as u64 * coord_bytes,
            acc_usage,
        );
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let steps = steps(curve, max_run(self.has_loop_cap(), self.field_options().mul_loops()));
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("subgroup"),
        });
        for part in parts.iter().filter(|p| p.len > 0) {
            for offset in (0..part.len).step_by(batch) {
                let n = (part.len - offset).min(batch);
                let groups = self.grid((n as u32).div_ceil(WG));
                // a uniform per batch, step and run length: the encoder is
                // submitted once
                let mut params = std::collections::HashMap::new();
                for &(_, second, count) in &steps {
                    params.entry((second, count)).or_insert_with(|| {
                        let size = std::mem::size_of::<SubgroupParams>() as u64;
                        let buf = self.create_buffer("subgroup.params", size, usage);
                        let p = SubgroupParams {
                            n: n as u32,
                            first: (part.start + offset) as u32,
                            offset: offset as u32,
                            second: second as u32,
                            count,
                            _pad: [0; 3],
                        };
                        self.queue.write_buffer(&buf, 0, bytemuck::bytes_of(&p));
                        buf
                    });
                }
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("subgroup"),
                    timestamp_writes: None,
                });
                for &(entry, second, count) in &steps {
                    let params = &params[&(second, count)];
                    let bindings: &[(u32, &wgpu::Buffer)] = match entry {
                        "dbl" | "psi_cube" => &[(0, params), (3, &part.flags), (5, &acc)],
                        "psi_add" => &[(0, params), (3, &part.flags), (4, bad), (5, &acc)],
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

    /// The dispatches compute [k]P by double-and-add from k's top bit,
    /// whatever the runs of doublings a dispatch may take.
    #[test]
    fn steps_double_and_add_over_k() {
        for curve in [Curve::Bls12_381G1, Curve::Bn254G2, Curve::Bls12_381G2] {
            let t = msm_wgsl::fieldgen::subgroup_test(curve.field(), curve.coords());
            for max_run in [1, 3, 64] {
                let mut k = 0u128;
                let mut ks = Vec::new();
                let steps = steps(curve, max_run);
                for &(entry, _, count) in &steps {
                    match entry {
                        "begin" | "mid" => {
                            if entry == "mid" {
                                ks.push(k);
                            }
                            k = 1;
                        }
                        "dbl" => {
                            assert!((1..=max_run).contains(&count), "{curve}: a run of {count}");
                            k <<= count;
                        }
                        "add" => k += 1,
                        "psi_add" | "psi_cube" => {}
                        _ => ks.push(k),
                    }
                }
                assert!(ks.iter().all(|&got| got == t.k), "{curve}: {ks:?} against {}", t.k);
                assert_eq!(ks.len(), if t.two_step { 2 } else { 1 });
                let dbls = steps.iter().filter(|s| s.0 == "dbl").count();
                let doublings: u32 = steps.iter().filter(|s| s.0 == "dbl").map(|s| s.2).sum();
                if max_run == 1 {
                    assert_eq!(dbls as u32, doublings);
                } else {
                    assert!((dbls as u32) < doublings, "{curve}: runs merge");
                }
            }
        }
    }
}
