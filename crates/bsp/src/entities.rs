//! The entity lump (0): `{ "key" "value" ... }` text, owned ([`Entity`]) and borrowed
//! ([`Entities`]), and Valve's way of writing it back.

use std::borrow::Cow;

use crate::error::{BspError, Result};

/// One entity of the entity lump: its key/value pairs in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entity {
    pub pairs: Vec<(String, String)>,
}

impl Entity {
    /// An entity of `pairs`, in order (maps built in code and tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Entity {
        Entity {
            pairs: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    /// The brush model this entity uses: `model` of the form `*N`.
    pub fn brush_model(&self) -> Option<usize> {
        self.get("model")?.strip_prefix('*')?.parse().ok()
    }
    pub fn classname(&self) -> Option<&str> {
        self.get("classname")
    }
    /// Sets `key` (replacing its first occurrence, or appending).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        match self.pairs.iter_mut().find(|(k, _)| k == key) {
            Some(pair) => pair.1 = value.into(),
            None => self.pairs.push((key.to_string(), value.into())),
        }
    }
}

/// Whether entity text must be read as Latin-1 (it is not valid UTF-8: old maps carry
/// Windows-1252 bytes in names and messages).
pub fn entities_are_latin1(data: &[u8]) -> bool {
    std::str::from_utf8(data).is_err()
}

/// Parses the entity lump text (`{ "key" "value" ... }` blocks, NUL-terminated).
/// `base` is the lump's file offset, for errors. Text that is not UTF-8 is read as Latin-1, so
/// [`write_entities`] with `latin1` gives the bytes back.
pub fn parse_entities(data: &[u8], lump: usize, base: u64) -> Result<Vec<Entity>> {
    parse_entities_latin1(data, lump, base).0
}

/// The index of the first `needle` in `hay`, eight bytes at a time.
#[inline]
pub(crate) fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pattern = LO * needle as u64;
    let (chunks, rest) = hay.as_chunks::<8>();
    for (k, c) in chunks.iter().enumerate() {
        let x = u64::from_le_bytes(*c) ^ pattern;
        // The lowest flagged byte is exactly the first zero byte of `x`.
        let zero = x.wrapping_sub(LO) & !x & HI;
        if zero != 0 {
            return Some(k * 8 + (zero.trailing_zeros() / 8) as usize);
        }
    }
    rest.iter()
        .position(|&b| b == needle)
        .map(|p| chunks.len() * 8 + p)
}

/// [`parse_entities`], and whether the text is Latin-1 ([`entities_are_latin1`]), validating
/// the text only once.
pub(crate) fn parse_entities_latin1(data: &[u8], lump: usize, base: u64) -> (Result<Vec<Entity>>, bool) {
    match Entities::parse(Cow::Borrowed(data), lump, base) {
        Ok(e) => (Ok(e.to_vec()), e.latin1()),
        Err(e) => (Err(e), entities_are_latin1(data)),
    }
}

/// The entity lump as borrowed key/value text: every `{ "key" "value" ... }` block tokenised
/// once, each key and value a slice of the lump (no per-key allocation). Text that is not
/// UTF-8 is converted once from Latin-1 (see [`parse_entities`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entities<'a> {
    text: Cow<'a, str>,
    /// Per pair: key start, key end, value start, value end (byte offsets into `text`).
    pairs: Vec<[u32; 4]>,
    /// Per entity: the end of its pairs in `pairs`.
    ends: Vec<u32>,
    latin1: bool,
}

/// One entity of [`Entities`]: its key/value pairs in file order, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct EntityRef<'e> {
    text: &'e str,
    pairs: &'e [[u32; 4]],
}

impl<'e> EntityRef<'e> {
    /// The key/value pairs in file order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (&'e str, &'e str)> + 'e {
        let text = self.text;
        self.pairs
            .iter()
            .map(move |&[a, b, c, d]| (&text[a as usize..b as usize], &text[c as usize..d as usize]))
    }
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&'e str> {
        self.pairs().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    pub fn classname(&self) -> Option<&'e str> {
        self.get("classname")
    }
    /// An owned copy.
    pub fn to_entity(&self) -> Entity {
        Entity {
            pairs: self.pairs().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
        }
    }
}

