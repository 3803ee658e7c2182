#!/usr/bin/env bash
# The speed battery on a real GPU, every result checked against arkworks:
# field throughput and latency, `bench` at several sizes for both field
# layouts, skewed scalars, and knob sweeps. JSON lines go to OUT (default
# bench-out/); a summary table is printed at the end.
#
#   scripts/bench-gpu.sh [OUT] [PHASE...]
#
# Phases (default: all, in this order): cold field bench sweep skew portable.
# `cold` should run first on a fresh machine: its first process is the
# first-ever start (empty driver and pipeline caches), its second a later one.
# MSM_CLI overrides the binary (default: target/release/msm-cli); SIZES the
# sizes of `bench` (default "16 17 18 20 22").
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-bench-out}"
shift || true
phases="${*:-cold field bench sweep skew portable}"
cli="${MSM_CLI:-target/release/msm-cli}"
sizes="${SIZES:-16 17 18 20 22}"
mkdir -p "$out"
log() { echo "== $*" >&2; }
has() { [[ " $phases " == *" $1 "* ]]; }

"$cli" adapters | tee "$out/adapters.txt"

if has cold; then
  log "cold start: first-ever process, then a second one"
  for run in first-ever second; do
    t0=$(date +%s%N)
    "$cli" bench --json --logn 17 --reps 3 --cpu-reps 1 >>"$out/cold.jsonl"
    echo "{\"process\":\"$run\",\"wall_s\":$(( ($(date +%s%N) - t0) / 1000000 ))e-3}" >>"$out/cold.jsonl"
  done
fi

if has field; then
log "field: throughput (2^20 chains) and latency (132 chains) of mul and inv"
"$cli" field-bench --json --invocations 1048576 --iters 256 --reps 5 >"$out/field.jsonl"
"$cli" field-bench --json --invocations 1048576 --iters 16 --reps 5 --op inv >>"$out/field.jsonl"
"$cli" field-bench --json --invocations 132 --iters 64 --reps 5 --op inv >>"$out/field.jsonl"
"$cli" field-bench --json --invocations 132 --iters 4096 --reps 5 >>"$out/field.jsonl"
fi

bench_layout() {
  for l in $sizes; do
    log "bench 2^$l $1"
    "$cli" bench --json --logn "$l" --reps 10 --cpu-reps 3 --layout "$1" >>"$out/bench.jsonl"
  done
}
has bench && bench_layout 32x8-int64

if has sweep; then
log "sweeps"
grid="defaults"
for tpb in 128 256; do
  for s in 2 4 8; do
    grid="$grid; walker_tpb=$tpb,walker_slots=$s"
  done
done
knobs="defaults; walker_cache_dx=false; walker_fused=true; walker_pref_mem=workgroup,walker_tpb=128; walker_slots=8,walker_fused=true; walker_split=buckets; walker_threads=16384; walker_threads=65536"
for l in 17 20; do
  "$cli" sweep --json --logn "$l" --reps 5 --variants "$grid" >>"$out/sweep.jsonl"
  "$cli" sweep --json --logn "$l" --reps 5 --variants "$knobs" >>"$out/sweep.jsonl"
done
"$cli" sweep --json --logn 22 --reps 3 --variants \
  "defaults; walker_slots=8; window_bits=16; walker_threads=131072" \
  >>"$out/sweep.jsonl"
fi

if has skew; then
for class in equal zero90 bits8 onebucket; do
  log "bench 2^20 $class"
  "$cli" bench --json --logn 20 --reps 5 --cpu-reps 1 --scalars "$class" >>"$out/skew.jsonl"
done
fi

has portable && bench_layout 13x20

python3 - "$out" <<'EOF'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
def rows(name):
    p = out / name
    return [json.loads(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []
print("\ncold start (bench 2^17: cold ms = first MSM of the process; pipelines compiled):")
for r in rows("cold.jsonl"):
    if "process" in r:
        print(f"  process {r['process']}: {r['wall_s']:.1f} s wall")
    else:
        c = r["compile"]
        slow = sorted(c["per_pipeline"], key=lambda x: -x[1])[:3]
        print(f"  cold {r['cold_ms']:.0f} ms; {c['pipelines']} pipelines, sum {c['sum_ms']:.0f} ms, max {c['max_ms']:.0f} ms; cache {r['pipeline_cache']}; slowest {slow}")
print("\nfield:")
for r in rows("field.jsonl"):
    print(f"  {r['layout']:<11} {r['op']:<4} {r.get('inversion',''):<7} {r['invocations']:>8} x {r['iters']:<5} {r['mults_per_sec_median']:.3e}/s  {r['correct']}")
print("\nbench (ms; gpu passes are medians of timestamps):")
for r in rows("bench.jsonl") + rows("skew.jsonl"):
    p = r.get("gpu_pass_ms") or {}
    passes = " / ".join(f"{p[k]['median']:.2f}" for k in ["preprocess", "stream_walker", "walker_combine", "reduce"] if k in p)
    g = r.get("gpu_sum_ms") or {}
    print(f"  2^{r['logn']:<2} {r['field_layout']:<10} {r['scalars']:<9} gpu {passes} = {g.get('median', 0):.2f}  warm {r['warm_ms']['median']:.2f}"
          f"  host +{r.get('host_overhead_ms') or 0:.2f}  ark {r['arkworks_ms']['median'] if r.get('arkworks_ms') else 0:.1f}"
          f"  inv {100*r['inversion_share']:.2f}%  ok {r['cold_correct'] and r['warm_correct']}")
print("\nsweeps (median wall / gpu sum ms):")
for batch in rows("sweep.jsonl"):
    for r in batch:
        print(f"  2^{r['logn']:<2} {r['variant']:<60} {r['status']:<7} {r['median_ms'] or 0:8.2f} {r['gpu_sum_ms'] or 0:8.2f}  {r['correct']}")
EOF
