//! Waiting for the GPU without blocking the caller's thread.
//!
//! wgpu-native runs callbacks (a buffer mapped, work done) only inside
//! `Device::poll`. Instead of a blocking poll in the caller's future, each
//! context has a poller thread that polls while anyone waits; a wait is a
//! [`Slot`] that the callback fills, and the poller fails it with
//! [`MsmError::Timeout`] once its deadline passes. On the web the browser
//! drives the device and callbacks fill the slots; there is no poller.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::error::MsmError;

/// A result that a callback (or the poller's deadline) delivers once.
pub(crate) struct Slot<T> {
    inner: Mutex<SlotState<T>>,
}

/// The delivered result, and who waits for it.
type SlotState<T> = (Option<Result<T, MsmError>>, Option<Waker>);

impl<T> Slot<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Slot {
            inner: Mutex::new((None, None)),
        })
    }

    /// Delivers `r` unless a result is already there (the first one wins).
    pub(crate) fn fill(&self, r: Result<T, MsmError>) {
        let mut g = self.inner.lock().unwrap();
        if g.0.is_none() {
            g.0 = Some(r);
            if let Some(w) = g.1.take() {
                w.wake();
            }
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn is_filled(&self) -> bool {
        self.inner.lock().unwrap().0.is_some()
    }
}

/// Awaits a [`Slot`].
pub(crate) struct SlotFuture<T>(pub(crate) Arc<Slot<T>>);

impl<T> Future for SlotFuture<T> {
    type Output = Result<T, MsmError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut g = self.0.inner.lock().unwrap();
        match g.0.take() {
            Some(r) => Poll::Ready(r),
            None => {
                g.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A lock taken by awaiting (the waiting caller's thread is not blocked).
///
/// Waiters queue in order; a release wakes the oldest. A waiter that is
/// dropped after its wake-up (a timeout, a `select!` that took another
/// branch) passes the wake-up on, and one polled again replaces its waker
/// in place, so no wake-up is lost and no waiter is queued twice.
#[derive(Default)]
pub(crate) struct AsyncMutex {
    state: Mutex<LockState>,
}

#[derive(Default)]
struct LockState {
    locked: bool,
    /// Queued waiters (their ticket and waker), oldest first.
    queue: std::collections::VecDeque<(u64, Waker)>,
    next_ticket: u64,
}

impl LockState {
    /// Wakes the oldest queued waiter, taking it off the queue.
    fn wake_next(&mut self) {
        if let Some((_, w)) = self.queue.pop_front() {
            w.wake();
        }
    }
}

impl AsyncMutex {
    #[cfg(feature = "diagnostics")]
    pub(crate) fn is_locked(&self) -> bool {
        self.state.lock().unwrap().locked
    }

    pub(crate) fn lock(&self) -> AsyncLock<'_> {
        AsyncLock {
            mutex: self,
            ticket: None,
        }
    }
}

pub(crate) struct AsyncLock<'a> {
    mutex: &'a AsyncMutex,
    /// Set once the future has queued (until it takes the lock).
    ticket: Option<u64>,
}

impl<'a> Future for AsyncLock<'a> {
    type Output = AsyncGuard<'a>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mutex = self.mutex;
        let mut s = mutex.state.lock().unwrap();
        if !s.locked {
            s.locked = true;
            if let Some(t) = self.ticket.take() {
                s.queue.retain(|(q, _)| *q != t);
            }
            return Poll::Ready(AsyncGuard { mutex });
        }
        let queued = self.ticket.and_then(|t| s.queue.iter_mut().find(|(q, _)| *q == t));
        match queued {
            Some((_, w)) => w.clone_from(cx.waker()),
            None => {
                let t = s.next_ticket;
                s.next_ticket += 1;
                s.queue.push_back((t, cx.waker().clone()));
                self.ticket = Some(t);
            }
        }
        Poll::Pending
    }
}

impl Drop for AsyncLock<'_> {
    fn drop(&mut self) {
        let Some(t) = self.ticket else { return };
        let mut s = self.mutex.state.lock().unwrap();
        let before = s.queue.len();
        s.queue.retain(|(q, _)| *q != t);
        // Off the queue already: a release woke this waiter, which is going
        // away without the lock; the next one gets the wake-up instead.
        if s.queue.len() == before && !s.locked {
            s.wake_next();
        }
    }
}

pub(crate) struct AsyncGuard<'a> {
    mutex: &'a AsyncMutex,
}

