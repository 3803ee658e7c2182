//! Choosing an adapter and what each adapter class gets by default: the field
//! layout, how the multiplication is written, and the inversion.

use msm_wgsl::{Coords, FieldCode, FieldLayout, Inversion};

use crate::curve::Curve;

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

/// What an adapter is, as far as the MSM's defaults care: judged from what
/// it says about itself (name, driver; on the web the adapter description,
/// which wgpu reports as the name), not from the fallback flag alone, which
/// browsers and Dawn also set for lavapipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdapterClass {
    /// Mesa's lavapipe/llvmpipe (natively or under Dawn): a loop cap of
    /// 65,535 iterations per invocation; compiles unrolled code fine.
    Lavapipe,
    /// SwiftShader (natively, or Chromium's fallback adapter, which names
    /// nothing): its compiler chokes on unrolled field code.
    SwiftShader,
    /// Another CPU implementation (WARP...).
    OtherCpu,
    /// A GPU.
    Gpu,
}

impl AdapterClass {
    pub fn of(info: &wgpu::AdapterInfo) -> Self {
        let says = format!("{} {} {}", info.name, info.driver, info.driver_info).to_lowercase();
        if says.contains("llvmpipe") || says.contains("lavapipe") {
            AdapterClass::Lavapipe
        } else if says.contains("swiftshader") {
            AdapterClass::SwiftShader
        } else if info.device_type == wgpu::DeviceType::Cpu {
            // A browser's fallback adapter that says nothing about itself
            // is Chromium's SwiftShader.
            if info.backend == wgpu::Backend::BrowserWebGpu {
                AdapterClass::SwiftShader
            } else {
                AdapterClass::OtherCpu
            }
        } else {
            AdapterClass::Gpu
        }
    }

    /// A CPU implementation: its timings are not a GPU's.
    pub fn is_software(self) -> bool {
        self != AdapterClass::Gpu
    }

    /// The class's one name: in profiles' descriptions, the CLI and the
    /// browser package's `adapter.adapterClass`.
    pub fn name(self) -> &'static str {
        match self {
            AdapterClass::Lavapipe => "lavapipe",
            AdapterClass::SwiftShader => "swiftshader",
            AdapterClass::OtherCpu => "cpu",
            AdapterClass::Gpu => "gpu",
        }
    }
}

impl std::fmt::Display for AdapterClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// SwiftShader, natively or behind Chromium's WebGPU.
pub fn is_swiftshader(info: &wgpu::AdapterInfo) -> bool {
    AdapterClass::of(info) == AdapterClass::SwiftShader
}

/// lavapipe/llvmpipe stop every loop of an invocation after 65,535 iterations
/// in total, silently; work per invocation must stay below that there.
pub fn has_loop_cap(info: &wgpu::AdapterInfo) -> bool {
    AdapterClass::of(info) == AdapterClass::Lavapipe
}

/// The field code used when none is asked for. On GPUs, row loops: they
/// compile 3-7x faster than straight-line limb code on NVIDIA and run as fast
/// or faster in every pass but the 13x20 walker, which keeps straight-line
/// code (`Mixed`) except in BLS12-381 G2, whose straight-line passes NVIDIA's
/// compiler turns into a lost device (docs/benchmarks.md). Looped code on
/// SwiftShader, whose compiler crashes on the unrolled MSM shaders. Under a
/// loop cap, `Mixed` where its row loops keep the budget (the 64-bit layout
/// over Fq: lavapipe compiles the first MSM 2.5x faster), else straight lines.
pub fn default_field_code(info: &wgpu::AdapterInfo, curve: Curve, layout: FieldLayout) -> FieldCode {
    if is_swiftshader(info) {
        FieldCode::Looped
    } else if has_loop_cap(info) && layout == FieldLayout::Limbs32x8 && curve.coords() == Coords::Fq {
        FieldCode::Mixed
    } else if has_loop_cap(info) || layout == FieldLayout::Limbs16x16 {
        FieldCode::Unrolled
    } else if layout == FieldLayout::Limbs13x20 && curve != Curve::Bls12_381G2 {
        FieldCode::Mixed
    } else {
        FieldCode::Rows
    }
}

