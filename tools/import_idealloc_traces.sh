#!/usr/bin/env bash
# The five public allocation traces of idealloc (github.com/cappadokes/idealloc, MIT), copied
# unchanged into packing/tests/data/idealloc/ and checked against the hashes recorded there:
#
#     tools/import_idealloc_traces.sh MIRROR
#
# MIRROR is a git directory of the repository (e.g. what the `fetch` tool returns for
# github:cappadokes/idealloc); the files are read at commit a21f84d5, whatever its HEAD.
# Re-running it on the same commit leaves the committed data unchanged (the hash check fails
# loudly otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
mirror=${1:?usage: tools/import_idealloc_traces.sh MIRROR}
commit=a21f84d5f2556046c198ac80c4af325b3be72e52
dest=packing/tests/data/idealloc
mkdir -p "$dest"
for f in iopddl/G_1 iopddl/S_1 iopddl/Y_1 somas_tensors/resnet50 somas_tensors/pangu_2.6B; do
  git --git-dir="$mirror" show "$commit:benchmarks/$f.csv" >"$dest/$(basename "$f").csv"
done
chmod 644 "$dest"/*.csv
(cd "$dest" && sha256sum -c SHA256SUMS)