/// The text before the NUL at `end`, when it is UTF-8 (borrowed when `data` is), and whether
/// the lump is to be written back as Latin-1. Validated once; tokens are then cut at ASCII
/// delimiters, always on char boundaries. The NUL is a character boundary, so the whole lump is
/// UTF-8 iff both sides of it are.
fn utf8_text<'a>(data: &Cow<'a, [u8]>, end: usize) -> (Option<Cow<'a, str>>, bool) {
    match data {
        Cow::Borrowed(b) => {
            let b: &'a [u8] = b;
            let t = std::str::from_utf8(&b[..end]).ok();
            let latin1 = t.is_none() || std::str::from_utf8(&b[end..]).is_err();
            (t.map(Cow::Borrowed), latin1)
        }
        Cow::Owned(v) => {
            let t = std::str::from_utf8(&v[..end])
                .ok()
                .map(|s| Cow::Owned(s.to_owned()));
            let latin1 = t.is_none() || std::str::from_utf8(&v[end..]).is_err();
            (t, latin1)
        }
    }
}

impl<'a> Entities<'a> {
    /// Tokenises the entity lump (NUL-terminated text). `base` is the lump's file offset, for
    /// errors. Borrows the text when `data` is borrowed and UTF-8.
    pub fn parse(data: Cow<'a, [u8]>, lump: usize, base: u64) -> Result<Entities<'a>> {
        let end = memchr::memchr(0, &data).unwrap_or(data.len());
        let (utf8, latin1) = utf8_text(&data, end);
        let bytes = &data[..end];
        let (mut pairs, mut ends) = tokenize_entities(bytes, lump, base)?;
        let text = match utf8 {
            Some(t) => t,
            None => {
                // Each byte one char: offsets move, so cut the converted text again (the same
                // tokens: every delimiter is ASCII).
                let s: String = bytes.iter().map(|&c| c as char).collect();
                (pairs, ends) = tokenize_entities(s.as_bytes(), lump, base)?;
                Cow::Owned(s)
            }
        };
        Ok(Entities {
            text,
            pairs,
            ends,
            latin1,
        })
    }
    /// The text was not UTF-8 (or had non-UTF-8 bytes after its NUL): written back as Latin-1.
    pub fn latin1(&self) -> bool {
        self.latin1
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// Entity `i`.
    pub fn get(&self, i: usize) -> Option<EntityRef<'_>> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(EntityRef {
            text: &self.text,
            pairs: &self.pairs[start..end],
        })
    }
    /// The entities in file order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntityRef<'_>> + '_ {
        let text: &str = &self.text;
        let pairs = &self.pairs[..];
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
            EntityRef {
                text,
                pairs: &pairs[start..end as usize],
            }
        })
    }
    /// Owned copies of every entity.
    pub fn to_vec(&self) -> Vec<Entity> {
        self.iter().map(|e| e.to_entity()).collect()
    }
}

/// Whether `b` is whitespace to the entity tokenizer (`u8::is_ascii_whitespace`).
#[inline(always)]
fn entity_space(b: u8) -> bool {
    b <= b' ' && matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The next token at `*i` (not whitespace): a quoted string (without its quotes) or a bare word
/// (up to whitespace, a brace or a quote; empty when `*i` is a brace). Moves `*i` past it.
#[inline(always)]
fn entity_token(bytes: &[u8], i: &mut usize, lump: usize, base: u64) -> Result<(u32, u32)> {
    let start = *i;
    if bytes[start] == b'"' {
        match find_byte(&bytes[start + 1..], b'"') {
            Some(len) => {
                *i = start + len + 2;
                Ok(((start + 1) as u32, (start + 1 + len) as u32))
            }
            None => Err(BspError::lump(
                lump,
                base + start as u64,
                "unterminated quoted string",
            )),
        }
    } else {
        let len = bytes[start..]
            .iter()
            .position(|&b| entity_space(b) || matches!(b, b'{' | b'}' | b'"'))
            .unwrap_or(bytes.len() - start);
        *i = start + len;
        Ok((start as u32, (start + len) as u32))
    }
}

/// Cuts entity text into key/value ranges: `(pairs, ends)` as in [`Entities`]. Inside an
/// entity a key may be any token but a brace; a value may be any token (a brace there is an
/// empty bare value, and the brace is read next).
#[allow(clippy::type_complexity)]
fn tokenize_entities(bytes: &[u8], lump: usize, base: u64) -> Result<(Vec<[u32; 4]>, Vec<u32>)> {
    // A pair takes at least 6 bytes (`"k" "v"`), typically 25-40; an entity 100 or more.
    let mut pairs: Vec<[u32; 4]> = Vec::with_capacity(bytes.len() / 24 + 4);
    let mut ends: Vec<u32> = Vec::with_capacity(bytes.len() / 128 + 1);
    let n = bytes.len();
    let text = EntityText { bytes, lump, base };
    let mut i = text.skip(0);
    while i < n {
        match bytes[i] {
            b'{' => i += 1,
            b'}' => return Err(BspError::lump(lump, base + i as u64, "'}' outside an entity")),
            _ => {
                // A token out of place (an unterminated quote is reported as such first).
                entity_token(bytes, &mut i.clone(), lump, base)?;
                return Err(BspError::lump(
                    lump,
                    base + i as u64,
                    "key/value outside an entity",
                ));
            }
        }
        i = text.entity_pairs(i, &mut pairs)?;
        ends.push(pairs.len() as u32);
        i = text.skip(i);
    }
    Ok((pairs, ends))
}

/// The entity text being cut, with the lump and its file offset for errors.
struct EntityText<'b> {
    bytes: &'b [u8],
    lump: usize,
    base: u64,
}

