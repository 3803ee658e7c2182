#!/usr/bin/env bash
# Builds msm-wasm for the browser as an npm-ready package in msm-wasm/www/pkg
# (override with $1), next to the bench page: wasm-bindgen's ES module and
# TypeScript types, the .wasm (size-optimised when `wasm-opt` is on PATH, e.g.
# from npm's `binaryen`), Node's entry point (WebGPU from the optional peer
# `webgpu`), package.json and README.md. Serve msm-wasm/www with
# any static server, e.g. `python3 -m http.server -d msm-wasm/www`, or
# `npm pack` / `npm publish` the package folder.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh
out="${1:-msm-wasm/www/pkg}"
cargo build --release --target wasm32-unknown-unknown -p msm-wasm

# The package's fields as cargo resolves them (workspace inheritance
# included), cut from `cargo metadata` without a JSON tool: msm-wasm's entry
# up to its first dependency. Its strings are copied with their quotes, so
# they stay valid JSON.
meta=$(cargo metadata --no-deps --format-version 1)
entry=$(sed 's/{"name":"/\n&/g' <<<"$meta" | grep '^{"name":"msm-wasm","version":')
# The first `"key":"string"` of $2, as the JSON string.
field() {
  local m
  m=$(grep -oE "\"$1\":\"([^\"\\\\]|\\\\.)*\"" <<<"$2") || return 0
  m=${m%%$'\n'*}
  echo "${m#*:}"
}
name=$(field name "$entry")
version=$(field version "$entry")
description=$(field description "$entry")
license=$(field license "$entry")
target=$(field target_directory "$meta")
for v in name version description license target; do
  [ -n "${!v}" ] || { echo "build-web: no $v for msm-wasm in cargo metadata" >&2; exit 1; }
done
target=${target:1:-1}

# Without the name section (a sixth of the .wasm): panics still print their
# message (console_error_panic_hook), only stack frames lose their names.
wasm-bindgen --target web --remove-name-section --out-dir "$out" \
  "$target/wasm32-unknown-unknown/release/msm_wasm.wasm"
wasm="$out/msm_wasm_bg.wasm"
size() { echo "$(wc -c <"$1") bytes, $(gzip -9 <"$1" | wc -c) gzipped"; }
if command -v wasm-opt >/dev/null; then
  before=$(size "$wasm")
  # The features rustc's wasm32 target enables by default; -Oz: the API is
  # glue around GPU work and the CPU reference, so size wins over speed here.
  wasm-opt -Oz --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-reference-types --enable-multivalue "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
  echo "wasm-opt -Oz: $before -> $(size "$wasm")"
else
  echo "no wasm-opt on PATH (npm's binaryen has one): the .wasm is not size-optimised; $(size "$wasm")"
fi

cp msm-wasm/README.md "$out/README.md"
# Node's entry point: the same module with WebGPU from the `webgpu` package.
cp msm-wasm/js/node.js msm-wasm/js/node.d.ts "$out/"
# snarkjs with its MSMs on the GPU (`msm-wasm/snarkjs`).
cp msm-wasm/js/snarkjs.js msm-wasm/js/snarkjs.d.ts "$out/"
files='"msm_wasm.js", "msm_wasm.d.ts", "msm_wasm_bg.wasm", "msm_wasm_bg.wasm.d.ts", "node.js", "node.d.ts", "snarkjs.js", "snarkjs.d.ts", "README.md"'
# wasm-bindgen puts inline JS of dependencies there, if any.
if [ -d "$out/snippets" ]; then files="$files, \"snippets/\""; fi
cat >"$out/package.json" <<EOF
{
  "name": $name,
  "version": $version,
  "description": $description,
  "license": $license,
  "keywords": ["bn254", "msm", "webgpu", "wasm", "zk"],
  "type": "module",
  "module": "msm_wasm.js",
  "types": "msm_wasm.d.ts",
  "exports": {
    ".": {
      "node": { "types": "./node.d.ts", "default": "./node.js" },
      "default": { "types": "./msm_wasm.d.ts", "default": "./msm_wasm.js" }
    },
    "./snarkjs": { "types": "./snarkjs.d.ts", "default": "./snarkjs.js" },
    "./msm_wasm_bg.wasm": "./msm_wasm_bg.wasm"
  },
  "engines": { "node": ">=20" },
  "peerDependencies": { "webgpu": ">=0.6.2" },
  "peerDependenciesMeta": { "webgpu": { "optional": true } },
  "files": [$files],
  "sideEffects": ["./snippets/*"]
}
EOF
echo "built $out (an npm package; serve msm-wasm/www and open index.html for the bench page)"
