//! Every shader of every layout (and every walker variant) parses and validates
//! with naga; portable layouts validate without 64-bit integers.

use msm_wgsl::registry::WalkerVariant;
use msm_wgsl::{BaseField, Coords, FieldCode, FieldLayout, FieldOptions, Inversion, ShaderId, ShaderLibrary};
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn validate(src: &str, caps: Capabilities) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    Validator::new(ValidationFlags::all(), caps)
        .validate(&module)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

/// What naga needs to validate `layout`'s shaders (64-bit integers or none).
fn caps_for(layout: FieldLayout) -> Capabilities {
    if layout.needs_int64() {
        Capabilities::SHADER_INT64
    } else {
        Capabilities::empty()
    }
}

fn walker_variants() -> Vec<WalkerVariant> {
    let mut v = Vec::new();
    for slots in [1, 2, 4, 8, 16] {
        for pref_workgroup in [false, true] {
            for cache_dx in [false, true] {
                for fused in [false, true] {
                    for unroll in [false, true] {
                        v.push(WalkerVariant {
                            slots,
                            pref_workgroup,
                            cache_dx,
                            fused,
                            unroll,
                            straight: false,
                        });
                    }
                }
            }
        }
    }
    v
}

#[test]
fn every_shader_validates_for_every_layout() {
    for (layout, inversion) in FieldLayout::ALL
        .into_iter()
        .flat_map(|l| Inversion::ALL.map(|i| (l, i)))
        .filter(|(l, i)| i.supports(*l))
    {
        let lib = ShaderLibrary::with_options(FieldOptions {
            inversion,
            ..FieldOptions::new(layout)
        })
        .unwrap();
        let caps = caps_for(layout);
        let ids = ShaderId::FIXED
            .into_iter()
            .chain(walker_variants().into_iter().map(ShaderId::StreamWalker));
        for id in ids {
            if let Err(e) = validate(&lib.source(id).unwrap(), caps) {
                panic!("{id:?} ({layout}, {inversion}) failed to validate:\n{e}");
            }
        }
    }
}

#[test]
fn every_shader_validates_for_bls12_381() {
    for (layout, inversion) in FieldLayout::ALL
        .into_iter()
        .flat_map(|l| Inversion::ALL.map(|i| (l, i)))
        .filter(|(l, i)| i.supports(*l))
    {
        let lib = ShaderLibrary::with_options(FieldOptions {
            field: BaseField::Bls12_381,
            layout,
            inversion,
            ..Default::default()
        })
        .unwrap();
        let caps = caps_for(layout);
        let walkers = walker_variants().into_iter().filter(|v| v.slots <= 4 && !v.unroll);
        for id in ShaderId::FIXED.into_iter().chain(walkers.map(ShaderId::StreamWalker)) {
            let src = lib.source(id).unwrap();
            let words = src.contains("alias FqWords = array<u32, 12>;");
            assert!(
                words || matches!(id, ShaderId::LoopProbe | ShaderId::ScalarOps),
                "{id:?} ({layout}): not 12 words"
            );
            if let Err(e) = validate(&src, caps) {
                panic!("BLS12-381 {id:?} ({layout}, {inversion}) failed to validate:\n{e}");
            }
        }
    }
    // and the looped field code
    let lib = ShaderLibrary::with_options(FieldOptions {
        field: BaseField::Bls12_381,
        code: FieldCode::Looped,
        ..Default::default()
    })
    .unwrap();
    validate(&lib.source(ShaderId::FieldOps).unwrap(), Capabilities::empty()).unwrap();
}

