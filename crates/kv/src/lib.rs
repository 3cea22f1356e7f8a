//! KeyValues1 text, the format of VMF, VMT, gameinfo.txt and most of Source's text files.
//!
//! [`Document::parse`] builds a **lossless** tree: every node remembers where its tokens sit in
//! the source, and the bytes between tokens (whitespace, line endings, `//` comments) are never
//! thrown away. Writing an unmodified document gives back the input byte for byte; writing an
//! edited one keeps every untouched byte and formats only what changed.
//!
//! Supported syntax: quoted and unquoted tokens, `//` comments, `{ }` blocks, `[$CONDITION]`
//! suffixes (after a value, or between a block's key and its `{`), `#base`/`#include` directives
//! (kept as ordinary nodes, see [`Node::is_directive`]), duplicate keys (kept in order). Escape
//! sequences (`\n`, `\t`, `\\`, `\"`) are honoured only when [`ParseOptions::escapes`] is set, as
//! Valve's parser does for files that ask for it; Hammer writes VMF values raw, so by default a
//! backslash is an ordinary character (`models\props\x.mdl`).
//!
//! ```
//! let text = "world\n{\n\t\"id\" \"1\"\n\tsolid { \"id\" \"2\" }\n}\n";
//! let mut doc = srcmap_kv::Document::parse(text).unwrap();
//! let world = doc.find_child(srcmap_kv::NodeId::ROOT, "world").unwrap();
//! assert_eq!(doc.value_of(world, "id"), Some("1"));
//! doc.set_value(world, "id", "7");
//! assert!(doc.to_text().contains("\"id\" \"7\""));
//! ```

use std::borrow::Cow;
use std::fmt;

mod parse;
pub mod values;
mod write;

pub use parse::{MAX_DEPTH, ParseOptions};

/// Index of a node in a [`Document`]. [`NodeId::ROOT`] is the invisible top-level block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);
    const NONE: u32 = u32::MAX;
}

/// A token: either a span of the source (`start..end` covers the quotes when `quoted`), or,
/// after an edit, an owned string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Token {
    pub start: u32,
    pub end: u32,
    pub flags: u8,
}

impl Token {
    pub const PRESENT: u8 = 1;
    pub const QUOTED: u8 = 2;
    /// `start` indexes [`Document::owned`] instead of the source.
    pub const OWNED: u8 = 4;

    pub fn present(self) -> bool {
        self.flags & Self::PRESENT != 0
    }
    pub fn quoted(self) -> bool {
        self.flags & Self::QUOTED != 0
    }
    pub fn owned(self) -> bool {
        self.flags & Self::OWNED != 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Root,
    Value,
    Block,
}

/// One key/value pair or one block. Internal layout; use [`Document`]'s accessors.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub kind: NodeKind,
    pub key: Token,
    pub value: Token,
    pub condition: Token,
    /// Source span of the whole node (key to value, condition or closing brace); empty for new nodes.
    pub start: u32,
    pub end: u32,
    /// For blocks from the source: offsets of `{` and `}`.
    pub open: u32,
    pub close: u32,
    pub parent: u32,
    pub first_child: u32,
    pub last_child: u32,
    pub next_sibling: u32,
    pub prev_sibling: u32,
    /// Created by an edit (no source span) or removed by one.
    pub new: bool,
    pub removed: bool,
}

impl Node {
    fn new_node(kind: NodeKind, parent: u32) -> Node {
        Node {
            kind,
            key: Token::default(),
            value: Token::default(),
            condition: Token::default(),
            start: 0,
            end: 0,
            open: 0,
            close: 0,
            parent,
            first_child: NodeId::NONE,
            last_child: NodeId::NONE,
            next_sibling: NodeId::NONE,
            prev_sibling: NodeId::NONE,
            new: true,
            removed: false,
        }
    }
}

/// A parse error with its byte offset and 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct KvError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl KvError {
    pub(crate) fn at(text: &[u8], offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = srcmap_bytes::line_col(text, offset);
        KvError {
            offset,
            line,
            column,
            message: message.into(),
        }
    }

    /// Whether the text nests blocks deeper than [`MAX_DEPTH`] (a file no tool should load:
    /// readers that recurse per level overflow their stack on it).
    pub fn is_too_deep(&self) -> bool {
        self.message.starts_with(parse::TOO_DEEP)
    }
}

/// A lossless KeyValues document.
#[derive(Clone)]
pub struct Document {
    pub(crate) text: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) owned: Vec<String>,
    pub(crate) options: ParseOptions,
    /// Set by any edit; an unedited document writes its source verbatim.
    pub(crate) edited: bool,
    /// For source nodes whose tokens were edited: the original (key end, value start, value end),
    /// so the writer can still copy the trivia between the tokens.
    pub(crate) original_token_spans: std::collections::HashMap<u32, (u32, u32, u32)>,
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("bytes", &self.text.len())
            .field("nodes", &self.nodes.len())
            .field("edited", &self.edited)
            .finish()
    }
}

