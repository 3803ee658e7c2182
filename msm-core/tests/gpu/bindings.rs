//! The host's view of each pass against its WGSL, without a GPU: every
//! binding (index, name, access) matches the shader's declarations, every
//! override a kernel sets exists in the shader, and every kernel's workgroup
//! size, once the host's overrides are applied, is the size the host
//! dispatches by.

use crate::common;
use msm_core::config::{MsmConfig, PrefMem};
use msm_core::passes::{Access, Pass};
use msm_core::plan::AdapterBounds;
use msm_wgsl::{FieldLayout, ShaderLibrary};
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn module(lib: &ShaderLibrary, pass: Pass, config: &MsmConfig) -> (naga::Module, naga::valid::ModuleInfo) {
    let src = lib.source(pass.shader(config)).unwrap();
    let module = naga::front::wgsl::parse_str(&src).unwrap();
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .unwrap();
    (module, info)
}

fn bounds() -> AdapterBounds {
    AdapterBounds {
        max_workgroup_size_x: 1024,
        max_invocations_per_workgroup: 1024,
        max_workgroup_storage: 49152,
        max_binding_size: 1 << 31,
        loop_capped: false,
        inversion_loops: 78,
        mul_loops: 0,
        walker_mul_loops: 0,
        field_int64: true,
        curve: msm_core::Curve::Bn254G1,
    }
}

#[test]
fn bindings_match_the_shaders() {
    common::fast_lavapipe_compile();
    let lib = ShaderLibrary::new(FieldLayout::Limbs13x20).unwrap();
    for pass in Pass::ALL {
        let (m, _) = module(&lib, pass, &MsmConfig::default());
        let mut declared: Vec<(u32, String, Access)> = m
            .global_variables
            .iter()
            .filter_map(|(_, v)| {
                let b = v.binding.as_ref()?;
                assert_eq!(b.group, 0, "{pass}: {:?} outside group 0", v.name);
                let access = match v.space {
                    naga::AddressSpace::Uniform => Access::Uniform,
                    naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                        Access::ReadWrite
                    }
                    naga::AddressSpace::Storage { .. } => Access::ReadOnly,
                    other => panic!("{pass}: unexpected address space {other:?}"),
                };
                Some((b.binding, v.name.clone().unwrap(), access))
            })
            .collect();
        declared.sort_by_key(|d| d.0);
        let host: Vec<(u32, String, Access)> = pass
            .bindings()
            .iter()
            .map(|b| (b.index, b.name.to_string(), b.access))
            .collect();
        assert_eq!(declared, host, "{pass}: host bindings differ from the WGSL");
    }
}

#[test]
fn kernels_match_the_shaders() {
    common::fast_lavapipe_compile();
    let lib = ShaderLibrary::new(FieldLayout::Limbs13x20).unwrap();
    let configs = [
        MsmConfig::default(),
        MsmConfig {
            walker_tpb: 96,
            walker_slots: 2,
            walker_pref_mem: PrefMem::Workgroup,
            ..Default::default()
        },
        MsmConfig {
            walker_tpb: 256,
            walker_slots: 1,
            walker_threads: Some(300_000),
            window_bits: Some(16),
            ..Default::default()
        },
    ];
    for config in &configs {
        for n in [1usize, 1000, 1 << 16] {
            let plan = config.plan(n, &bounds()).unwrap();
            for pass in Pass::ALL {
                let (m, info) = module(&lib, pass, config);
                for k in pass.kernels(config, &plan) {
                    let mut constants = naga::back::PipelineConstants::default();
                    for (name, value) in &k.overrides {
                        assert!(
                            m.overrides.iter().any(|(_, o)| o.name.as_deref() == Some(*name)),
                            "{pass}.{}: the shader has no override {name}",
                            k.entry
                        );
                        constants.insert(name.to_string(), *value);
                    }
                    let (m2, _) = naga::back::pipeline_constants::process_overrides(
                        &m,
                        &info,
                        Some((naga::ShaderStage::Compute, k.entry)),
                        &constants,
                    )
                    .unwrap_or_else(|e| panic!("{pass}.{}: {e:?}", k.entry));
                    let ep = m2
                        .entry_points
                        .iter()
                        .find(|e| e.name == k.entry)
                        .unwrap_or_else(|| panic!("{pass}: no entry point {}", k.entry));
                    assert_eq!(
                        ep.workgroup_size,
                        [k.workgroup_size, 1, 1],
                        "{pass}.{}: workgroup size",
                        k.entry
                    );
                }
            }
        }
    }
}

/// The WGSL's own override defaults are the host's values for the default
/// knobs (LEVEL, which each `blocks` dispatch sets, aside), so that reading a
/// shader alone tells the sizes it runs with.
#[test]
fn wgsl_override_defaults_are_the_hosts() {
    common::fast_lavapipe_compile();
    let lib = ShaderLibrary::new(FieldLayout::Limbs13x20).unwrap();
    let config = MsmConfig::default();
    let plan = config.plan(1 << 16, &bounds()).unwrap();
    for pass in Pass::ALL {
        let (m, _) = module(&lib, pass, &config);
        for k in pass.kernels(&config, &plan) {
            for (name, value) in k.overrides.iter().filter(|(n, _)| *n != "LEVEL") {
                let (_, o) = m
                    .overrides
                    .iter()
                    .find(|(_, o)| o.name.as_deref() == Some(*name))
                    .unwrap_or_else(|| panic!("{pass}: no override {name}"));
                let init = o.init.unwrap_or_else(|| panic!("{pass}: {name} has no default"));
                let default = match m.global_expressions[init] {
                    naga::Expression::Literal(naga::Literal::U32(v)) => v as f64,
                    ref e => panic!("{pass}: {name} = {e:?}, expected a u32 literal"),
                };
                assert_eq!(default, *value, "{pass}.{}: WGSL default of {name}", k.entry);
            }
        }
    }
}
