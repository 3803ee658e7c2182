//! The typed shader registry: every shader of the library, preprocessed for one
//! field layout, addressed by [`ShaderId`] rather than by string.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::fieldgen::{
    curve_params_module, field_module_for, scalar_module_for, subgroup_params_module, FieldCode, FieldOptions,
    Inversion,
};
use crate::layout::FieldLayout;
use crate::preprocess::{preprocess_unrolled, ModuleSource, PreprocessError};

/// Shared modules, importable with `#import <name>`.
struct Modules<'a> {
    curve_params: &'a str,
    field: &'a str,
    scalar: &'a str,
    subgroup_params: &'a str,
    walker_config: String,
}

impl ModuleSource for Modules<'_> {
    fn module(&self, name: &str) -> Option<Cow<'_, str>> {
        Some(match name {
            "curve_params" => Cow::Borrowed(self.curve_params),
            "field" => Cow::Borrowed(self.field),
            "scalar" => Cow::Borrowed(self.scalar),
            "subgroup_params" => Cow::Borrowed(self.subgroup_params),
            "walker_config" => Cow::Borrowed(self.walker_config.as_str()),
            "curve" => Cow::Borrowed(include_str!("../shaders/shared/curve.wgsl")),
            "config" => Cow::Borrowed(include_str!("../shaders/shared/config.wgsl")),
            "batch_inverse" => Cow::Borrowed(include_str!("../shaders/shared/batch_inverse.wgsl")),
            "jacobian" => Cow::Borrowed(include_str!("../shaders/shared/jacobian.wgsl")),
            _ => return None,
        })
    }
}

/// The compile-time shape of the stream walker: what changes types or code
/// structure (TPB is a pipeline override instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WalkerVariant {
    /// Slots per thread (S): the batch size of the shared inversion.
    pub slots: u32,
    /// `pref_scratch` in workgroup memory (else private).
    pub pref_workgroup: bool,
    /// Keep each slot's denominator for the inverse pass instead of re-gathering.
    pub cache_dx: bool,
    /// Fuse the inverse and peel passes.
    pub fused: bool,
    /// Write the slot loops out S times (constant slot indices, so drivers
    /// can keep slot state in registers) instead of looping.
    pub unroll: bool,
    /// Straight-line field code in this walker whatever the library's
    /// (row loops, looped).
    pub straight: bool,
}

/// One shader of the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShaderId {
    /// Test entry point: one field operation per invocation.
    FieldOps,
    /// Test entry point: one curve operation per invocation.
    CurveOps,
    /// Chained multiplications (throughput and loop-budget check).
    FieldBench,
    /// A counted loop that reveals a driver's loop-iteration cap.
    LoopProbe,
    /// Test entry point: one scalar conversion per invocation.
    ScalarOps,
    /// Pass 1: digits, histogram, scan, scatter (entry points `histogram`, `scan`, `scatter`).
    Preprocess,
    /// Pass 2: batch-affine bucket accumulation.
    StreamWalker(WalkerVariant),
    /// Pass 3: joins split buckets.
    WalkerCombine,
    /// Pass 4: window sums (entry points `segments`, `windows`).
    Reduce,
    /// Resident bases from caller bytes: converted and checked (entry point `convert`).
    Bases,
    /// A table of shifted bases, one window per dispatch (entry point `shift`).
    Table,
    /// Resident bases checked for membership in the prime-order subgroup
    /// (entry point `check`).
    Subgroup,
}

impl ShaderId {
    /// Every shader without variants.
    pub const FIXED: [ShaderId; 11] = [
        ShaderId::FieldOps,
        ShaderId::CurveOps,
        ShaderId::FieldBench,
        ShaderId::LoopProbe,
        ShaderId::ScalarOps,
        ShaderId::Preprocess,
        ShaderId::WalkerCombine,
        ShaderId::Reduce,
        ShaderId::Bases,
        ShaderId::Table,
        ShaderId::Subgroup,
    ];

