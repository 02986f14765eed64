#!/usr/bin/env python3
"""Launches PTX kernels on a GPU, one CTA each, through the CUDA driver API (ctypes; no other
package), for Nsight Compute to count (`tools/gpu_record.sh bench`).

    python3 tools/launch_ptx.py MANIFEST.json FILE.ptx...

Each file holds one `.entry`. It is loaded with its `.version` set to 8.0 (what a CUDA 12+
driver JITs for sm_90a; Triton 3.9 prints 9.4, which drivers before CUDA 13.4 refuse, and
ptxas accepts every benchmark kernel at 8.0), launched once with one CTA of its `.reqntid`
threads, every pointer parameter a zeroed 16 MiB buffer, every 32-bit parameter 0, and 96 KiB
of dynamic shared memory, then synchronised. MANIFEST.json lists the launches in order
(file, kernel, threads), for pairing with the profiler's records.
"""

import ctypes
import json
import re
import sys

BUFFER_BYTES = 16 << 20
DYNAMIC_SHARED = 96 * 1024
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


def entry(text):
    """(name, [(type, name)], threads) of the one `.entry` in `text`."""
    m = re.search(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", text)
    if not m:
        raise SystemExit("no .entry with a parameter list")
    params = []
    for item in m.group(2).split(","):
        words = item.split()
        if not words:
            continue
        if words[0] != ".param" or len(words) < 3:
            raise SystemExit(f"unreadable parameter {item.strip()!r}")
        params.append((words[1].lstrip("."), words[-1]))
    threads = re.search(r"\.(?:reqntid|maxntid)\s+(\d+)", text[m.end():])
    if not threads:
        raise SystemExit(f"{m.group(1)}: no .reqntid or .maxntid")
    return m.group(1), params, int(threads.group(1))


def main(manifest_path, files):
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(rc, what):
        if rc != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(rc, ctypes.byref(name))
            raise SystemExit(f"{what}: {name.value.decode() if name.value else rc}")

    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    launches = []
    for path in files:
        text = open(path).read()
        text = re.sub(r"^\.version\s+\d+\.\d+", ".version 8.0", text, count=1, flags=re.M)
        name, params, threads = entry(text)
        module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text.encode() + b"\0")), f"{path}: cuModuleLoadData")
        func = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(func), module, name.encode()), f"{path}: cuModuleGetFunction")
        check(cuda.cuFuncSetAttribute(func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, DYNAMIC_SHARED), f"{path}: cuFuncSetAttribute")
        values, buffers = [], []
        for ty, pname in params:
            if ty in ("u64", "b64", "s64"):
                ptr = ctypes.c_uint64()
                check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(BUFFER_BYTES)), f"{path}: cuMemAlloc")
                check(cuda.cuMemsetD8_v2(ptr, ctypes.c_ubyte(0), ctypes.c_size_t(BUFFER_BYTES)), f"{path}: cuMemsetD8")
                buffers.append(ptr)
                values.append(ctypes.c_uint64(ptr.value))
            elif ty in ("u32", "b32", "s32"):
                values.append(ctypes.c_uint32(0))
            else:
                raise SystemExit(f"{path}: parameter {pname} of type .{ty}")
        args = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        check(cuda.cuLaunchKernel(func, 1, 1, 1, threads, 1, 1, DYNAMIC_SHARED, None, args, None), f"{path}: cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), f"{path}: cuCtxSynchronize")
        for ptr in buffers:
            check(cuda.cuMemFree_v2(ptr), f"{path}: cuMemFree")
        check(cuda.cuModuleUnload(module), f"{path}: cuModuleUnload")
        launches.append({"file": path, "kernel": name, "threads": threads})
    with open(manifest_path, "w") as f:
        json.dump({"dynamic_shared_bytes": DYNAMIC_SHARED, "buffer_bytes": BUFFER_BYTES, "launches": launches}, f, indent=1)
    print(f"{len(launches)} launches")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
