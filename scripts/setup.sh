#!/usr/bin/env bash
# Installs what building and running the GPU MSM natively needs on a fresh
# Debian machine: a Vulkan loader and lavapipe (Mesa's Vulkan driver on the
# CPU), so GPU code runs even where there is no GPU. The browser side has its
# own script (scripts/setup-web.sh), which the test and web scripts call.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/apt-install.sh mesa-vulkan-drivers libvulkan1
