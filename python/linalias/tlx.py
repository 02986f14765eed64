"""TLX's storage aliasing, by TLX's names (``triton.language.extra.tlx`` of the TLX fork):
``storage_alias_spec``, ``local_alloc(..., reuse=…)``, ``reuse_group``,
``spec.set_buffer_overlap``, ``storage_kind``, ``reuse_group_type`` — called inside a ``Kernel``
(``with Kernel() as k:``), then ``k.plan(mode=…)``. A kernel can also be read from a TTGIR dump
(``Kernel.from_ttgir``) or a plan file (``Kernel.from_toml``). Planning runs the pipeline of
``linalias plan --json``; its warnings are issued as Python warnings (``LinaliasWarning``).

>>> from linalias import tlx
>>> with tlx.Kernel(target="sm_100") as k:
...     s = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
...     a = tlx.local_alloc((64, 64), "bf16", 2, reuse=s, name="a")
...     b = tlx.local_alloc((64, 64), "bf16", 2, reuse=s, name="b")
...     s.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.distinct))
>>> plan = k.plan(mode="tlx")
>>> [plan.buffer_start("b", i) for i in range(2)]
[8192, 24576]
"""

import enum
import json
import threading
import warnings
from typing import List, Optional, Sequence, Union

from . import _linalias
from .layouts import mlir as _layout_mlir


class LinaliasWarning(UserWarning):
    """A warning of the planner (TLX's own text follows in ``tlx`` mode where TLX has one)."""


class storage_kind(enum.Enum):
    """Where a buffer lives (TLX's ``tlx.storage_kind``)."""

    smem = "smem"
    tmem = "tmem"
    smemCluster = "smemCluster"


class reuse_group_type(enum.Enum):
    """How the members of a reuse group relate (TLX's ``tlx.reuse_group_type``)."""

    shared = "shared"
    distinct = "distinct"


_current = threading.local()


def _kernel() -> "Kernel":
    stack = getattr(_current, "stack", [])
    if not stack:
        raise _linalias.ParseError("TLX calls need a kernel: call them inside `with linalias.tlx.Kernel() as k:`")
    return stack[-1]


def _name(v) -> str:
    """A dtype (Triton's ``tl.float32``, anything with a ``name``, or a string) as its name."""
    return v if isinstance(v, str) else str(getattr(v, "name", v))


class storage_alias_spec:
    """``tlx.storage_alias_spec(storage, buffer_size_bytes)``: a region that allocations share
    through ``local_alloc(..., reuse=spec)``."""

    def __init__(self, storage: storage_kind = storage_kind.smem, buffer_size_bytes: Optional[int] = None,
                 name: Optional[str] = None):
        kernel = _kernel()
        self.storage = storage_kind(storage)
        self.buffer_size_bytes = buffer_size_bytes
        self.name = name or f"spec{len(kernel._specs)}"
        self.overlap: Optional["reuse_group"] = None
        self._kernel = kernel
        kernel._add_spec(self)

    def set_buffer_overlap(self, overlap_def: "reuse_group") -> None:
        """``spec.set_buffer_overlap(reuse_group(...))``: the spec's reuse tree."""
        if not isinstance(overlap_def, reuse_group):
            raise _linalias.ParseError(
                f"set_buffer_overlap takes a reuse_group, got {type(overlap_def).__name__}")
        self._kernel._overlaps.append((self, overlap_def))

    def __repr__(self):
        return f"storage_alias_spec(name={self.name!r}, storage={self.storage}, buffer_size_bytes={self.buffer_size_bytes})"


class buffered_tensor:
    """What ``local_alloc`` returns: ``num`` buffers of ``shape`` × ``dtype``."""

    def __init__(self, name, shape, dtype, num, storage, reuse, layout, lifetime):
        self.name, self.shape, self.dtype, self.num = name, list(shape), _name(dtype), num
        self.storage, self.reuse, self.layout, self.lifetime = storage, reuse, layout, lifetime

    def __repr__(self):
        return f"buffered_tensor(name={self.name!r}, shape={self.shape}, dtype={self.dtype!r}, num={self.num})"


