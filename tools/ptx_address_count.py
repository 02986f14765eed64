#!/usr/bin/env python3
"""Count the PTX instructions that compute shared-memory addresses.

Used for benchmark (1) of issue 5: the same count is taken on the PTX Triton
3.9 compiles for a (register layout, shared layout) pair and on the PTX this
project emits for it.  Pure Python (3.8+), no dependencies; works on Triton's
PTX (LLVM NVPTX output with inline-asm blocks, ``.loc`` lines, DWARF sections)
and on ours (``codegen``'s printer, ``// @role`` comments).

Usage::

    python tools/ptx_address_count.py KERNEL.ptx [MORE.ptx ...] [--json] [--list] [--kernel NAME]

As a module::

    from ptx_address_count import count_ptx
    result = count_ptx(ptx_text)            # {kernel_name: counts}
    counts = result["store_k"]               # see "Result" below

Counting rules (applied identically to every kernel)
----------------------------------------------------
The PTX text is read per ``.entry``/``.func`` body, comments, ``.loc``/``.file``
lines dropped; registers declared with ``.reg`` inside an inner ``{ }`` scope
(inline asm) are renamed so they cannot alias the function's registers.

1. **Roots (shared accesses).**  An instruction is a *shared data access* when
   its opcode is ``ldmatrix*``/``stmatrix*``, or its first component is
   ``ld``/``st``/``atom``/``red``/``cp`` (``st.async``, ``cp.async``,
   ``cp.async.bulk*`` included) and a later component is ``shared`` /
   ``shared::cta`` / ``shared::cluster``.  Generic-address accesses (no
   ``.shared``) are not recognised.  Each such instruction is **one access**
   whatever its vector width (``.v4``, ``.x4``).
   Kinds: ``load`` (``ld.shared``, ``ldmatrix``, ``cp.*`` whose source is
   shared), ``store`` (``st.shared``, ``stmatrix``, ``cp.*`` whose destination
   is shared), ``atomic`` (``atom``/``red``).  The address registers of a root
   are the registers inside its shared ``[...]`` operand(s) (for ``cp.*`` the
   k-th state-space component of the opcode names the k-th bracket: in
   ``cp.async.ca.shared.global [d], [s]`` only ``[d]`` is shared; brackets
   past the state-space pair, e.g. an mbarrier, are shared-side too).
   ``mbarrier.*`` and any other instruction with a shared state space
   (``tcgen05.alloc``, ``tcgen05.commit``...) is kind ``control`` and wgmma/tcgen05.mma
   matrix descriptors (their ``.b64`` register operands) are kind
   ``descriptor``; both are reported in their own sections and are **not** in
   the main totals.  The predicate guarding a root (``@%p st.shared``) is not
   part of its address and is not followed.
2. **Slice.**  From each address register, walk backwards through its
   defining instructions while they are *address ALU* instructions::

       add sub mul mad mul24 mad24 sad shl shr shf and or xor not lop3 bfe bfi
       prmt cvt cvta mapa mov selp slct setp min max neg abs rem div brev popc
       clz bfind

   (any type/modifier suffix: ``mad.lo.s32``, ``mul.wide.u32``, ``shr.u32``,
   ``mov.b32 %r, {..}``...).  Every such instruction reached is counted, and
   its register sources (including a ``selp``'s predicate and the guard of a
   predicated definition) are followed in turn.  This includes
   ``mov.u32 %r, %tid.x`` (special-register read), ``mov.b32 %r, global_smem``
   / ``mov.u32 %r, smem`` (address of a ``.shared`` variable) and ``mov`` of an
   immediate: they are counted in ``instructions`` and listed under
   ``setup``; ``alu`` is ``instructions`` minus ``setup``.  The walk stops,
   without counting, at any other defining instruction (``ld.param``,
   ``ld.shared``, ``shfl``, ``call``...; listed under ``leaves``) and at
   special registers, symbols and immediates used directly as operands.
   Immediate offsets inside ``[reg+imm]`` cost nothing.
3. **Union.**  ``instructions`` is the number of *distinct* instructions in
   the union of all roots' slices (an instruction shared by several accesses,
   or by address and non-address code, counts once, and counts fully).
   ``per_access = instructions / accesses``.
4. **Reaching definitions.**  PTX from LLVM is nearly SSA; for a register
   defined more than once, the definitions reaching a use are the last one
   before it in program order (and, when that one is predicated, the ones
   before it up to an unpredicated one); for a use inside a loop body (a label
   and a later backward ``bra`` to it) with no unpredicated definition
   between the loop head and the use, the definitions from the use to the end
   of the loop body are added (loop-carried values).  Forward branches are
   not modelled (straight-line reading).
5. **Loops.**  Slice instructions inside a loop body are counted in
   ``loop.in_loop``, the rest (loop-invariant setup, hoisted) in
   ``loop.outside``; ``loop.accesses_in_loop`` counts roots inside loops.
   Without loops ``loop.in_loop`` is 0.
6. **Per kind.**  ``by_kind.load`` / ``by_kind.store`` are the same count
   over the loads (stores) alone; an instruction feeding both is in both, so
   they can sum to more than ``instructions``.

Result (per kernel; ``count_ptx`` returns ``{name: result}``)::

    {"accesses": N, "accesses_by_kind": {"load": .., "store": ..},
     "accesses_by_opcode": {"st.shared.v4.b32": ..},
     "instructions": U, "per_access": U/N, "alu": .., "setup": {"special_register": .., "symbol": .., "constant": ..},
     "by_opcode": {"add": .., ...}, "by_form": {"add.s32": .., ...},
     "address_registers": distinct base registers, "address_operands": distinct [base+imm],
     "by_kind": {"load": {accesses, instructions, per_access, by_opcode}, "store": {...}},
     "leaves": {"ld.param.b64": ..}, "loop": {"loops": L, "in_loop": .., "outside": .., "accesses_in_loop": ..},
     "control": {...same shape, mbarrier...}, "descriptor": {...},
     "slice": [PTX text of every counted instruction, in program order]   # with --list / list_slice=True
    }
"""