impl Document {
    /// Parses text with the default options (raw values, as Hammer writes them).
    pub fn parse(text: impl Into<String>) -> Result<Document, KvError> {
        Self::parse_with(text, ParseOptions::default())
    }

    /// Parses bytes, reporting the first non-UTF-8 byte as an error with its position.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Document, KvError> {
        Self::parse_bytes_with(bytes, ParseOptions::default())
    }

    pub fn parse_bytes_with(bytes: &[u8], options: ParseOptions) -> Result<Document, KvError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            KvError::at(
                bytes,
                e.valid_up_to(),
                "invalid UTF-8 byte (KeyValues text must be UTF-8)",
            )
        })?;
        Self::parse_with(text, options)
    }

    pub fn parse_with(text: impl Into<String>, options: ParseOptions) -> Result<Document, KvError> {
        parse::parse(text.into(), options)
    }

    /// An empty document (for building one from scratch).
    pub fn new() -> Document {
        Document {
            text: String::new(),
            nodes: vec![Node::new_node(NodeKind::Root, NodeId::NONE)],
            owned: Vec::new(),
            options: ParseOptions::default(),
            edited: false,
            original_token_spans: Default::default(),
        }
    }

    /// The source text this document was parsed from.
    pub fn source(&self) -> &str {
        &self.text
    }

    /// Number of nodes, removed ones included (node ids are never reused).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    pub(crate) fn token_text(&self, token: Token) -> &str {
        if token.owned() {
            &self.owned[token.start as usize]
        } else if token.quoted() {
            &self.text[token.start as usize + 1..token.end as usize - 1]
        } else {
            &self.text[token.start as usize..token.end as usize]
        }
    }

    /// The key as written (escapes not processed).
    pub fn key(&self, id: NodeId) -> &str {
        self.token_text(self.node(id).key)
    }

    /// The value of a key/value node as written; `None` for blocks and the root.
    pub fn value(&self, id: NodeId) -> Option<&str> {
        let n = self.node(id);
        (n.kind == NodeKind::Value).then(|| self.token_text(n.value))
    }

    /// The value with escape sequences processed, when the document was parsed with escapes.
    pub fn value_unescaped(&self, id: NodeId) -> Option<Cow<'_, str>> {
        let raw = self.value(id)?;
        Some(if self.options.escapes {
            unescape(raw)
        } else if self.options.quote_escapes && raw.contains("\\\"") {
            Cow::Owned(raw.replace("\\\"", "\""))
        } else {
            Cow::Borrowed(raw)
        })
    }

    /// The `[$CONDITION]` suffix without brackets, if any.
    pub fn condition(&self, id: NodeId) -> Option<&str> {
        let c = self.node(id).condition;
        if !c.present() {
            return None;
        }
        let t = self.token_text(c);
        Some(t.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(t))
    }

    pub fn is_block(&self, id: NodeId) -> bool {
        matches!(self.node(id).kind, NodeKind::Block | NodeKind::Root)
    }

    /// `#base` and `#include` lines, kept in place as ordinary key/value nodes.
    pub fn is_directive(&self, id: NodeId) -> bool {
        let k = self.key(id);
        k.eq_ignore_ascii_case("#base") || k.eq_ignore_ascii_case("#include")
    }

    /// Whether the key / value token was quoted in the source.
    pub fn key_quoted(&self, id: NodeId) -> bool {
        self.node(id).key.quoted()
    }
    pub fn value_quoted(&self, id: NodeId) -> bool {
        self.node(id).value.quoted()
    }

    /// Byte offset of the node's key in the source (0 for nodes created by edits).
    pub fn offset(&self, id: NodeId) -> usize {
        self.node(id).key.start as usize
    }

    /// Byte offset of the node's value token in the source.
    pub fn value_offset(&self, id: NodeId) -> usize {
        self.node(id).value.start as usize
    }

    /// 1-based line and column of a byte offset in the source.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        srcmap_bytes::line_col(self.text.as_bytes(), offset)
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.node(id).parent;
        (p != NodeId::NONE).then_some(NodeId(p))
    }

    /// The live (not removed) children of a block, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            doc: self,
            next: self.node(id).first_child,
        }
    }

    /// First child with this key (ASCII case-insensitive, as Valve compares keys).
    pub fn find_child(&self, id: NodeId, key: &str) -> Option<NodeId> {
        self.children(id).find(|&c| self.key(c).eq_ignore_ascii_case(key))
    }

    /// Value of the first key/value child with this key.
    pub fn value_of(&self, id: NodeId, key: &str) -> Option<&str> {
        self.children(id)
            .find(|&c| !self.is_block(c) && self.key(c).eq_ignore_ascii_case(key))
            .and_then(|c| self.value(c))
    }

    pub(crate) fn original_spans(&self, id: NodeId) -> (usize, usize, usize) {
        let (a, b, c) = self.original_token_spans[&id.0];
        (a as usize, b as usize, c as usize)
    }

    fn remember_original_spans(&mut self, id: NodeId) {
        let n = &self.nodes[id.0 as usize];
        if !n.new {
            let spans = (n.key.end, n.value.start, n.value.end);
            self.original_token_spans.entry(id.0).or_insert(spans);
        }
    }

    fn push_owned(&mut self, s: &str, quoted: bool) -> Token {
        let text = if self.options.escapes {
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\t', "\\t")
        } else if self.options.quote_escapes {
            s.replace('"', "\\\"")
        } else {
            s.to_owned()
        };
        self.owned.push(text);
        let mut flags = Token::PRESENT | Token::OWNED;
        if quoted {
            flags |= Token::QUOTED;
        }
        Token {
            start: (self.owned.len() - 1) as u32,
            end: 0,
            flags,
        }
    }

    /// Replaces the value of a key/value node, keeping its quoting style (a value that needs
    /// quotes gets them).
    pub fn set_node_value(&mut self, id: NodeId, value: &str) {
        let quoted = self.node(id).value.quoted() || needs_quotes(value) || !self.node(id).value.present();
        self.remember_original_spans(id);
        let tok = self.push_owned(value, quoted);
        self.nodes[id.0 as usize].value = tok;
        self.edited = true;
    }

    /// Renames a node's key.
    pub fn set_key(&mut self, id: NodeId, key: &str) {
        let quoted = self.node(id).key.quoted() || needs_quotes(key);
        self.remember_original_spans(id);
        let tok = self.push_owned(key, quoted);
        self.nodes[id.0 as usize].key = tok;
        self.edited = true;
    }

    /// Sets the first `key` child of `block` to `value`, appending a new pair when there is none.
    pub fn set_value(&mut self, block: NodeId, key: &str, value: &str) -> NodeId {
        match self
            .children(block)
            .find(|&c| !self.is_block(c) && self.key(c).eq_ignore_ascii_case(key))
        {
            Some(c) => {
                self.set_node_value(c, value);
                c
            }
            None => self.append_value(block, key, value),
        }
    }

    fn append_node(&mut self, parent: NodeId, mut node: Node) -> NodeId {
        let id = self.nodes.len() as u32;
        let p = &self.nodes[parent.0 as usize];
        node.prev_sibling = p.last_child;
        let last = p.last_child;
        self.nodes.push(node);
        if last == NodeId::NONE {
            self.nodes[parent.0 as usize].first_child = id;
        } else {
            self.nodes[last as usize].next_sibling = id;
        }
        self.nodes[parent.0 as usize].last_child = id;
        self.edited = true;
        NodeId(id)
    }

    /// Appends `"key" "value"` at the end of a block.
    pub fn append_value(&mut self, parent: NodeId, key: &str, value: &str) -> NodeId {
        let mut node = Node::new_node(NodeKind::Value, parent.0);
        node.key = self.push_owned(key, true);
        node.value = self.push_owned(value, true);
        self.append_node(parent, node)
    }

    /// Appends an empty block `key { }` at the end of a block.
    pub fn append_block(&mut self, parent: NodeId, key: &str) -> NodeId {
        let mut node = Node::new_node(NodeKind::Block, parent.0);
        node.key = self.push_owned(key, needs_quotes(key));
        self.append_node(parent, node)
    }

    /// Removes a node and everything under it.
    pub fn remove(&mut self, id: NodeId) {
        if id != NodeId::ROOT {
            self.nodes[id.0 as usize].removed = true;
            self.edited = true;
        }
    }

    pub fn is_removed(&self, id: NodeId) -> bool {
        self.node(id).removed
    }

    /// Whether anything was edited since parsing.
    pub fn is_edited(&self) -> bool {
        self.edited
    }

    /// Writes the document: the source verbatim when unedited, otherwise the source with only
    /// the edited tokens and nodes changed.
    pub fn write(&self, out: &mut Vec<u8>) {
        write::write(self, out)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 64);
        self.write(&mut out);
        out
    }

    pub fn to_text(&self) -> String {
        // The writer only emits source slices and UTF-8 strings.
        String::from_utf8(self.to_bytes())
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl Default for Document {
    fn default() -> Self {
        Self::new()
    }
}

/// Iterator over a block's live children.
pub struct Children<'a> {
    doc: &'a Document,
    next: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        while self.next != NodeId::NONE {
            let id = self.next;
            let node = &self.doc.nodes[id as usize];
            self.next = node.next_sibling;
            if !node.removed {
                return Some(NodeId(id));
            }
        }
        None
    }
}

fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s.bytes()
            .any(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'{' | b'}' | b'[' | b']'))
}

/// Processes Valve's escape sequences: `\n`, `\t`, `\v`, `\b`, `\r`, `\f`, `\a`, `\\`, `\?`,
/// `\'`, `\"`. Any other backslash is kept as it is.
pub fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\x0b'),
            Some('b') => out.push('\x08'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('a') => out.push('\x07'),
            Some(c @ ('\\' | '?' | '\'' | '"')) => out.push(c),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    Cow::Owned(out)
}
