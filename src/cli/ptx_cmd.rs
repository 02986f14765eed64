//! `linalias ptx --regs LAYOUT --mem LAYOUT [--store|--load|--round-trip LAYOUT]`: the whole
//! `.entry` kernel the shared-memory emitter makes for a register layout and a shared-memory
//! layout ([`codegen::smem::kernels`]), optionally with its instruction counts and what each
//! shared access costs on an H100.

use std::fmt::Write as _;

use alias_alloc::DType;
use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::cost::{fewest_wavefronts_scratch, run_cost};
use codegen::smem::kernels::{
    access_kernel, round_trip, round_trip_in_rounds, tile_load, tile_round_trip,
    tile_round_trip_in_rounds, tile_store, TestKernel,
};
use codegen::smem::optimal_scratch;
use linear_layout::{AddressMap, LinearLayout};

use crate::cli::args::{IndexArg, Lowering, PtxArgs};
use crate::cli::error::CliError;
use crate::cli::input::{LayoutReader, ReadLayout};
use crate::cli::ptx_cost_cmd::statement_lines;
use crate::cli::{output, picture};

/// Runs `linalias ptx` and returns its stdout: the kernel, then `--stats` comment lines.
pub fn run(args: PtxArgs) -> Result<String, CliError> {
    let mut reader = LayoutReader::with_shape(args.shape.as_ref().map(|s| s.0.clone()));
    let regs = read_registers(&mut reader, "--regs", &args.regs)?;
    if args.mem == AUTO || args.mem == AUTO_HW {
        return auto_scratch(&args, &mut reader, &regs);
    }
    let mem = reader.read_encoded("--mem", &args.mem)?;
    let reload = match &args.round_trip {
        Some(text) => Some(read_registers(&mut reader, "--round-trip", text)?),
        None => None,
    };
    let bits = element_bits(args.dtype.as_deref(), &mem)?;
    let map = address_map(&mem, bits, args.buffers)?;
    let lowering = match args.lowering {
        Lowering::Explicit => BufferLowering::Explicit,
        Lowering::Tlx => {
            let [scale, offset, group_size] = args.tlx;
            let unit = map
                .buffer()
                .modes()
                .first()
                .map_or(0, |&(_, stride)| stride);
            BufferLowering::TlxReindex(TlxReindex::new(scale, offset, group_size, unit))
        }
    };
    let index = match args.index {
        IndexArg::Const(i) if i >= args.buffers => {
            return Err(CliError::input(
                "--index",
                format!("buffer {i} of {} (0..{})", args.buffers, args.buffers),
            ))
        }
        IndexArg::Const(i) => IndexSource::Const(vec![i]),
        IndexArg::Runtime => IndexSource::Param,
    };
    if args.global {
        global_alone(&args)?;
    }
    let kernel = match (&reload, args.load) {
        (Some(load), _) if args.global && args.max_scratch_bytes.is_some() => {
            let name = args.name.as_deref().unwrap_or("round_trip");
            let max = args.max_scratch_bytes.unwrap_or(u64::MAX);
            tile_round_trip_in_rounds(name, &mem.layout, bits, &regs, load, max)
        }
        (Some(load), _) if args.global => tile_round_trip(
            args.name.as_deref().unwrap_or("round_trip"),
            &map,
            &regs,
            load,
        ),
        (None, true) if args.global => {
            tile_load(args.name.as_deref().unwrap_or("load_tile"), &map, &regs)
        }
        (None, false) if args.global => {
            tile_store(args.name.as_deref().unwrap_or("store_tile"), &map, &regs)
        }
        (Some(load), _) if args.max_scratch_bytes.is_some() => {
            if args.buffers != 1 || index != IndexSource::Const(vec![0]) {
                return Err(CliError::input(
                    "--max-scratch-bytes",
                    "a conversion in rounds uses one scratch buffer, index 0",
                ));
            }
            let name = args.name.as_deref().unwrap_or("round_trip");
            let max = args.max_scratch_bytes.unwrap_or(u64::MAX);
            round_trip_in_rounds(name, &mem.layout, bits, &regs, load, max)
        }
        (Some(load), _) => {
            let name = args.name.as_deref().unwrap_or("round_trip");
            round_trip(name, &map, &regs, load, &index, lowering)
        }
        (None, true) => {
            let name = args.name.as_deref().unwrap_or("load_tile");
            access_kernel(name, &map, &regs, MemoryOp::Load, &index, lowering)
        }
        (None, false) => {
            let name = args.name.as_deref().unwrap_or("store_tile");
            access_kernel(name, &map, &regs, MemoryOp::Store, &index, lowering)
        }
    }
    .map_err(|e| CliError::Refused(e.to_string()))?;
    let mut text = kernel.kernel.to_string();
    if args.stats {
        text.push_str(&stats(&kernel));
        text.push_str(&shared_cost(&kernel)?);
    }
    Ok(text)
}

