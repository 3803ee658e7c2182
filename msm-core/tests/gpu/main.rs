//! The correctness tests of the GPU code in one binary: one link of the
//! dependency tree instead of one per file, and one context per layout
//! shared by all of them (its pipelines compiled once a process). Run one
//! file's tests with a filter: `cargo test -p msm-core --test gpu msm::`.
//!
//! The tests that watch the process or the context as a whole stay in
//! binaries of their own, where no other test can disturb what they
//! measure: object counts on a warm call (`host`, `batch`), memory
//! (`memory`), timing (`asynchrony`), lost devices and uncaptured errors
//! (`device_lost`, `device_error`), threads (`concurrency`), timeouts
//! (`reliability`), the engine (`engine`) and a compile-time check
//! (`futures`).
//!
//! Every test here starts with `common::fast_lavapipe_compile()`, so that
//! the variable is set before the binary's first context, whichever test
//! creates it.

#[path = "../common/mod.rs"]
mod common;

/// Declares the modules and keeps their sources for the check below.
macro_rules! modules {
    ($($m:ident),+ $(,)?) => {
        $(mod $m;)+
        const SOURCES: &[(&str, &str)] = &[$((stringify!($m), include_str!(concat!(stringify!($m), ".rs")))),+];
    };
}

modules!(
    bases,
    bindings,
    bls12_381,
    bls12_381_msm,
    chain,
    curve,
    field,
    fuzz,
    g2,
    groth16,
    knob_cover,
    loop_cap,
    msm,
    plans,
    scalars,
    subgroup,
    table,
    twins,
);

/// Every test of this binary calls `common::fast_lavapipe_compile()` as
/// its first statement (the flag must be set before any context of the
/// process, whichever test makes it first).
#[test]
fn every_test_sets_the_compile_flag_first() {
    for (module, text) in SOURCES {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "#[test]" {
                continue;
            }
            // the body opens on the first line ending in `{` after the fn
            let open = (i..lines.len())
                .skip_while(|&k| !lines[k].trim_start().starts_with("fn "))
                .find(|&k| lines[k].trim_end().ends_with('{'))
                .unwrap_or_else(|| panic!("{module}.rs:{}: a test without a body", i + 1));
            assert_eq!(
                lines.get(open + 1).map(|l| l.trim()),
                Some("common::fast_lavapipe_compile();"),
                "{module}.rs:{}: the test's first statement",
                open + 2
            );
        }
    }
}