def local_alloc(shape: Sequence[int], dtype, num: int, storage: storage_kind = storage_kind.smem,
                reuse: Union[None, storage_alias_spec, buffered_tensor] = None, layout=None,
                name: Optional[str] = None, lifetime: Optional[Sequence[int]] = None) -> buffered_tensor:
    """``tlx.local_alloc(shape, dtype, num, storage, reuse, layout)``, named ``name`` (default
    ``alloc<N>``); ``storage`` is shared memory unless given, as in TLX (a TMEM spec's users say
    ``storage=tlx.storage_kind.tmem``). ``layout`` is one of our layouts, Gluon's, or MLIR text (or
    ``"dummy_tmem"``); ``lifetime`` the program points ``[start, end)`` its data is live
    (Intended mode packs regions by them)."""
    kernel = _kernel()
    t = buffered_tensor(name or f"alloc{len(kernel._allocs)}", shape, dtype, num, storage_kind(storage), reuse,
                        layout, lifetime)
    kernel._allocs.append(t)
    return t


class reuse_group:
    """``tlx.reuse_group(*elems, group_type=shared, group_size=1)``: a node of a reuse tree."""

    def __init__(self, *args: Union[buffered_tensor, "reuse_group"],
                 group_type: reuse_group_type = reuse_group_type.shared, group_size: int = 1):
        for a in args:
            if not isinstance(a, (buffered_tensor, reuse_group)):
                raise _linalias.ParseError(
                    f"reuse_group members are local_alloc results or reuse_groups, got {type(a).__name__}")
        self.args = list(args)
        self.group_type = reuse_group_type(group_type)
        self.group_size = group_size

    def _toml(self) -> str:
        members = ", ".join(json.dumps(a.name) if isinstance(a, buffered_tensor) else a._toml() for a in self.args)
        size = f", group_size = {int(self.group_size)}" if self.group_size != 1 else ""
        return f"{{ {self.group_type.value} = [{members}]{size} }}"


class Plan:
    """A kernel planned: what ``linalias plan --json`` reports, as attributes."""

    def __init__(self, report: dict, svg: str):
        self.report = report
        self.svg = svg

    mode = property(lambda self: self.report["mode"])
    target = property(lambda self: self.report["target"])
    regions = property(lambda self: self.report["regions"])
    allocations = property(lambda self: self.report["allocations"])
    warnings = property(lambda self: self.report["warnings"])
    kernel = property(lambda self: self.report["kernel"])
    arenas = property(lambda self: self.report["arenas"])
    does_not_fit = property(lambda self: self.report["does_not_fit"])
    checker_ok = property(lambda self: self.report["checker"]["ok"])
    violations = property(lambda self: self.report["checker"]["violations"])

    def allocation(self, name: str) -> dict:
        for a in self.allocations:
            if a["name"] == name:
                return a
        raise _linalias.AllocError(f"no allocation '{name}' in this plan")

    def buffer_start(self, name: str, i: int) -> int:
        """Where buffer ``i`` of allocation ``name`` starts in its region (bytes in shared
        memory, columns in tensor memory)."""
        starts = self.allocation(name)["starts"]
        if not 0 <= i < len(starts):
            raise _linalias.AllocError(f"allocation '{name}' has no buffer {i} among its first {len(starts)}")
        return starts[i]

    @property
    def summary(self) -> str:
        """One line: mode, target, the kernel's shared and tensor memory, the checker."""
        k = self.kernel
        memory = ("packed by lifetime" if k is None else
                  f"SMEM {k['smem_bytes']} of {k['smem_limit']} bytes, TMEM {k['tmem_columns']} of {k['tmem_limit']} columns")
        checker = "checker: ok" if self.checker_ok else f"checker: {len(self.violations)} violations"
        return f"{self.mode} plan for {self.target}: {memory}; {checker}"

    def __repr__(self):
        return f"<linalias.tlx.Plan {self.summary}>"

    def _repr_svg_(self):
        return self.svg