/// `--global` kernels move one buffer, index 0, explicitly lowered, as Triton's do.
fn global_alone(args: &PtxArgs) -> Result<(), CliError> {
    if args.buffers != 1 || args.index != IndexArg::Const(0) || args.lowering != Lowering::Explicit
    {
        return Err(CliError::input(
            "--global",
            "a tile kernel moves one buffer, index 0, explicitly lowered: drop --buffers, \
             --index and --lowering",
        ));
    }
    Ok(())
}

/// `--mem auto`: the scratch layout Triton would convert through.
const AUTO: &str = "auto";
/// `--mem auto-hw`: among the scratch layouts Triton weighs, the one with the fewest shared
/// wavefronts on an H100 (the cost model's).
const AUTO_HW: &str = "auto-hw";

/// `--round-trip` through the scratch [`optimal_scratch`] chooses (`auto`) or
/// [`fewest_wavefronts_scratch`] (`auto-hw`), in its rounds (and no more bytes than
/// `--max-scratch-bytes`); `--stats` adds the choice.
fn auto_scratch(
    args: &PtxArgs,
    reader: &mut LayoutReader,
    regs: &LinearLayout,
) -> Result<String, CliError> {
    let Some(text) = &args.round_trip else {
        return Err(CliError::input(
            "--mem",
            "auto chooses the scratch of a conversion: give --round-trip",
        ));
    };
    let load = read_registers(reader, "--round-trip", text)?;
    let Some(dtype) = args.dtype.as_deref() else {
        return Err(CliError::input(
            "--dtype",
            "--mem auto needs the element type",
        ));
    };
    let bits = dtype
        .parse::<DType>()
        .map(DType::bits)
        .map_err(|e| CliError::input("--dtype", e))?;
    if args.buffers != 1 || args.index != IndexArg::Const(0) {
        return Err(CliError::input(
            "--mem",
            "a conversion through an automatic scratch uses one buffer, index 0",
        ));
    }
    let (scratch, how) = match args.mem.as_str() {
        AUTO_HW => {
            let c = fewest_wavefronts_scratch(regs, &load, bits)
                .map_err(|e| CliError::Refused(e.to_string()))?;
            let how = format!(
                "auto-hw (the fewest H100 wavefronts of {} candidates: {}; Triton's pick: {})",
                c.candidates,
                c.counters.wavefronts(),
                c.triton_counters.wavefronts()
            );
            (c.scratch, how)
        }
        _ => (
            optimal_scratch(regs, &load, bits).map_err(|e| CliError::Refused(e.to_string()))?,
            "auto (Triton's optimalSwizzling)".to_string(),
        ),
    };
    let max = args
        .max_scratch_bytes
        .unwrap_or(u64::MAX)
        .min(scratch.bytes);
    let name = args.name.as_deref().unwrap_or("round_trip");
    let kernel = match args.global {
        true => tile_round_trip_in_rounds(name, &scratch.layout, bits, regs, &load, max),
        false => round_trip_in_rounds(name, &scratch.layout, bits, regs, &load, max),
    }
    .map_err(|e| CliError::Refused(e.to_string()))?;
    let mut out = kernel.kernel.to_string();
    if args.stats {
        let _ = writeln!(
            out,
            "// scratch: {how}: {} bytes, {}, {} read / {} write bank conflicts",
            scratch.bytes,
            output::count(1u64 << scratch.rounds_log2, "round", "rounds"),
            scratch.read_conflicts,
            scratch.write_conflicts
        );
        out.push_str(&stats(&kernel));
        out.push_str(&shared_cost(&kernel)?);
    }
    Ok(out)
}

/// A register layout: in-dims `register`, `lane`, `warp` (and `block`).
fn read_registers(
    reader: &mut LayoutReader,
    arg: &str,
    text: &str,
) -> Result<LinearLayout, CliError> {
    let layout = reader.read(arg, text)?;
    if !layout.has_in_dim("register") || !layout.has_in_dim("lane") {
        return Err(CliError::input(
            arg,
            "not a register layout (in-dims register, lane, warp): give a distributed attribute, \
             #ttg.linear or JSON with those in-dims",
        ));
    }
    Ok(layout)
}