import argparse
import collections
import json
import re
import sys

__all__ = ["count_ptx", "count_kernel", "parse_functions", "ALU_OPS"]

ALU_OPS = frozenset("""
add sub mul mad mul24 mad24 sad shl shr shf and or xor not lop3 bfe bfi prmt cvt cvta mapa mov selp slct setp
min max neg abs rem div brev popc clz bfind
""".split())

SPECIAL_REGS = frozenset("""
tid ntid laneid warpid nwarpid ctaid nctaid smid nsmid gridid clusterid nclusterid cluster_ctaid cluster_nctaid
cluster_ctarank cluster_nctarank is_explicit_cluster lanemask_eq lanemask_le lanemask_lt lanemask_ge lanemask_gt
clock clock64 globaltimer globaltimer_lo globaltimer_hi total_smem_size aggr_smem_size dynamic_smem_size
current_graph_exec reserved_smem_offset_begin reserved_smem_offset_end reserved_smem_offset_cap
reserved_smem_offset_0 reserved_smem_offset_1 pm0 pm1 pm2 pm3 pm4 pm5 pm6 pm7 envreg0
""".split())

# Opcodes (first dotted component) that never write a register operand.
NO_DEST = frozenset("""
bar barrier bra brx ret exit membar fence trap nanosleep griddepcontrol setmaxnreg prefetch prefetchu cp st
stmatrix red pmevent discard applypriority
""".split())

DATA_KINDS = ("load", "store", "atomic")

_TOKEN = re.compile(r"(?<![\w$.])[%A-Za-z_$][\w$]*(?:\.[A-Za-z_]\w*)?")
_IMM = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d+)U?$")
_LABEL = re.compile(r"([$%A-Za-z_.][\w$.]*)\s*:(?!:)")


# --------------------------------------------------------------------------
# Lexing
# --------------------------------------------------------------------------

def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"^[ \t]*\.(loc|file)\b[^\n]*$", "", text, flags=re.M)


def _match_close(text, i, open_c, close_c):
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced %s%s at offset %d" % (open_c, close_c, i))


def _shared_symbols(text):
    """Names of module-level ``.shared`` variables."""
    names = set()
    for m in re.finditer(r"\.shared\b[^;{]*?([A-Za-z_$][\w$]*)\s*(\[[^\]]*\])?\s*(=[^;]*)?;", text):
        names.add(m.group(1))
    return names


