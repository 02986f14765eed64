#!/usr/bin/env python3
"""Seeded synchronisation bugs in the real TLX kernels, judged by ``linalias check``.

Every committed kernel the check reads (``alias-alloc/tests/data/tlx_kernels/*/before.mlir``)
is mutated one site at a time by each operator below; each mutant is written to a temporary
file and checked. Each mutant runs through ``linalias check --json --sample 50``: the static verdicts, and 50
random executions of the same semantics as independent evidence. A mutant is

* *flagged* when the static check finds a hazard (with its replayed witness) or a protocol
  fault;
* *flagged at another trip count* when the check verifies it at the default trip count but
  ``linalias check --sweep`` (every residue of the trip counts modulo the period of the
  kernel's rings) finds a hazard or protocol fault at another;
* *missed* when it does not, but a random execution races or hangs (a real bug the static
  check did not report);
* *clean* when neither the static check nor 50 random executions find anything (benign as far
  as sampling shows; listed for review);
* *equivalent* when the mutation changes nothing (a constant phase 0 made constant 0);
* *unknown* when the check cannot decide (exit 3), *invalid* when the mutation broke the text
  (exit 2, not counted).

The baseline — arrive/wait count balancing — flags a mutant whose numbers of waits, arrivals
(arrives, expects, commits) and named barriers differ from the kernel's.

Operators (each changes one op, or one ring):
  delete-wait        remove a ``ttng.wait_barrier``
  delete-arrive      remove a ``ttng.arrive_barrier`` or ``ttng.tc_gen5_commit``
  extra-arrive       a ``ttng.arrive_barrier`` twice (arrivals that are not whole phases)
  arrive-earlier     move an ``arrive_barrier`` above the buffer access before it
  flip-phase         wait on ``phase xor 1``
  const-phase        wait on phase 0
  slot-plus-one      ``memdesc_index %x[%i]`` -> ``[(%i + 1) mod n]``
  shrink-ring        every ``memdesc_index`` of one data ring of n buffers -> ``[%i mod (n - 1)]``
  swap-mma           move an MMA above the MMA before it in the same block
  delete-named       remove a ``ttng.wait_barrier_named`` / ``ttng.arrive_barrier_named``

Usage:
  tools/hazard_mutants.py [--linalias target/release/linalias] [--write docs/hazard-mutants.md]
  tools/hazard_mutants.py --check      # compare with the committed docs table
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
KERNELS = ROOT / "alias-alloc/tests/data/tlx_kernels"
DOC = ROOT / "docs/hazard-mutants.md"

DEF = re.compile(r"^\s*((?:%[\w.$-]+(?::\d+)?)(?:\s*,\s*%[\w.$-]+)*)\s*=")
USE = re.compile(r"%([\w.$-]+)")
ACCESS = ("ttng.tmem_load", "ttng.tmem_store", "ttg.local_load", "ttg.local_store",
          "ttng.tc_gen5_mma", "ttng.async_tma_copy")


def op_of(line):
    m = re.match(r"^\s*(?:[^=]*=\s*)?([a-z_]+\.[a-z_0-9]+)", line)
    return m.group(1) if m else None


def defs(line):
    m = DEF.match(line)
    if not m:
        return set()
    return {d.split(":")[0].strip().lstrip("%") for d in m.group(1).split(",")}


def uses(line):
    body = line.split("=", 1)[1] if DEF.match(line) else line
    body = body.split(" loc(")[0]
    return {u.split("#")[0] for u in USE.findall(body)}


def indent(line):
    return len(line) - len(line.lstrip())


def block_range(lines, j):
    """Lines of the block holding line j (same indentation, no brace line between)."""
    ind = indent(lines[j])
    lo = j
    while lo > 0 and indent(lines[lo - 1]) >= ind and lines[lo - 1].strip() not in ("", "}") \
            and not lines[lo - 1].rstrip().endswith("{"):
        lo -= 1
    return lo


def move_above(lines, j, k):
    """Lines with line j moved above line k (k < j, same block), taking along the lines between
    that define what j uses; None if that is not possible."""
    take = {j}
    need = set(uses(lines[j]))
    for i in range(j - 1, k - 1, -1):
        if defs(lines[i]) & need:
            if i == k:
                return None
            take.add(i)
            need |= uses(lines[i])
    moved = [lines[i] for i in sorted(take)]
    rest = [lines[i] for i in range(len(lines)) if i not in take]
    at = k - sum(1 for i in take if i < k)
    return rest[:at] + [ln.replace(ln.lstrip(), ln.lstrip()) for ln in moved] + rest[at:]


def wait_operands(line):
    m = re.search(r"ttng\.wait_barrier (%[\w.$-]+), (%[\w.#$-]+)", line)
    return (m.group(1), m.group(2)) if m else None


def insert_before(lines, j, new):
    pad = " " * indent(lines[j])
    return lines[:j] + [pad + n for n in new] + lines[j:]


def mutants(lines):
    """(operator, line number, mutated lines) for every site."""
    for j, line in enumerate(lines):
        op = op_of(line)
        if op == "ttng.wait_barrier" and wait_operands(line):
            yield "delete-wait", j, lines[:j] + lines[j + 1:]
            bar, phase = wait_operands(line)
            flipped = line.replace(f"{bar}, {phase}", f"{bar}, %mut_flip", 1)
            yield "flip-phase", j, insert_before(
                lines[:j] + [flipped] + lines[j + 1:], j,
                ["%mut_one = arith.constant 1 : i32",
                 f"%mut_flip = arith.xori {phase}, %mut_one : i32"])
            const = line.replace(f"{bar}, {phase}", f"{bar}, %mut_zero", 1)
            yield "const-phase", j, insert_before(
                lines[:j] + [const] + lines[j + 1:], j, ["%mut_zero = arith.constant 0 : i32"])
        elif op in ("ttng.arrive_barrier", "ttng.tc_gen5_commit"):
            yield "delete-arrive", j, lines[:j] + lines[j + 1:]
            if op == "ttng.arrive_barrier":
                yield "extra-arrive", j, lines[:j + 1] + [line] + lines[j + 1:]
                lo = block_range(lines, j)
                for k in range(j - 1, lo - 1, -1):
                    if op_of(lines[k]) and op_of(lines[k]).startswith(ACCESS):
                        moved = move_above(lines, j, k)
                        if moved:
                            yield "arrive-earlier", j, moved
                        break
        elif op in ("ttng.wait_barrier_named", "ttng.arrive_barrier_named"):
            yield "delete-named", j, lines[:j] + lines[j + 1:]
        elif op == "ttg.memdesc_index":
            m = re.search(r"ttg\.memdesc_index (%[\w.$-]+)\[(%[\w.$-]+)\] : !ttg\.memdesc<(\d+)x", line)
            if m and int(m.group(3)) >= 2:
                src, idx, n = m.group(1), m.group(2), int(m.group(3))
                new = line.replace(f"{src}[{idx}]", f"{src}[%mut_slot]", 1)
                yield "slot-plus-one", j, insert_before(
                    lines[:j] + [new] + lines[j + 1:], j,
                    ["%mut_one = arith.constant 1 : i32",
                     f"%mut_n = arith.constant {n} : i32",
                     f"%mut_next = arith.addi {idx}, %mut_one : i32",
                     f"%mut_slot = arith.remsi %mut_next, %mut_n : i32"])
        elif op == "ttng.tc_gen5_mma":
            lo = block_range(lines, j)
            for k in range(j - 1, lo - 1, -1):
                if op_of(lines[k]) == "ttng.tc_gen5_mma":
                    moved = move_above(lines, j, k)
                    if moved:
                        yield "swap-mma", j, moved
                    break
    # shrink-ring: one data ring (the source type of its memdesc_index ops) at a time.
    rings = defaultdict(list)
    for j, line in enumerate(lines):
        m = re.search(r"ttg\.memdesc_index (%[\w.$-]+)\[(%[\w.$-]+)\] : (!ttg\.memdesc<(\d+)x[^>]*>)", line)
        if m and int(m.group(4)) >= 3 and "xi64" not in m.group(3):
            rings[m.group(3)].append(j)
    for ty, sites in sorted(rings.items()):
        n = int(re.match(r"!ttg\.memdesc<(\d+)x", ty).group(1))
        out = list(lines)
        for j in reversed(sites):
            m = re.search(r"ttg\.memdesc_index (%[\w.$-]+)\[(%[\w.$-]+)\]", out[j])
            src, idx = m.group(1), m.group(2)
            out[j] = out[j].replace(f"{src}[{idx}]", f"{src}[%mut_s{j}]", 1)
            out = insert_before(out, j, [f"%mut_m{j} = arith.constant {n - 1} : i32",
                                         f"%mut_s{j} = arith.remsi {idx}, %mut_m{j} : i32"])
        yield "shrink-ring", sites[0], out


def balance(lines):
    c = Counter()
    for line in lines:
        op = op_of(line)
        if op == "ttng.wait_barrier":
            c["wait"] += 1
        elif op in ("ttng.arrive_barrier", "ttng.barrier_expect", "ttng.tc_gen5_commit"):
            c["arrive"] += 1
        elif op in ("ttng.wait_barrier_named", "ttng.arrive_barrier_named"):
            c["named"] += 1
    return c


SAMPLES = 50

# The protocol findings of the arrival ledger and of arrivals past a phase.
LEDGER = ("open phase: ", "too many arrivals: ")


def run(linalias, path, *extra):
    r = subprocess.run([linalias, "check", str(path), "--json", *extra],
                       capture_output=True, text=True)
    try:
        report = json.loads(r.stdout) if r.stdout.strip() else None
    except json.JSONDecodeError:
        report = None
    return r.returncode, report


OPERATORS = ["delete-wait", "delete-arrive", "extra-arrive", "arrive-earlier", "flip-phase", "const-phase",
             "slot-plus-one", "shrink-ring", "swap-mma", "delete-named"]


def equivalent(opname, line):
    """A mutation that changes nothing: a wait on the constant phase 0 made constant 0."""
    if opname != "const-phase":
        return False
    ops = wait_operands(line)
    return bool(ops) and re.fullmatch(r"%c0(_i32)?(_\d+)?", ops[1]) is not None


def why_clean(opname, line):
    """Why a mutant neither the check nor sampling flags stays race-free, where the text says."""
    ops = wait_operands(line)
    if opname in ("delete-wait", "flip-phase", "const-phase") and ops \
            and re.fullmatch(r"%c1(_i32)?(_\d+)?", ops[1]):
        return "a first-lap wait on parity 1: it passes at once on a fresh barrier"
    if opname == "slot-plus-one" and "xi64" not in line:
        return "another buffer of the ring, still behind the same barriers: wrong data, no race"
    if opname == "extra-arrive":
        return ("the arrivals still make whole phases (no open phase), one more at the end: the "
                "check verifies every pair, no wait hangs or may pass early, and sampling agrees")
    if opname == "delete-named":
        return ("orders the warp groups of one partition, which another bar.sync of it (a plain "
                "arrive's) already orders: the check verifies every pair")
    return "the check verifies every overlapping pair (other barriers order it) and sampling agrees"


def judge(linalias, opname, j, mutated, base, tmp):
    """One mutant's row updates and listing (None when it is not listed)."""
    fd, name = tempfile.mkstemp(suffix=".mlir", dir=tmp)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(mutated))
    code, report = run(linalias, name, "--sample", str(SAMPLES))
    if code == 0:
        # Verified at the default trip count: every other residue (`--sweep`).
        swept, sweep = run(linalias, name, "--sweep")
        if swept == 1:
            pattern = periodicity(linalias, name, sweep)
            os.unlink(name)
            return "swept", pattern
    os.unlink(name)
    if code == 2:
        return "invalid", None
    if code == 3:
        return "unknown", "unknown"
    # Exit 1 without a report: the reader refused a fault (an uninitialised or twice-initialised
    # barrier, a buffer index past its ring).
    static = code == 1 and (report is None or report["summary"]["hazards"] > 0
                            or bool(report["protocol"]))
    sampled = (report or {}).get("sampled") or {}
    if static:
        # Flagged by the arrival ledger or an arrival past its phase alone: no hazard, no other
        # finding.
        only = (report is not None and report["summary"]["hazards"] == 0
                and all(p.startswith(LEDGER) for p in report["protocol"]))
        return ("flagged", "ledger") if only else ("flagged", None)
    if sampled.get("stuck") or sampled.get("verified_but_raced"):
        return "missed", "missed"
    return "clean", "clean"


