#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine: a Vulkan
# loader and lavapipe (Mesa's Vulkan driver on the CPU), so GPU code runs even
# where there is no GPU. Idempotent; run as root (or with sudo available).
set -euo pipefail
need=()
for pkg in mesa-vulkan-drivers libvulkan1; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
