"""Which `linalias layout show … --format mlir` texts the TLX fork's own parser accepts.

For every (attribute, shape) below, runs the release binary (`target/release/linalias`, build it
first) to print the layout as the attribute Triton reads (`#ttg.linear`, or `#ttg.shared_linear`
for a shared layout), then has fbtriton 3.7.4's `ir.parse_mlir_module` parse a module that uses
it on a memdesc or tensor of that shape. Writes
`linear-layout/tests/data/fork_accepts/layout_mlir.json`: per case the attribute, the shape, the
printed text and whether the fork accepted it. `tests/cli.rs` (`mlir_the_fork_accepts_is_what_we_print`)
requires every recorded text to be what linalias prints today and every one accepted, so a change
to the printing must be re-judged by the fork:

    /root/fbvenv/bin/python tools/gen_mlir_acceptance.py
"""
import json
import os
import subprocess
import sys
import tempfile

from triton._C.libtriton import ir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "linear-layout/tests/data/fork_accepts/layout_mlir.json")

CASES = [
    # shared layouts: printed as #ttg.shared_linear at their alignment
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>", "8x64", "shared", "f16"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>", "64x32", "shared", "f16"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8}>", "128x128", "shared", "i8"),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>", "16x16", "shared", "f16"),
    # register layouts: printed as #ttg.linear
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", "64x64", "tensor", "f16"),
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>", "64x32", "tensor", "f32"),
    ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>", "32x16", "tensor", "f16"),
]


def module(attr, shape, kind, dtype):
    if kind == "shared":
        ty = f"!ttg.memdesc<{shape}x{dtype}, #l, #smem, mutable>"
        body = f"    %0 = ttg.local_alloc : () -> {ty}\n"
    else:
        ty = f"tensor<{shape}x{dtype}, #l>"
        body = f"    %0 = arith.constant dense<0.0> : {ty}\n" if dtype.startswith("f") else f"    %0 = arith.constant dense<0> : {ty}\n"
    return (
        f"#l = {attr}\n#smem = #ttg.shared_memory\n"
        'module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {\n'
        "  tt.func @f() {\n" + body + "    tt.return\n  }\n}\n"
    )


def accepted(text):
    ctx = ir.context()
    ir.load_dialects(ctx)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        ir.parse_mlir_module(f.name, ctx)
        return True
    except Exception:
        return False
    finally:
        os.unlink(f.name)


def main():
    binary = os.path.join(ROOT, "target/release/linalias")
    records = []
    for attr, shape, kind, dtype in CASES:
        printed = subprocess.run(
            [binary, "layout", "show", attr, "--shape", shape, "--format", "mlir"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        ok = accepted(module(printed, shape, kind, dtype))
        records.append({"attribute": attr, "shape": shape, "printed": printed, "accepted": ok})
        print(("accepted " if ok else "REFUSED  ") + printed[:90], file=sys.stderr)
    # The control: what linalias printed for a shared layout before #29 (a #ttg.linear with an
    # `offset` in-dim). The fork must refuse it, or this check proves nothing.
    control = "#ttg.linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]], block = []}>"
    records.append({"attribute": "control", "shape": "8x64", "printed": control,
                    "accepted": accepted(module(control, "8x64", "shared", "f16"))})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