def parse_functions(ptx):
    """[(kind, name, body_text)] for every ``.entry``/``.func`` with a body."""
    text = _strip_comments(ptx)
    out = []
    for m in re.finditer(r"\.(entry|func)\b", text):
        i = m.end()
        while i < len(text) and text[i].isspace():
            i += 1
        if m.group(1) == "func" and i < len(text) and text[i] == "(":  # return parameters
            i = _match_close(text, i, "(", ")") + 1
        nm = re.compile(r"\s*([A-Za-z_$][\w$]*)").match(text, i)
        if not nm:
            continue
        name = nm.group(1)
        i = nm.end()
        while i < len(text) and text[i].isspace():
            i += 1
        if i < len(text) and text[i] == "(":
            i = _match_close(text, i, "(", ")") + 1
        semi = text.find(";", i)
        brace = text.find("{", i)
        if brace < 0 or (0 <= semi < brace):
            continue  # declaration only
        end = _match_close(text, brace, "{", "}")
        out.append((m.group(1), name, text[brace + 1:end]))
    return out


class Inst:
    __slots__ = ("idx", "text", "guard", "guard_neg", "opcode", "operands", "op_regs", "dests", "srcs", "scope")

    def __init__(self, idx, text, guard, guard_neg, opcode, operands, scope):
        self.idx = idx
        self.text = text
        self.guard = guard
        self.guard_neg = guard_neg
        self.opcode = opcode
        self.operands = operands
        self.scope = scope
        self.op_regs = []  # per operand: (registers, other names)
        self.dests = []
        self.srcs = []

    @property
    def base(self):
        return self.opcode.split(".")[0]

    def __repr__(self):
        return "Inst(%d, %r)" % (self.idx, self.text)


def _split_operands(s):
    out, depth, cur = [], 0, []
    for c in s:
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    last = "".join(cur).strip()
    if last:
        out.append(last)
    return out


class _Scopes:
    """``.reg`` declarations per brace scope, to rename inline-asm locals."""

    def __init__(self):
        self.stack = [({}, [], 0)]  # (explicit names -> type, [(prefix, n, type)], scope id)
        self.next_id = 1

    def push(self):
        self.stack.append(({}, [], self.next_id))
        self.next_id += 1

    def pop(self):
        if len(self.stack) > 1:
            self.stack.pop()

    def declare(self, decl):
        # ".reg .b32 %r<27>"  |  ".reg .pred %p1, %p2"  |  ".reg .b32 tmp"
        m = re.match(r"\.reg\s+((?:\.\w+\s+)*)(.*)$", decl, re.S)
        if not m:
            return
        types = m.group(1).split()
        ty = types[-1] if types else ""
        names, ranges, _ = self.stack[-1]
        for item in m.group(2).split(","):
            item = item.strip()
            rm = re.match(r"^([%\w$]+)<(\d+)>$", item)
            if rm:
                ranges.append((rm.group(1), int(rm.group(2)), ty))
            elif item:
                names[item] = ty

    def resolve(self, tok):
        """(canonical name, type) if ``tok`` is a declared register, else None."""
        for names, ranges, sid in reversed(self.stack):
            hit = None
            if tok in names:
                hit = names[tok]
            else:
                for prefix, n, ty in ranges:
                    if tok.startswith(prefix) and tok[len(prefix):].isdigit() and int(tok[len(prefix):]) < n:
                        hit = ty
                        break
            if hit is not None:
                return (tok if sid == 0 else "%s@%d" % (tok, sid)), hit
        return None


def _lex_body(body):
    """Statements of a function body: ('inst', text, scope) | ('label', name) | ('decl', text, scopes)."""
    stmts = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c.isspace() or c == ";":
            i += 1
            continue
        if c == "{":
            stmts.append(("push",))
            i += 1
            continue
        if c == "}":
            stmts.append(("pop",))
            i += 1
            continue
        lm = _LABEL.match(body, i)
        if lm:
            stmts.append(("label", lm.group(1)))
            i = lm.end()
            continue
        # a statement runs to the next ';' outside brackets/braces
        depth, j = 0, i
        while j < n:
            cj = body[j]
            if cj in "[{(":
                depth += 1
            elif cj in "]})":
                depth -= 1
            elif cj == ";" and depth == 0:
                break
            j += 1
        stmts.append(("stmt", " ".join(body[i:j].split())))
        i = j + 1
    return stmts


