//! [`Aliases`]: a module's attribute aliases (`#shared = #ttg.nvmma_shared<{…}>`), resolved in
//! the order MLIR defines them, so that an alias may use an earlier one (`parent = #blocked`).
//!
//! ```
//! use linear_layout::text::aliases::Aliases;
//! let mut a = Aliases::default();
//! a.define("#blocked", "#ttg.blocked<{order = [0]}>");
//! a.define("#slice", "#ttg.slice<{dim = 0, parent = #blocked}>");
//! assert_eq!(a.resolve("#slice"), "#ttg.slice<{dim = 0, parent = #ttg.blocked<{order = [0]}>}>");
//! ```

use std::collections::HashMap;

use crate::mlir::lexer::is_bare_id_char;

/// Alias name (with its `#`) → the attribute text, with every earlier alias it names replaced by
/// that alias's own text.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    table: HashMap<String, String>,
}

impl Aliases {
    /// Defines `name` (with its `#`) as `value`, resolving the aliases it uses now.
    pub fn define(&mut self, name: &str, value: &str) {
        let resolved = self.resolve(value);
        self.table.insert(name.to_string(), resolved);
    }

    /// `text` with every defined alias replaced by its text. Names that are not aliases (the
    /// dialect attributes `#ttg.blocked`, `#ttng.tensor_memory`) stay as they are.
    pub fn resolve(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('#') {
            out.push_str(rest.get(..at).unwrap_or(""));
            let tail = rest.get(at..).unwrap_or("");
            let len = tail
                .char_indices()
                .skip(1)
                .find(|&(_, c)| !is_bare_id_char(c))
                .map_or(tail.len(), |(i, _)| i);
            let name = tail.get(..len).unwrap_or("");
            match self.table.get(name) {
                Some(value) => out.push_str(value),
                None => out.push_str(name),
            }
            rest = tail.get(len..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_aliases_see_earlier_ones() {
        let mut a = Aliases::default();
        a.define("#blocked", "#ttg.blocked<{order = [0]}>");
        a.define("#slice", "#ttg.slice<{dim = 0, parent = #blocked}>");
        assert_eq!(
            a.resolve("#slice"),
            "#ttg.slice<{dim = 0, parent = #ttg.blocked<{order = [0]}>}>"
        );
        assert_eq!(
            a.resolve("#ttg.shared_memory, #blocked1"),
            "#ttg.shared_memory, #blocked1"
        );
    }
}
