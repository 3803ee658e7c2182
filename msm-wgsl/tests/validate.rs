//! Every shader of every layout parses and validates with naga; portable layouts
//! validate without 64-bit integers.

use msm_wgsl::{FieldLayout, ShaderId, ShaderLibrary};
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn validate(src: &str, caps: Capabilities) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    Validator::new(ValidationFlags::all(), caps)
        .validate(&module)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

#[test]
fn every_shader_validates_for_every_layout() {
    for layout in FieldLayout::ALL {
        let lib = ShaderLibrary::new(layout).unwrap();
        let caps = if layout.needs_int64() {
            Capabilities::SHADER_INT64
        } else {
            Capabilities::empty()
        };
        for id in ShaderId::ALL {
            if let Err(e) = validate(lib.source(id), caps) {
                panic!("{} ({layout}) failed to validate:\n{e}", id.label());
            }
        }
    }
}

#[test]
fn wide_layout_really_needs_int64() {
    let lib = ShaderLibrary::new(FieldLayout::Limbs32x8).unwrap();
    assert!(validate(lib.source(ShaderId::FieldOps), Capabilities::empty()).is_err());
}
