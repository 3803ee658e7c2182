//! The engine's warm-up: its GPU pipelines compiled in the background from
//! creation, smallest size class first, so that no MSM waits on a compile
//! (a fresh machine compiles for seconds natively, minutes for G2 or on a
//! software adapter). Until the pipelines a call needs are ready,
//! `Backend::Auto` runs it on the CPU; progress goes to `tracing`.

use std::sync::{Arc, Mutex};

use crate::context::GpuContext;
use crate::error::MsmError;

/// The largest MSM a warm-up prepares for unless the options say (points).
pub(super) const DEFAULT_MAX_POINTS: usize = 1 << 22;

/// Test hook: while set, background warm-ups wait before compiling, so a
/// test meets an engine whose pipelines are not ready.
#[cfg(feature = "diagnostics")]
pub(super) static HOLD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Where a warm-up stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Size classes done of all.
    Compiling { done: usize, total: usize },
    Ready,
    Failed(String),
}

/// A warm-up running (or done) on its own thread (natively) or task (on
/// the web).
pub(super) struct WarmUp {
    sizes: Vec<usize>,
    state: Mutex<State>,
    /// Set when the engine is dropped: the background stops before its
    /// next size class (the one compiling finishes; its context goes then).
    stop: std::sync::atomic::AtomicBool,
    /// The background thread, joined when the engine is dropped: a process
    /// that exits while a driver compiles on another thread can crash in
    /// the driver's teardown (seen on NVIDIA).
    #[cfg(not(target_arch = "wasm32"))]
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl WarmUp {
    /// The size classes (powers of two) from `smallest` to `largest` points.
    pub(super) fn sizes(smallest: usize, largest: usize) -> Vec<usize> {
        let lo = smallest.max(1).next_power_of_two();
        let hi = largest.max(lo).next_power_of_two();
        std::iter::successors(Some(lo), |&n| (n < hi).then_some(n * 2)).collect()
    }

    /// `given` lengths from `smallest` on (the GPU's), ascending, once each.
    pub(super) fn exact(given: &[usize], smallest: usize) -> Vec<usize> {
        let mut sizes: Vec<usize> = given.iter().copied().filter(|&n| n >= smallest.max(1)).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// Starts compiling `sizes`' pipelines on `ctx` in the background.
    pub(super) fn start(ctx: Arc<GpuContext>, sizes: Vec<usize>) -> Arc<Self> {
        let warm = Arc::new(WarmUp {
            state: Mutex::new(State::Compiling {
                done: 0,
                total: sizes.len(),
            }),
            sizes,
            stop: Default::default(),
            #[cfg(not(target_arch = "wasm32"))]
            thread: Mutex::new(None),
        });
        let task = {
            let warm = warm.clone();
            async move { warm.run(&ctx).await }
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let spawned = std::thread::Builder::new()
                .name("msm-warm-up".into())
                .spawn(move || pollster::block_on(task));
            match spawned {
                Ok(handle) => *warm.thread.lock().unwrap() = Some(handle),
                Err(e) => *warm.state.lock().unwrap() = State::Failed(format!("cannot start the warm-up thread: {e}")),
            }
        }
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_futures::spawn_local(task);
        warm
    }

    async fn run(&self, ctx: &GpuContext) {
        #[cfg(all(feature = "diagnostics", not(target_arch = "wasm32")))]
        while HOLD.load(std::sync::atomic::Ordering::Relaxed) && !self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let t = web_time::Instant::now();
        let total = self.sizes.len();
        // while held, a table's build waits for this warm-up's compiles
        let _background = ctx.background_warm_up();
        // every size's plain plan first (a size routes to the GPU once its
        // plan is compiled), then the tables' kernels and plans
        for (i, &n) in self.sizes.iter().enumerate() {
            if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Err(e) = ctx.warm_up_plain(&ctx.config_for(n), n).await {
                self.fail(&e, n);
                return;
            }
            tracing::info!(n, done = i + 1, total, seconds = t.elapsed().as_secs_f64(), "GPU warm-up: size class ready");
            let mut state = self.state.lock().unwrap();
            if matches!(*state, State::Compiling { .. }) {
                *state = State::Compiling { done: i + 1, total };
            }
        }
        for &n in &self.sizes {
            if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Err(e) = ctx.warm_up_table(&ctx.config_for(n), n).await {
                self.fail(&e, n);
                return;
            }
        }
        // the subgroup test last: checks run on the CPU until then, and a
        // prover checks its key once, at load
        if !self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            if let Err(e) = ctx.warm_up_subgroup().await {
                tracing::warn!(error = %e, "the GPU's subgroup test failed to compile: checks stay on the CPU");
            }
        }
        tracing::info!(seconds = t.elapsed().as_secs_f64(), "GPU warm-up done: every pipeline compiled");
        *self.state.lock().unwrap() = State::Ready;
    }

    fn fail(&self, e: &MsmError, n: usize) {
        tracing::warn!(error = %e, n, "GPU warm-up failed: MSMs stay on the CPU");
        *self.state.lock().unwrap() = State::Failed(e.to_string());
    }

    /// Compiles (or waits for) every size class's pipelines on the caller's
    /// task: the background's compiles and these share one lock, so nothing
    /// compiles twice.
    pub(super) async fn finish(&self, ctx: &GpuContext) -> Result<(), MsmError> {
        for &n in &self.sizes {
            ctx.warm_up(&ctx.config_for(n), n).await?;
        }
        ctx.warm_up_subgroup().await?;
        let mut state = self.state.lock().unwrap();
        if !matches!(*state, State::Failed(_)) {
            *state = State::Ready;
        }
        Ok(())
    }

    /// Stops the background before its next size class and, natively,
    /// waits for it: at most the compiles in flight.
    pub(super) fn stop(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(handle) = self.thread.lock().unwrap().take() {
            if !handle.is_finished() {
                let t = std::time::Instant::now();
                let _ = handle.join();
                let seconds = t.elapsed().as_secs_f64();
                tracing::info!(seconds, "engine dropped: waited for the warm-up's compiles in flight");
            }
        }
    }

    pub(super) fn is_ready(&self) -> bool {
        *self.state.lock().unwrap() == State::Ready
    }

    /// Size classes compiled, of all.
    pub(super) fn progress(&self) -> (usize, usize) {
        match *self.state.lock().unwrap() {
            State::Compiling { done, total } => (done, total),
            _ => (self.sizes.len(), self.sizes.len()),
        }
    }

    pub(super) fn failure(&self) -> Option<String> {
        match &*self.state.lock().unwrap() {
            State::Failed(e) => Some(e.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WarmUp;

    #[test]
    fn size_classes_are_powers_of_two_from_smallest_to_largest() {
        assert_eq!(WarmUp::sizes(300, 2048), vec![512, 1024, 2048]);
        assert_eq!(WarmUp::sizes(0, 1), vec![1]);
        assert_eq!(WarmUp::sizes(4096, 1000), vec![4096]);
    }

    #[test]
    fn exact_sizes_are_the_given_ones_the_gpu_takes() {
        assert_eq!(WarmUp::exact(&[65536, 51703, 100, 51703], 1024), vec![51703, 65536]);
        assert_eq!(WarmUp::exact(&[0, 3], 0), vec![3]);
    }
}
