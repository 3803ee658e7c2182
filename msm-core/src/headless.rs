//! Quiet Vulkan start-up on machines without a display session.
//!
//! wgpu enables `VK_KHR_wayland_surface` on every Linux Vulkan instance (it
//! has no switch for compute-only use), and Mesa's device-select layer, an
//! implicit layer of every Mesa install, reacts to that extension by asking
//! the Wayland compositor which GPU drives the display each time the
//! adapters are listed. Where `XDG_RUNTIME_DIR` is unset (ssh sessions,
//! containers, CI) there is no compositor to ask, and libwayland prints
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` for
//! every listing: an error line that is not one.

/// Turns Mesa's device-select layer off for this process (its manifest's
/// `NODEVICE_SELECT=1`) when there is no display session for it to query:
/// `XDG_RUNTIME_DIR` is not an absolute path and neither `WAYLAND_DISPLAY`
/// (absolute) nor `WAYLAND_SOCKET` names a compositor. Left alone when the
/// user picks a device through the layer (`MESA_VK_DEVICE_SELECT`). wgpu
/// ranks adapters by itself, so the layer's ordering is not needed. Does
/// nothing outside Linux.
///
/// # Safety
/// Sets an environment variable: call it first thing in `main`, before any
/// thread starts (the contract of [`std::env::set_var`]).
pub unsafe fn skip_display_probe() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let absolute = |var: &str| std::env::var_os(var).is_some_and(|v| std::path::Path::new(&v).is_absolute());
    let set = |var: &str| std::env::var_os(var).is_some();
    if absolute("XDG_RUNTIME_DIR")
        || absolute("WAYLAND_DISPLAY")
        || set("WAYLAND_SOCKET")
        || set("MESA_VK_DEVICE_SELECT")
        || set("NODEVICE_SELECT")
    {
        return;
    }
    std::env::set_var("NODEVICE_SELECT", "1");
}