impl EntityText<'_> {
    /// The first byte from `i` that is not white space.
    #[inline]
    fn skip(&self, mut i: usize) -> usize {
        while i < self.bytes.len() && entity_space(self.bytes[i]) {
            i += 1;
        }
        i
    }

    fn unterminated(&self) -> BspError {
        BspError::lump(
            self.lump,
            self.base + self.bytes.len() as u64,
            "entity lump ends inside an entity",
        )
    }

    /// Pushes the key/value pairs of the entity whose body starts at `i` (after its `{`);
    /// returns the position after its closing brace.
    #[inline]
    fn entity_pairs(&self, mut i: usize, pairs: &mut Vec<[u32; 4]>) -> Result<usize> {
        let (bytes, lump, base) = (self.bytes, self.lump, self.base);
        loop {
            i = self.skip(i);
            if i >= bytes.len() {
                return Err(self.unterminated());
            }
            match bytes[i] {
                b'}' => return Ok(i + 1),
                b'{' => return Err(BspError::lump(lump, base + i as u64, "'{' inside an entity")),
                _ => {}
            }
            let (ka, kb) = entity_token(bytes, &mut i, lump, base)?;
            i = self.skip(i);
            if i >= bytes.len() {
                return Err(self.unterminated());
            }
            let (va, vb) = entity_token(bytes, &mut i, lump, base)?;
            pairs.push([ka, kb, va, vb]);
        }
    }
}

/// Writes entities as Valve's vbsp does: `{\n"key" "value"\n}\n` per entity, then a NUL.
/// With `latin1`, characters are written as single bytes (see [`parse_entities`]).
pub fn write_entities(entities: &[Entity], latin1: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, s: &str| {
        if latin1 {
            out.extend(s.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }));
        } else {
            out.extend_from_slice(s.as_bytes());
        }
    };
    for e in entities {
        out.extend_from_slice(b"{\n");
        for (k, v) in &e.pairs {
            out.push(b'"');
            put(&mut out, k);
            out.extend_from_slice(b"\" \"");
            put(&mut out, v);
            out.extend_from_slice(b"\"\n");
        }
        out.extend_from_slice(b"}\n");
    }
    out.push(0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_text_errors() {
        let cases: [(&[u8], &str, u64); 6] = [
            (b"{ \"a\" \"b\" } \"c", "unterminated quoted string", 12),
            (b"{ \"a\" \"b\" } c", "key/value outside an entity", 12),
            (b"}", "'}' outside an entity", 0),
            (b"{ \"a\" { }", "'{' inside an entity", 6),
            (b"{ \"a\" \"b\"", "entity lump ends inside an entity", 9),
            (b"{ \"a", "unterminated quoted string", 2),
        ];
        for (text, message, offset) in cases {
            let err = Entities::parse(Cow::Borrowed(text), 0, 100).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(message), "{shown}");
            assert_eq!(err.offset(), Some(100 + offset), "{shown}");
        }
        // Braces as values are empty bare values.
        let e = Entities::parse(Cow::Borrowed(b"{ \"a\" }"), 0, 0).unwrap();
        assert_eq!(e.get(0).unwrap().pairs().collect::<Vec<_>>(), [("a", "")]);
    }

    #[test]
    fn tokens_of_every_length() {
        for len in 0..40 {
            let value = "x".repeat(len);
            let text = format!("{{\n\"k\" \"{value}\"\n\"{value}\" \"v\"\n}}\n");
            let e = Entities::parse(Cow::Borrowed(text.as_bytes()), 0, 0).unwrap();
            let pairs: Vec<_> = e.get(0).unwrap().pairs().collect();
            assert_eq!(pairs, [("k", value.as_str()), (value.as_str(), "v")]);
        }
    }
}