def periodicity(linalias, path, sweep):
    """The values that flag a mutant over twice the sweep's runs (each swept value going on by
    its shortest loop step, as ``--sweep`` does), and whether they repeat with the sweep's
    length: the step from the swept residues to longer trip counts that the sweep rests on,
    tested."""
    first, runs = sweep["first"], len(sweep["runs"])
    knobs = [("--param", f"{n}=", s) for n, s in sweep["swept"].items()]
    if sweep.get("seq"):
        knobs.append(("--seq-stride", "", sweep["seq"]))
    value = lambda s, k: s["longest"] * first + s["shortest"] * k
    flagged, undecided = [], []
    for k in range(2 * runs):
        args = [a for flag, prefix, s in knobs for a in (flag, f"{prefix}{value(s, k)}")]
        code, _ = run(linalias, path, *args)
        if code == 1:
            flagged.append(k)
        elif code == 3:
            undecided.append(k)  # e.g. a trace past the reader's event limit
    periodic = all((k in flagged) == (k + runs in flagged)
                   for k in range(runs) if k not in undecided and k + runs not in undecided)
    verdict = "yes" if periodic else "**no**"
    shown = lambda ks: ", ".join(str(value(knobs[0][2], k)) for k in ks)
    if undecided:
        verdict += f" (undecided at {shown(undecided)})"
    name = knobs[0][1].rstrip("=") or "seq_stride"
    return (shown(flagged), f"{name} {value(knobs[0][2], 0)}–{value(knobs[0][2], 2 * runs - 1)}",
            sweep["period"], verdict)


