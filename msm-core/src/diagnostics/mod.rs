//! GPU entry points for the field and curve primitives, used by the tests
//! against arkworks and by `msm-cli field-bench`: run one primitive over
//! many inputs, run chained multiplications, probe a driver's loop cap.

use ark_bn254::Fq;
pub use msm_wgsl::BaseField;
use msm_wgsl::{FieldOptions, ShaderId, ShaderLibrary};

mod bench;
mod products;
mod stages;

pub use bench::{ChainOp, Throughput};
pub use products::{ProductRate, ProductStyle};
pub use stages::MsmStages;

use crate::context::GpuContext;
use crate::curve::Curve;
use crate::error::MsmError;
use crate::repr::{FieldRepr, Words};

/// Field operations of the `field_ops` test shader. Keep codes in sync with
/// `shaders/tests/field_ops.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOp {
    Add = 0,
    Sub = 1,
    Neg = 2,
    Mul = 3,
    Sqr = 4,
    Inv = 5,
    /// Raw 256-bit input (not necessarily reduced) into Montgomery form.
    ToMont = 6,
    /// Montgomery form into the plain value.
    FromMont = 7,
    Double = 8,
    /// Word 0 of the output is 1 when a == b.
    Eq = 9,
    /// Word 0 of the output is 1 when a == 0.
    IsZero = 10,
    /// The product before its last reduction (below 2p for operands below 2p).
    MulRaw = 11,
    /// The square before its last reduction (below 2p for a below 2p).
    SqrRaw = 12,
}

/// Conversions of the `scalar_ops` test shader (the scalar module). Keep
/// codes in sync with `shaders/tests/scalar_ops.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarOp {
    /// arkworks' Montgomery form (R = 2^256) into the canonical value.
    FromMont = 0,
    /// Any 256-bit value mod r.
    ReduceWords = 1,
}

/// Curve operations of the `curve_ops` test shader. Keep codes in sync with
/// `shaders/tests/curve_ops.wgsl`. Every output is an XYZZ point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveOp {
    /// Affine a + affine b via the shared-inverse formula (a.x != b.x).
    AffineAddWithInv = 0,
    /// 2a via the affine formula with 1 / (2 a.y).
    AffineDoubleWithInv = 1,
    XyzzDouble = 2,
    /// XYZZ a + affine b.
    XyzzAddAffine = 3,
    XyzzAdd = 4,
    XyzzNeg = 5,
    AffineNeg = 6,
    /// Affine a + affine b into XYZZ, both flagged zz = zzz = 1 (`xyzz_add_pq`).
    XyzzAddBothAffine = 7,
    /// Affine a (flagged zz = zzz = 1) + XYZZ b through `xyzz_add_pq`: an
    /// owner's affine tail plus a block's sum in walker_combine.
    AffinePlusXyzz = 8,
}

/// One resident base part as the GPU holds it (see [`GpuContext::read_bases`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasePlanes {
    pub x: Vec<u32>,
    pub y: Vec<u32>,
    pub flags: Vec<u32>,
}

/// Words of one affine point (x, y) or XYZZ point (x, y, zz, zzz) in the test shader.
pub type PointWords = [u32; 32];

const WG: u32 = 64;

impl GpuContext {
    async fn run_elementwise<const W: usize>(
        &self,
        id: ShaderId,
        op: u32,
        a: &[[u32; W]],
        b: &[[u32; W]],
    ) -> Result<Vec<[u32; W]>, MsmError> {
        assert_eq!(a.len(), b.len(), "operand counts differ");
        let inputs = [bytemuck::cast_slice(a), bytemuck::cast_slice(b)];
        let words = self.run_items(self.curve(), id, op, W, a.len(), &inputs).await?;
        Ok(words.chunks_exact(W).map(|c| c.try_into().unwrap()).collect())
    }

