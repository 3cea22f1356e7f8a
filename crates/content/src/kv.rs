//! A small KeyValues1 reader for materials and `gameinfo.txt`: quoted or bare tokens, `{ }`
//! blocks, `//` comments, `[$CONDITION]` suffixes (kept, not evaluated). Keys keep their case;
//! lookups are case-insensitive, as the engine's are.

use crate::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvValue {
    Text(String),
    Block(Vec<KvNode>),
}

/// One `key value` or `key { ... }` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvNode {
    pub key: String,
    pub value: KvValue,
    /// A `[$X360]`-style condition after the entry, if any.
    pub condition: Option<String>,
}

impl KvNode {
    pub fn text(&self) -> Option<&str> {
        match &self.value {
            KvValue::Text(t) => Some(t),
            KvValue::Block(_) => None,
        }
    }
    pub fn children(&self) -> &[KvNode] {
        match &self.value {
            KvValue::Block(b) => b,
            KvValue::Text(_) => &[],
        }
    }
    /// First child named `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&KvNode> {
        self.children().iter().find(|n| n.key.eq_ignore_ascii_case(key))
    }
    pub fn get_text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(KvNode::text)
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

#[derive(Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    Str(String),
    Cond(String),
}

impl Lexer<'_> {
    fn next(&mut self) -> Option<Tok> {
        loop {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                if self.s[self.i] == b'\n' {
                    self.line += 1;
                }
                self.i += 1;
            }
            if self.s[self.i..].starts_with(b"//") {
                while self.i < self.s.len() && self.s[self.i] != b'\n' {
                    self.i += 1;
                }
                continue;
            }
            break;
        }
        let c = *self.s.get(self.i)?;
        match c {
            b'{' => {
                self.i += 1;
                Some(Tok::Open)
            }
            b'}' => {
                self.i += 1;
                Some(Tok::Close)
            }
            b'"' => {
                let start = self.i + 1;
                let mut j = start;
                while j < self.s.len() && self.s[j] != b'"' {
                    if self.s[j] == b'\n' {
                        self.line += 1;
                    }
                    j += 1;
                }
                let t = String::from_utf8_lossy(&self.s[start..j.min(self.s.len())]).into_owned();
                self.i = (j + 1).min(self.s.len());
                Some(Tok::Str(t))
            }
            b'[' => {
                let start = self.i + 1;
                let j = self.s[start..]
                    .iter()
                    .position(|&b| b == b']' || b == b'\n')
                    .map_or(self.s.len(), |n| start + n);
                let t = String::from_utf8_lossy(&self.s[start..j]).into_owned();
                self.i = (j + 1).min(self.s.len());
                Some(Tok::Cond(t))
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len()
                    && !self.s[self.i].is_ascii_whitespace()
                    && !b"{}\"".contains(&self.s[self.i])
                {
                    self.i += 1;
                }
                Some(Tok::Str(
                    String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
                ))
            }
        }
    }
}

/// Parses a KeyValues document into its top-level entries. `path` names the file in errors.
pub fn parse(text: &[u8], path: &str) -> Result<Vec<KvNode>> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut lx = Lexer {
        s: text,
        i: 0,
        line: 1,
    };
    let mut stack: Vec<(String, Option<String>, Vec<KvNode>)> = Vec::new();
    let mut current: Vec<KvNode> = Vec::new();
    let mut pending: Option<String> = None;
    let err = |line: usize, message: &str| Error::Syntax {
        path: path.to_string(),
        line,
        message: message.to_string(),
    };
    while let Some(tok) = lx.next() {
        match tok {
            Tok::Str(s) => match pending.take() {
                None => pending = Some(s),
                Some(key) => current.push(KvNode {
                    key,
                    value: KvValue::Text(s),
                    condition: None,
                }),
            },
            Tok::Cond(c) => {
                if let Some(last) = current.last_mut() {
                    last.condition = Some(c);
                }
            }
            Tok::Open => {
                let key = pending.take().unwrap_or_default();
                stack.push((key, None, std::mem::take(&mut current)));
            }
            Tok::Close => {
                if pending.is_some() {
                    return Err(err(lx.line, "key without a value before '}'"));
                }
                let Some((key, cond, parent)) = stack.pop() else {
                    return Err(err(lx.line, "'}' without a matching '{'"));
                };
                let block = std::mem::replace(&mut current, parent);
                current.push(KvNode {
                    key,
                    value: KvValue::Block(block),
                    condition: cond,
                });
            }
        }
    }
    if !stack.is_empty() {
        return Err(err(lx.line, "file ends inside a block (missing '}')"));
    }
    if let Some(k) = pending {
        return Err(err(lx.line, &format!("key '{k}' has no value")));
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_blocks_comments_and_conditions() {
        let t = b"// c\n\"LightmappedGeneric\"\n{\n $basetexture \"a/b\" // x\n $alpha 0.5 [$X360]\n Proxies { Sine { resultVar $alpha } }\n}\n";
        let kv = super::parse(t, "t.vmt").unwrap();
        assert_eq!(kv.len(), 1);
        assert_eq!(kv[0].key, "LightmappedGeneric");
        assert_eq!(kv[0].get_text("$BASETEXTURE"), Some("a/b"));
        assert_eq!(kv[0].get("$alpha").unwrap().condition.as_deref(), Some("$X360"));
        assert!(kv[0].get("proxies").unwrap().get("sine").is_some());
        assert!(super::parse(b"a { b c", "x").is_err());
        assert!(super::parse(b"a } ", "x").is_err());
    }
}