def survey(linalias):
    rows = defaultdict(Counter)
    listed = []
    jobs = []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for kdir in sorted(KERNELS.iterdir()):
            path = kdir / "before.mlir"
            code, _ = run(linalias, path)
            if code != 0:
                continue  # refused or already flagged: mutants would say nothing new
            lines = path.read_text().split("\n")
            base = balance(lines)
            for opname, j, mutated in mutants(lines):
                site = (kdir.name, j + 1, lines[j].strip().split(" loc(")[0][:110])
                if equivalent(opname, lines[j]):
                    rows[opname]["equivalent"] += 1
                    continue
                baseline = int(balance(mutated) != base)
                future = pool.submit(judge, linalias, opname, j, mutated, base, tmp)
                jobs.append((opname, site, baseline, why_clean(opname, lines[j]), future))
        for opname, site, baseline, why, future in jobs:
            kind, listing = future.result()
            row = rows[opname]
            if kind == "invalid":
                row["invalid"] += 1
                continue
            row["mutants"] += 1
            row["baseline"] += baseline
            row[kind] += 1
            row["ledger"] += listing == "ledger"
            if listing == "clean":
                listed.append(("clean", opname) + site[:2] + (why,))
            elif kind == "swept":
                listed.append(("swept", opname) + site[:2] + (listing,))
            elif listing:
                listed.append((listing, opname) + site)
    return rows, listed