impl Drop for AsyncGuard<'_> {
    fn drop(&mut self) {
        let mut s = self.mutex.state.lock().unwrap();
        s.locked = false;
        s.wake_next();
    }
}

/// How long a wait for the GPU may take before it fails, unless the
/// context's options say otherwise.
pub const DEFAULT_GPU_TIMEOUT: Duration = Duration::from_secs(300);

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use native::Poller;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    use super::Slot;
    use crate::error::MsmError;

    /// Longest single poll: deadlines are checked at least this often.
    const TICK: Duration = Duration::from_millis(5);

    type Expiry = Box<dyn Fn(MsmError) + Send>;

    /// One open wait: the submission it waits behind, its deadline, its slot
    /// and how to fail it.
    struct Wait {
        after: wgpu::SubmissionIndex,
        deadline: Instant,
        timeout: Duration,
        what: &'static str,
        slot: Arc<dyn Done>,
        fail: Expiry,
    }

    impl Wait {
        fn timeout_error(&self) -> MsmError {
            MsmError::Timeout {
                what: self.what,
                after: self.timeout,
            }
        }
    }

    #[derive(Default)]
    struct State {
        waits: Vec<Wait>,
        stop: bool,
    }

    /// Whether a wait has its result (then the poller forgets it).
    trait Done: Send + Sync {
        fn done(&self) -> bool;
    }

    impl<T: Send> Done for Slot<T> {
        fn done(&self) -> bool {
            self.is_filled()
        }
    }

    /// The poller thread of one context (started at the first wait, stopped
    /// when the context drops).
    pub(crate) struct Poller {
        device: wgpu::Device,
        shared: Arc<(Mutex<State>, Condvar)>,
        thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    }

    impl Poller {
        pub(crate) fn new(device: wgpu::Device) -> Self {
            Poller {
                device,
                shared: Arc::default(),
                thread: Mutex::default(),
            }
        }

        /// Polls the device until `slot` is filled (its callback runs once
        /// submission `after` is done), failing it with [`MsmError::Timeout`]
        /// (naming `what`) after `timeout`.
        pub(crate) fn watch<T: Send + 'static>(
            &self,
            slot: &Arc<Slot<T>>,
            after: wgpu::SubmissionIndex,
            timeout: Duration,
            what: &'static str,
        ) {
            let fail = {
                let slot = slot.clone();
                Box::new(move |e| slot.fill(Err(e)))
            };
            let (lock, cvar) = &*self.shared;
            {
                let mut s = lock.lock().unwrap();
                s.waits.push(Wait {
                    after,
                    deadline: Instant::now() + timeout,
                    timeout,
                    what,
                    slot: slot.clone(),
                    fail,
                });
            }
            cvar.notify_one();
            self.start();
        }

        fn start(&self) {
            let mut thread = self.thread.lock().unwrap();
            if thread.is_some() {
                return;
            }
            let (device, shared) = (self.device.clone(), self.shared.clone());
            *thread = Some(
                std::thread::Builder::new()
                    .name("msm-gpu-poller".into())
                    .spawn(move || run(&device, &shared))
                    .expect("spawn the GPU poller thread"),
            );
        }
    }

    fn run(device: &wgpu::Device, shared: &(Mutex<State>, Condvar)) {
        let (lock, cvar) = shared;
        loop {
            let earliest = {
                let mut s = lock.lock().unwrap();
                while s.waits.is_empty() && !s.stop {
                    s = cvar.wait(s).unwrap();
                }
                if s.stop {
                    return;
                }
                s.waits.first().map(|w| w.after.clone())
            };
            if sweep(lock, false) {
                continue;
            }
            // Wait behind the oldest wait's submission (one whose `submit`
            // returned: a poll that waits for "the latest" may meet another
            // thread's submission half registered, and trip an assertion in
            // wgpu). Callbacks fill slots from inside the poll; a later wait
            // whose work finished first is woken when it returns (at most a
            // tick).
            let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                device.poll(wgpu::PollType::Wait {
                    submission_index: earliest,
                    timeout: Some(TICK),
                })
            }));
            sweep(lock, polled.is_err());
        }
    }

    /// Forgets filled waits and fails those past their deadline (or all of
    /// them when the poll `failed`); true when none is left.
    fn sweep(lock: &Mutex<State>, failed: bool) -> bool {
        let now = Instant::now();
        let mut s = lock.lock().unwrap();
        s.waits.retain(|w| {
            if w.slot.done() {
                return false;
            }
            if failed {
                (w.fail)(MsmError::Device("polling the GPU panicked; the wait failed".into()));
                return false;
            }
            if now >= w.deadline {
                (w.fail)(w.timeout_error());
                return false;
            }
            true
        });
        s.waits.is_empty()
    }

    impl Drop for Poller {
        fn drop(&mut self) {
            let (lock, cvar) = &*self.shared;
            lock.lock().unwrap().stop = true;
            cvar.notify_one();
            if let Some(t) = self.thread.lock().unwrap().take() {
                let _ = t.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Arc<Count>, Waker) {
        let c = Arc::new(Count::default());
        (c.clone(), Waker::from(c))
    }

    fn poll<'a>(f: &mut AsyncLock<'a>, w: &Waker) -> Poll<AsyncGuard<'a>> {
        Pin::new(f).poll(&mut Context::from_waker(w))
    }

    /// A queued waiter dropped before its turn (a timeout) takes no
    /// wake-up with it: the one behind it is woken and gets the lock.
    #[test]
    fn a_dropped_waiter_leaves_the_wake_up_to_the_next() {
        let m = AsyncMutex::default();
        let (_, w1) = waker();
        let (c2, w2) = waker();
        let (c3, w3) = waker();
        let mut first = m.lock();
        let guard = match poll(&mut first, &w1) {
            Poll::Ready(g) => g,
            Poll::Pending => panic!("a free lock is taken at once"),
        };
        let (mut second, mut third) = (m.lock(), m.lock());
        assert!(poll(&mut second, &w2).is_pending());
        assert!(poll(&mut third, &w3).is_pending());
        drop(second);
        drop(guard);
        assert_eq!(c2.0.load(Ordering::SeqCst), 0);
        assert_eq!(c3.0.load(Ordering::SeqCst), 1, "the third waiter was not woken");
        assert!(poll(&mut third, &w3).is_ready());
    }

    /// A waiter woken and then dropped without taking the lock passes its
    /// wake-up on.
    #[test]
    fn a_woken_waiter_dropped_passes_the_wake_up_on() {
        let m = AsyncMutex::default();
        let (_, w1) = waker();
        let (c2, w2) = waker();
        let (c3, w3) = waker();
        let mut first = m.lock();
        let Poll::Ready(guard) = poll(&mut first, &w1) else { panic!() };
        let (mut second, mut third) = (m.lock(), m.lock());
        assert!(poll(&mut second, &w2).is_pending());
        assert!(poll(&mut third, &w3).is_pending());
        drop(guard);
        assert_eq!(c2.0.load(Ordering::SeqCst), 1);
        assert_eq!(c3.0.load(Ordering::SeqCst), 0);
        drop(second);
        assert_eq!(c3.0.load(Ordering::SeqCst), 1, "the wake-up was lost with the second waiter");
        assert!(poll(&mut third, &w3).is_ready());
    }

    /// A waiter polled twice is queued once, with its latest waker.
    #[test]
    fn a_waiter_polled_twice_is_queued_once() {
        let m = AsyncMutex::default();
        let (_, w1) = waker();
        let (old, w_old) = waker();
        let (new, w_new) = waker();
        let (c3, w3) = waker();
        let mut first = m.lock();
        let Poll::Ready(guard) = poll(&mut first, &w1) else { panic!() };
        let (mut second, mut third) = (m.lock(), m.lock());
        assert!(poll(&mut second, &w_old).is_pending());
        assert!(poll(&mut second, &w_new).is_pending());
        assert!(poll(&mut third, &w3).is_pending());
        drop(guard);
        assert_eq!((old.0.load(Ordering::SeqCst), new.0.load(Ordering::SeqCst)), (0, 1));
        let Poll::Ready(g2) = poll(&mut second, &w_new) else { panic!() };
        drop(g2);
        assert_eq!(c3.0.load(Ordering::SeqCst), 1);
        assert!(poll(&mut third, &w3).is_ready());
    }
}