# --------------------------------------------------------------------------
# Instruction model
# --------------------------------------------------------------------------

def _state_spaces(opcode):
    """Ordered state-space components of an opcode (``shared``, ``global``, ...)."""
    out = []
    for comp in opcode.split(".")[1:]:
        b = comp.split("::")[0]
        if b in ("shared", "global", "local", "param", "const", "tex"):
            out.append(b)
    return out


def _access_kind(inst):
    """(kind, [indices of shared bracket operands]) or None for a non-shared instruction."""
    op = inst.opcode
    base = inst.base
    brackets = [k for k, o in enumerate(inst.operands) if o.startswith("[")]
    if op.startswith("wgmma.mma_async") or op.startswith("tcgen05.mma"):
        return ("descriptor", [])
    if base == "ldmatrix":
        return ("load", brackets[:1])
    if base == "stmatrix":
        return ("store", brackets[:1])
    spaces = _state_spaces(op)
    if "shared" not in spaces:
        return None
    if base == "mbarrier":
        return ("control", brackets)
    if base in ("atom", "red"):
        return ("atomic", brackets[:1])
    if base == "ld":
        return ("load", brackets[:1])
    if base == "st":
        return ("store", brackets[:1])
    if base == "cp":
        shared_br = []
        for k, b in enumerate(brackets):
            if k < len(spaces):
                if spaces[k] == "shared":
                    shared_br.append(b)
            else:
                shared_br.append(b)  # mbarrier / extra shared operands
        kind = "store" if spaces[0] == "shared" else "load"
        return (kind, shared_br)
    return ("control", brackets)


class Kernel:
    """One function body, parsed."""

    def __init__(self, name, body, shared_syms):
        self.name = name
        self.shared_syms = shared_syms
        self.insts = []
        self.labels = {}
        self.reg_types = {}
        self.branches = []  # (inst idx, target label)
        scopes = _Scopes()
        for st in _lex_body(body):
            if st[0] == "push":
                scopes.push()
            elif st[0] == "pop":
                scopes.pop()
            elif st[0] == "label":
                self.labels[st[1]] = len(self.insts)
            else:
                text = st[1]
                if text.startswith(".reg"):
                    scopes.declare(text)
                    continue
                if text.startswith("."):
                    continue  # other directives: .local, .shared (function scope), .pragma, .maxnreg ...
                self._add(text, scopes)
        self.loops = self._loops()

    def _reg(self, tok, scopes):
        r = scopes.resolve(tok)
        if r is not None:
            self.reg_types.setdefault(r[0], r[1])
            return r[0]
        if tok.startswith("%"):
            return tok  # undeclared % name (should not happen in valid PTX)
        return None

    def _operand_regs(self, text, scopes):
        regs, others = [], []
        for m in _TOKEN.finditer(text):
            tok = m.group(0)
            if tok.startswith("%"):
                head = tok[1:].split(".")[0]
                if head in SPECIAL_REGS:
                    others.append(tok)
                    continue
            else:
                tok = tok.split(".")[0]
            r = self._reg(tok, scopes)
            if r is not None:
                regs.append(r)
            elif tok != "_":
                others.append(tok)
        return regs, others

    def _add(self, text, scopes):
        guard, neg = None, False
        gm = re.match(r"^@(!?)\s*([%\w$]+)\s+", text)
        if gm:
            neg = gm.group(1) == "!"
            guard = self._reg(gm.group(2), scopes) or gm.group(2)
            text = text[gm.end():]
        parts = text.split(None, 1)
        opcode = parts[0]
        operands = _split_operands(parts[1]) if len(parts) > 1 else []
        inst = Inst(len(self.insts), text if not gm else (gm.group(0) + text), guard, neg, opcode, operands,
                    None)
        base = inst.base
        first_is_dest = bool(operands) and not operands[0].startswith("[") and base not in NO_DEST
        if base == "wgmma" and not opcode.startswith("wgmma.mma_async"):
            first_is_dest = False
        if base == "tcgen05" and not opcode.startswith("tcgen05.ld"):
            first_is_dest = False
        if base == "call":
            first_is_dest = operands and operands[0].startswith("(")
        if base == "bra":
            self.branches.append((inst.idx, operands[0] if operands else None))
        for k, o in enumerate(operands):
            regs, others = self._operand_regs(o, scopes)
            inst.op_regs.append((regs, others))
            if k == 0 and first_is_dest:
                inst.dests.extend(regs)
                if base == "wgmma":  # accumulators are read too
                    inst.srcs.extend(regs)
            else:
                inst.srcs.extend(regs)
        if guard is not None:
            inst.srcs.append(guard)
        self.insts.append(inst)

    def _loops(self):
        loops = []
        for idx, target in self.branches:
            if target in self.labels and self.labels[target] <= idx:
                loops.append((self.labels[target], idx))
        return loops


