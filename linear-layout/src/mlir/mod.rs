//! The MLIR module model: a TTGIR module read **once** into operations with SSA results,
//! operands, attributes, regions → blocks → block arguments and locations, transformed by
//! editing the model, and printed from it. `linalias plan kernel.mlir` and the storage-alias
//! lowering work on it; the layout listing (`text::module`) reads types with its tokenizer.
//!
//! | file | what it holds |
//! |---|---|
//! | `lexer.rs` | [`lexer::lex`]: the one tokenizer, MLIR's LangRef identifier rules |
//! | `op_kind.rs` | [`OpKind`]: the one table of op names the workspace understands, and where each prints its types |
//! | `model.rs` | [`Module`], [`Operation`], [`Value`], [`Region`], [`Block`], [`Piece`]: the model |
//! | `parse.rs` | text → model (where an op ends, which `{` opens a region, defs and uses, scopes) |
//! | `print.rs` | model → text |
//! | `typed.rs` | [`TypedOp`]: each op of the table in its typed form (which operand is the buffer, the index, the barrier; which region the body), checked by [`Module::typed`] |
//! | `edit.rs` | the edits: a value's new type, new and rewritten ops, erased ops, replaced operands |
//! | `error.rs` | [`MlirError`]: what is wrong, at a line and column |
//!
//! Reading and printing is the identity: an op keeps the text it was read from as pieces, and
//! only what the model links — names, the types its signature prints, regions, its location —
//! prints from the model. An op the workspace does not understand is kept whole, with its
//! defs, uses and nested regions; one it understands gets its [`OpKind`].
//!
//! ```
//! use linear_layout::mlir::{Module, OpKind};
//! let text = "#smem = #ttg.shared_memory
//! module {
//!   tt.func @k(%i: i32) {
//!     %a = ttg.local_alloc : () -> !ttg.memdesc<2x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable>
//!     %b = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable> -> !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable>
//!     tt.return
//!   }
//! }
//! ";
//! let mut m = Module::parse(text)?;
//! assert_eq!(m.to_string(), text); // read → print is the identity
//! let index = m.walk().into_iter().find(|&o| m.op(o).and_then(|o| o.kind()) == Some(OpKind::MemdescIndex));
//! let alloc = index.and_then(|i| m.op(i)).map(|o| o.operands()[0]).ok_or("a memdesc_index")?;
//! // A new type reaches every use that prints it.
//! let new = "!ttg.memdesc<4x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable>";
//! m.set_type(alloc, new)?;
//! assert_eq!(m.to_string().matches("4x64xf16").count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod edit;
pub mod error;
pub mod lexer;
mod model;
pub mod op_kind;
mod parse;
mod print;
mod typed;

use std::collections::HashMap;
use std::fmt;

pub use edit::NewOp;
pub use error::{MlirError, MlirErrorKind};
pub use model::{
    Alias, AliasKind, Block, BlockId, Module, OpId, Operation, Piece, Region, RegionId, TopItem,
    TypeOf, Value, ValueDef, ValueId,
};
pub use op_kind::{OpKind, Slot};
pub use typed::TypedOp;

use crate::text::aliases::Aliases;
use print::{Names, Printer};

impl Module {
    /// Reads a module (or several, one after the other, as a dump may hold) with its aliases,
    /// locations and file metadata.
    ///
    /// Errors: [`MlirError`] at the culprit's line and column — a bracket or region not closed
    /// (a module cut short), a use of a value no op defines before it, a value defined twice,
    /// a character no token starts with.
    pub fn parse(text: &str) -> Result<Module, MlirError> {
        parse::parse(text)
    }

    /// The op `id`.
    pub fn op(&self, id: OpId) -> Option<&Operation> {
        self.ops.get(id.0 as usize)
    }

    /// The value `id`.
    pub fn value(&self, id: ValueId) -> Option<&Value> {
        self.values.get(id.0 as usize)
    }