class _Report:
    """What ``linalias check --json`` reports, its text and swimlanes, as attributes."""

    def __init__(self, report: dict, text: str, svg: str, exit_code: int):
        self.report, self.text, self.svg, self.exit_code = report, text, svg, exit_code

    @property
    def verified(self) -> bool:
        """Every pair verified and no protocol finding (``linalias check`` exits 0)."""
        return self.exit_code == 0

    @property
    def summary(self) -> str:
        return self.text.rstrip("\n").rsplit("\n", 1)[-1].removeprefix("summary: ")

    def __repr__(self):
        return f"<linalias.tlx.{type(self).__name__} {self.summary}>"

    def __str__(self):
        return self.text

    def _repr_svg_(self):
        return self.svg


class Check(_Report):
    """A kernel's hazard check: what ``linalias check --json`` reports, as attributes."""

    pairs = property(lambda self: self.report["pairs"])
    protocol = property(lambda self: self.report["protocol"])
    warnings = property(lambda self: self.report["warnings"])

    @property
    def hazards(self) -> list:
        """The pairs of allocations with a hazard, each with its witness."""
        return [p for p in self.pairs if p["hazards"] > 0]


class Sweep(_Report):
    """A kernel's hazard check at every residue of its loops' trip counts modulo the period of
    its barrier rings (``linalias check --sweep --json``): ``verified`` at every run."""

    period = property(lambda self: self.report["period"])
    first = property(lambda self: self.report["first"])
    swept = property(lambda self: self.report["swept"])
    runs = property(lambda self: self.report["runs"])


class EveryTripCount(_Report):
    """A kernel at every trip count of its loops at once (``linalias check --every-trip-count
    --json``; ``--every-tile-count``: every tile count of a persistent kernel, ``counts`` is
    ``"tiles"``): ``verified`` at every count, or the least found where one races, hangs or
    arrives past a phase, each finding named by its ops' lines (``findings``)."""

    counts = property(lambda self: self.report["counts"])
    bounds = property(lambda self: self.report["bounds"])
    fixed = property(lambda self: self.report["fixed"])
    period = property(lambda self: self.report["period"])
    head = property(lambda self: self.report["head"])
    least = property(lambda self: self.report["least"])
    every = property(lambda self: self.report["every"])
    below = property(lambda self: self.report["below"])
    findings = property(lambda self: self.report["every"]["findings"])
    open = property(lambda self: self.report["open"])
    joins = property(lambda self: self.report.get("joins", []))

    @property
    def phases(self) -> List["EveryTripCount"]:
        """A kernel whose partitions run loops one after another (``counts`` is ``"phases"``):
        each phase's proof, cut at the ``joins``; the other properties are the phases'.
        Empty for a kernel of one loop."""
        return [EveryTripCount(p, f"summary: {p['summary']['verdict']}\n", "", p["summary"]["exit_code"])
                for p in self.report.get("phases", [])]

    @property
    def decided(self) -> bool:
        """Verified or refuted (``linalias check --every-trip-count`` exits 0 or 1, not 3)."""
        return self.exit_code in (0, 1)

    def _repr_svg_(self):
        return None


