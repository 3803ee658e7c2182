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

mod bases;
mod bindings;
mod bls12_381;
mod bls12_381_msm;
mod curve;
mod field;
mod fuzz;
mod g2;
mod groth16;
mod loop_cap;
mod msm;
mod plans;
mod scalars;
mod subgroup;
mod table;
mod twins;
