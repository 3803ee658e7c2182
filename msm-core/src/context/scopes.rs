//! wgpu's error scopes, written once. Scopes are per thread and a stack, and
//! their guards may not cross an `.await` (they are `!Send`, and the future
//! holding one could resume on another thread): push, record, pop at once,
//! await the verdict later.

use std::future::Future;
use std::pin::Pin;

use super::GpuContext;

/// The verdict of popped scopes: the first error caught, innermost scope
/// first (`Send` natively, where every public future is).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type Verdict = Pin<Box<dyn Future<Output = Option<wgpu::Error>> + Send>>;
#[cfg(target_arch = "wasm32")]
pub(crate) type Verdict = Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>;

/// Error scopes pushed on this thread, outermost first. Dropped unpopped,
/// they are popped innermost first and their errors ignored.
#[must_use = "pop the scopes to learn what they caught"]
pub(crate) struct Scopes(Vec<wgpu::ErrorScopeGuard>);

impl GpuContext {
    /// Catches the errors of `filters` (outermost first) that the GPU work
    /// recorded on this thread until [`Scopes::pop`] raises.
    pub(crate) fn catch(&self, filters: &[wgpu::ErrorFilter]) -> Scopes {
        Scopes::push(&self.device, filters)
    }
}

impl Scopes {
    /// [`GpuContext::catch`] on `device` (a compile thread's clone).
    pub(crate) fn push(device: &wgpu::Device, filters: &[wgpu::ErrorFilter]) -> Scopes {
        Scopes(filters.iter().map(|&f| device.push_error_scope(f)).collect())
    }

    /// Pops every scope now, innermost first; the verdict arrives later.
    pub(crate) fn pop(mut self) -> Verdict {
        let pops: Vec<_> = std::mem::take(&mut self.0).into_iter().rev().map(|g| g.pop()).collect();
        Box::pin(async move {
            for p in pops {
                if let Some(e) = p.await {
                    return Some(e);
                }
            }
            None
        })
    }
}

impl Drop for Scopes {
    fn drop(&mut self) {
        while let Some(g) = self.0.pop() {
            drop(g);
        }
    }
}
