//! Text forms of a layout: Triton's JSON `from_bases` shape, Triton's `toString`, and the MLIR
//! tokenizer and attribute grammar the layout families' `#ttg…` attributes are read with.
//!
//! | concept | file |
//! |---|---|
//! | [`Cursor`](cursor::Cursor): the one MLIR tokenizer (positions, tokens, located errors) | `cursor.rs` |
//! | [`Aliases`](aliases::Aliases): a module's `#name = …` attribute aliases, resolved in order | `aliases.rs` |
//! | [`module_layouts`](module::module_layouts): every layout a TTGIR module uses, with its shapes | `module.rs` |
//! | the attribute grammar every family shares (fields, values, lists, bases, printing) | `attr.rs` |
//! | `Display`: Triton's `LinearLayout::toString` | `display.rs` |
//! | JSON in Triton's `from_bases` shape | `json.rs` |
//!
//! `#ttg.linear` text of a [`LinearLayout`](crate::LinearLayout) is read and printed by
//! [`families::linear`](crate::families::linear), with the other attributes.

pub mod aliases;
pub(crate) mod attr;
pub mod cursor;
pub mod display;
pub mod json;
pub mod module;
