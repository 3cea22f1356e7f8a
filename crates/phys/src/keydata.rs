//! The key-data text after the solids (`solid { "index" "0" "surfaceprop" "metal" ... }`,
//! `fluid`, `materialtable`, `editparams`, ...): kept as its bytes, read into blocks.

use serde::Serialize;

use crate::error::{PhysError, Result};

/// One `name { "key" "value" ... }` block; blocks may nest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyBlock {
    pub name: String,
    pub pairs: Vec<(String, String)>,
    pub children: Vec<KeyBlock>,
}

impl KeyBlock {
    /// The first value of `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// The key data: its exact bytes and the blocks read from them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyData {
    #[serde(skip)]
    pub raw: Vec<u8>,
    pub blocks: Vec<KeyBlock>,
}

enum Token {
    Str(String),
    Open,
    Close,
}

/// Tokens with their offsets: quoted strings, bare words, braces. NULs count as space.
fn tokens(text: &[u8], base: u64) -> Result<Vec<(u64, Token)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let at = base + i as u64;
        match c {
            b'{' | b'}' => {
                out.push((at, if c == b'{' { Token::Open } else { Token::Close }));
                i += 1;
            }
            b'"' => {
                let len = quoted_len(&text[i + 1..])
                    .ok_or_else(|| PhysError::new(at, "key data", "unterminated quoted string"))?;
                out.push((at, Token::Str(latin1(&text[i + 1..i + 1 + len]))));
                i += len + 2;
            }
            c if c.is_ascii_whitespace() || c == 0 => i += 1,
            _ => {
                let len = bare_word_len(&text[i..]);
                out.push((at, Token::Str(latin1(&text[i..i + len]))));
                i += len;
            }
        }
    }
    Ok(out)
}

/// The length of the quoted string whose text `text` starts with (up to its closing quote).
fn quoted_len(text: &[u8]) -> Option<usize> {
    text.iter().position(|&b| b == b'"')
}

/// The length of the bare word `text` starts with: up to white space, a NUL, a brace or a quote.
fn bare_word_len(text: &[u8]) -> usize {
    text.iter()
        .position(|&b| b.is_ascii_whitespace() || b == 0 || b == b'{' || b == b'}' || b == b'"')
        .unwrap_or(text.len())
}

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

impl KeyData {
    /// Reads the text; `base` is the absolute offset of `raw[0]`.
    pub fn parse(raw: &[u8], base: u64) -> Result<KeyData> {
        let toks = tokens(raw, base)?;
        let mut it = toks.into_iter().peekable();
        let mut blocks = Vec::new();
        let end = base + raw.len() as u64;
        while let Some((at, tok)) = it.next() {
            let Token::Str(name) = tok else {
                return Err(PhysError::new(
                    at,
                    "key data",
                    "a brace where a block name was expected",
                ));
            };
            blocks.push(block(name, at, &mut it, end, 0, false)?);
        }
        Ok(KeyData {
            raw: raw.to_vec(),
            blocks,
        })
    }

    /// The exact bytes it was read from.
    pub fn to_bytes(&self) -> &[u8] {
        &self.raw
    }

    /// The `solid` blocks.
    pub fn solids(&self) -> impl Iterator<Item = &KeyBlock> + '_ {
        self.blocks
            .iter()
            .filter(|b| b.name.eq_ignore_ascii_case("solid"))
    }

    /// The `materialtable` entries (name, index), if any.
    pub fn material_table(&self) -> Vec<(&str, &str)> {
        self.blocks
            .iter()
            .filter(|b| b.name.eq_ignore_ascii_case("materialtable"))
            .flat_map(|b| b.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .collect()
    }
}

type Tokens = std::iter::Peekable<std::vec::IntoIter<(u64, Token)>>;

/// A block named `name` whose opening brace comes next (`opened`: was already read).
fn block(name: String, at: u64, it: &mut Tokens, end: u64, depth: usize, opened: bool) -> Result<KeyBlock> {
    if depth > 32 {
        return Err(PhysError::new(at, "key data", "blocks nested deeper than 32"));
    }
    if !opened {
        expect_open(&name, it, end)?;
    }
    let mut b = KeyBlock {
        name,
        pairs: Vec::new(),
        children: Vec::new(),
    };
    loop {
        match it.next() {
            Some((_, Token::Close)) => return Ok(b),
            Some((p, Token::Str(key))) => key_entry(&mut b, key, p, it, end, depth)?,
            Some((p, Token::Open)) => return Err(PhysError::new(p, "key data", "'{' without a block name")),
            None => {
                return Err(PhysError::new(
                    end,
                    "key data",
                    format!("block '{}' is not closed", b.name),
                ));
            }
        }
    }
}

/// The opening brace after block name `name`.
fn expect_open(name: &str, it: &mut Tokens, end: u64) -> Result<()> {
    match it.next() {
        Some((_, Token::Open)) => Ok(()),
        Some((p, _)) => Err(PhysError::new(
            p,
            "key data",
            format!("'{{' expected after block name '{name}'"),
        )),
        None => Err(PhysError::new(
            end,
            "key data",
            format!("block '{name}' has no body"),
        )),
    }
}

/// What follows `key` (read at `p`) in block `b`: its value, or a child block.
fn key_entry(b: &mut KeyBlock, key: String, p: u64, it: &mut Tokens, end: u64, depth: usize) -> Result<()> {
    match it.next() {
        Some((_, Token::Str(value))) => b.pairs.push((key, value)),
        Some((_, Token::Open)) => b.children.push(block(key, p, it, end, depth + 1, true)?),
        Some((q, Token::Close)) => {
            return Err(PhysError::new(q, "key data", format!("key '{key}' has no value")));
        }
        None => {
            return Err(PhysError::new(
                end,
                "key data",
                format!("key '{key}' has no value"),
            ));
        }
    }
    Ok(())
}
