#!/usr/bin/env python3
"""Import circles between the modules of a Rust crate.

    python3 tools/import_cycles.py [--allow A,B,C] CRATE_SRC_DIR [...]      e.g. codegen/src

Builds the graph "module A uses an item defined in module B" from the `use` statements of
every file under the crate's `src/` (one module per file; `foo.rs` + `foo/`, or `foo/mod.rs`),
resolving each imported name through `pub use` re-exports to the module that defines it. A
parent's own `pub use child::X` lines are re-exports, not uses, and make no edge. Prints every
strongly connected component of more than one module and exits 1 if there is one, else prints
`no import circles` and exits 0.

It reads `use` statements only (not fully qualified paths in expressions), which is how this
workspace imports. `--allow` names one circle that is accepted, by its modules (comma-separated,
`::` paths): a circle of exactly those modules is listed as allowed and does not fail.
"""

import os
import re
import sys
from collections import defaultdict


def module_path(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("lib", "main", "mod"):
        rel = rel[:-1]
    return tuple(rel)


def use_statements(text):
    """(is_pub, body) of each `use …;` statement, comments stripped."""
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
        body = re.sub(r"\s+", " ", m.group(2)).strip()
        yield bool(m.group(1)), re.sub(r"\s*([:{},])\s*", r"\1", body)


def expand(body):
    """`a::{b,c::{d,e}}` → [a::b, a::c::d, a::c::e]; `x as y` keeps x."""
    m = re.match(r"^(.*?)::\{(.*)\}$", body)
    if not m:
        return [body.split(" as ")[0]]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    if cur:
        parts.append(cur)
    out = []
    for p in parts:
        for e in expand(p):
            out.append(prefix if e == "self" else f"{prefix}::{e}")
    return out


def absolute(mod, path, mods):
    segs = path.split("::")
    base = list(mod)
    if tuple(base + segs[:1]) in mods:
        return tuple(base + segs)  # a child module, named relative to this one
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("self", "super"):
        while segs and segs[0] in ("self", "super"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None  # an external crate or std
    return tuple(base + segs)


def main(src, allowed=frozenset()):
    files = []
    for root, _, names in os.walk(src):
        files += [os.path.join(root, n) for n in names if n.endswith(".rs")]
    mods = {module_path(src, f): f for f in files}
    uses = defaultdict(list)  # module -> [(is_pub, absolute path)]
    for mod, f in mods.items():
        for is_pub, body in use_statements(open(f).read()):
            for p in expand(body):
                a = absolute(mod, p, mods)
                if a:
                    uses[mod].append((is_pub, a))
    # name re-exported by a module -> where it comes from
    reexport = {}
    for mod, items in uses.items():
        for is_pub, a in items:
            if is_pub:
                reexport[(mod, a[-1])] = a

    def defining(path, seen=()):
        """The module that defines the item (or is the module) `path` names."""
        for k in range(len(path), 0, -1):
            if path[:k] in mods:
                owner = path[:k]
                if k == len(path):
                    return owner
                nxt = reexport.get((owner, path[k]))
                if nxt and nxt not in seen and k == len(path) - 1:
                    return defining(nxt, seen + (nxt,))
                return owner
        return None

    edges = defaultdict(set)
    for mod, items in uses.items():
        for is_pub, a in items:
            target = defining(a)
            if target is None or target == mod:
                continue
            if is_pub and target[: len(mod)] == mod:
                continue  # a parent re-exporting its child
            if mod[: len(target)] == target:
                continue  # a module naming an ancestor's own item is not a circle through files
            edges[mod].add(target)

    # Tarjan's strongly connected components.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in list(mods):
        if v not in index:
            visit(v)
    name = lambda m: "::".join(m) or "crate"
    failing = 0
    for comp in comps:
        names = frozenset(name(m) for m in comp)
        if names == allowed:
            print(f"{src}: allowed circle: " + ", ".join(sorted(names)))
            continue
        failing += 1
        print(f"{src}: circle: " + ", ".join(sorted(names)))
        for m in sorted(comp):
            inside = sorted(name(t) for t in edges[m] if t in comp)
            print(f"    {name(m)} -> {', '.join(inside)}")
    return failing


if __name__ == "__main__":
    args = sys.argv[1:]
    allowed = frozenset()
    if args[:1] == ["--allow"] and len(args) > 1:
        allowed = frozenset(args[1].split(","))
        args = args[2:]
    found = sum(main(src, allowed) for src in args)
    if not found:
        print("no import circles" + (" but the allowed one" if allowed else ""))
    sys.exit(1 if found else 0)
