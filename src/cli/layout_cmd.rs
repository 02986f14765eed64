//! `linalias layout …`: each subcommand reads its layouts, runs one [`LinearLayout`] operation
//! and renders the result.

use linear_layout::LinearLayout;

use crate::cli::args::LayoutCommand;
use crate::cli::error::CliError;
use crate::cli::input::LayoutReader;
use crate::cli::output;

/// Runs one `layout` subcommand and returns its stdout.
pub fn run(command: LayoutCommand) -> Result<String, CliError> {
    let mut reader = LayoutReader::default();
    match command {
        LayoutCommand::Show { layout, format } => {
            output::layout(&reader.read("LAYOUT", &layout)?, format.format)
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
            let inputs: Vec<(&str, u64)> = inputs.iter().map(|(d, v)| (d.as_str(), *v)).collect();
            Ok(output::values(&layout.apply(&inputs)?, format))
        }
        LayoutCommand::Product { a, b, format } => {
            let (a, b) = read_pair(&mut reader, ("A", &a), ("B", &b))?;
            output::layout(&a.product(&b)?, format.format)
        }
    }
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
