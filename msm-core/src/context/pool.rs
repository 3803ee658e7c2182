//! A pool of GPU objects kept between calls, so that a warm call creates
//! none: the one kind behind the context's scratch, staging and result
//! pools (`pools`).

use std::cmp::Reverse;
use std::sync::Mutex;


/// Something a pool keeps, measured in GPU bytes.
pub(crate) trait Pooled {
    fn bytes(&self) -> u64;
}

impl Pooled for wgpu::Buffer {
    fn bytes(&self) -> u64 {
        self.size()
    }
}

/// Which items a full pool keeps.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Keep {
    /// The most recently returned: a sweep alternates a few plans.
    Recent,
    /// The largest: one of them fits the next call of any smaller size.
    Largest,
}

/// Items kept for reuse, at most `keep` of them.
pub(crate) struct Pool<T> {
    items: Mutex<Vec<T>>,
    keep: usize,
    policy: Keep,
}

impl<T: Pooled> Pool<T> {
    pub(crate) const fn new(keep: usize, policy: Keep) -> Self {
        Pool {
            items: Mutex::new(Vec::new()),
            keep,
            policy,
        }
    }

    /// Takes out the first kept item that `fits` accepts.
    pub(crate) fn take(&self, fits: impl FnMut(&T) -> bool) -> Option<T> {
        let mut items = self.items.lock().unwrap();
        let i = items.iter().position(fits)?;
        Some(items.remove(i))
    }

    /// Keeps `item` for a later call (dropping one the policy ranks last
    /// when the pool is full).
    pub(crate) fn put(&self, item: T) {
        let mut items = self.items.lock().unwrap();
        items.insert(0, item);
        if items.len() > self.keep {
            if let Keep::Largest = self.policy {
                items.sort_by_key(|t| Reverse(t.bytes()));
            }
            items.truncate(self.keep);
        }
    }

    /// Items kept and their GPU bytes.
    pub(crate) fn held(&self) -> (u64, u64) {
        let items = self.items.lock().unwrap();
        (items.len() as u64, items.iter().map(Pooled::bytes).sum())
    }
}
