#!/usr/bin/env python3
"""Pairs the GPU tier's manifest with Nsight Compute's records (tools/gpu_record.sh).

    python3 tools/gpu_record.py merge OUTDIR
    python3 tools/gpu_record.py bench OUTDIR

reads OUTDIR/manifest.json (every kernel and launch, in launch order, written by the test
binary), OUTDIR/ncu_<test>.csv (one per test of TESTS, the order the manifest lists them in), the
second pass OUTDIR/ncu_random_layouts_again.csv, OUTDIR/device.txt and OUTDIR/steps.txt, and
writes OUTDIR/counters.json in the format of codegen/tests/data/gpu/h100-shared-memory-counters.json.

`bench` pairs OUTDIR/bench_manifest.json (tools/launch_ptx.py) with OUTDIR/ncu_bench.csv
into OUTDIR/bench_counters.json.

Every profiler record must name the kernel the manifest launches at that position, and every
launch must have all six counters: anything else stops the merge with the launch it concerns.
"""

import csv
import json
import os
import subprocess
import sys

METRICS = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bank conflicts of shared loads",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "bank conflicts of shared stores",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "wavefronts of shared loads",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "wavefronts of shared stores",
    "smsp__inst_executed_op_shared_ld.sum": "warp-level shared load instructions executed",
    "smsp__inst_executed_op_shared_st.sum": "warp-level shared store instructions executed",
}
TESTS = ["named_pairs", "random_layouts", "probes"]


