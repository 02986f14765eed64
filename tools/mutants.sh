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
# `ITERATE=1` re-tests only what the last run in OUT did not catch (after new tests; a mutant
# whose line moved counts as new), and the score line then counts the earlier catches too.
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
  "linear-layout/src/ops/compose.rs linalias-linear-layout"
  "linear-layout/src/ops/invert.rs linalias-linear-layout"
  "codegen/src/interp linalias-codegen"
)
mkdir -p "$out"
for entry in "${all[@]}"; do
  read -r file package flags <<<"$entry"
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$file"; then continue; fi
  name=$(echo "$file" | tr '/' '_')
  glob=$file
  [ -d "$file" ] && glob="$file/**"
  # shellcheck disable=SC2086
  cargo mutants -p "$package" --test-package "$package" -f "$glob" $flags --no-shuffle \
    --profile mutants --timeout-multiplier 3 ${SHARD:+--shard "$SHARD"} ${ITERATE:+--iterate} -o "$out/$name" >"$out/$name.log" 2>&1 || true
  python3 - "$out/$name/mutants.out/outcomes.json" "$file" <<'PY'
import json, sys
import os
d = json.load(open(sys.argv[1]))
# With --iterate, the mutants caught by earlier runs are listed in previously_caught.txt.
earlier = os.path.join(os.path.dirname(sys.argv[1]), "previously_caught.txt")
if os.path.exists(earlier):
    d["caught"] += sum(1 for line in open(earlier) if line.strip())
viable = d["caught"] + d["missed"] + d["timeout"]
score = 100.0 * (d["caught"] + d["timeout"]) / viable if viable else 100.0
print(f"{sys.argv[2]}: {d['caught'] + d['timeout']}/{viable} viable mutants caught ({score:.1f} %), "
      f"{d['missed']} missed, {d['unviable']} unviable")
PY
done
