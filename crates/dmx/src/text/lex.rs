//! Lexing keyvalues2: tokens with their spans and leading trivia, and string escapes.

use std::borrow::Cow;

use super::{RawTok, TokKind};

pub(super) fn lex(src: &[u8], mut pos: usize) -> Result<(Vec<RawTok>, u32), (usize, String)> {
    let mut toks = Vec::with_capacity(src.len() / 8);
    loop {
        let trivia = pos;
        pos = skip_trivia(src, pos);
        if pos >= src.len() {
            return Ok((toks, trivia as u32));
        }
        let start = pos;
        let kind = match src[pos] {
            b'"' => {
                pos = string_end(src, start)?;
                TokKind::Str
            }
            b'{' | b'}' | b'[' | b']' | b',' => {
                pos += 1;
                punctuation(src[start])
            }
            _ => {
                pos = bare_end(src, pos);
                TokKind::Bare
            }
        };
        toks.push(raw_tok(kind, trivia, start, pos.min(src.len()))?);
    }
}

/// A token of `kind` whose trivia starts at `trivia` and which spans `start..end`.
fn raw_tok(kind: TokKind, trivia: usize, start: usize, end: usize) -> Result<RawTok, (usize, String)> {
    let pos32 = |p: usize| u32::try_from(p).map_err(|_| (p, "file larger than 4 GiB".to_string()));
    Ok(RawTok {
        kind,
        trivia: pos32(trivia)?,
        start: pos32(start)?,
        end: pos32(end)?,
    })
}

/// Past whitespace and `//` comments from `pos`.
fn skip_trivia(src: &[u8], mut pos: usize) -> usize {
    loop {
        while pos < src.len() && src[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if src[pos..].starts_with(b"//") {
            while pos < src.len() && src[pos] != b'\n' {
                pos += 1;
            }
        } else {
            return pos;
        }
    }
}

/// Past the quoted string starting at `start` (a backslash escapes the next byte).
fn string_end(src: &[u8], start: usize) -> Result<usize, (usize, String)> {
    let mut pos = start + 1;
    loop {
        match src.get(pos) {
            None => return Err((start, "unterminated string".into())),
            Some(b'\\') => pos += 2,
            Some(b'"') => return Ok(pos + 1),
            Some(_) => pos += 1,
        }
    }
}

/// Past the bare word at `pos`: up to whitespace, punctuation or a quote.
fn bare_end(src: &[u8], mut pos: usize) -> usize {
    while pos < src.len() && !src[pos].is_ascii_whitespace() && !b"{}[],\"".contains(&src[pos]) {
        pos += 1;
    }
    pos
}

fn punctuation(b: u8) -> TokKind {
    match b {
        b'{' => TokKind::LBrace,
        b'}' => TokKind::RBrace,
        b'[' => TokKind::LBracket,
        b']' => TokKind::RBracket,
        _ => TokKind::Comma,
    }
}

fn bytes_to_string(b: &[u8]) -> Cow<'_, str> {
    crate::strings::decode(b)
}

/// The text of a string token with Valve's `utlbuffer` escapes resolved.
pub(super) fn decode<'s>(src: &'s [u8], t: &RawTok) -> Cow<'s, str> {
    let raw = &src[t.start as usize..t.end as usize];
    if t.kind != TokKind::Str {
        return bytes_to_string(raw);
    }
    let inner = &raw[1..raw.len().saturating_sub(1).max(1)];
    if !inner.contains(&b'\\') {
        return bytes_to_string(inner);
    }
    Cow::Owned(bytes_to_string(&unescape(inner)).into_owned())
}

/// `inner` with its escapes resolved; an unknown escape is kept as written.
fn unescape(inner: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        if inner[i] == b'\\' && i + 1 < inner.len() {
            match escaped(inner[i + 1]) {
                Some(m) => out.push(m),
                None => out.extend_from_slice(&inner[i..i + 2]),
            }
            i += 2;
        } else {
            out.push(inner[i]);
            i += 1;
        }
    }
    out
}

/// The byte an escape `\c` stands for.
fn escaped(c: u8) -> Option<u8> {
    match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0B),
        b'b' => Some(0x08),
        b'r' => Some(b'\r'),
        b'f' => Some(0x0C),
        b'a' => Some(0x07),
        b'\\' | b'?' | b'\'' | b'"' => Some(c),
        _ => None,
    }
}

pub(super) fn escape(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\x0B' => out.extend_from_slice(b"\\v"),
            '\x08' => out.extend_from_slice(b"\\b"),
            '\x0C' => out.extend_from_slice(b"\\f"),
            '\x07' => out.extend_from_slice(b"\\a"),
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(&crate::strings::encode(c.encode_utf8(&mut buf)));
            }
        }
    }
    out.push(b'"');
}