class Kernel:
    """One kernel's TLX calls (inside ``with kernel:``), or a TTGIR dump / plan file read
    whole; ``plan`` plans it."""

    def __init__(self, target: Optional[str] = None):
        self.target = target
        self._specs: List[storage_alias_spec] = []
        self._allocs: List[buffered_tensor] = []
        self._overlaps: list = []
        self._text: Optional[str] = None
        self._module = False

    @classmethod
    def from_ttgir(cls, text: str) -> "Kernel":
        """A kernel's TTGIR (as the TLX fork prints it, before the storage-alias lowering)."""
        k = cls()
        k._text, k._module = text, True
        return k

    @classmethod
    def from_toml(cls, text: str) -> "Kernel":
        """A plan file (``linalias plan``'s TOML)."""
        k = cls()
        k._text = text
        return k

    def __enter__(self):
        if self._text is not None:
            raise _linalias.ParseError("a kernel read from text takes no more calls")
        _current.stack = getattr(_current, "stack", []) + [self]
        return self

    def __exit__(self, *exc):
        _current.stack = _current.stack[:-1]
        return False

    def _add_spec(self, spec: storage_alias_spec):
        self._specs.append(spec)

    def to_toml(self) -> str:
        """The plan file of the calls made (or the file read)."""
        if self._text is not None:
            if self._module:
                raise _linalias.ParseError("a TTGIR kernel has no plan file of its own")
            return self._text
        lines = []
        if self.target:
            lines.append(f"target = {json.dumps(self.target)}")
        trees = {}
        extra = []
        for spec, tree in self._overlaps:
            if spec.name in trees:
                extra.append((spec, tree))
            else:
                trees[spec.name] = tree
        for spec in self._specs:
            lines += ["", "[[spec]]", f"name = {json.dumps(spec.name)}", f"storage = {json.dumps(spec.storage.value)}"]
            if spec.buffer_size_bytes is not None:
                lines.append(f"size = {int(spec.buffer_size_bytes)}")
            if spec.name in trees:
                lines.append(f"overlap = {trees[spec.name]._toml()}")
        for a in self._allocs:
            lines += ["", "[[alloc]]", f"name = {json.dumps(a.name)}",
                      f"shape = [{', '.join(str(int(s)) for s in a.shape)}]", f"dtype = {json.dumps(a.dtype)}",
                      f"num = {int(a.num)}", f"storage = {json.dumps(a.storage.value)}"]
            if isinstance(a.reuse, storage_alias_spec):
                lines.append(f"spec = {json.dumps(a.reuse.name)}")
            elif isinstance(a.reuse, buffered_tensor):
                lines.append(f"reuse = {json.dumps(a.reuse.name)}")
            if a.layout is not None:
                text = a.layout if a.layout == "dummy_tmem" else _layout_mlir(a.layout)
                lines.append(f"layout = {json.dumps(text)}")
            if a.lifetime is not None:
                lines.append(f"lifetime = [{', '.join(str(int(x)) for x in a.lifetime)}]")
        for spec, tree in extra:
            lines += ["", "[[overlap]]", f"spec = {json.dumps(spec.name)}", f"tree = {tree._toml()}"]
        return "\n".join(lines).lstrip("\n") + "\n"

    def check(self, mode: str = "tlx", params: Optional[dict] = None, samples: int = 0,
              seq_stride: Optional[int] = None, program_id: int = 0, num_programs: int = 1,
              clc_tiles: int = 2) -> Check:
        """The hazard check of a kernel read from its TTGIR (``Kernel.from_ttgir``): every pair
        of aliased allocations verified, or a hazard with its witness, or unknown with why —
        what ``linalias check`` reports (``params`` fixes integer parameters, ``samples``
        random executions cross-check the verdicts, ``seq_stride`` sets the ``cu_seqlens``
        offsets: element i is i · seq_stride; ``program_id``, ``num_programs`` and ``clc_tiles``
        the tiles, as ``--program-id``, ``--num-programs`` and ``--clc-tiles``)."""
        return Check(*self._check_report(False, mode, params, samples, seq_stride, program_id, num_programs,
                                         clc_tiles))

    def sweep(self, mode: str = "tlx", params: Optional[dict] = None, samples: int = 0,
              seq_stride: Optional[int] = None, program_id: int = 0, num_programs: int = 1,
              clc_tiles: int = 2) -> Sweep:
        """``check`` at every residue of the loops' trip counts modulo the period of the
        kernel's barrier rings (``linalias check --sweep``): each parameter that bounds a loop
        and is not in ``params`` (and the ``cu_seqlens`` stride, unless ``seq_stride`` is
        given) runs every loop it bounds through that many consecutive trip counts, at the tiles
        ``program_id``, ``num_programs``, ``clc_tiles``."""
        return Sweep(*self._check_report(True, mode, params, samples, seq_stride, program_id, num_programs,
                                         clc_tiles))

    def every_trip_count(self, mode: str = "tlx", params: Optional[dict] = None,
                         seq_stride: Optional[int] = None, program_id: int = 0, num_programs: int = 1,
                         clc_tiles: int = 2, max_events: int = 20000) -> EveryTripCount:
        """The kernel at every trip count of its loops at once (``linalias check
        --every-trip-count``): read lap by lap as its loop run forever, every interleaving
        explored over every trip count from the least it decides, each one below alone; loops
        one after another phase by phase (``phases``). ``params`` may fix other integer
        parameters, not the loops' bound (``ParseError``); a kernel outside the model, or a
        read past ``max_events`` events (``--max-events``), is an ``AllocError`` naming why."""
        self._needs_ttgir()
        report, text, code = _linalias.every_trip_count_report(
            self._text, mode, dict(params or {}), seq_stride=seq_stride, program_id=program_id,
            num_programs=num_programs, clc_tiles=clc_tiles, max_events=max_events)
        return EveryTripCount(json.loads(report), text, "", code)

    def every_tile_count(self, mode: str = "tlx", params: Optional[dict] = None,
                         max_events: int = 20000) -> EveryTripCount:
        """A persistent kernel at every tile count a CTA runs, at once (``linalias check
        --every-tile-count``): one lap a tile, its K loop's bound as ``params`` gives it (or the
        sweep's first); the tiles set by ``clc_tiles`` or a free parameter (``bounds``), what
        is held in ``fixed``. A kernel without a tile loop is an ``AllocError``."""
        self._needs_ttgir()
        report, text, code = _linalias.every_trip_count_report(
            self._text, mode, dict(params or {}), tiles=True, max_events=max_events)
        return EveryTripCount(json.loads(report), text, "", code)

    def _needs_ttgir(self):
        if not self._module:
            raise _linalias.ParseError(
                "the hazard check reads a kernel's TTGIR (Kernel.from_ttgir): TLX calls alone have no "
                "partitions, barriers or accesses to check")

    def _check_report(self, sweep: bool, mode: str, params: Optional[dict], samples: int,
                      seq_stride: Optional[int], program_id: int, num_programs: int,
                      clc_tiles: int) -> tuple:
        """``linalias check`` (``--sweep`` where ``sweep``) on the kernel's TTGIR: the JSON
        report read, the text, the swimlanes, the exit code."""
        self._needs_ttgir()
        report, text, svg, code = _linalias.check_report(self._text, mode, dict(params or {}), samples,
                                                          sweep=sweep, seq_stride=seq_stride,
                                                          program_id=program_id, num_programs=num_programs,
                                                          clc_tiles=clc_tiles)
        return json.loads(report), text, svg, code

    def plan(self, mode: str = "intended", target: Optional[str] = None, budget_ms: int = 1000) -> Plan:
        """Plans the kernel in ``mode`` (``"tlx"``: fbtriton 3.7.4's placement bit for bit;
        ``"intended"``: the documented meaning of the reuse tree), for ``target`` (default: the
        kernel's, else sm_100). Raises ``AllocError`` where TLX (or the target) refuses the
        program; issues each warning as a ``LinaliasWarning``."""
        text = self._text if self._module else self.to_toml()
        report, svg = _linalias.plan_report(text, self._module, mode, target, budget_ms)
        plan = Plan(json.loads(report), svg)
        for w in plan.warnings:
            warnings.warn(w, LinaliasWarning, stacklevel=2)
        return plan


__all__ = ["Kernel", "Plan", "Check", "Sweep", "EveryTripCount", "LinaliasWarning", "storage_kind", "reuse_group_type", "storage_alias_spec",
           "local_alloc", "reuse_group", "buffered_tensor"]
