//! [`MlirError`]: why a module could not be read or edited, at a 1-based line and column.

use std::fmt;

use thiserror::Error;

/// What is wrong, without where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MlirErrorKind {
    /// A character no token starts with.
    #[error("unexpected character '{0}'")]
    UnexpectedChar(char),
    /// `%`, `^`, `#`, `!` or `@` with no name after it.
    #[error("'{0}' must be followed by a name")]
    NameExpected(char),
    /// A string literal not closed on its line.
    #[error("a string literal is not closed on its line")]
    UnclosedString,
    /// The text ends, or a closing bracket of another kind comes, before `open` is closed.
    #[error("'{open}' opened at line {line}, column {column} is not closed{hint}")]
    Unclosed {
        /// The bracket (`(`, `[`, `{`, `<`, a region's `{`).
        open: char,
        /// Where it opened.
        line: usize,
        /// Where it opened.
        column: usize,
        /// What came instead, e.g. `" (found ')')"`, or `" before the end of the text"`.
        hint: String,
    },
    /// A closing bracket with nothing open.
    #[error("'{0}' closes nothing")]
    Unopened(char),
    /// A token where another was required.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar needs here.
        expected: &'static str,
        /// The token found, quoted, or `end of input`.
        found: String,
    },
    /// A use of a value no op or block defines.
    #[error("%{0} is not defined")]
    UndefinedValue(String),
    /// A value defined twice in one scope.
    #[error("%{0} is defined twice")]
    Redefined(String),
    /// An edit that would print a module whose types disagree: `value`'s type changes and
    /// `op` uses it where its type is printed in a way the model does not know.
    #[error("%{value} changes type and '{op}' uses it where the model cannot print the new type")]
    StaleType {
        /// The value.
        value: String,
        /// The op that uses it.
        op: String,
    },
}

/// An [`MlirErrorKind`] at a place in the module's text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct MlirError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub kind: MlirErrorKind,
}

impl fmt::Display for MlirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.kind
        )
    }
}

impl MlirError {
    /// `kind` at byte offset `pos` of `text`.
    pub fn at(text: &str, pos: usize, kind: MlirErrorKind) -> MlirError {
        let (line, column) = line_column(text, pos);
        MlirError { line, column, kind }
    }
}

/// `(line, column)` of byte offset `pos` in `text`, 1-based, columns in characters.
pub fn line_column(text: &str, pos: usize) -> (usize, usize) {
    let before = text.get(..pos).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}