# --------------------------------------------------------------------------
# Slicing and counting
# --------------------------------------------------------------------------

def _reaching(defs, reg, pos, loops, insts):
    ds = defs.get(reg, [])
    if not ds:
        return []
    out = []
    before = [d for d in ds if d < pos]
    for d in reversed(before):
        out.append(d)
        if insts[d].guard is None:
            break
    for s, e in loops:
        if s <= pos <= e:
            if not any(s <= d < pos and insts[d].guard is None for d in out):
                out.extend(d for d in ds if pos <= d <= e and d not in out)
    return out


def _setup_class(inst, shared_syms):
    if inst.base != "mov" or len(inst.operands) != 2:
        return None
    src = inst.operands[1]
    if src.startswith("%") and src[1:].split(".")[0] in SPECIAL_REGS:
        return "special_register"
    if _IMM.match(src):
        return "constant"
    if src in shared_syms:
        return "symbol"
    return None


def _slice(kernel, defs, roots):
    """Union slice for [(inst, [reg...])] roots: (set of counted idx, Counter of leaf opcodes)."""
    counted, leaves = set(), collections.Counter()
    seen = set()
    work = [(r, inst.idx) for inst, regs in roots for r in regs]
    while work:
        reg, pos = work.pop()
        if (reg, pos) in seen:
            continue
        seen.add((reg, pos))
        for d in _reaching(defs, reg, pos, kernel.loops, kernel.insts):
            di = kernel.insts[d]
            if di.base not in ALU_OPS:
                leaves[di.opcode] += 1
                continue
            if d in counted:
                continue
            counted.add(d)
            for s in di.srcs:
                work.append((s, d))
    return counted, leaves


def _summary(kernel, roots, counted, leaves, list_slice):
    insts = kernel.insts
    n = len(roots)
    by_op = collections.Counter(insts[i].base for i in counted)
    by_form = collections.Counter(insts[i].opcode for i in counted)
    setup = collections.Counter()
    for i in counted:
        c = _setup_class(insts[i], kernel.shared_syms)
        if c:
            setup[c] += 1
    in_loop = sum(1 for i in counted if any(s <= i <= e for s, e in kernel.loops))
    out = {
        "accesses": n,
        "instructions": len(counted),
        "per_access": round(len(counted) / n, 4) if n else None,
        "alu": len(counted) - sum(setup.values()),
        "setup": dict(sorted(setup.items())),
        "by_opcode": dict(sorted(by_op.items())),
        "by_form": dict(sorted(by_form.items())),
        "leaves": dict(sorted(leaves.items())),
        "loop": {"loops": len(kernel.loops), "in_loop": in_loop, "outside": len(counted) - in_loop,
                 "accesses_in_loop": sum(1 for inst, _ in roots
                                         if any(s <= inst.idx <= e for s, e in kernel.loops))},
    }
    if list_slice:
        out["slice"] = [insts[i].text for i in sorted(counted)]
    return out


