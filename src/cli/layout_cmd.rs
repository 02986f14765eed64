//! `linalias layout …`: each subcommand reads its layouts, runs one [`LinearLayout`] operation
//! and renders the result.

use linear_layout::families::Encoding;
use linear_layout::LinearLayout;

use crate::cli::args::{Format, LayoutCommand};
use crate::cli::error::CliError;
use crate::cli::input::LayoutReader;
use crate::cli::{module_listing, output, picture};

/// Runs one `layout` subcommand and returns its stdout. Family attributes are built at `shape`.
pub fn run(command: LayoutCommand, shape: Option<Vec<u64>>) -> Result<String, CliError> {
    let mut reader = LayoutReader::with_shape(shape.clone());
    match command {
        LayoutCommand::Show {
            layout,
            module,
            format,
            view,
            svg,
            element_bits,
        } => {
            if let Some(path) = module {
                let text = std::fs::read_to_string(&path).map_err(|e| CliError::Input {
                    arg: "--module".into(),
                    message: format!("{}: {e}", path.display()),
                })?;
                return module_listing::render(&text, format.format);
            }
            let layout = layout.unwrap_or_default();
            let read = reader.read_encoded("LAYOUT", &layout)?;
            let alignment = match &read.encoding {
                Some(Encoding::Shared(shared)) => shared.alignment(),
                _ => output::SHARED_LINEAR_ALIGNMENT,
            };
            let mut text = output::layout_aligned(&read.layout, format.format, alignment)?;
            let facts = (&read.encoding, &shape, format.format == Format::Text);
            if let (Some(encoding), Some(shape), true) = facts {
                text.push_str(&output::encoding_facts(encoding, shape, element_bits)?);
            }
            if let Some(view) = view {
                text.push_str(&output::view(&read.layout, view)?);
            }
            if let Some(path) = svg {
                let bits = element_bits.or_else(|| picture::element_bits(read.encoding.as_ref()));
                picture::write(&path, &picture::layout_svg(&read.layout, bits)?)?;
                text.push_str(&format!("wrote {}\n", path.display()));
            }
            Ok(text)
        }
        LayoutCommand::Conflicts {
            reg,
            shared,
            element_bits,
            banks,
            svg,
        } => {
            let reg = reader.read("REG", &reg)?;
            let shared = reader.read_encoded("SHARED", &shared)?;
            let bits = element_bits
                .or_else(|| picture::element_bits(shared.encoding.as_ref()))
                .unwrap_or(16);
            let mut text = output::conflicts(&reg, &shared.layout, bits, banks)?;
            if let Some(path) = svg {
                let picture = linear_layout::views::svg::bank_conflict_svg(
                    &reg,
                    &shared.layout,
                    bits,
                    banks,
                )?;
                picture::write(&path, &picture)?;
                text.push_str(&format!("wrote {}\n", path.display()));
            }
            Ok(text)
        }
        LayoutCommand::Compose {
            inner,
            outer,
            format,
        } => {
            let (inner, outer) = read_pair(&mut reader, ("INNER", &inner), ("OUTER", &outer))?;
            output::layout(&inner.compose(&outer)?, format.format)
        }
        LayoutCommand::InvertAndCompose {
            inner,
            outer,
            prefer,
            format,
        } => {
            let (inner, outer) = read_pair(&mut reader, ("INNER", &inner), ("OUTER", &outer))?;
            let result = match prefer {
                Some(dims) => {
                    let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
                    // A hardware dim a layout lacks is simply not there to prefer; any other
                    // name that neither layout has is a typo.
                    let ins = [inner.in_dim_names(), outer.in_dim_names()].concat();
                    let known = |d: &str| {
                        ["register", "lane", "warp", "block"].contains(&d)
                            || ins.iter().any(|i| i.name() == d)
                    };
                    if let Some(d) = dims.iter().find(|d| !known(d)) {
                        let names: Vec<&str> =
                            outer.in_dim_names().iter().map(|i| i.name()).collect();
                        return Err(CliError::input(
                            "--prefer",
                            format!(
                                "neither layout has an in-dim '{d}' (OUTER's: {})",
                                names.join(", ")
                            ),
                        ));
                    }
                    inner.invert_and_compose_preferring(&outer, &dims)?
                }
                None => inner.invert_and_compose(&outer)?,
            };
            output::layout(&result, format.format)
        }
        LayoutCommand::Pseudoinvert { layout, format } => output::layout(
            &reader.read("LAYOUT", &layout)?.pseudoinvert()?,
            format.format,
        ),
        LayoutCommand::Invert { layout, format } => {
            output::layout(&reader.read("LAYOUT", &layout)?.invert()?, format.format)
        }
        LayoutCommand::Apply {
            layout,
            inputs,
            format,
        } => {
            let layout = reader.read("LAYOUT", &layout)?;
            let inputs = apply_inputs(&layout, &inputs)?;
            Ok(output::values(&layout.apply(&inputs)?, format))
        }
        LayoutCommand::Product { a, b, format } => {
            let (a, b) = read_pair(&mut reader, ("A", &a), ("B", &b))?;
            output::layout(&a.product(&b)?, format.format)
        }
    }
}

/// The `--input` values for every in-dim of `layout`, in its order: an in-dim of size 1 not
/// given is 0 (`block` on a one-CTA layout); one of another size not given, a value out of
/// range, or a dim the layout does not have, is a [`CliError::Input`] naming it.
fn apply_inputs<'a>(
    layout: &'a LinearLayout,
    given: &'a [(String, u64)],
) -> Result<Vec<(&'a str, u64)>, CliError> {
    let dims = layout.in_dims();
    if let Some((d, _)) = given
        .iter()
        .find(|(d, _)| !dims.iter().any(|(dim, _)| dim.name() == d.as_str()))
    {
        let names: Vec<&str> = dims.iter().map(|(dim, _)| dim.name()).collect();
        return Err(CliError::input(
            "--input",
            format!(
                "the layout has no in-dim '{d}' (its in-dims: {})",
                names.join(", ")
            ),
        ));
    }
    let mut inputs = Vec::with_capacity(dims.len());
    for (dim, size) in dims {
        match given.iter().find(|(d, _)| d.as_str() == dim.name()) {
            Some((d, v)) if *v < size => inputs.push((d.as_str(), *v)),
            Some((d, v)) => {
                return Err(CliError::input(
                    "--input",
                    format!("{d}={v} is out of range: in-dim '{d}' has size {size}"),
                ))
            }
            None if size == 1 => inputs.push((dim.name(), 0)),
            None => {
                return Err(CliError::input(
                    "--input",
                    format!(
                        "no value for in-dim '{}' (size {size}): add --input {}=N",
                        dim.name(),
                        dim.name()
                    ),
                ))
            }
        }
    }
    Ok(inputs)
}

/// Reads two named layout arguments, first to second.
fn read_pair(
    reader: &mut LayoutReader,
    (first_arg, first): (&str, &str),
    (second_arg, second): (&str, &str),
) -> Result<(LinearLayout, LinearLayout), CliError> {
    Ok((
        reader.read(first_arg, first)?,
        reader.read(second_arg, second)?,
    ))
}