    /// Label for GPU objects and error messages.
    pub const fn label(self) -> &'static str {
        match self {
            ShaderId::FieldOps => "field_ops",
            ShaderId::CurveOps => "curve_ops",
            ShaderId::FieldBench => "field_bench",
            ShaderId::LoopProbe => "loop_probe",
            ShaderId::ScalarOps => "scalar_ops",
            ShaderId::Preprocess => "preprocess",
            ShaderId::StreamWalker(_) => "stream_walker",
            ShaderId::WalkerCombine => "walker_combine",
            ShaderId::Reduce => "reduce",
            ShaderId::Bases => "bases",
            ShaderId::Table => "table",
            ShaderId::Subgroup => "subgroup",
        }
    }

    fn root(self) -> &'static str {
        match self {
            ShaderId::FieldOps => include_str!("../shaders/tests/field_ops.wgsl"),
            ShaderId::CurveOps => include_str!("../shaders/tests/curve_ops.wgsl"),
            ShaderId::FieldBench => include_str!("../shaders/tests/field_bench.wgsl"),
            ShaderId::LoopProbe => include_str!("../shaders/tests/loop_probe.wgsl"),
            ShaderId::ScalarOps => include_str!("../shaders/tests/scalar_ops.wgsl"),
            ShaderId::Preprocess => include_str!("../shaders/preprocess.wgsl"),
            ShaderId::StreamWalker(_) => include_str!("../shaders/stream_walker.wgsl"),
            ShaderId::WalkerCombine => include_str!("../shaders/walker_combine.wgsl"),
            ShaderId::Reduce => include_str!("../shaders/reduce.wgsl"),
            ShaderId::Bases => include_str!("../shaders/bases.wgsl"),
            ShaderId::Table => include_str!("../shaders/table.wgsl"),
            ShaderId::Subgroup => include_str!("../shaders/subgroup.wgsl"),
        }
    }
}

/// Every shader, expandable to plain WGSL for one field layout.
#[derive(Clone, Debug)]
pub struct ShaderLibrary {
    opts: FieldOptions,
    curve_params: String,
    field: String,
    scalar: String,
    subgroup_params: String,
    /// The stream walker's field module where its code differs (`Mixed`).
    walker_field: Option<String>,
    /// Straight-line field code for walkers that ask for it, made on first
    /// use.
    straight_field: std::sync::OnceLock<String>,
}

impl ShaderLibrary {
    /// The library for `layout` with unrolled field code and Fermat inversion.
    pub fn new(layout: FieldLayout) -> Result<Self, PreprocessError> {
        Self::with_options(FieldOptions::new(layout))
    }

    /// The library whose field module is generated as `opts` says.
    pub fn with_options(opts: FieldOptions) -> Result<Self, PreprocessError> {
        let lib = ShaderLibrary {
            opts,
            curve_params: curve_params_module(opts.field, opts.coords),
            field: field_module_for(&opts),
            scalar: scalar_module_for(opts.field),
            subgroup_params: subgroup_params_module(opts.field, opts.coords),
            walker_field: (opts.for_walker() != opts).then(|| field_module_for(&opts.for_walker())),
            straight_field: Default::default(),
        };
        for id in lib.fixed_ids() {
            lib.source(id)?;
        }
        Ok(lib)
    }

    /// The shaders without variants (every one, in every group).
    pub fn fixed_ids(&self) -> impl Iterator<Item = ShaderId> {
        ShaderId::FIXED.into_iter()
    }

    pub fn options(&self) -> FieldOptions {
        self.opts
    }

    pub fn layout(&self) -> FieldLayout {
        self.opts.layout
    }

    pub fn field_code(&self) -> FieldCode {
        self.opts.code
    }

    pub fn inversion(&self) -> Inversion {
        self.opts.inversion
    }

    /// The plain WGSL of one shader.
    pub fn source(&self, id: ShaderId) -> Result<String, PreprocessError> {
        let mut defines = HashSet::new();
        if self.opts.layout.needs_int64() {
            defines.insert("FIELD_INT64");
        }
        let mut walker_config = String::new();
        let mut unroll = None;
        let mut field = &self.field;
        if let ShaderId::StreamWalker(v) = id {
            field = self.walker_field.as_ref().unwrap_or(field);
            if v.straight && self.opts.for_walker().code != FieldCode::Unrolled {
                let straight = FieldOptions {
                    code: FieldCode::Unrolled,
                    ..self.opts
                };
                field = self.straight_field.get_or_init(|| field_module_for(&straight));
            }
            unroll = v.unroll.then_some(v.slots);
            walker_config = format!("// slots per walker thread\nconst S: u32 = {}u;\n", v.slots);
            for (on, name) in [
                (v.pref_workgroup, "PREF_WORKGROUP"),
                (v.cache_dx, "CACHE_DX"),
                (v.fused, "FUSED"),
            ] {
                if on {
                    defines.insert(name);
                }
            }
        }
        let modules = Modules {
            curve_params: &self.curve_params,
            field,
            scalar: &self.scalar,
            subgroup_params: &self.subgroup_params,
            walker_config,
        };
        preprocess_unrolled(id.label(), id.root(), &modules, &defines, unroll)
    }
}
