#!/usr/bin/env bash
# Checks that msm-core's examples and tests build the crates they share with
# the CLI with the CLI's features, so that after the quick start's CLI build
# an example compiles only its own dev-dependencies (see the feature
# unification block in msm-cli/Cargo.toml). Prints each crate whose features
# differ and fails if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
features() {
  cargo tree "$@" --prefix none -f '{p} [{f}]' | sed 's/ (\*)$//' | sort -u
}
# A crate built for the host (proc-macros, build scripts) and for the target
# shows once per feature set: compare the sets.
awk 'NR == FNR { cli[$1 " " $2] = cli[$1 " " $2] " " substr($0, index($0, "[")); next }
     { core[$1 " " $2] = core[$1 " " $2] " " substr($0, index($0, "[")) }
     END {
       for (k in cli) if ((k in core) && cli[k] != core[k]) { print k ": msm-cli" cli[k] ", msm-core" core[k]; bad = 1 }
       exit bad
     }' \
  <(features -p msm-cli -e normal,build) <(features -p msm-core -e normal,build,dev) ||
  { echo "features differ: align them in msm-cli/Cargo.toml (or the dev-dependencies)" >&2; exit 1; }
