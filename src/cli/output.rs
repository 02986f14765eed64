//! Rendering results as text, JSON or MLIR.

use linear_layout::analysis::{bank_conflicts, widest_conflict_free_vector};
use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::views::layout_view;
use linear_layout::{Dim, LinearLayout};

use crate::cli::args::{Format, ValueFormat, View};
use crate::cli::error::CliError;

/// Gluon's default alignment of a `SharedLinearLayout`, for a shared layout read without one.
pub const SHARED_LINEAR_ALIGNMENT: u64 = 16;

/// A layout in `format`, ending with a newline. Only MLIR can fail: the layout must have a
/// Triton attribute ([`Encoding::linear`]; a shared one at Gluon's default alignment).
pub fn layout(l: &LinearLayout, format: Format) -> Result<String, CliError> {
    layout_aligned(l, format, SHARED_LINEAR_ALIGNMENT)
}

/// [`layout`], a shared layout's `#ttg.shared_linear` carrying `alignment`.
pub fn layout_aligned(
    l: &LinearLayout,
    format: Format,
    alignment: u64,
) -> Result<String, CliError> {
    Ok(match format {
        // Triton's toString opens with a newline; a report does not start with an empty line.
        Format::Text => format!(
            "{}\n{}\n",
            l.to_string().trim_start_matches('\n'),
            summary(l)
        ),
        Format::Json => format!("{}\n", l.to_json()),
        Format::Mlir => format!("{}\n", Encoding::linear(l, alignment)?.to_mlir()),
    })
}

/// `1 wavefront`, `4 wavefronts`: a count and its noun, `plural` past one (and at zero).
pub fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// `surjective: …, injective: …, rank: … (… input bits, … output bits)`.
pub fn summary(l: &LinearLayout) -> String {
    format!(
        "surjective: {}, injective: {}, rank: {} ({} input bits, {} output bits)",
        l.is_surjective(),
        l.is_injective(),
        l.rank(),
        l.total_in_dim_size_log2(),
        l.total_out_dim_size_log2(),
    )
}

/// The result of `apply`, one value per out-dim in out-dim order, ending with a newline.
pub fn values(values: &[(Dim, u64)], format: ValueFormat) -> String {
    match format {
        ValueFormat::Text => {
            let parts: Vec<String> = values.iter().map(|(d, v)| format!("{d}={v}")).collect();
            format!("{}\n", parts.join(" "))
        }
        ValueFormat::Json => {
            // Built by hand: serde_json's map would sort the keys, losing out-dim order.
            let parts: Vec<String> = values
                .iter()
                .map(|(d, v)| format!("{}:{v}", serde_json::Value::from(d.name())))
                .collect();
            format!("{{{}}}\n", parts.join(","))
        }
    }
}

/// What a family attribute means beyond its bases: the attribute as Triton prints it, and the
/// alignment (shared memory) or allocation (tensor memory) it needs.
pub fn encoding_facts(
    encoding: &Encoding,
    shape: &[u64],
    element_bits: Option<u32>,
) -> Result<String, CliError> {
    let mut text = format!("attribute: {}\n", encoding.to_mlir_for_rank(shape.len()));
    match encoding {
        Encoding::Shared(shared) => {
            text.push_str(&format!("alignment: {} bytes\n", shared.alignment()));
            if let SharedEncoding::Nvmma(n) = shared {
                if let Some(sw) = n.cute_swizzle() {
                    text.push_str(&format!("cute swizzle (bytes): {sw}\n"));
                }
            }
        }
        Encoding::TensorMemory(t) => {
            let bits = element_bits.unwrap_or(32 / t.col_stride.max(1));
            text.push_str(&format!(
                "tensor memory: {} lanes x {} columns (32-bit) for {bits}-bit elements\n",
                t.alloc_rows(shape)?,
                t.alloc_columns(shape, bits)?
            ));
        }
        Encoding::TensorMemoryScales(t) => {
            text.push_str(&format!(
                "tensor memory: 128 lanes x {} columns (32-bit)\n",
                t.alloc_columns(shape)?
            ));
        }
        Encoding::Distributed(_) => {}
    }
    Ok(text)
}

/// Triton's ASCII tensor or hardware view.
pub fn view(l: &LinearLayout, view: View) -> Result<String, CliError> {
    Ok(layout_view(l, view == View::Hardware)?)
}

/// The bank-conflict report of `reg` stored to / loaded from `shared`.
pub fn conflicts(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    banks: u32,
) -> Result<String, CliError> {
    let c = bank_conflicts(reg, shared, element_bits, banks)?;
    let widest = match widest_conflict_free_vector(reg, shared, element_bits, banks)? {
        Some(v) => format!("{v} elements ({} bits)", v * u64::from(element_bits)),
        None => "none (every vector width conflicts)".to_owned(),
    };
    let mut text = format!(
        "vector: {} elements ({} bits) per lane per instruction\n\
         conflicts: {} (wavefronts per phase: {}, per request: {}; {} banks)\n\
         widest conflict-free vector: {widest}\n",
        c.vector_elems,
        c.vector_bits,
        c.conflicts,
        c.wavefronts,
        c.request_wavefronts(),
        c.num_banks
    );
    if banks == codegen::cost::SHARED_BANKS {
        let hw = codegen::cost::copy_cost(reg, shared, element_bits)?;
        text.push_str(&format!(
            "H100 (measured rules, docs/gpu-counters.md): a request takes {} as a load ({}), {} \
             as a store ({})\n",
            count(hw.load.wavefronts, "wavefront", "wavefronts"),
            count(hw.load.bank_conflicts(), "bank conflict", "bank conflicts"),
            hw.store.wavefronts,
            hw.store.bank_conflicts()
        ));
    }
    Ok(text)
}
