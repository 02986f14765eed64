//! The module model: [`Module`] holds operations, values, regions and blocks in arenas, linked
//! by ids; each op keeps the concrete syntax it was read from as [`Piece`]s, so that printing
//! an unedited module gives back its text byte for byte, and an edit (a new type, a new
//! operand, an inserted op) prints everywhere the model links it.
//!
//! What an op's pieces link: its result names (`Def`), operand names (`Use`), the types its
//! signature prints for operands and results (`Type`, where [`OpKind::signature`] or the
//! generic form says which type is whose), block argument names and types in its header
//! (`partition0(%arg25: i32 …)`, `tt.func @k(%a: f32 …)`), its regions and its location. The
//! rest of its text — keywords, attributes, punctuation, blanks — is kept as written.

use super::op_kind::OpKind;

/// An op of a [`Module`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub(crate) u32);
/// A value (op result or block argument) of a [`Module`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub(crate) u32);
/// A region of a [`Module`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(pub(crate) u32);
/// A block of a [`Module`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub(crate) u32);

/// Whose type a [`Piece::Type`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeOf {
    /// The op's operand `k`.
    Operand(usize),
    /// The op's result `k`.
    Result(usize),
    /// A value defined in the op's header (a block argument of one of its regions).
    Value(ValueId),
}

/// One piece of an op's (or block label's) concrete syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text printed as it is.
    Text(String),
    /// The name of a value the op defines (a result, or a block argument in its header).
    Def(ValueId),
    /// The name of operand `k`.
    Use(usize),
    /// A type, as written until the value changes type (then the value's new type).
    Type {
        /// Whose type it is.
        of: TypeOf,
        /// The text it was read as.
        written: String,
    },
    /// Region `k` of the op.
    Region(usize),
    /// The op's location (`loc(…)`).
    Location,
}

/// Where a value is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of `op`.
    Result {
        /// The op.
        op: OpId,
        /// Which result.
        index: usize,
    },
    /// Argument `index` of `block`.
    BlockArgument {
        /// The block.
        block: BlockId,
        /// Which argument.
        index: usize,
    },
    /// Declared in the header of `op`, which has no region to hold it (a declaration).
    Header {
        /// The op.
        op: OpId,
    },
}

/// An SSA value: its name as written, its type where the text says it, where it is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub(crate) name: String,
    /// For a result of a multi-result group (`%x:3`), its index (`%x#1`).
    pub(crate) index: Option<usize>,
    pub(crate) ty: Option<String>,
    pub(crate) retyped: bool,
    pub(crate) def: ValueDef,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Value {
    /// The name without `%` (`qk_tiles`, `arg25`, `0`); a group's name for its members.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// As a use prints it: `%qk_tiles`, or `%l_i#1` for a member of a result group.
    pub fn use_name(&self) -> String {
        match self.index {
            Some(k) => format!("%{}#{k}", self.name),
            None => format!("%{}", self.name),
        }
    }

    /// Its type as the module writes it (aliases unresolved), where some op prints it.
    pub fn ty(&self) -> Option<&str> {
        self.ty.as_deref()
    }

    /// Where it is defined.
    pub fn def(&self) -> ValueDef {
        self.def
    }

    /// 1-based line and column of its definition.
    pub fn position(&self) -> (usize, usize) {
        (self.line, self.column)
    }
}

/// An operation: generic or custom form, with its defs, uses, regions and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub(crate) name: String,
    pub(crate) kind: Option<OpKind>,
    pub(crate) generic: bool,
    pub(crate) results: Vec<ValueId>,
    pub(crate) operands: Vec<ValueId>,
    pub(crate) regions: Vec<RegionId>,
    pub(crate) attributes: Vec<(String, String)>,
    pub(crate) location: Option<String>,
    pub(crate) parent: Option<BlockId>,
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// Blanks and comments before the op.
    pub(crate) lead: String,
    pub(crate) pieces: Vec<Piece>,
}

impl Operation {
    /// Its name (`ttg.memdesc_index`, `tt.reduce`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its kind, where the workspace understands it ([`OpKind`]).
    pub fn kind(&self) -> Option<OpKind> {
        self.kind
    }

    /// Whether it is written in the generic form (`"tt.reduce"(…) …`).
    pub fn is_generic(&self) -> bool {
        self.generic
    }

    /// Its results, in order.
    pub fn results(&self) -> &[ValueId] {
        &self.results
    }

    /// Its operands, in the order its text names them.
    pub fn operands(&self) -> &[ValueId] {
        &self.operands
    }

