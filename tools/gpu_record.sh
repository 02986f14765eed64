#!/usr/bin/env bash
# Records the GPU tier's shared-memory counters on a lent sm_90 device and rewrites
# codegen/tests/data/gpu/h100-shared-memory-counters.json (docs/gpu-counters.md).
#
#   tools/gpu_record.sh build        here (Rust, no GPU): builds the test binary of
#                                    codegen/tests/gpu.rs into .gpu/gpu
#   tools/gpu_record.sh bench OUTDIR on the device (CUDA, ncu, python3): the 48 benchmark pairs'
#                                    kernels, ours and Triton 3.9's (benches/data/*_ptx), one
#                                    CTA each under Nsight Compute (tools/launch_ptx.py), the six
#                                    metrics and smsp__inst_executed.sum; writes
#                                    OUTDIR/bench_counters.json (benches/data/h100_bench_counters.json)
#   tools/gpu_record.sh run OUTDIR   on the device (CUDA, ncu, compute-sanitizer, python3; no
#                                    Rust), from the repository root with .gpu carried:
#                                    the tier's tests, then every launch under Nsight Compute,
#                                    memcheck, racecheck (not on the probes: several lanes
#                                    storing to one address is what some of them measure) and
#                                    synccheck, then random_layouts under
#                                    Nsight Compute again (which counters repeat); writes OUTDIR/counters.json
#                                    (the file's new text), the profiler's CSVs and the logs.
#
# Each step has its own time limit (seconds, RECORD_STEP_LIMIT, default 240); a step that fails
# or runs out is named in OUTDIR/steps.txt and the file is not written.
set -uo pipefail

METRICS=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
TESTS="named_pairs random_layouts probes"

case "${1:-}" in
build)
  bin=$(cargo test -p linalias-codegen --features gpu --release --test gpu --no-run \
      --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "gpu":
        print(m["executable"])')
  [ -n "$bin" ] || { echo "gpu_record.sh: the test binary did not build" >&2; exit 1; }
  mkdir -p .gpu
  cp "$bin" .gpu/gpu
  echo "built .gpu/gpu from $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with local changes)')"
  ;;
run)
  out=${2:?usage: tools/gpu_record.sh run OUTDIR}
  mkdir -p "$out"
  limit=${RECORD_STEP_LIMIT:-240}
  bin=./.gpu/gpu
  [ -x "$bin" ] || { echo "gpu_record.sh: no $bin (run 'build' here and carry .gpu)" >&2; exit 1; }
  failed=0
  step() {  # step NAME COMMAND...: runs with the limit, logs to OUTDIR/NAME.log
    local name=$1; shift
    local t0=$SECONDS
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$out/steps.txt"
    [ $rc -eq 0 ] || failed=1
  }
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >"$out/device.txt"
  ncu --version | tail -1 >>"$out/device.txt"
  GPU_MANIFEST="$out/manifest.json" step manifest "$bin" manifest --exact
  REQUIRE_GPU=1 step tests "$bin" --test-threads=1
  for t in $TESTS; do
    REQUIRE_GPU=1 step "ncu_$t" ncu --csv --print-units base --clock-control none \
      --metrics "$METRICS" --log-file "$out/ncu_$t.csv" "$bin" "$t" --test-threads=1 --skip manifest
  done
  (REQUIRE_GPU=1 step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 "$bin" --test-threads=1) &
  (REQUIRE_GPU=1 step racecheck compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$bin" --test-threads=1 --skip probes) &
  (REQUIRE_GPU=1 step synccheck compute-sanitizer --tool synccheck --error-exitcode 9 "$bin" --test-threads=1) &
  wait
  REQUIRE_GPU=1 step ncu_random_layouts_again ncu --csv --print-units base --clock-control none \
    --metrics "$METRICS" --log-file "$out/ncu_random_layouts_again.csv" "$bin" random_layouts --test-threads=1
  grep -q "rc=[^0]" "$out/steps.txt" && failed=1
  if [ $failed -eq 0 ]; then
    python3 tools/gpu_record.py merge "$out" || failed=1
  else
    echo "gpu_record.sh: a step failed (see $out/steps.txt): counters.json not written"
  fi
  exit $failed
  ;;
bench)
  out=${2:?usage: tools/gpu_record.sh bench OUTDIR}
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >"$out/device.txt"
  ncu --version | tail -1 >>"$out/device.txt"
  timeout "${RECORD_STEP_LIMIT:-240}" ncu --csv --print-units base --clock-control none \
    --metrics "$METRICS,smsp__inst_executed.sum" --log-file "$out/ncu_bench.csv" \
    python3 tools/launch_ptx.py "$out/bench_manifest.json" benches/data/ours_ptx/*.ptx benches/data/triton_ptx/*.ptx \
    >"$out/bench.log" 2>&1 || { echo "gpu_record.sh: the benchmark launches failed"; tail -5 "$out/bench.log"; exit 1; }
  python3 tools/gpu_record.py bench "$out"
  ;;
*)
  sed -n '2,20p' "$0"
  exit 2
  ;;
esac