    /// The region `id`.
    pub fn region(&self, id: RegionId) -> Option<&Region> {
        self.regions.get(id.0 as usize)
    }

    /// The block `id`.
    pub fn block(&self, id: BlockId) -> Option<&Block> {
        self.blocks.get(id.0 as usize)
    }

    /// The items at the top level: aliases, ops (the `module`s), file metadata.
    pub fn top_level(&self) -> &[TopItem] {
        &self.top
    }

    /// The top-level ops (the `module`s), in order.
    pub fn top_ops(&self) -> Vec<OpId> {
        self.top
            .iter()
            .filter_map(|t| match t {
                TopItem::Op(o) => Some(*o),
                _ => None,
            })
            .collect()
    }

    /// The attribute and type aliases, resolved in order.
    pub fn aliases(&self) -> Aliases {
        let mut a = Aliases::default();
        for item in &self.top {
            if let TopItem::Alias(alias) = item {
                if alias.kind != AliasKind::Location {
                    a.define(&alias.name, &alias.value);
                }
            }
        }
        a
    }

    /// Every op in the module, each before the ops of its regions (pre-order).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::with_capacity(self.ops.len());
        for op in self.top_ops() {
            self.walk_op(op, &mut out);
        }
        out
    }

    /// `op` and the ops of its regions, in pre-order.
    pub fn walk_op(&self, op: OpId, out: &mut Vec<OpId>) {
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            out.push(o);
            let Some(operation) = self.op(o) else {
                continue;
            };
            for r in operation.regions.iter().rev() {
                let Some(region) = self.region(*r) else {
                    continue;
                };
                for b in region.blocks.iter().rev() {
                    if let Some(block) = self.block(*b) {
                        stack.extend(block.ops.iter().rev());
                    }
                }
            }
        }
    }

    /// Every use of every value: value → `(op, operand index)`, in walk order.
    pub fn uses(&self) -> HashMap<ValueId, Vec<(OpId, usize)>> {
        let mut uses: HashMap<ValueId, Vec<(OpId, usize)>> = HashMap::new();
        for o in self.walk() {
            if let Some(op) = self.op(o) {
                for (k, v) in op.operands.iter().enumerate() {
                    uses.entry(*v).or_default().push((o, k));
                }
            }
        }
        uses
    }

    /// One line per op, in walk order, that says what the op is and not how it is named:
    /// values numbered in order of appearance, aliases resolved, locations and blanks dropped,
    /// regions as `{…}`. Two modules with equal structures have the same ops in the same
    /// order, with the same operand and result types and the same attributes.
    pub fn structure(&self) -> Vec<String> {
        let aliases = self.aliases();
        let mut p = Printer::new(self, Names::Canonical);
        let mut lines = Vec::new();
        for o in self.walk() {
            let mut text = String::new();
            if p.op(o, &mut text, false).is_err() {
                continue;
            }
            lines.push(canonical_tokens(&aliases.resolve(&text)));
        }
        lines
    }
}

/// The tokens of `text` (comments gone with the lexer's trivia), `loc(…)` groups dropped,
/// joined by single blanks; `text`'s words where it does not lex.
fn canonical_tokens(text: &str) -> String {
    let Ok(tokens) = lexer::lex(text) else {
        return text.split_whitespace().collect::<Vec<_>>().join(" ");
    };
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut skip_depth = 0usize;
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        let word = t.text(text);
        let opens_loc = word == "loc" && tokens.get(i + 1).is_some_and(|n| n.is(b'('));
        if skip_depth == 0 && opens_loc {
            skip_depth = 1;
            i += 2;
            continue;
        }
        if skip_depth > 0 {
            if t.is(b'(') {
                skip_depth += 1;
            } else if t.is(b')') {
                skip_depth -= 1;
            }
            i += 1;
            continue;
        }
        out.push(word.to_string());
        i += 1;
    }
    out.join(" ")
}

impl fmt::Display for Module {
    /// The module's text, printed from the model.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        Printer::new(self, Names::Written).module(&mut out)?;
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests;
