//! The tokenizer and tree builder. One pass over the bytes, no allocation per token: tokens are
//! spans of the source, nodes live in one flat `Vec`.

use crate::{Document, KvError, Node, NodeId, NodeKind, Token};

/// How to read the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Honour `\"`, `\\`, `\n`... inside quoted strings (Valve's `UsesEscapeSequences`).
    pub escapes: bool,
    /// Honour only `\"` (a quote inside a quoted string); every other backslash is a plain
    /// character. This is how VMF writers such as srctools and newer Hammers escape quotes while
    /// paths like `models\props\x.mdl` stay raw.
    pub quote_escapes: bool,
}

/// The deepest nesting of blocks a document may have. Real files nest a handful of levels (a
/// VMF's displacement rows are 5 deep); the cap keeps every consumer that walks the tree by
/// recursion (owned trees, writers, drops) far from the stack's end on hostile input.
pub const MAX_DEPTH: usize = 256;
/// How the error past [`MAX_DEPTH`] begins ([`crate::KvError::is_too_deep`] tells it).
pub(crate) const TOO_DEEP: &str = "blocks nested deeper than";

struct Parser<'t> {
    bytes: &'t [u8],
    pos: usize,
    escapes: bool,
    /// The nodes so far, the root first.
    nodes: Vec<Node>,
    /// The open blocks, innermost last (the root at the bottom).
    stack: Vec<u32>,
}

