//! The four GPU passes, one module each beside its WGSL file in
//! `msm-wgsl/shaders/`: its bindings (an explicit bind-group layout, checked
//! against the WGSL declarations by a test), its kernels with their workgroup
//! sizes and override constants, its dispatch sizes, and a link to its CPU
//! twin in [`crate::cpu`].
//!
//! | pass | WGSL | host | CPU twin |
//! | --- | --- | --- | --- |
//! | preprocess | `preprocess.wgsl` | [`preprocess`] | [`crate::cpu::preprocess()`] |
//! | stream_walker | `stream_walker.wgsl` | [`stream_walker`] | [`crate::cpu::walker`] |
//! | walker_combine | `walker_combine.wgsl` | [`walker_combine`] | [`crate::cpu::combine`] |
//! | reduce | `reduce.wgsl` | [`reduce`] | [`crate::cpu::reduce`] |

pub mod buffers;
pub mod preprocess;
pub mod reduce;
pub mod stream_walker;
pub mod walker_combine;

use msm_wgsl::ShaderId;

pub use buffers::Buf;

use crate::config::MsmConfig;
use crate::plan::Plan;

/// One pass of the MSM pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pass {
    Preprocess,
    StreamWalker,
    WalkerCombine,
    Reduce,
}

impl Pass {
    /// Every pass, in pipeline order.
    pub const ALL: [Pass; 4] = [Pass::Preprocess, Pass::StreamWalker, Pass::WalkerCombine, Pass::Reduce];

    pub const fn name(self) -> &'static str {
        match self {
            Pass::Preprocess => "preprocess",
            Pass::StreamWalker => "stream_walker",
            Pass::WalkerCombine => "walker_combine",
            Pass::Reduce => "reduce",
        }
    }

    /// Position in [`Pass::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The pass's bindings, in binding order.
    pub fn bindings(self) -> &'static [Binding] {
        match self {
            Pass::Preprocess => preprocess::BINDINGS,
            Pass::StreamWalker => stream_walker::BINDINGS,
            Pass::WalkerCombine => walker_combine::BINDINGS,
            Pass::Reduce => reduce::BINDINGS,
        }
    }

    /// The shader of this pass under `config` (the walker has variants).
    pub fn shader(self, config: &MsmConfig) -> ShaderId {
        match self {
            Pass::Preprocess => ShaderId::Preprocess,
            Pass::StreamWalker => ShaderId::StreamWalker(config.walker_variant()),
            Pass::WalkerCombine => ShaderId::WalkerCombine,
            Pass::Reduce => ShaderId::Reduce,
        }
    }

    /// The kernels this pass dispatches for `plan`, in order, with their
    /// override constants and workgroup counts.
    pub fn kernels(self, config: &MsmConfig, plan: &Plan) -> Vec<Kernel> {
        match self {
            Pass::Preprocess => preprocess::kernels(plan),
            Pass::StreamWalker => stream_walker::kernels(config, plan),
            Pass::WalkerCombine => walker_combine::kernels(plan),
            Pass::Reduce => reduce::kernels(plan),
        }
    }
}

impl std::fmt::Display for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a shader reads a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Uniform,
    ReadOnly,
    ReadWrite,
}

/// One `@group(0) @binding(index)` declaration of a pass's shader: which
/// buffer it binds and how the shader reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub index: u32,
    pub buf: Buf,
    /// The WGSL variable's name (the buffer's).
    pub name: &'static str,
    pub access: Access,
}

impl Binding {
    const fn new(index: u32, buf: Buf, access: Access) -> Self {
        Binding {
            index,
            buf,
            name: buf.wgsl(),
            access,
        }
    }
    pub const fn uniform(index: u32, buf: Buf) -> Self {
        Self::new(index, buf, Access::Uniform)
    }
    pub const fn read(index: u32, buf: Buf) -> Self {
        Self::new(index, buf, Access::ReadOnly)
    }
    pub const fn write(index: u32, buf: Buf) -> Self {
        Self::new(index, buf, Access::ReadWrite)
    }

    fn layout_entry(&self) -> wgpu::BindGroupLayoutEntry {
        let ty = match self.access {
            Access::Uniform => wgpu::BufferBindingType::Uniform,
            Access::ReadOnly => wgpu::BufferBindingType::Storage { read_only: true },
            Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
        };
        wgpu::BindGroupLayoutEntry {
            binding: self.index,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }
    }
}

/// The explicit bind-group layout of a pass: every binding of its shader,
/// shared by all of its entry points.
pub(crate) fn bind_group_layout(device: &wgpu::Device, pass: Pass) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = pass.bindings().iter().map(Binding::layout_entry).collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(pass.name()),
        entries: &entries,
    })
}

/// A bind group of `pass`: each binding's buffer as `buffer` finds it.
pub(crate) fn bind_group<'b>(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    pass: Pass,
    buffer: impl Fn(Buf) -> &'b wgpu::Buffer,
) -> wgpu::BindGroup {
    let entries: Vec<_> = pass
        .bindings()
        .iter()
        .map(|b| wgpu::BindGroupEntry {
            binding: b.index,
            resource: buffer(b.buf).as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(pass.name()),
        layout,
        entries: &entries,
    })
}

/// One dispatch of a pass: its entry point, override constants (by name, as
/// the shader declares them) and workgroup count.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub entry: &'static str,
    pub overrides: Vec<(&'static str, f64)>,
    /// Workgroups in x; the shaders rebuild linear indices from a 2-D grid
    /// when x exceeds the adapter's per-dimension limit.
    pub groups: u32,
    /// Invocations per workgroup (the shader's `@workgroup_size`, also set
    /// through an override where it is one).
    pub workgroup_size: u32,
}

impl Kernel {
    pub(crate) fn new(entry: &'static str, workgroup_size: u32, groups: u32) -> Self {
        Kernel {
            entry,
            overrides: Vec::new(),
            groups,
            workgroup_size,
        }
    }

    pub(crate) fn with(mut self, name: &'static str, value: u32) -> Self {
        self.overrides.push((name, value as f64));
        self
    }

    /// A label naming the pass and entry point (for timings and GPU errors).
    pub fn label(&self, pass: Pass) -> String {
        format!("{}.{}", pass.name(), self.entry)
    }
}

pub(crate) use crate::plan::geometry::{tree_leaves, tree_overrides};

/// Bytes of the GPU buffers the passes use for `plan` (the context's
/// per-plan scratch), before the bases and the results: the GPU memory one
/// chunk adds. The scratch allocates from the same list.
pub fn scratch_bytes(plan: &Plan) -> u64 {
    Buf::SCRATCH.iter().map(|b| b.bytes(plan)).sum()
}
