//! Rendering results as text, JSON or MLIR.

use linear_layout::{Dim, LinearLayout};

use crate::cli::args::{Format, ValueFormat};
use crate::cli::error::CliError;

/// A layout in `format`, ending with a newline. Only MLIR can fail (non-standard out-dims or a
/// non-surjective layout have no `#ttg.linear` form).
pub fn layout(l: &LinearLayout, format: Format) -> Result<String, CliError> {
    Ok(match format {
        Format::Text => format!("{l}\n{}\n", summary(l)),
        Format::Json => format!("{}\n", l.to_json()),
        Format::Mlir => format!("{}\n", l.to_mlir()?),
    })
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
