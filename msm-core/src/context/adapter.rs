//! Choosing an adapter and what each adapter class gets by default: the field
//! layout, how the multiplication is written, and the inversion.

use msm_wgsl::{FieldCode, FieldLayout, Inversion};

/// The layout used when none is asked for: 32-bit limbs with 64-bit products
/// where the adapter has `SHADER_INT64` (fastest on the H200, see
/// docs/benchmarks.md), else 13-bit lazy limbs (fastest portable layout).
pub fn default_layout(features: wgpu::Features) -> FieldLayout {
    if features.contains(wgpu::Features::SHADER_INT64) {
        FieldLayout::Limbs32x8
    } else {
        FieldLayout::Limbs13x20
    }
}

/// SwiftShader, natively or behind Chromium's WebGPU (which names no adapter
/// but reports a CPU device).
pub fn is_swiftshader(info: &wgpu::AdapterInfo) -> bool {
    info.name.to_lowercase().contains("swiftshader")
        || info.driver.to_lowercase().contains("swiftshader")
        || (info.backend == wgpu::Backend::BrowserWebGpu && info.device_type == wgpu::DeviceType::Cpu)
}

/// lavapipe/llvmpipe stop every loop of an invocation after 65,535 iterations
/// in total, silently; work per invocation must stay below that there.
pub fn has_loop_cap(info: &wgpu::AdapterInfo) -> bool {
    info.driver.to_lowercase().contains("llvmpipe") || info.name.to_lowercase().contains("llvmpipe")
}

/// The field code used when none is asked for: looped multiplications on
/// SwiftShader, whose compiler crashes on the unrolled MSM shaders (see
/// docs/benchmarks.md), unrolled everywhere else.
pub fn default_field_code(info: &wgpu::AdapterInfo) -> FieldCode {
    if is_swiftshader(info) {
        FieldCode::Looped
    } else {
        FieldCode::Unrolled
    }
}

/// The inversion used when none is asked for. One invocation inverts for its
/// whole workgroup while the others wait, so latency is what counts
/// (docs/benchmarks.md): Pornin's bingcd where 64-bit integers exist, the
/// binary GCD on the portable layouts, and Fermat under a loop cap (78 loop
/// iterations, against hundreds).
pub fn default_inversion(info: &wgpu::AdapterInfo, layout: FieldLayout) -> Inversion {
    if has_loop_cap(info) {
        Inversion::Fermat
    } else if Inversion::Bingcd.supports(layout) {
        Inversion::Bingcd
    } else {
        Inversion::BinaryGcd
    }
}

/// Lists the adapters this machine offers (name, backend, device type, driver).
pub async fn list_adapters() -> Vec<wgpu::AdapterInfo> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    instance
        .enumerate_adapters(wgpu::Backends::all())
        .await
        .iter()
        .map(|a| a.get_info())
        .collect()
}
