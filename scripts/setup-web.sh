#!/usr/bin/env bash
# Installs what the browser side needs: the wasm32 target and wasm-bindgen's
# CLI at the version in Cargo.lock (to build msm-wasm); with --browser also
# Chromium and its WebDriver (WebGPU on SwiftShader), for the browser tests.
# Idempotent; run as root (or with sudo available) for --browser.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--browser" ]; then
  scripts/apt-install.sh chromium chromium-driver
fi
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
# The CLI must match the wasm-bindgen crate exactly (pinned in Cargo.toml).
version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$version" ]; then
  cargo install wasm-bindgen-cli --version "$version"
fi
