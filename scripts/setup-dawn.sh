#!/usr/bin/env bash
# Installs what running the browser package under Node with Dawn (Chrome's
# WebGPU engine, the npm package `webgpu`) needs, on top of setup-web.sh:
# the built package and msm-wasm/node's npm dependencies; and, where the
# system's lavapipe is older than Mesa 25 (Dawn refuses Debian 12's Mesa 22:
# "shaderUniform*ArrayDynamicIndexing required"), Mesa 25's lavapipe from
# bookworm-backports, unpacked into target/dawn/mesa (the system stays
# untouched). Prints the environment a run needs (eval it):
#   eval "$(scripts/setup-dawn.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "setup-dawn: $*" >&2; }
command -v node >/dev/null && command -v npm >/dev/null || {
  log "needs Node.js 20+ and npm (Debian: apt-get install nodejs npm)"
  exit 1
}
scripts/setup.sh >&2
scripts/build-web.sh >&2
# npm copies the package (.npmrc: install-links) and keeps a stale copy
# of the same version: drop it first.
rm -rf msm-wasm/node/node_modules/msm-wasm
(cd msm-wasm/node && npm install --no-save --silent >&2)

# A lavapipe Dawn accepts: the system's if it is Mesa 25 or newer, else a
# private copy of bookworm-backports' (kept across runs).
mesa=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || echo 0)
if dpkg --compare-versions "$mesa" ge 25; then
  exit 0
fi
dir=$PWD/target/dawn/mesa
lib=$dir/root/usr/lib/x86_64-linux-gnu
if [ ! -f "$dir/lvp_icd.json" ]; then
  log "system Mesa $mesa is too old for Dawn: fetching Mesa 25's lavapipe from bookworm-backports"
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/debs" "$dir/root"
  echo "deb http://deb.debian.org/debian bookworm-backports main" >"$dir/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o APT::Sandbox::User=root -o Debug::NoLocking=1)
  apt-get "${apt_opts[@]}" update -qq >&2
  (cd "$dir/debs" && apt-get "${apt_opts[@]}" download -qq \
    mesa-vulkan-drivers/bookworm-backports libdrm2/bookworm-backports libdrm-amdgpu1/bookworm-backports >&2)
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
  sed "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$lib/libvulkan_lvp.so\"#" \
    "$dir/root/usr/share/vulkan/icd.d/lvp_icd.json" >"$dir/lvp_icd.json"
fi
echo "export VK_ICD_FILENAMES=$dir/lvp_icd.json LD_LIBRARY_PATH=$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
