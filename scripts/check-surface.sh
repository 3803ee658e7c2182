#!/usr/bin/env bash
# Counts msm-core's public items without the diagnostics feature (what
# `cargo doc` lists) and fails above the budget, so that the surface a
# prover reads stays small (docs/api.md).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-40}
RUSTDOCFLAGS="-D warnings" cargo doc -p msm-core --no-deps --quiet
n=$(grep -o '<li><a href="[^"]*">[^<]*</a></li>' target/doc/msm_core/all.html | wc -l)
echo "msm-core: $n public items without the diagnostics feature (budget $budget)"
[ "$n" -le "$budget" ] || { echo "the public surface grew past $budget items: see docs/api.md" >&2; exit 1; }
