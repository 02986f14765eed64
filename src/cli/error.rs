//! [`CliError`]: everything that can go wrong in a command, with its exit code.

use linear_layout::LayoutError;
use thiserror::Error;

/// A failed command. Its `Display` is the message printed after `error: `.
#[derive(Debug, Error)]
pub enum CliError {
    /// A command-line argument is unusable: unreadable file, text that is not a layout, an
    /// invalid `--input`. Exit code 2.
    #[error("{arg}: {message}")]
    Input {
        /// The argument that failed, as named in `--help` (e.g. `OUTER`, `--input`).
        arg: String,
        /// Why it failed.
        message: String,
    },
    /// The layouts were read but the operation refused them. Exit code 1.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The layouts were read but the PTX emitter refused them. Exit code 1.
    #[error("{0}")]
    Refused(String),
    /// The plan file was read but the planner refused its program. Exit code 1.
    #[error("{file}: {message}")]
    Plan {
        /// The plan file, as given.
        file: String,
        /// The planner's error (and TLX's text for it in TLX-compatible mode).
        message: String,
        /// What the planner warned about before it failed (printed before the error).
        warnings: Vec<String>,
    },
    /// `linalias check` found a hazard (exit code 1) or could not decide (exit code 3), or
    /// `plan`/`pack` made a report that fails (exit code 1): the report goes to stdout, the
    /// summary after `error: `.
    #[error("{summary}")]
    Findings {
        /// What stdout gets (empty when the command has streamed its report already).
        report: String,
        /// The one-line summary.
        summary: String,
        /// 1 or 3.
        code: u8,
    },
    /// The buffers were read but do not fit the capacity (or the packer refused them).
    /// Exit code 1.
    #[error("{file}: {message}")]
    Pack {
        /// The CSV file, as given.
        file: String,
        /// Why: the best peak against the capacity and the diagnosis.
        message: String,
    },
    /// Stdout could not be written (a closed pipe is not an error: `main` exits 0 on it).
    /// Exit code 1.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// A [`CliError::Input`] for argument `arg`.
    pub fn input(arg: &str, message: impl std::fmt::Display) -> CliError {
        CliError::Input {
            arg: arg.to_owned(),
            message: message.to_string(),
        }
    }

    /// What stdout gets before the error line (a check's report).
    pub fn stdout(&self) -> Option<&str> {
        match self {
            CliError::Findings { report, .. } => Some(report),
            _ => None,
        }
    }

    /// Warnings to print before the error (`warning: …` lines).
    pub fn warnings(&self) -> &[String] {
        match self {
            CliError::Plan { warnings, .. } => warnings,
            _ => &[],
        }
    }

    /// The process exit code: 2 for bad arguments, 1 for refused layout operations and plans,
    /// for buffers that do not fit and for a check's hazards, 3 for a check that cannot decide.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input { .. } => 2,
            CliError::Layout(_)
            | CliError::Refused(_)
            | CliError::Plan { .. }
            | CliError::Pack { .. }
            | CliError::Output(_) => 1,
            CliError::Findings { code, .. } => *code,
        }
    }
}
