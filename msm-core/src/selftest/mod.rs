//! A self-test a user runs on their own adapter and driver: drivers
//! miscompile, and a suite that passes on the developers' adapters says
//! nothing about theirs. [`GpuContext::self_test`] runs MSMs of the
//! context's group through every path a prover's call can take (each scalar
//! form and its edge words, every window width the plans choose and the
//! automatic one, with and without a table of shifted bases, the
//! adversarial input classes, prefix and batch calls, bases from bytes, the
//! subgroup check's refusals) and compares each with arkworks on the CPU.
//! `msm-cli selftest` and the npm package's `MsmContext.selfTest()` run it.

mod cases;

use crate::context::GpuContext;
use crate::curve::Curve;

/// One case of a self-test and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfTestCase {
    /// The group it ran in.
    pub group: Curve,
    /// What it checked, e.g. "scalars as words: r - 1, r, r + 1, 2^255, ...".
    pub name: String,
    /// Whether the GPU's answer equals arkworks' (or the refusal is the
    /// expected one).
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub detail: String,
    /// Wall time, ms (the GPU calls and arkworks' reference).
    pub ms: f64,
}

/// A self-test's cases and verdict, with what it ran on.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfTestReport {
    /// The adapter, its driver and backend, and the context's field module.
    pub adapter: String,
    pub cases: Vec<SelfTestCase>,
    /// Wall time of the whole test, ms (compiles included).
    pub ms: f64,
}

impl SelfTestReport {
    /// Every case passed.
    pub fn passed(&self) -> bool {
        !self.cases.is_empty() && self.cases.iter().all(|c| c.passed)
    }

    /// The cases that failed.
    pub fn failures(&self) -> impl Iterator<Item = &SelfTestCase> {
        self.cases.iter().filter(|c| !c.passed)
    }
}

impl GpuContext {
    /// Runs the self-test in this context's group (see the module docs)
    /// with `knobs` over each size's defaults (`None`: the context's own,
    /// as [`GpuContext::msm`] takes them): `full` takes every window width
    /// 4..=16 and larger inputs (seconds on a GPU, minutes on a software
    /// adapter); otherwise a covering subset. `on_case` sees each case as
    /// it finishes (progress). A failed case is a wrong answer or an error
    /// this adapter gave: report it with [`SelfTestReport::adapter`].
    pub async fn self_test(
        &self,
        knobs: Option<&crate::knobs::KnobOverrides>,
        full: bool,
        mut on_case: impl FnMut(&SelfTestCase),
    ) -> SelfTestReport {
        let t = web_time::Instant::now();
        let info = self.adapter_info();
        let field = self.field_options();
        let adapter = format!(
            "{} ({:?}, {} {}); {} field, {} code, {} inversion",
            info.name, info.backend, info.driver, info.driver_info, field.layout, field.code, field.inversion
        );
        let mut cases = Vec::new();
        let mut record = |c: SelfTestCase| {
            on_case(&c);
            cases.push(c);
        };
        let run = cases::Run::new(self, knobs.unwrap_or(self.knobs()), full);
        match self.curve() {
            Curve::Bn254G1 => run.all::<ark_bn254::g1::Config>(&mut record).await,
            Curve::Bls12_381G1 => run.all::<ark_bls12_381::g1::Config>(&mut record).await,
            Curve::Bn254G2 => run.all::<ark_bn254::g2::Config>(&mut record).await,
            Curve::Bls12_381G2 => run.all::<ark_bls12_381::g2::Config>(&mut record).await,
        }
        SelfTestReport {
            adapter,
            cases,
            ms: t.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// Blocking [`GpuContext::self_test`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn self_test_blocking(
        &self,
        knobs: Option<&crate::knobs::KnobOverrides>,
        full: bool,
        on_case: impl FnMut(&SelfTestCase),
    ) -> SelfTestReport {
        pollster::block_on(self.self_test(knobs, full, on_case))
    }
}