def table(rows, listed):
    out = ["", "| operator | mutants | flagged | of them by an open phase or too many arrivals alone | "
           "flagged at another trip count (`--sweep`) | "
           "missed (a random execution races or hangs) | "
           f"clean (nothing in {SAMPLES} random executions) | unknown | equivalent (not counted) | "
           "flagged by count balancing | invalid (not counted) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    total = Counter()
    for op in OPERATORS:
        r = rows.get(op, Counter())
        total.update(r)
        out.append(f"| {op} | {r['mutants']} | {r['flagged']} | {r['ledger']} | {r['swept']} | "
                   f"{r['missed']} | "
                   f"{r['clean']} | "
                   f"{r['unknown']} | {r['equivalent']} | {r['baseline']} | {r['invalid']} |")
    out.append(f"| all | {total['mutants']} | {total['flagged']} | {total['ledger']} | {total['swept']} | "
               f"{total['missed']} | "
               f"{total['clean']} | {total['unknown']} | {total['equivalent']} | "
               f"{total['baseline']} | {total['invalid']} |")
    for kind, title in (("missed", "Missed"), ("unknown", "Unknown"),
                        ("ledger", "Flagged by an open phase or too many arrivals alone")):
        items = [x for x in listed if x[0] == kind]
        if not items:
            continue
        out += ["", f"{title}:", ""]
        for _, opname, kernel, line, text in items:
            out.append(f"- {opname}, {kernel} line {line}: `{text}`")
    swept = [x for x in listed if x[0] == "swept"]
    if swept:
        out += ["", "Flagged at another trip count: the values that flag each over twice the "
                "sweep's runs (`--param`, `--seq-stride`), and whether they repeat after one "
                "sweep:", "",
                "| operator | kernel | line | flagged at | of | period | repeats |",
                "|---|---|---|---|---|---|---|"]
        for _, opname, kernel, line, (values, span, period, verdict) in swept:
            out.append(f"| {opname} | {kernel} | {line} | {values} | {span} | {period} | "
                       f"{verdict} |")
    clean = [x for x in listed if x[0] == "clean"]
    if clean:
        out += ["", "Clean, by reason:", "", "| reason | operator | kernel: lines |", "|---|---|---|"]
        groups = defaultdict(list)
        for _, opname, kernel, line, why in clean:
            groups[(why, opname, kernel)].append(line)
        for (why, opname, kernel), ls in sorted(groups.items()):
            out.append(f"| {why} | {opname} | {kernel}: {', '.join(map(str, ls))} |")
    out.append("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linalias", default=str(ROOT / "target/release/linalias"))
    ap.add_argument("--write", action="store_true", help=f"rewrite the table in {DOC}")
    ap.add_argument("--check", action="store_true", help=f"compare with the table in {DOC}")
    a = ap.parse_args()
    rows, listed = survey(a.linalias)
    text = table(rows, listed)
    begin, end = "<!-- mutants:begin -->\n", "<!-- mutants:end -->"
    doc = DOC.read_text()
    i, k = doc.index(begin) + len(begin), doc.index(end)
    if a.write:
        DOC.write_text(doc[:i] + text + doc[k:])
    elif a.check:
        if doc[i:k] != text:
            sys.stderr.write(f"{DOC}: the mutant table differs; run tools/hazard_mutants.py --write\n")
            sys.stdout.write(text)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
