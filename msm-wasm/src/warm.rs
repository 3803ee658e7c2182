//! A context's warm-up: its pipelines compiled in the background from
//! creation (the bases kernels first, then each size class from the
//! smallest), so that no call waits on a compile. Under Dawn or in a
//! browser a fresh machine compiles for tens of seconds (minutes for G2);
//! until the pipelines a call needs are ready, small calls run on the CPU in
//! wasm (arkworks). `ready()` awaits the rest; progress goes to a callback.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use msm_core::{GpuContext, KnobOverrides, MsmError};
use wasm_bindgen::JsValue;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The kernels that convert and check bases from bytes.
    Bases,
    /// What an MSM of this many points runs.
    Size(usize),
}

/// Where a context's warm-up stands (shared by its background task).
pub(crate) struct WarmUp {
    steps: Vec<Step>,
    /// The context's knobs at creation (each size compiles its own config).
    knobs: KnobOverrides,
    done: Cell<usize>,
    failed: RefCell<Option<String>>,
    /// Whether the background runs (the `warmUp` option).
    background: bool,
    /// Set when the context is freed: the background stops before its next step.
    stop: Cell<bool>,
    cpu_max_points: usize,
    on_progress: Option<js_sys::Function>,
}

impl WarmUp {
    /// A warm-up of the pipelines `knobs` give MSMs of up to `max_points`.
    pub(crate) fn new(
        knobs: KnobOverrides,
        max_points: usize,
        cpu_max_points: usize,
        background: bool,
        on_progress: Option<js_sys::Function>,
    ) -> Rc<Self> {
        let hi = max_points.max(1).next_power_of_two();
        let sizes = std::iter::successors(Some(1usize), |&n| (n < hi).then_some(n * 2));
        let steps = std::iter::once(Step::Bases).chain(sizes.map(Step::Size)).collect();
        Rc::new(WarmUp {
            steps,
            knobs,
            done: Cell::new(0),
            failed: RefCell::new(None),
            background,
            stop: Cell::new(false),
            cpu_max_points,
            on_progress,
        })
    }

    /// Starts the background on the page's (or worker's) event loop.
    pub(crate) fn start(self: &Rc<Self>, ctx: Rc<GpuContext>) {
        if !self.background {
            return;
        }
        let warm = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            for &step in &warm.steps {
                if warm.stop.get() || warm.failed.borrow().is_some() {
                    return;
                }
                if let Err(e) = warm.run(&ctx, step).await {
                    *warm.failed.borrow_mut() = Some(e.to_string());
                    warm.report();
                    return;
                }
                warm.advance();
            }
        });
    }

    async fn run(&self, ctx: &GpuContext, step: Step) -> Result<(), MsmError> {
        match step {
            Step::Bases => ctx.warm_up_bases().await,
            Step::Size(n) => ctx.warm_up(&ctx.config_for_with(&self.knobs, n), n).await,
        }
    }

    /// One more step done (the background's and `finish`'s steps share the
    /// context's compile lock, so each is compiled once).
    fn advance(&self) {
        if self.done.get() < self.steps.len() {
            self.done.set(self.done.get() + 1);
        }
        self.report();
    }

    /// Compiles (or waits for) every step on the caller's task.
    pub(crate) async fn finish(&self, ctx: &GpuContext) -> Result<(), MsmError> {
        for &step in &self.steps {
            self.run(ctx, step).await?;
        }
        if self.done.get() < self.steps.len() {
            self.done.set(self.steps.len());
            self.report();
        }
        Ok(())
    }

    pub(crate) fn stop(&self) {
        self.stop.set(true);
    }

    /// Whether calls may go to the CPU: the background is compiling, or a
    /// compile failed (small calls then stay on the CPU, as the native
    /// `Engine`'s do; larger ones meet the error on the GPU).
    pub(crate) fn cpu_allowed(&self) -> bool {
        let failed = self.failed.borrow().is_some();
        self.background && !self.stop.get() && (failed || self.done.get() < self.steps.len())
    }

    /// The largest call that runs on the CPU while the warm-up runs.
    pub(crate) fn cpu_max_points(&self) -> usize {
        self.cpu_max_points
    }

    /// The knobs the warm-up compiles for (calls with other knobs compile
    /// their own pipelines on the GPU).
    pub(crate) fn knobs(&self) -> &KnobOverrides {
        &self.knobs
    }

    /// `{ done, total, ready, failed }`: steps compiled of all.
    pub(crate) fn progress(&self) -> serde_json::Value {
        let total = self.steps.len();
        serde_json::json!({
            "done": self.done.get(),
            "total": total,
            "ready": self.done.get() == total,
            "failed": *self.failed.borrow(),
        })
    }

    fn report(&self) {
        if let Some(f) = &self.on_progress {
            // a throwing callback must not stop the warm-up
            let _ = f.call1(&JsValue::NULL, &crate::js::to_js(&self.progress()));
        }
    }
}
