//! Chained field operations timed on the GPU (`msm-cli field-bench`), in
//! BN254's Fq or another curve's base field.

/// The chained operation of the `field_bench` shader. Keep codes in sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainOp {
    /// x <- x * y
    Mul = 0,
    /// x <- y / x (one inversion and one multiplication)
    Inv = 1,
    /// x <- x^2
    Sqr = 2,
}

/// Result of [`GpuContext::field_throughput`].
#[derive(Clone, Copy, Debug)]
pub struct Throughput {
    /// Chained operations per second (multiplications or squarings, or
    /// inversions for [`ChainOp::Inv`]).
    pub mults_per_sec_median: f64,
    pub mults_per_sec_best: f64,
    pub mults_per_sec_worst: f64,
    pub seconds_median: f64,
    /// Every chained result equalled arkworks'.
    pub correct: bool,
}

// Timed with the host's clock and its blocking waits: native only.
#[cfg(not(target_arch = "wasm32"))]
mod native {
    use ark_ff::Field;
    use msm_wgsl::ShaderId;

    use super::super::WG;
    use super::{ChainOp, Throughput};
    use crate::context::GpuContext;
    use crate::curve::Curve;
    use crate::error::MsmError;
    use crate::repr::FieldCodec;

    impl GpuContext {
        /// Measures chained-multiplication throughput in BN254's Fq:
        /// `invocations` threads each doing `iters` dependent operations, `reps`
        /// timed dispatches after one warm-up. Timed by wall clock around submit
        /// and wait (the dispatch is long enough that submission overhead is
        /// noise). Every output is checked against arkworks.
        pub async fn field_throughput(
            &self,
            invocations: usize,
            iters: u32,
            reps: usize,
            op: ChainOp,
        ) -> Result<Throughput, MsmError> {
            self.field_throughput_in(Curve::Bn254G1, invocations, iters, reps, op)
                .await
        }

        /// [`GpuContext::field_throughput`] in the coordinate field of
        /// `group` (Fq, or Fq2 for G2; this context's layout, code and
        /// inversion): one Fq2 multiplication counts as one.
        pub async fn field_throughput_in(
            &self,
            group: Curve,
            invocations: usize,
            iters: u32,
            reps: usize,
            op: ChainOp,
        ) -> Result<Throughput, MsmError> {
            let (i, it, r) = (invocations, iters, reps);
            match group {
                Curve::Bn254G1 => self.throughput::<ark_bn254::Fq>(group, i, it, r, op).await,
                Curve::Bls12_381G1 => self.throughput::<ark_bls12_381::Fq>(group, i, it, r, op).await,
                Curve::Bn254G2 => self.throughput::<ark_bn254::Fq2>(group, i, it, r, op).await,
                Curve::Bls12_381G2 => self.throughput::<ark_bls12_381::Fq2>(group, i, it, r, op).await,
            }
        }

        /// `reps` dispatches of `pipeline` after one warm-up, each timed by
        /// the wall clock around its submit and wait; seconds, fastest first.
        pub(in crate::diagnostics) fn timed_dispatches(
            &self,
            label: &str,
            pipeline: &wgpu::ComputePipeline,
            bufs: &[&wgpu::Buffer],
            groups: (u32, u32),
            reps: usize,
        ) -> Result<Vec<f64>, MsmError> {
            let mut times = Vec::with_capacity(reps);
            for rep in 0..=reps {
                let start = std::time::Instant::now();
                let mut enc = self.device.create_command_encoder(&Default::default());
                self.dispatch(&mut enc, label, pipeline, bufs, groups, None);
                self.queue.submit([enc.finish()]);
                self.wait_idle()?;
                if rep > 0 {
                    times.push(start.elapsed().as_secs_f64());
                }
            }
            times.sort_by(f64::total_cmp);
            Ok(times)
        }

        async fn throughput<F: Field>(
            &self,
            group: Curve,
            invocations: usize,
            iters: u32,
            reps: usize,
            op: ChainOp,
        ) -> Result<Throughput, MsmError> {
            let mut rng = ark_std::test_rng();
            let a: Vec<F> = (0..invocations).map(|_| F::rand(&mut rng)).collect();
            let b: Vec<F> = (0..invocations).map(|_| F::rand(&mut rng)).collect();
            let codec = FieldCodec::<F>::new(self.field_layout(), group.field());
            let words = codec.words();
            let encode = |v: &[F]| -> Vec<u32> { v.iter().flat_map(|x| codec.encode(*x)).collect() };
            let groups = self.grid(invocations.div_ceil(WG as usize) as u32);
            let overrides = [("ITERS", iters as f64), ("WG", WG as f64), ("OP", op as u32 as f64)];
            let pipeline = self.pipeline_in(group, ShaderId::FieldBench, &overrides).await?;
            let ba = self.storage_init("in_a", &encode(&a), false);
            let bb = self.storage_init("in_b", &encode(&b), false);
            let out = self.storage_out("out", invocations * words);
            let times = self.timed_dispatches("field_bench", &pipeline, &[&ba, &bb, &out], groups, reps)?;
            let got = self.read_words(&out, invocations * words).await?;
            // every chain against arkworks on the library's threads (a squaring
            // chain is iters squarings)
            let correct = crate::host::install(|| {
                use rayon::prelude::*;
                got.par_chunks_exact(words)
                    .zip(a.par_iter().zip(&b))
                    .all(|(w, (x, y))| {
                        let want = match op {
                            ChainOp::Mul => *x * y.pow([iters as u64]),
                            ChainOp::Sqr => (0..iters).fold(*x, |v, _| v.square()),
                            // x -> y / x has period 2
                            ChainOp::Inv if iters.is_multiple_of(2) => *x,
                            ChainOp::Inv => *y / x,
                        };
                        codec.decode(w) == Some(want)
                    })
            });
            let mults = invocations as f64 * iters as f64;
            Ok(Throughput {
                mults_per_sec_median: mults / times[times.len() / 2],
                mults_per_sec_best: mults / times[0],
                mults_per_sec_worst: mults / times[times.len() - 1],
                seconds_median: times[times.len() / 2],
                correct,
            })
        }
    }
}
