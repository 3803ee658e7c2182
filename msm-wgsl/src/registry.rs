//! The typed shader registry: every shader of the library, preprocessed for one
//! field layout, addressed by [`ShaderId`] rather than by string.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::fieldgen::field_module;
use crate::layout::FieldLayout;
use crate::preprocess::{preprocess, ModuleSource, PreprocessError};

/// Shared modules, importable with `#import <name>`.
struct Modules {
    field: String,
}

impl ModuleSource for Modules {
    fn module(&self, name: &str) -> Option<Cow<'_, str>> {
        Some(match name {
            "field" => Cow::Borrowed(self.field.as_str()),
            "curve" => Cow::Borrowed(include_str!("../shaders/shared/curve.wgsl")),
            "config" => Cow::Borrowed(include_str!("../shaders/shared/config.wgsl")),
            _ => return None,
        })
    }
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
}

impl ShaderId {
    pub const ALL: [ShaderId; 4] = [
        ShaderId::FieldOps,
        ShaderId::CurveOps,
        ShaderId::FieldBench,
        ShaderId::LoopProbe,
    ];

    /// Label for GPU objects and error messages.
    pub const fn label(self) -> &'static str {
        match self {
            ShaderId::FieldOps => "field_ops",
            ShaderId::CurveOps => "curve_ops",
            ShaderId::FieldBench => "field_bench",
            ShaderId::LoopProbe => "loop_probe",
        }
    }

    fn root(self) -> &'static str {
        match self {
            ShaderId::FieldOps => include_str!("../shaders/tests/field_ops.wgsl"),
            ShaderId::CurveOps => include_str!("../shaders/tests/curve_ops.wgsl"),
            ShaderId::FieldBench => include_str!("../shaders/tests/field_bench.wgsl"),
            ShaderId::LoopProbe => include_str!("../shaders/tests/loop_probe.wgsl"),
        }
    }
}

/// Every shader, expanded to plain WGSL for one field layout.
#[derive(Clone, Debug)]
pub struct ShaderLibrary {
    layout: FieldLayout,
    sources: Vec<String>,
}

impl ShaderLibrary {
    /// Preprocesses every shader for `layout`.
    pub fn new(layout: FieldLayout) -> Result<Self, PreprocessError> {
        let modules = Modules {
            field: field_module(layout),
        };
        let mut defines = HashSet::new();
        if layout.needs_int64() {
            defines.insert("FIELD_INT64");
        }
        let sources = ShaderId::ALL
            .iter()
            .map(|id| preprocess(id.label(), id.root(), &modules, &defines))
            .collect::<Result<_, _>>()?;
        Ok(ShaderLibrary { layout, sources })
    }

    pub fn layout(&self) -> FieldLayout {
        self.layout
    }

    /// The plain WGSL of one shader.
    pub fn source(&self, id: ShaderId) -> &str {
        let idx = ShaderId::ALL
            .iter()
            .position(|x| *x == id)
            .expect("every id is in ALL");
        &self.sources[idx]
    }
}
