//! The threads of the library's host work: the scalars' copy into the
//! staging buffer, the window sums' decoding, the host's reduce and Horner
//! steps, the bases' encoding.
//!
//! They run on a rayon pool of the library's own, not on the global pool. A
//! prover runs its FFTs on the global pool while its MSMs are on the GPU; a
//! job injected into a busy global pool waits until its workers run out of
//! work, and never runs while a caller holds every worker (the test below).
//! Measured on an H200 it changed no speed (the Groth16 example's slow MSMs
//! were the GPU's idle clock: docs/benchmarks.md); it is kept for the
//! isolation. The pool's threads sleep when idle; its size is rayon's
//! default (`RAYON_NUM_THREADS`, else one per core).

use std::sync::OnceLock;

/// The library's pool (`None` where its threads could not be started: the
/// work then runs on the global pool, as before).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("msm-host-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` on the library's pool: its parallel iterators use that pool.
pub(crate) fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// `rayon::in_place_scope` on the library's pool: `f` runs on this thread,
/// the jobs it spawns on the pool.
pub(crate) fn in_place_scope<'s, R>(f: impl FnOnce(&rayon::Scope<'s>) -> R) -> R {
    match pool() {
        Some(p) => p.in_place_scope(f),
        None => rayon::in_place_scope(f),
    }
}

#[cfg(test)]
mod tests {
    /// The parallel iterators of `install` run on the library's threads,
    /// not the global pool's.
    #[test]
    fn work_runs_on_the_library_pool() {
        use rayon::prelude::*;
        let names: Vec<String> = super::install(|| {
            (0..64)
                .into_par_iter()
                .map(|_| std::thread::current().name().unwrap_or("").to_string())
                .collect()
        });
        assert!(names.iter().all(|n| n.starts_with("msm-host-")), "{names:?}");
        let mut spawned = String::new();
        super::in_place_scope(|s| {
            s.spawn(|_| spawned = std::thread::current().name().unwrap_or("").to_string());
        });
        assert!(spawned.starts_with("msm-host-"), "{spawned}");
    }

    /// With every thread of the global pool held (a prover's FFTs), the
    /// library's host work still runs.
    #[test]
    fn host_work_does_not_wait_for_a_busy_global_pool() {
        use rayon::prelude::*;
        use std::sync::{mpsc, Arc, Condvar, Mutex};
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (held_tx, held_rx) = mpsc::channel();
        for _ in 0..rayon::current_num_threads() {
            let (gate, held_tx) = (gate.clone(), held_tx.clone());
            rayon::spawn(move || {
                held_tx.send(()).unwrap();
                let (open, cv) = &*gate;
                let _open = cv.wait_while(open.lock().unwrap(), |o| !*o).unwrap();
            });
        }
        for _ in 0..rayon::current_num_threads() {
            held_rx.recv().unwrap();
        }
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let sum: u64 = super::install(|| (0..1000u64).into_par_iter().sum());
            let mut wrote = 0;
            super::in_place_scope(|s| s.spawn(|_| wrote = 1));
            done_tx.send(sum + wrote).unwrap();
        });
        let got = done_rx.recv_timeout(std::time::Duration::from_secs(20));
        let (open, cv) = &*gate;
        *open.lock().unwrap() = true;
        cv.notify_all();
        assert_eq!(got, Ok(499_500 + 1), "the host work waited for the global pool");
    }
}
