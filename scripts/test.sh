#!/usr/bin/env bash
# Runs the whole test suite: native (GPU tests on the first high-performance
# adapter; on a machine without a GPU that is lavapipe), then the browser
# tests in Chromium, then the browser package under Node and Dawn.
# Installs what both need first, so a missing prerequisite shows at once.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-web.sh --browser
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u)}"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
# lavapipe's LLVM without optimisation for the native suite: its compiles
# of the suite's pipelines are most of a cold run, and the suite's inputs
# are small (the loop-cap tests run under it too: unoptimised loops count
# every iteration). No effect on a GPU.
# The examples are not built here: clippy's --all-targets checks them, and
# their links (the Groth16 prover's above all) cost CI about two minutes.
GALLIVM_PERF="${GALLIVM_PERF:-nopt}" cargo test --workspace --lib --bins --tests "$@"
# doc tests without the caller's arguments: cargo refuses --doc beside a
# target such as --test NAME
cargo test --workspace --doc
scripts/test-web.sh
scripts/test-dawn.sh
