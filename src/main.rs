//! `linalias`: command-line front end to the `linear-layout` and `alias-alloc` crates.
//!
//! `linalias layout show|compose|invert-and-compose|pseudoinvert|invert|apply|product …`,
//! `linalias plan FILE.toml [--emit ptx]`, `linalias pack FILE.csv` and
//! `linalias ptx --regs LAYOUT --mem LAYOUT`; see `linalias --help`. Errors are one
//! `error: …` line on stderr, exit code 2 for bad arguments and 1 when a layout operation or the
//! planner refuses its input or the buffers do not fit.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::args::Cli::try_parse() {
        Ok(args) => args,
        // --help and --version go to stdout with exit code 0.
        Err(e) if !e.use_stderr() => e.exit(),
        // A bare `linalias` or `linalias layout`: the full help, on stderr, exit code 2.
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) => return fail(&clap_message(&e), 2),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = cli::run(args, &mut out);
    // The report reaches stdout before the error line reaches stderr.
    let written = match &result {
        Err(e) => out
            .write_all(e.stdout().unwrap_or_default().as_bytes())
            .and_then(|()| out.flush()),
        Ok(()) => out.flush(),
    };
    match (result, written) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        (Err(cli::CliError::Output(e)), _) | (Ok(()), Err(e))
            if e.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            ExitCode::SUCCESS
        }
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Ok(()), Err(e)) => fail(&format!("cannot write output: {e}"), 1),
        (Err(e), _) => {
            for w in e.warnings() {
                let _ = writeln!(std::io::stderr(), "warning: {w}");
            }
            fail(&e.to_string(), e.exit_code())
        }
    }
}

/// Prints `error: <message>` as a single line on stderr and returns `code`.
fn fail(message: &str, code: u8) -> ExitCode {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // Nothing sensible is left to do if stderr itself is gone.
    let _ = writeln!(std::io::stderr(), "error: {}", lines.join(" "));
    ExitCode::from(code)
}

/// Clap's error as one line, without its `error: ` prefix, `Usage:` and `--help` trailers.
fn clap_message(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let mut message = String::new();
    for line in rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
    {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        if !message.is_empty() {
            message.push_str(if message.ends_with(':') { " " } else { "; " });
        }
        message.push_str(line.trim_start_matches("error:").trim());
    }
    message
}