    /// One invocation of `id` (entry `main`, override OP) per item: each
    /// input holds `n` items of `words` words, bound in order, then the
    /// output of as many. In this context's field the pipeline is the
    /// cached one; in another it is compiled here ([`Self::pipeline_in`]).
    async fn run_items(
        &self,
        group: Curve,
        id: ShaderId,
        op: u32,
        words: usize,
        n: usize,
        inputs: &[&[u32]],
    ) -> Result<Vec<u32>, MsmError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let pipeline = self.pipeline_in(group, id, &[("OP", op as f64)]).await?;
        let mut bufs: Vec<wgpu::Buffer> = inputs.iter().map(|x| self.storage_init("in", x, false)).collect();
        bufs.push(self.storage_out("out", n * words));
        let bound: Vec<&wgpu::Buffer> = bufs.iter().collect();
        let mut enc = self.device.create_command_encoder(&Default::default());
        let groups = (n.div_ceil(WG as usize) as u32, 1);
        self.dispatch(&mut enc, id.label(), &pipeline, &bound, groups, None);
        self.queue.submit([enc.finish()]);
        self.read_words(&bufs[inputs.len()], n * words).await
    }

    /// The pipeline of `id`'s entry `main` with `overrides`, generated for
    /// `field`: the context's cached pipeline in its own field, else
    /// compiled on every call outside the cache (diagnostics only: another
    /// field's shaders have no `ShaderId` of their own).
    async fn pipeline_in(
        &self,
        group: Curve,
        id: ShaderId,
        overrides: &[(&'static str, f64)],
    ) -> Result<wgpu::ComputePipeline, MsmError> {
        if group == self.curve() {
            return self.pipeline(id, "main", overrides, None).await;
        }
        let opts = FieldOptions {
            field: group.field(),
            coords: group.coords(),
            ..self.field_options()
        };
        let source = ShaderLibrary::with_options(opts)?.source(id)?;
        let module = self.shader_module(id.label(), source);
        Ok(self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(id.label()),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: overrides,
                ..Default::default()
            },
            cache: None,
        }))
    }

    /// The resident planes of `bases`, part by part: x and y (8 packed words
    /// a point) and the identity flags, as the MSM passes read them.
    pub async fn read_bases(&self, bases: &crate::bases::Bases) -> Result<Vec<BasePlanes>, MsmError> {
        let mut out = Vec::new();
        for p in &bases.parts {
            out.push(BasePlanes {
                x: self.read_words(&p.x, p.len * 8).await?,
                y: self.read_words(&p.y, p.len * 8).await?,
                flags: self.read_words(&p.flags, p.len).await?,
            });
        }
        Ok(out)
    }

    /// The table of `bases` (`GpuContext::build_table`), part by part: x and
    /// y of every window (window major, the part's length apart) and the
    /// part's identity flags. Empty without a table.
    pub async fn read_table(&self, bases: &crate::bases::Bases) -> Result<Vec<BasePlanes>, MsmError> {
        let mut out = Vec::new();
        let Some(t) = bases.table.get() else {
            return Ok(out);
        };
        let windows = crate::bases::table_windows(t.c, bases.curve) as usize;
        for p in &t.parts {
            out.push(BasePlanes {
                x: self.read_words(&p.x, windows * p.len * 8).await?,
                y: self.read_words(&p.y, windows * p.len * 8).await?,
                flags: self.read_words(&p.flags, p.len).await?,
            });
        }
        Ok(out)
    }

    /// Runs `op` on each pair (`a[i]`, `b[i]`) of packed words (b is ignored by unary ops).
    pub async fn field_op(&self, op: FieldOp, a: &[Words], b: &[Words]) -> Result<Vec<Words>, MsmError> {
        self.run_elementwise(ShaderId::FieldOps, op as u32, a, b).await
    }

    /// [`GpuContext::field_op`] in the coordinate field of `group` (this
    /// context's layout, code and inversion): each operand is that field's
    /// packed words (12 for BLS12-381's Fq, 24 for its Fq2) in Montgomery
    /// form with R = 2^(W N) of the prime field.
    pub async fn field_op_in(
        &self,
        group: Curve,
        op: FieldOp,
        a: &[Vec<u32>],
        b: &[Vec<u32>],
    ) -> Result<Vec<Vec<u32>>, MsmError> {
        let words = group.coord_words() as usize;
        self.run_elementwise_in(group, ShaderId::FieldOps, op as u32, words, &[a, b])
            .await
    }

    /// [`GpuContext::curve_op`] on `group`: each point is 4 packed
    /// coordinates (48 words for BLS12-381's G1, 96 for its G2).
    pub async fn curve_op_in(
        &self,
        group: Curve,
        op: CurveOp,
        a: &[Vec<u32>],
        b: &[Vec<u32>],
    ) -> Result<Vec<Vec<u32>>, MsmError> {
        let words = 4 * group.coord_words() as usize;
        self.run_elementwise_in(group, ShaderId::CurveOps, op as u32, words, &[a, b])
            .await
    }

    /// The scalar module of `group`'s curve on each scalar's 8 little-endian
    /// words.
    pub async fn scalar_op_in(&self, group: Curve, op: ScalarOp, a: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, MsmError> {
        self.run_elementwise_in(group, ShaderId::ScalarOps, op as u32, 8, &[a])
            .await
    }

    /// [`Self::run_items`] on operand lists of `words` words an item.
    async fn run_elementwise_in(
        &self,
        group: Curve,
        id: ShaderId,
        op: u32,
        words: usize,
        inputs: &[&[Vec<u32>]],
    ) -> Result<Vec<Vec<u32>>, MsmError> {
        let n = inputs[0].len();
        assert!(inputs.iter().all(|x| x.len() == n), "operand counts differ");
        assert!(
            inputs.iter().all(|x| x.iter().all(|v| v.len() == words)),
            "operands of {words} words"
        );
        let flat: Vec<Vec<u32>> = inputs.iter().map(|x| x.concat()).collect();
        let flat: Vec<&[u32]> = flat.iter().map(Vec::as_slice).collect();
        let got = self.run_items(group, id, op, words, n, &flat).await?;
        Ok(got.chunks_exact(words).map(<[u32]>::to_vec).collect())
    }

    /// Runs `op` on each pair (`a[i]`, `b[i]`) of packed points.
    pub async fn curve_op(&self, op: CurveOp, a: &[PointWords], b: &[PointWords]) -> Result<Vec<PointWords>, MsmError> {
        self.run_elementwise(ShaderId::CurveOps, op as u32, a, b).await
    }

    /// For each i, `a[i] * b[i]^iters` computed as `iters` chained Montgomery
    /// multiplications in one invocation.
    pub async fn mul_chain(&self, a: &[Fq], b: &[Fq], iters: u32) -> Result<Vec<Fq>, MsmError> {
        let repr = FieldRepr::new(self.field_layout());
        let aw: Vec<Words> = a.iter().map(|x| repr.to_gpu(x)).collect();
        let bw: Vec<Words> = b.iter().map(|x| repr.to_gpu(x)).collect();
        let (pipeline, groups) = self.bench_pipeline(a.len(), iters, ChainOp::Mul).await?;
        let ba = self.storage_init("in_a", bytemuck::cast_slice(&aw), false);
        let bb = self.storage_init("in_b", bytemuck::cast_slice(&bw), false);
        let out = self.storage_out("out", a.len() * 8);
        let mut enc = self.device.create_command_encoder(&Default::default());
        self.dispatch(&mut enc, "field_bench", &pipeline, &[&ba, &bb, &out], groups, None);
        self.queue.submit([enc.finish()]);
        let words = self.read_words(&out, a.len() * 8).await?;
        words
            .chunks_exact(8)
            .map(|c| repr.from_gpu(c.try_into().unwrap()).ok_or(MsmError::CorruptResult))
            .collect()
    }

    async fn bench_pipeline(
        &self,
        n: usize,
        iters: u32,
        op: ChainOp,
    ) -> Result<(wgpu::ComputePipeline, (u32, u32)), MsmError> {
        let pipeline = self
            .pipeline(
                ShaderId::FieldBench,
                "main",
                &[("ITERS", iters as f64), ("WG", WG as f64), ("OP", op as u32 as f64)],
                None,
            )
            .await?;
        Ok((pipeline, self.grid(n.div_ceil(WG as usize) as u32)))
    }

    /// Runs a loop of `loops` LCG steps per seed in one invocation each and
    /// returns the final states (see [`lcg_reference`]).
    pub async fn loop_probe(&self, seeds: &[u32], loops: u32) -> Result<Vec<u32>, MsmError> {
        let pipeline = self
            .pipeline(ShaderId::LoopProbe, "main", &[("LOOPS", loops as f64)], None)
            .await?;
        let buf = self.storage_init("probe", seeds, true);
        let mut enc = self.device.create_command_encoder(&Default::default());
        self.dispatch(
            &mut enc,
            "loop_probe",
            &pipeline,
            &[&buf],
            (seeds.len() as u32, 1),
            None,
        );
        self.queue.submit([enc.finish()]);
        self.read_words(&buf, seeds.len()).await
    }
}

/// CPU twin of the `loop_probe` shader.
pub fn lcg_reference(seed: u32, loops: u32) -> u32 {
    (0..loops).fold(seed, |h, _| h.wrapping_mul(1664525).wrapping_add(1013904223))
}