    /// Its regions, in order.
    pub fn regions(&self) -> &[RegionId] {
        &self.regions
    }

    /// Its attributes and properties: the `{…}` / `<{…}>` dictionaries and the custom form's
    /// `key = value` words, values as written.
    pub fn attributes(&self) -> &[(String, String)] {
        &self.attributes
    }

    /// The value of attribute `key`, as written.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The words its custom form writes after its name and before its type signature, operands
    /// and attribute dictionaries left out: `["1"]` for `ttng.init_barrier %b, 1 : …`,
    /// `["slt"]` for `arith.cmpi slt, %a, %b : i32`, `["128"]` for `arith.constant 128 : i32`.
    pub fn words(&self) -> Vec<String> {
        let mut text = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => text.push_str(t),
                Piece::Use(_) | Piece::Def(_) => text.push(' '),
                Piece::Type { .. } | Piece::Region(_) | Piece::Location => break,
            }
        }
        let after = text
            .find(self.name.as_str())
            .map_or("", |i| text.get(i + self.name.len()..).unwrap_or(""));
        let mut words = Vec::new();
        let (mut depth, mut word) = (0usize, String::new());
        for c in after.chars() {
            match c {
                '{' | '<' => depth += 1,
                '}' | '>' => depth = depth.saturating_sub(1),
                ':' if depth == 0 => break,
                _ if depth > 0 => {}
                c if c.is_whitespace() || ",[]()=".contains(c) => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        words
    }

    /// Its own text as written, without its regions, operand names, types and location: the
    /// keywords and literals between them (`ttg.warp_specialize` gives its
    /// `num_warps(4)` words here).
    pub fn keywords(&self) -> String {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Its location (`loc(#loc12)`), as written.
    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }

    /// The block that holds it (`None` at the top level).
    pub fn parent(&self) -> Option<BlockId> {
        self.parent
    }

    /// 1-based line and column of its name.
    pub fn position(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    /// Whether its text prints the type of operand `k` (the value `value`) where the model can
    /// change it: a type piece of that operand, or of that value (a block argument it declares).
    pub fn prints_operand_type(&self, k: usize, value: ValueId) -> bool {
        self.pieces.iter().any(|p| match p {
            Piece::Type { of, .. } => *of == TypeOf::Operand(k) || *of == TypeOf::Value(value),
            _ => false,
        })
    }
}

/// A region: its blocks, and the text that closes it (blanks and `}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub(crate) blocks: Vec<BlockId>,
    pub(crate) parent: OpId,
    pub(crate) close: String,
}

impl Region {
    /// Its blocks, the entry block first.
    pub fn blocks(&self) -> &[BlockId] {
        &self.blocks
    }

    /// The op that holds it.
    pub fn parent(&self) -> OpId {
        self.parent
    }
}

/// A block: its arguments and ops, and its label as written (empty for an entry block whose
/// arguments the op's header declares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub(crate) arguments: Vec<ValueId>,
    pub(crate) ops: Vec<OpId>,
    pub(crate) parent: RegionId,
    pub(crate) lead: String,
    pub(crate) label: Vec<Piece>,
}

impl Block {
    /// Its arguments, in order.
    pub fn arguments(&self) -> &[ValueId] {
        &self.arguments
    }

    /// Its ops, in order.
    pub fn ops(&self) -> &[OpId] {
        &self.ops
    }

    /// The region that holds it.
    pub fn parent(&self) -> RegionId {
        self.parent
    }
}

/// What an alias at the top of a module defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasKind {
    /// `#name = attribute`.
    Attribute,
    /// `#loc… = loc(…)`.
    Location,
    /// `!name = type`.
    Type,
}

/// A top-level alias definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// What it defines.
    pub kind: AliasKind,
    /// Its name with `#` or `!`.
    pub name: String,
    /// Its value as written.
    pub value: String,
    /// 1-based line.
    pub line: usize,
    pub(crate) lead: String,
    pub(crate) text: String,
}

/// An item at the top level of a module's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopItem {
    /// An alias definition.
    Alias(Alias),
    /// An op (the `module`).
    Op(OpId),
    /// The `{-# … #-}` file metadata, as written (with the blanks before it).
    Metadata(String),
}

/// A module as read: see the [module model](crate::mlir) and [`Module::parse`](super::Module::parse).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Module {
    pub(crate) ops: Vec<Operation>,
    pub(crate) values: Vec<Value>,
    pub(crate) regions: Vec<Region>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) top: Vec<TopItem>,
    pub(crate) trailing: String,
}
