#!/usr/bin/env bash
# Browser tests: msm-wasm's API on WebGPU in headless Chromium (SwiftShader
# where there is no GPU) through wasm-bindgen-test, on the page's thread (web)
# and in a dedicated Web Worker (worker); then the npm package and the bench
# page's verdict read through WebDriver.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh --browser
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-1800}"
# Arguments go to the test runner, e.g. --include-ignored for the full knob matrix.
# In release: the package's build below then reuses every dependency.
cargo test --release --target wasm32-unknown-unknown -p msm-wasm --test web --test worker -- "$@"
scripts/build-web.sh
# --workspace: the features of the native suite's build, which this reuses
# (alone, msm-wasm's own features would rebuild wgpu and arkworks natively).
cargo test --workspace --test page -- --ignored --skip snarkjs_page
