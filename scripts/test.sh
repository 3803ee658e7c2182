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
cargo test --workspace "$@"
scripts/test-web.sh
scripts/test-dawn.sh
