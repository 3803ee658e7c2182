#!/usr/bin/env bash
# The browser package under Node with Dawn (Chrome's WebGPU engine, the npm
# package `webgpu`): msm-wasm/node's tests, on the first adapter Dawn picks
# (on a machine without a GPU, Mesa 25's lavapipe; scripts/setup-dawn.sh).
# Arguments go to `node --test`, e.g. --test-name-pattern=batch.
set -euo pipefail
cd "$(dirname "$0")/.."
env=$(scripts/setup-dawn.sh)
eval "$env"
# With our lavapipe, the adapter must be classified as lavapipe.
if [ -n "$env" ]; then export MSM_DAWN_CLASS="${MSM_DAWN_CLASS:-lavapipe}"; fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u)}"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
cd msm-wasm/node
exec node --test "$@" test/*.test.mjs