/// `--dtype`'s width, else an NVMMA attribute's `elementBitWidth`, else 16.
fn element_bits(dtype: Option<&str>, mem: &ReadLayout) -> Result<u32, CliError> {
    let implied = picture::element_bits(mem.encoding.as_ref());
    let Some(name) = dtype else {
        return Ok(implied.unwrap_or(16));
    };
    let bits = name
        .parse::<DType>()
        .map(DType::bits)
        .map_err(|e| CliError::input("--dtype", e))?;
    match implied {
        Some(attr) if attr != bits => Err(CliError::input(
            "--dtype",
            format!("{name} has {bits}-bit elements; the --mem attribute has {attr}-bit ones"),
        )),
        _ => Ok(bits),
    }
}

/// The shared map of `mem` with `buffers` buffers, each starting on the layout's alignment.
fn address_map(mem: &ReadLayout, bits: u32, buffers: u64) -> Result<AddressMap, CliError> {
    if !mem.layout.has_in_dim("offset") {
        return Err(CliError::input(
            "--mem",
            "not a shared-memory layout (in-dim offset): give a shared attribute, \
             #ttg.shared_linear or JSON with an offset in-dim",
        ));
    }
    if buffers == 0 {
        return Err(CliError::input("--buffers", "at least 1"));
    }
    Ok(AddressMap::of_shared_buffers(
        &mem.layout,
        mem.encoding.as_ref(),
        bits,
        buffers,
    )?)
}

/// `// …` lines: what each shared-memory instruction costs on an H100 (a launch with buffer
/// 0, [`codegen::cost`]), then the kernel's wavefronts and bank conflicts.
fn shared_cost(k: &TestKernel) -> Result<String, CliError> {
    let index = (k.index == IndexSource::Param).then_some(0);
    let cost = run_cost(&k.kernel, &k.config(), &k.params(index))
        .map_err(|e| CliError::Refused(format!("costing the kernel: {e}")))?;
    let c = cost.counters;
    let mut out = statement_lines(&cost, "// ");
    let _ = writeln!(
        out,
        "// shared memory (H100, one launch): {} ld + {} st instructions, {} + {} wavefronts, \
         {} + {} bank conflicts",
        c.load_instructions,
        c.store_instructions,
        c.load_wavefronts,
        c.store_wavefronts,
        c.load_bank_conflicts,
        c.store_bank_conflicts
    );
    Ok(out)
}

/// `// …` lines: per emission its accesses and address ALU, then the kernel's totals.
fn stats(k: &TestKernel) -> String {
    let mut out = String::new();
    for e in &k.emissions {
        let plan = &e.plan;
        let shape = match plan.matrix() {
            Some((count, trans)) => format!(
                "{} × {}matrix{}",
                e.emitted.accesses.len(),
                if e.role == "store" { "st" } else { "ld" },
                format_args!(".x{}{}", count.count(), if trans { ".trans" } else { "" })
            ),
            None => {
                let v = plan.vector();
                let vec = match v.words {
                    1 => String::new(),
                    w => format!(".v{w}"),
                };
                format!(
                    "{} × {}.shared{vec}{} ({} B)",
                    e.emitted.accesses.len(),
                    if e.role == "store" { "st" } else { "ld" },
                    v.ty.suffix(),
                    v.bytes()
                )
            }
        };
        let index = e
            .index
            .map_or_else(|| "run-time index".to_string(), |i| format!("buffer {i}"));
        let per = e
            .emitted
            .address_alu_per_access()
            .map_or_else(String::new, |p| format!(" ({p:.2} per access)"));
        let _ = writeln!(
            out,
            "// {} ({index}): {shape}; address ALU {}{per}; thread base {:?}",
            e.role,
            e.emitted.address_alu,
            plan.thread_base().bases()
        );
    }
    let address = k.kernel.stats().address_alu;
    let accesses: usize = k.emissions.iter().map(|e| e.emitted.accesses.len()).sum();
    let per = match accesses {
        0 => String::new(),
        n => format!(", {:.2} per access", address as f64 / n as f64),
    };
    let _ = writeln!(
        out,
        "// kernel: {} threads, {} shared bytes, {accesses} shared accesses, {address} address \
         instructions (with the %tid.x and smem movs){per}",
        k.threads, k.dynamic_shared_bytes
    );
    out
}