/// Every inversion too: the base field's module is renamed into Fq2's, so
/// a constant of an inversion's can collide with `curve_params`' (bingcd's
/// packed p once did, on every native GPU).
#[test]
fn every_shader_validates_over_fq2() {
    for field in BaseField::ALL {
        for (layout, inversion) in FieldLayout::ALL
            .into_iter()
            .flat_map(|l| Inversion::ALL.map(|i| (l, i)))
            .filter(|(l, i)| i.supports(*l))
        {
            let lib = ShaderLibrary::with_options(FieldOptions {
                field,
                coords: Coords::Fq2,
                layout,
                inversion,
                ..Default::default()
            })
            .unwrap();
            assert!(
                lib.fixed_ids().any(|id| id == ShaderId::Bases),
                "the byte decoder over Fq2 too"
            );
            let caps = caps_for(layout);
            let walkers = walker_variants().into_iter().filter(|v| v.slots <= 4 && !v.unroll);
            let words = if field == BaseField::Bn254 { 16 } else { 24 };
            for id in lib.fixed_ids().chain(walkers.map(ShaderId::StreamWalker)) {
                let src = lib.source(id).unwrap();
                assert!(
                    src.contains(&format!("alias FqWords = array<u32, {words}>;"))
                        || matches!(id, ShaderId::LoopProbe | ShaderId::ScalarOps),
                    "{id:?} ({field} {layout}): not {words} words"
                );
                if let Err(e) = validate(&src, caps) {
                    panic!("{field} G2 {id:?} ({layout}, {inversion}) failed to validate:\n{e}");
                }
            }
        }
    }
}

#[test]
fn looped_field_code_validates() {
    let lib = ShaderLibrary::with_options(FieldOptions {
        code: FieldCode::Looped,
        ..FieldOptions::new(FieldLayout::Limbs13x20)
    })
    .unwrap();
    assert!(lib
        .source(ShaderId::FieldOps)
        .unwrap()
        .contains("for (var j = 0u; j < 20u; j++)"));
    let ids = ShaderId::FIXED
        .into_iter()
        .chain(walker_variants().into_iter().map(ShaderId::StreamWalker));
    for id in ids {
        if let Err(e) = validate(&lib.source(id).unwrap(), Capabilities::empty()) {
            panic!("{id:?} (13x20, looped) failed to validate:\n{e}");
        }
    }
}

/// The row-loop multiplication in every layout, over Fq and Fq2, and every
/// shader over it.
#[test]
fn rows_field_code_validates() {
    for layout in FieldLayout::ALL {
        for coords in [Coords::Fq, Coords::Fq2] {
            let lib = ShaderLibrary::with_options(FieldOptions {
                code: FieldCode::Rows,
                coords,
                ..FieldOptions::new(layout)
            })
            .unwrap();
            let n = layout.limb_count();
            assert!(lib
                .source(ShaderId::FieldOps)
                .unwrap()
                .contains(&format!("for (var i = 0u; i < {}u; i++)", n / 2)));
            let ids = ShaderId::FIXED
                .into_iter()
                .chain(walker_variants().into_iter().map(ShaderId::StreamWalker));
            for id in ids {
                if let Err(e) = validate(&lib.source(id).unwrap(), caps_for(layout)) {
                    panic!("{id:?} ({layout}, {coords:?}, rows) failed to validate:\n{e}");
                }
            }
        }
    }
}

/// A straight walker over row-loop (or looped) field code is the walker of
/// the straight-line library, byte for byte, and validates; over
/// straight-line code it changes nothing.
#[test]
fn straight_walkers_take_straight_line_field_code() {
    let walker = |straight| {
        ShaderId::StreamWalker(WalkerVariant {
            slots: 4,
            pref_workgroup: false,
            cache_dx: true,
            fused: false,
            unroll: false,
            straight,
        })
    };
    for layout in FieldLayout::ALL {
        for coords in [Coords::Fq, Coords::Fq2] {
            let lib = |code| {
                ShaderLibrary::with_options(FieldOptions {
                    code,
                    coords,
                    ..FieldOptions::new(layout)
                })
                .unwrap()
            };
            let straight = lib(FieldCode::Unrolled).source(walker(false)).unwrap();
            for code in [
                FieldCode::Rows,
                FieldCode::Looped,
                FieldCode::Mixed,
                FieldCode::Unrolled,
            ] {
                let lib = lib(code);
                assert_eq!(
                    lib.source(walker(true)).unwrap(),
                    straight,
                    "{layout} {coords:?} {code}"
                );
            }
            assert_ne!(lib(FieldCode::Rows).source(walker(false)).unwrap(), straight);
            if let Err(e) = validate(&straight, caps_for(layout)) {
                panic!("straight walker ({layout}, {coords:?}) failed to validate:\n{e}");
            }
        }
    }
}

#[test]
fn wide_layout_really_needs_int64() {
    let lib = ShaderLibrary::new(FieldLayout::Limbs32x8).unwrap();
    assert!(validate(&lib.source(ShaderId::FieldOps).unwrap(), Capabilities::empty()).is_err());
}
