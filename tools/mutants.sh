#!/usr/bin/env bash
# Mutation scores of the modules that judge the others (issue #31): every "checker: ok",
# "proved optimal" and interpreter verdict rests on them. Runs cargo-mutants 27.1 on each module
# against its own package's tests, writes each module's outcomes under OUT (default
# mutants-out/) and prints a score line per module:
#
#     tools/mutants.sh [OUT] [MODULE…]
#
# Score = (caught + timeout) / (viable = all − unviable); equivalent mutants are excluded in
# .cargo/mutants.toml with their reason. On the 2-core machine a module of ~100 mutants takes
# 20–40 minutes; `SHARD=k/n` runs one shard of each (`cargo mutants --shard`). Mutants build
# with the `mutants` profile (no debug info: faster links); a mutant whose tests run three times
# as long as the unmutated tests' is counted as timed out (a mutant that loops forever).
# `ITERATE=1` re-tests only what the runs before in OUT did not catch, timeouts included (after adding tests), and
# the score line counts the earlier catches too. `DOCTESTS=1` runs the interpreter's mutants
# under `cargo test` with its doctests (the doc examples are tests CI runs; slower), e.g. on an
# iterating pass over what nextest missed. After the module's own code changed, run it
# whole again: a mutant whose line moved is a new name, and would be counted twice.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-mutants-out}
shift || true
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --version 27.1.0 --locked
# module, its package, extra flags
all=(
  "packing/src/check.rs linalias-packing --all-features"
  "packing/src/bound.rs linalias-packing --all-features"
  "alias-alloc/src/checker.rs linalias-alias-alloc"
  "linear-layout/src/gf2.rs linalias-linear-layout"
  "linear-layout/src/ops/compose.rs linalias-linear-layout --test-tool=nextest"
  "linear-layout/src/ops/invert.rs linalias-linear-layout"
  "linear-layout/src/ops/packed.rs linalias-linear-layout"
  "linear-layout/src/word_echelon.rs linalias-linear-layout"
  # The PTX interpreter, one file at a time (789 mutants in all). Its package's tests run under
  # nextest: 45 s instead of 97 s plus two minutes of doctests for a mutant no test catches
  # (the doctests are left out, so a catch only a doc example makes is not counted).
  "codegen/src/interp/alu.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/async_copy.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/collective.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/exec.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/machine.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/memory.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/trace.rs linalias-codegen --test-tool=nextest"
  "codegen/src/interp/mod.rs linalias-codegen --test-tool=nextest"
  # The hazard check's oracle: the explorer and the machine it branches (issue #25).
  # Under nextest too: the first failure ends a mutant's run, the slow property tests last.
  "alias-alloc/src/hazard/explore.rs linalias-alias-alloc --test-tool=nextest"
  "alias-alloc/src/hazard/machine.rs linalias-alias-alloc --test-tool=nextest"
)
mkdir -p "$out"
for entry in "${all[@]}"; do
  read -r file package flags <<<"$entry"
  if [ -n "${DOCTESTS:-}" ]; then
    flags=${flags//--test-tool=nextest/}
  else
    # nextest's `mutants` profile (.config/nextest.toml): stop at the first failure, slow
    # property tests last.
    flags=${flags//--test-tool=nextest/--test-tool=nextest --cargo-test-arg=--profile=mutants}
  fi
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$file"; then continue; fi
  name=$(echo "$file" | tr '/' '_')
  glob=$file
  [ -d "$file" ] && glob="$file/**"
  total="$out/$name.total.json"
  [ -n "${ITERATE:-}" ] || rm -f "$total"
  # shellcheck disable=SC2086
  cargo mutants -p "$package" --test-package "$package" -f "$glob" $flags --no-shuffle \
    --profile mutants --timeout-multiplier 3 ${SHARD:+--shard "$SHARD"} ${ITERATE:+--iterate} -o "$out/$name" >"$out/$name.log" 2>&1 || true
  # The running totals (OUT/NAME.total.json): a run adds its catches to the earlier runs' and
  # its misses and timeouts replace theirs (an iterating run re-tests every mutant not caught
  # before, the timed-out ones included).
  python3 - "$out/$name/mutants.out/outcomes.json" "$total" "$file" <<'PY'
import json, os, sys
run = json.load(open(sys.argv[1]))
total = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {"caught": 0, "timeout": 0, "unviable": 0}
for k in ("caught", "unviable"):
    total[k] += run[k]
total["timeout"] = run["timeout"]
total["missed"] = run["missed"]
json.dump(total, open(sys.argv[2], "w"))
caught = total["caught"] + total["timeout"]
viable = caught + total["missed"]
score = 100.0 * caught / viable if viable else 100.0
print(f"{sys.argv[3]}: {caught}/{viable} viable mutants caught ({score:.1f} %), "
      f"{total['missed']} missed, {total['unviable']} unviable")
PY
done
