#!/usr/bin/env bash
# Builds msm-wasm for the browser: an optimised .wasm plus wasm-bindgen's ES
# module and TypeScript types in msm-wasm/www/pkg (override with $1), next to
# the bench page. Serve msm-wasm/www with any static server, e.g.
# `python3 -m http.server -d msm-wasm/www`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh
out="${1:-msm-wasm/www/pkg}"
cargo build --release --target wasm32-unknown-unknown -p msm-wasm
wasm-bindgen --target web --out-dir "$out" target/wasm32-unknown-unknown/release/msm_wasm.wasm
echo "built $out (serve msm-wasm/www and open index.html)"