/// The inversion used when none is asked for. One invocation inverts for its
/// whole workgroup while the others wait, so latency is what counts
/// (docs/benchmarks.md): safegcd with 64-bit accumulators where 64-bit
/// integers exist (half bingcd's latency on the H200), safegcd in 32-bit
/// integers on the portable layouts (a sixth of the binary GCD's), and Fermat
/// under a loop cap (78 loop iterations, against hundreds).
pub fn default_inversion(info: &wgpu::AdapterInfo, layout: FieldLayout) -> Inversion {
    if has_loop_cap(info) {
        Inversion::Fermat
    } else if Inversion::Safegcd64.supports(layout) {
        Inversion::Safegcd64
    } else {
        Inversion::Safegcd
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

/// An adapter's info as a test needs it: name, driver, type and backend.
#[cfg(test)]
pub(crate) fn test_adapter_info(
    name: &str,
    driver: &str,
    device_type: wgpu::DeviceType,
    backend: wgpu::Backend,
) -> wgpu::AdapterInfo {
    wgpu::AdapterInfo {
        name: name.into(),
        vendor: 0,
        device: 0,
        device_type,
        device_pci_bus_id: String::new(),
        driver: driver.into(),
        driver_info: String::new(),
        backend,
        subgroup_min_size: 0,
        subgroup_max_size: 0,
        transient_saves_memory: None,
        limit_bucket: None,
    }
}

#[cfg(test)]
mod tests {
    use super::test_adapter_info as info;
    use super::*;

    #[test]
    fn classes_follow_what_the_adapter_says() {
        use wgpu::{Backend::*, DeviceType::*};
        let cases = [
            // native lavapipe, and lavapipe under Dawn (flagged as a fallback adapter)
            (
                info("llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe", Cpu, Vulkan),
                AdapterClass::Lavapipe,
            ),
            (
                info("llvmpipe: Mesa 25.0.7 (LLVM 15.0.6) 0.0.1", "", Cpu, BrowserWebGpu),
                AdapterClass::Lavapipe,
            ),
            // SwiftShader natively, and Chromium's fallback adapter, which names nothing
            (
                info("SwiftShader Device (Subzero)", "", Cpu, Vulkan),
                AdapterClass::SwiftShader,
            ),
            (info("", "", Cpu, BrowserWebGpu), AdapterClass::SwiftShader),
            (
                info("Microsoft Basic Render Driver", "", Cpu, Dx12),
                AdapterClass::OtherCpu,
            ),
            // GPUs natively and under Dawn (the web reports no device type)
            (info("NVIDIA H200", "NVIDIA", DiscreteGpu, Vulkan), AdapterClass::Gpu),
            (
                info("NVIDIA: 580.159.04 580.159.4.0", "", Other, BrowserWebGpu),
                AdapterClass::Gpu,
            ),
        ];
        for (i, want) in &cases {
            let want = *want;
            assert_eq!(AdapterClass::of(i), want, "{i:?}");
            assert_eq!(has_loop_cap(i), want == AdapterClass::Lavapipe);
            assert_eq!(is_swiftshader(i), want == AdapterClass::SwiftShader);
        }
        let dawn_lavapipe = &cases[1].0;
        let code = |i: &wgpu::AdapterInfo, c| default_field_code(i, c, FieldLayout::Limbs13x20);
        assert_eq!(code(dawn_lavapipe, Curve::Bls12_381G2), FieldCode::Unrolled);
        let dawn_gpu = &cases.last().unwrap().0;
        assert_eq!(code(dawn_gpu, Curve::Bls12_381G2), FieldCode::Rows);
        assert_eq!(code(dawn_gpu, Curve::Bn254G2), FieldCode::Mixed);
        assert_eq!(code(dawn_gpu, Curve::Bls12_381G1), FieldCode::Mixed);
        let wide = default_field_code(dawn_gpu, Curve::Bls12_381G2, FieldLayout::Limbs32x8);
        assert_eq!(wide, FieldCode::Rows);
        let lavapipe = &cases[0].0;
        assert_eq!(AdapterClass::of(lavapipe), AdapterClass::Lavapipe);
        let native = |c| default_field_code(lavapipe, c, FieldLayout::Limbs32x8);
        assert_eq!(native(Curve::Bls12_381G1), FieldCode::Mixed);
        assert_eq!(native(Curve::Bn254G2), FieldCode::Unrolled);
        assert_eq!(code(lavapipe, Curve::Bn254G1), FieldCode::Unrolled);
        assert_eq!(
            default_inversion(dawn_lavapipe, FieldLayout::Limbs13x20),
            Inversion::Fermat
        );
    }
}