impl Parser<'_> {
    #[inline]
    fn skip_trivia(&mut self) {
        let b = self.bytes;
        let mut p = self.pos;
        while p < b.len() {
            match b[p] {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => p += 1,
                b'/' if b.get(p + 1) == Some(&b'/') => {
                    p = match memchr::memchr(b'\n', &b[p..]) {
                        Some(n) => p + n + 1,
                        None => b.len(),
                    }
                }
                // A UTF-8 byte order mark at the very start is trivia.
                0xEF if p == 0 && b.starts_with(b"\xEF\xBB\xBF") => p += 3,
                _ => break,
            }
        }
        self.pos = p;
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> KvError {
        KvError::at(self.bytes, offset, message)
    }

    /// Reads a quoted or unquoted token at `self.pos`.
    #[inline]
    fn token(&mut self) -> Result<Token, KvError> {
        if self.bytes[self.pos] == b'"' {
            self.quoted()
        } else {
            Ok(self.bare())
        }
    }

    /// A quoted token: up to the closing quote (skipping escaped characters when escapes
    /// are on).
    #[inline]
    fn quoted(&mut self) -> Result<Token, KvError> {
        let b = self.bytes;
        let start = self.pos;
        let mut p = start + 1;
        loop {
            let found = if self.escapes {
                memchr::memchr2(b'"', b'\\', &b[p..])
            } else {
                memchr::memchr(b'"', &b[p..])
            };
            match found {
                Some(n) if b[p + n] == b'\\' => p += n + 2,
                Some(n) => {
                    p += n + 1;
                    break;
                }
                None => return Err(self.error(start, "unterminated string: no closing `\"`")),
            }
            if p > b.len() {
                return Err(self.error(start, "unterminated string: no closing `\"`"));
            }
        }
        self.pos = p;
        Ok(Token {
            start: start as u32,
            end: p as u32,
            flags: Token::PRESENT | Token::QUOTED,
        })
    }

    /// An unquoted token: up to whitespace, a quote or a brace.
    #[inline]
    fn bare(&mut self) -> Token {
        let b = self.bytes;
        let start = self.pos;
        let mut p = start;
        while p < b.len() && !matches!(b[p], b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'{' | b'}') {
            p += 1;
        }
        self.pos = p;
        Token {
            start: start as u32,
            end: p as u32,
            flags: Token::PRESENT,
        }
    }

    /// Reads `[...]` at `self.pos`.
    fn condition(&mut self) -> Result<Token, KvError> {
        let b = self.bytes;
        let start = self.pos;
        match memchr::memchr2(b']', b'\n', &b[start..]) {
            Some(n) if b[start + n] == b']' => {
                self.pos = start + n + 1;
                Ok(Token {
                    start: start as u32,
                    end: self.pos as u32,
                    flags: Token::PRESENT,
                })
            }
            _ => Err(self.error(start, "unterminated condition: no closing `]` on this line")),
        }
    }
    /// A parser at the start of `bytes`, holding only the root node.
    fn new(bytes: &[u8], escapes: bool) -> Parser<'_> {
        let mut nodes: Vec<Node> = Vec::with_capacity(bytes.len() / 24 + 1);
        let mut root = Node::new_node(NodeKind::Root, NodeId::NONE);
        root.new = false;
        root.end = bytes.len() as u32;
        nodes.push(root);
        Parser {
            bytes,
            pos: 0,
            escapes,
            nodes,
            stack: vec![0],
        }
    }

    /// The nodes of the whole text: one entry at a time, or the close of the open block.
    fn build(&mut self) -> Result<(), KvError> {
        loop {
            self.skip_trivia();
            if self.pos >= self.bytes.len() {
                break;
            }
            let parent = *self.stack.last().unwrap_or(&0);
            match self.bytes[self.pos] {
                b'}' => {
                    self.close_block(parent)?;
                    continue;
                }
                b'{' => return Err(self.error(self.pos, "`{` without a key before it")),
                b'[' => return Err(self.error(self.pos, "condition `[...]` without a key before it")),
                _ => {}
            }
            let node = self.entry(parent)?;
            self.link(parent, node);
        }
        self.check_closed()
    }

    /// `}` at `self.pos` closes block `parent`.
    #[inline]
    fn close_block(&mut self, parent: u32) -> Result<(), KvError> {
        if self.stack.len() == 1 {
            return Err(self.error(self.pos, "unbalanced braces: `}` with no open block"));
        }
        let n = &mut self.nodes[parent as usize];
        n.close = self.pos as u32;
        n.end = self.pos as u32 + 1;
        self.stack.pop();
        self.pos += 1;
        Ok(())
    }

    /// One entry under `parent`: a key and its optional condition, then a block's `{` (the
    /// block is opened) or a value.
    #[inline]
    fn entry(&mut self, parent: u32) -> Result<Node, KvError> {
        let bytes = self.bytes;
        let key = self.token()?;
        let mut node = Node::new_node(NodeKind::Value, parent);
        node.new = false;
        node.key = key;
        node.start = key.start;
        self.skip_trivia();
        if self.pos < bytes.len() && bytes[self.pos] == b'[' {
            node.condition = self.condition()?;
            self.skip_trivia();
        }
        if self.pos >= bytes.len() || bytes[self.pos] == b'}' {
            let key_text = String::from_utf8_lossy(&bytes[key.start as usize..key.end as usize]);
            return Err(self.error(key.start as usize, format!("key {key_text} has no value")));
        }
        if bytes[self.pos] == b'{' {
            if self.stack.len() > MAX_DEPTH {
                return Err(self.error(self.pos, format!("{TOO_DEEP} {MAX_DEPTH} levels")));
            }
            node.kind = NodeKind::Block;
            node.open = self.pos as u32;
            self.pos += 1;
            self.stack.push(self.nodes.len() as u32);
        } else {
            self.value(&mut node)?;
        }
        Ok(node)
    }

    /// A value token, then an optional condition after it on the same line.
    #[inline]
    fn value(&mut self, node: &mut Node) -> Result<(), KvError> {
        let bytes = self.bytes;
        let value = self.token()?;
        node.value = value;
        node.end = value.end;
        let save = self.pos;
        while self.pos < bytes.len() && matches!(bytes[self.pos], b' ' | b'\t') {
            self.pos += 1;
        }
        if self.pos < bytes.len() && bytes[self.pos] == b'[' && !node.condition.present() {
            node.condition = self.condition()?;
            node.end = node.condition.end;
        } else {
            self.pos = save;
        }
        Ok(())
    }

    /// Appends `node` to the nodes, last in its parent's child list.
    #[inline]
    fn link(&mut self, parent: u32, mut node: Node) {
        let id = self.nodes.len() as u32;
        let nodes = &mut self.nodes;
        let prev = nodes[parent as usize].last_child;
        node.prev_sibling = prev;
        nodes.push(node);
        if prev == NodeId::NONE {
            nodes[parent as usize].first_child = id;
        } else {
            nodes[prev as usize].next_sibling = id;
        }
        nodes[parent as usize].last_child = id;
    }

    /// At the end of the text no block may still be open.
    fn check_closed(&self) -> Result<(), KvError> {
        if self.stack.len() > 1 {
            let open = &self.nodes[*self.stack.last().unwrap_or(&0) as usize];
            let key = String::from_utf8_lossy(&self.bytes[open.key.start as usize..open.key.end as usize])
                .into_owned();
            return Err(self.error(
                open.open as usize,
                format!("unbalanced braces: block {key} opened here is never closed"),
            ));
        }
        Ok(())
    }
}

pub(crate) fn parse(text: String, options: ParseOptions) -> Result<Document, KvError> {
    if text.len() >= u32::MAX as usize {
        return Err(KvError {
            offset: 0,
            line: 1,
            column: 1,
            message: "file larger than 4 GiB".into(),
        });
    }
    let mut p = Parser::new(text.as_bytes(), options.escapes || options.quote_escapes);
    p.build()?;
    let nodes = p.nodes;
    Ok(Document {
        text,
        nodes,
        owned: Vec::new(),
        options,
        edited: false,
        original_token_spans: Default::default(),
    })
}
