//! Splitting a memdesc type's parameters at top-level commas, and SSA names by the module
//! model's identifier rule (`linear_layout::mlir::lexer`).

use linear_layout::mlir::lexer::is_suffix_id_char;

/// Splits `text` at the commas outside brackets and strings, trimming each part.
pub(crate) fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut start = 0;
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            '>' if prev == '-' => {}
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text.get(start..i).unwrap_or("").trim());
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    parts.push(text.get(start..).unwrap_or("").trim());
    parts
}

/// An SSA name at the start of `text` (`%qk_tiles`, `%0`, `%arg3`), without the `%`, and the
/// bytes it took (the `%` included); `None` when `text` does not start with one.
pub(crate) fn ssa_name(text: &str) -> Option<(&str, usize)> {
    let body = text.strip_prefix('%')?;
    let len = body
        .find(|c: char| !is_suffix_id_char(c))
        .unwrap_or(body.len());
    (len > 0).then(|| (body.get(..len).unwrap_or(""), len + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_commas_only() {
        assert_eq!(
            split_top_level("2x4xf32, #ttg.x<{a = [1, 2]}>, \"a,b\", mutable"),
            vec!["2x4xf32", "#ttg.x<{a = [1, 2]}>", "\"a,b\"", "mutable"]
        );
    }

    #[test]
    fn ssa_names_follow_the_langref() {
        assert_eq!(ssa_name("%qk_tiles = x"), Some(("qk_tiles", 9)));
        assert_eq!(ssa_name("%c-1_i32"), Some(("c-1_i32", 8)));
        assert_eq!(ssa_name("% x"), None);
    }
}
