"""Inputs of the "Bounded inputs" table of docs/benchmarks.md (issue 30), written to a folder:

    python3 tools/gen_bounded_inputs.py OUT

- deep{24,26,39}.toml: one-member shared groups nested that deep around one allocation;
- chain2000.mlir, chain20000.mlir: a chain of tlx.reuse_group ops, each naming the previous;
- dag40.mlir: 40 levels, each group naming the previous one twice;
- same100k.csv: 100,000 buffers of 64 units, all live over [0, 10);
- many1500.toml: 1,500 specs, each one 8-byte allocation with a lifetime (seeded);
- shared{2000,4096,4097,8000}.toml: that many allocations, members of one `shared` group;
- plain{4096,8000}.toml, life4096.toml: that many specs of one allocation each (with lifetimes).

The 300k-buffer trace comes from `cargo run --release -p linalias-packing --features generator
--example training_trace -- 1 300000`.
"""
import os
import random
import sys


def deep_toml(n):
    tree = '"a"'
    for _ in range(n):
        tree = "{ shared = [%s] }" % tree
    return (f'[[spec]]\nname = "s"\nstorage = "smem"\noverlap = {tree}\n\n'
            '[[alloc]]\nname = "a"\nshape = [64, 64]\ndtype = "bf16"\nnum = 2\nspec = "s"\n')


def chain_mlir(n, twice):
    m = "!ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>"
    g = "!tlx.reuse_group<shared>"
    lines = [
        "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>",
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {',
        "  tt.func public @k() {",
        "    %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>",
        f"    %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> {m}",
        f"    %g0 = tlx.reuse_group(%a) group_kind = shared : ({m}) -> {g}",
    ]
    for i in range(1, n):
        args, types = (f"%g{i-1}, %g{i-1}", f"{g}, {g}") if twice else (f"%g{i-1}", g)
        lines.append(f"    %g{i} = tlx.reuse_group({args}) group_kind = distinct : ({types}) -> {g}")
    lines.append(f"    tlx.set_buffer_overlap(%s, %g{n-1}) : (!tlx.storage_alias_spec<tmem>, {g}) -> ()")
    lines += ["    tt.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def many_toml(n):
    rng = random.Random(5)
    out = 'target = "sm_90"\n\n' + "".join(f'[[spec]]\nname = "s{i}"\nstorage = "smem"\n\n' for i in range(n))
    for i in range(n):
        start, length = rng.randrange(0, 300), rng.randrange(1, 20)
        out += (f'[[alloc]]\nname = "a{i}"\nshape = [2, 2]\ndtype = "f16"\nnum = 1\nspec = "s{i}"\n'
                f"lifetime = [{start}, {start + length}]\n\n")
    return out


def shared_toml(n):
    names = ", ".join(f'"a{i}"' for i in range(n))
    out = f'target = "sm_90"\n\n[[spec]]\nname = "s"\nstorage = "smem"\noverlap = {{ shared = [{names}] }}\n\n'
    return out + "".join(f'[[alloc]]\nname = "a{i}"\nshape = [2, 2]\ndtype = "f16"\nnum = 1\nspec = "s"\n\n'
                         for i in range(n))


def plain_toml(n, lifetimes):
    out = 'target = "sm_90"\n\n'
    for i in range(n):
        out += (f'[[spec]]\nname = "s{i}"\nstorage = "smem"\n\n[[alloc]]\nname = "a{i}"\nshape = [2, 2]\n'
                f'dtype = "f16"\nnum = 1\nspec = "s{i}"\n')
        if lifetimes:
            out += f"lifetime = [{i % 300}, {i % 300 + 1 + i % 17}]\n"
        out += "\n"
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bounded_inputs"
    os.makedirs(out, exist_ok=True)
    files = {f"deep{n}.toml": deep_toml(n) for n in (24, 26, 39)}
    files["chain2000.mlir"] = chain_mlir(2000, False)
    files["chain20000.mlir"] = chain_mlir(20000, False)
    files["dag40.mlir"] = chain_mlir(40, True)
    files["same100k.csv"] = "id,lower,upper,size\n" + "".join(f"b{i},0,10,64\n" for i in range(100000))
    files["many1500.toml"] = many_toml(1500)
    for n in (2000, 4096, 4097, 8000):
        files[f"shared{n}.toml"] = shared_toml(n)
    for n in (4096, 8000):
        files[f"plain{n}.toml"] = plain_toml(n, False)
    files["life4096.toml"] = plain_toml(4096, True)
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
