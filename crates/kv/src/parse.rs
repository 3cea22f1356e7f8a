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

struct Parser<'t> {
    bytes: &'t [u8],
    pos: usize,
    escapes: bool,
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
        let b = self.bytes;
        let start = self.pos;
        if b[start] == b'"' {
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
        } else {
            let mut p = start;
            while p < b.len() && !matches!(b[p], b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'{' | b'}') {
                p += 1;
            }
            self.pos = p;
            Ok(Token {
                start: start as u32,
                end: p as u32,
                flags: Token::PRESENT,
            })
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
    let bytes = text.as_bytes();
    let mut nodes: Vec<Node> = Vec::with_capacity(bytes.len() / 24 + 1);
    let mut root = Node::new_node(NodeKind::Root, NodeId::NONE);
    root.new = false;
    root.end = bytes.len() as u32;
    nodes.push(root);
    let mut stack: Vec<u32> = vec![0];
    let mut p = Parser {
        bytes,
        pos: 0,
        escapes: options.escapes || options.quote_escapes,
    };

    loop {
        p.skip_trivia();
        if p.pos >= bytes.len() {
            break;
        }
        let parent = *stack.last().unwrap_or(&0);
        match bytes[p.pos] {
            b'}' => {
                if stack.len() == 1 {
                    return Err(p.error(p.pos, "unbalanced braces: `}` with no open block"));
                }
                let n = &mut nodes[parent as usize];
                n.close = p.pos as u32;
                n.end = p.pos as u32 + 1;
                stack.pop();
                p.pos += 1;
                continue;
            }
            b'{' => return Err(p.error(p.pos, "`{` without a key before it")),
            b'[' => return Err(p.error(p.pos, "condition `[...]` without a key before it")),
            _ => {}
        }
        let key = p.token()?;
        let mut node = Node::new_node(NodeKind::Value, parent);
        node.new = false;
        node.key = key;
        node.start = key.start;
        p.skip_trivia();
        if p.pos < bytes.len() && bytes[p.pos] == b'[' {
            node.condition = p.condition()?;
            p.skip_trivia();
        }
        let key_text = || String::from_utf8_lossy(&bytes[key.start as usize..key.end as usize]).into_owned();
        if p.pos >= bytes.len() || bytes[p.pos] == b'}' {
            return Err(p.error(key.start as usize, format!("key {} has no value", key_text())));
        }
        let id = nodes.len() as u32;
        if bytes[p.pos] == b'{' {
            node.kind = NodeKind::Block;
            node.open = p.pos as u32;
            p.pos += 1;
            stack.push(id);
        } else {
            let value = p.token()?;
            node.value = value;
            node.end = value.end;
            // An optional condition after the value, on the same line.
            let save = p.pos;
            while p.pos < bytes.len() && matches!(bytes[p.pos], b' ' | b'\t') {
                p.pos += 1;
            }
            if p.pos < bytes.len() && bytes[p.pos] == b'[' && !node.condition.present() {
                node.condition = p.condition()?;
                node.end = node.condition.end;
            } else {
                p.pos = save;
            }
        }
        // Link into the parent's child list.
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

    if stack.len() > 1 {
        let open = &nodes[*stack.last().unwrap_or(&0) as usize];
        let key =
            String::from_utf8_lossy(&bytes[open.key.start as usize..open.key.end as usize]).into_owned();
        return Err(p.error(
            open.open as usize,
            format!("unbalanced braces: block {key} opened here is never closed"),
        ));
    }
    Ok(Document {
        text,
        nodes,
        owned: Vec::new(),
        options,
        edited: false,
        original_token_spans: Default::default(),
    })
}
