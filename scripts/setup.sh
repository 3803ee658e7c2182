#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine:
# - a Vulkan loader and lavapipe (Mesa's Vulkan driver on the CPU), so GPU code
#   runs even where there is no GPU;
# - for the browser tests: Chromium and its WebDriver (WebGPU on SwiftShader),
#   the wasm32 target and wasm-bindgen's test runner at the version in Cargo.lock.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for pkg in mesa-vulkan-drivers libvulkan1 chromium chromium-driver; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
# The CLI must match the wasm-bindgen crate exactly (pinned in Cargo.toml).
version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$version" ]; then
  cargo install wasm-bindgen-cli --version "$version"
fi