def count_kernel(kernel, list_slice=False):
    defs = collections.defaultdict(list)
    for inst in kernel.insts:
        for r in inst.dests:
            defs[r].append(inst.idx)
    roots = collections.defaultdict(list)  # kind -> [(inst, regs)]
    addr_ops = set()
    addr_regs = set()
    by_opcode = collections.Counter()
    for inst in kernel.insts:
        k = _access_kind(inst)
        if k is None:
            continue
        kind, br = k
        if kind == "descriptor":
            regs = []
            for o, (rs, _) in list(zip(inst.operands, inst.op_regs))[1:]:
                if o.startswith("[") or o.startswith("{"):
                    continue
                regs.extend(r for r in rs if kernel.reg_types.get(r, "").endswith("64"))
            roots[kind].append((inst, regs))
            continue
        regs = []
        for b in br:
            o = inst.operands[b]
            rs, others = inst.op_regs[b]
            regs.extend(rs)
            imm = re.search(r"([-+])\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))\s*\]$", o)
            base = rs[0] if rs else (others[0] if others else "")
            off = (-1 if imm.group(1) == "-" else 1) * int(imm.group(2), 0) if imm else 0
            if kind in DATA_KINDS:
                addr_ops.add((base, off))
                addr_regs.update(rs)
        roots[kind].append((inst, regs))
        if kind in DATA_KINDS:
            by_opcode[inst.opcode] += 1
    data_roots = [r for k in DATA_KINDS for r in roots.get(k, [])]
    counted, leaves = _slice(kernel, defs, data_roots)
    res = _summary(kernel, data_roots, counted, leaves, list_slice)
    res = dict([("accesses", res.pop("accesses")),
                ("accesses_by_kind", {k: len(roots[k]) for k in DATA_KINDS if roots.get(k)}),
                ("accesses_by_opcode", dict(sorted(by_opcode.items())))] + list(res.items()))
    res["address_registers"] = len(addr_regs)
    res["address_operands"] = len(addr_ops)
    res["by_kind"] = {}
    for k in DATA_KINDS:
        if roots.get(k):
            c, lv = _slice(kernel, defs, roots[k])
            s = _summary(kernel, roots[k], c, lv, False)
            res["by_kind"][k] = {x: s[x] for x in ("accesses", "instructions", "per_access", "alu", "by_opcode")}
    for k in ("control", "descriptor"):
        if roots.get(k):
            c, lv = _slice(kernel, defs, roots[k])
            s = _summary(kernel, roots[k], c, lv, list_slice)
            s.pop("loop")
            res[k] = s
    return res


def count_ptx(ptx, list_slice=False, kernel=None):
    """``{kernel name: counts}`` for every function with a body in ``ptx`` (see module docs)."""
    syms = _shared_symbols(_strip_comments(ptx))
    out = {}
    for _kind, name, body in parse_functions(ptx):
        if kernel is not None and name != kernel:
            continue
        out[name] = count_kernel(Kernel(name, body, syms), list_slice=list_slice)
    return out


def _fmt_table(name, r):
    lines = ["%s: %d shared accesses %s, %d address instructions (%s/access), alu %d, setup %s" % (
        name, r["accesses"], r["accesses_by_kind"], r["instructions"], r["per_access"], r["alu"], r["setup"])]
    lines.append("  by opcode: %s" % r["by_opcode"])
    for k, s in r["by_kind"].items():
        lines.append("  %-7s %3d accesses, %3d instructions (%s/access)" % (k, s["accesses"], s["instructions"],
                                                                          s["per_access"]))
    if r["leaves"]:
        lines.append("  leaves (not counted): %s" % r["leaves"])
    if r["loop"]["loops"]:
        lines.append("  loops: %s" % r["loop"])
    for k in ("control", "descriptor"):
        if k in r:
            lines.append("  %s: %d, %d instructions" % (k, r[k]["accesses"], r[k]["instructions"]))
    if "slice" in r:
        lines.extend("    " + t for t in r["slice"])
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ptx", nargs="+", help="PTX files ('-' for stdin)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    ap.add_argument("--list", action="store_true", help="list the counted instructions")
    ap.add_argument("--kernel", help="only this .entry/.func")
    args = ap.parse_args(argv)
    allres = {}
    for path in args.ptx:
        text = sys.stdin.read() if path == "-" else open(path).read()
        res = count_ptx(text, list_slice=args.list, kernel=args.kernel)
        allres[path] = res
        if not args.json:
            for name, r in res.items():
                print("%s :: %s" % (path, _fmt_table(name, r)))
    if args.json:
        json.dump(allres if len(args.ptx) > 1 else allres[args.ptx[0]], sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