def records(path, extra=()):
    """The profiler's launches in order: [(kernel name, {metric: int})], the six metrics and
    `extra`."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        raise SystemExit(f"{path}: no CSV header (\"ID\",...) in the profiler's log")
    by_id = {}
    for row in csv.DictReader(lines[start:]):
        if not row.get("ID", "").isdigit():
            continue
        launch = by_id.setdefault(int(row["ID"]), (row["Kernel Name"], {}))
        name = row["Metric Name"]
        if name in METRICS or name in extra:
            launch[1][name] = int(float(row["Metric Value"].replace(",", "")))
    return [by_id[i] for i in sorted(by_id)]


def ncu_version(line):
    """`Version 2025.3.1.0 (build …) (public-release)` → `2025.3.1.0`."""
    words = line.split()
    return words[1] if len(words) > 1 and words[0] == "Version" else line.strip()


def merge(out):
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    kernels, launches = manifest["kernels"], manifest["launches"]
    order = []
    for launch in launches:
        t = kernels[launch["kernel"]]["test"]
        if t not in order:
            order.append(t)
    if order != TESTS:
        raise SystemExit(f"the manifest lists the tests {order}, the recorder profiles {TESTS}")
    got = []
    for t in TESTS:
        got += records(os.path.join(out, f"ncu_{t}.csv"))
    if len(got) != len(launches):
        raise SystemExit(f"{len(got)} profiled launches for {len(launches)} in the manifest")
    for n, (launch, (name, counters)) in enumerate(zip(launches, got)):
        k = kernels[launch["kernel"]]
        if name != k["name"]:
            raise SystemExit(f"launch {n}: the profiler saw {name}, the manifest launches {k['name']}")
        missing = set(METRICS) - set(counters)
        if missing:
            raise SystemExit(f"launch {n} ({k['what']}): no {sorted(missing)}")
        launch["counters"] = {m: counters[m] for m in sorted(METRICS)}
    again_path = os.path.join(out, "ncu_random_layouts_again.csv")
    again = records(again_path) if os.path.exists(again_path) else []
    first = [i for i, l in enumerate(launches) if kernels[l["kernel"]]["test"] == "random_layouts"]
    if again and len(again) != len(first):
        raise SystemExit(f"second pass: {len(again)} launches for {len(first)}")
    differ = []
    for i, (name, counters) in zip(first, again):
        k = kernels[launches[i]["kernel"]]
        if name != k["name"]:
            raise SystemExit(f"second pass, launch {i}: the profiler saw {name}, the manifest launches {k['name']}")
        missing = set(METRICS) - set(counters)
        if missing:
            raise SystemExit(f"second pass, launch {i} ({k['what']}): no {sorted(missing)}")
        c = {m: counters[m] for m in sorted(METRICS)}
        if c != launches[i]["counters"]:
            differ.append({"launch": i, "counters": c})
    device = open(os.path.join(out, "device.txt")).read().split("\n")
    name, driver, cc = [s.strip() for s in device[0].split(",")]
    commit = os.environ.get("RECORD_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    steps = open(os.path.join(out, "steps.txt")).read().split("\n")
    doc = {
        "device": f"{name} (sm_{cc.replace('.', '')}), driver {driver}, Nsight Compute {ncu_version(device[1])}",
        "built_from": f"main at {commit or 'an unknown commit'}: the kernels of codegen/tests/gpu.rs "
        "(named pairs, random layouts, then single-access probes), as codegen::gpu::device_ptx "
        "loads them for capability (9, 0)",
        "how": "tools/gpu_record.sh run: ncu --csv --print-units base --clock-control none --metrics "
        "<the metrics below> on the test binary of codegen/tests/gpu.rs (filters named_pairs, "
        "random_layouts, probes; one thread); one record per launch, in launch order; 'index' is "
        "the run-time buffer index passed (null: constant index). random_layouts was profiled twice: "
        "'second_pass' lists the launches whose counters differed. Steps: "
        + "; ".join(s for s in steps if s),
        "metrics": METRICS,
        "kernels": [
            {key: k[key] for key in ["id", "test", "what", "threads", "dynamic_shared_bytes", "ptx"]}
            for k in kernels
        ],
        "launches": launches,
        "second_pass": {"launches": len(first), "differ": differ} if again else None,
    }
    with open(os.path.join(out, "counters.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    second = f"{len(differ)} of {len(first)} differ" if again else "not run"
    print(f"{len(kernels)} kernels, {len(launches)} launches; second pass: {second}")


def bench(out):
    """OUTDIR/bench_manifest.json + OUTDIR/ncu_bench.csv -> OUTDIR/bench_counters.json."""
    manifest = json.load(open(os.path.join(out, "bench_manifest.json")))
    got = records(os.path.join(out, "ncu_bench.csv"), extra=("smsp__inst_executed.sum",))
    launches = manifest["launches"]
    if len(got) != len(launches):
        raise SystemExit(f"{len(got)} profiled launches for {len(launches)} kernels")
    metrics = dict(METRICS, **{"smsp__inst_executed.sum": "warp-level instructions executed"})
    kernels = []
    for launch, (name, counters) in zip(launches, got):
        if name != launch["kernel"]:
            raise SystemExit(f"{launch['file']}: the profiler saw {name}, the launcher ran {launch['kernel']}")
        missing = set(metrics) - set(counters)
        if missing:
            raise SystemExit(f"{launch['file']}: no {sorted(missing)}")
        kernels.append({
            "file": launch["file"],
            "kernel": name,
            "threads": launch["threads"],
            "ptx": open(launch["file"]).read(),
            "counters": {m: counters[m] for m in sorted(metrics)},
        })
    device = open(os.path.join(out, "device.txt")).read().split("\n")
    dname, driver, cc = [s.strip() for s in device[0].split(",")]
    commit = os.environ.get("RECORD_COMMIT") or "an unknown commit"
    doc = {
        "device": f"{dname} (sm_{cc.replace('.', '')}), driver {driver}, Nsight Compute {ncu_version(device[1])}",
        "built_from": f"main at {commit}: benches/data/ours_ptx and benches/data/triton_ptx",
        "how": "tools/gpu_record.sh bench: tools/launch_ptx.py under ncu --csv --print-units base "
        "--clock-control none; each kernel at .version 8.0, one CTA of its .reqntid threads, every "
        f"pointer a zeroed {manifest['buffer_bytes']}-byte buffer, {manifest['dynamic_shared_bytes']} "
        "bytes of dynamic shared memory",
        "metrics": metrics,
        "kernels": kernels,
    }
    with open(os.path.join(out, "bench_counters.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(kernels)} benchmark kernels")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("merge", "bench"):
        raise SystemExit(__doc__)
    (merge if sys.argv[1] == "merge" else bench)(sys.argv[2])
