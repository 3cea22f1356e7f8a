//! keyvalues2 text encoding (dmx.md §5), versions 1–4, with or without ids.
//!
//! Lossless rewriting works on tokens: the reader keeps every token's span and the whitespace
//! and comments before it ([`TextLayout`]). The writer generates the canonical token sequence
//! for the model and, position by position, reuses the original token (and its leading trivia)
//! whenever it means the same thing: same punctuation, same decoded string, same type, or a
//! value that parses to the same bits. An unmodified document therefore comes back byte for
//! byte, including odd number spellings (`45.0`, `1e-05`), alignment spaces and blank lines.

use std::borrow::Cow;
use std::collections::HashMap;

use srcmap_bytes::LineIndex;

use crate::value::{Kind, Type, Value, format_scalar, parse_scalar};
use crate::{Attribute, Dmx, DmxError, ElemRef, Element, Guid, Header, PrefixElement};

const PREFIX_CLASS: &str = "$prefix_element$";

/// Deepest in-line element nesting read or written. Real files nest a few dozen levels; the
/// limit keeps hostile input from exhausting the stack (the writer defers deeper elements to
/// top level instead).
const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokKind {
    Str,
    Bare,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
}

/// One token: its kind, where its leading whitespace/comments start, and its own span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RawTok {
    kind: TokKind,
    trivia: u32,
    start: u32,
    end: u32,
}

/// Where an element was written in the source, and where its `id`/`name` pseudo-attributes sat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct ElemText {
    top_level: bool,
    /// How many references to this element came before its in-line definition.
    inline_site: u32,
    id_pos: Option<u32>,
    name_pos: Option<u32>,
    /// Token index of the class name, and the range in `entry_toks` holding the token index of
    /// each entry's name: the writer resynchronises on them after an edit.
    class_tok: u32,
    entries_start: u32,
    entries_len: u32,
}

/// What an element body holds.
struct Body {
    attrs: Vec<Attribute>,
    id: Option<Guid>,
    id_pos: Option<u32>,
    name: Option<String>,
    name_pos: Option<u32>,
    entries_start: u32,
    entries_len: u32,
}

/// The source tokens and placement of a keyvalues2 document (see the module docs).
#[derive(Clone, PartialEq)]
pub struct TextLayout {
    src: Vec<u8>,
    tokens: Vec<RawTok>,
    tail: u32,
    elements: Vec<ElemText>,
    prefix: Vec<ElemText>,
    top_order: Vec<u32>,
    entry_toks: Vec<u32>,
}

impl std::fmt::Debug for TextLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TextLayout({} bytes, {} tokens)",
            self.src.len(),
            self.tokens.len()
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Lexing

fn lex(src: &[u8], mut pos: usize) -> Result<(Vec<RawTok>, u32), (usize, String)> {
    let mut toks = Vec::with_capacity(src.len() / 8);
    loop {
        let trivia = pos;
        loop {
            while pos < src.len() && src[pos].is_ascii_whitespace() {
                pos += 1;
            }
            if src[pos..].starts_with(b"//") {
                while pos < src.len() && src[pos] != b'\n' {
                    pos += 1;
                }
            } else {
                break;
            }
        }
        if pos >= src.len() {
            return Ok((toks, trivia as u32));
        }
        let start = pos;
        let kind = match src[pos] {
            b'"' => {
                pos += 1;
                loop {
                    match src.get(pos) {
                        None => return Err((start, "unterminated string".into())),
                        Some(b'\\') => pos += 2,
                        Some(b'"') => {
                            pos += 1;
                            break;
                        }
                        Some(_) => pos += 1,
                    }
                }
                TokKind::Str
            }
            b'{' | b'}' | b'[' | b']' | b',' => {
                pos += 1;
                match src[start] {
                    b'{' => TokKind::LBrace,
                    b'}' => TokKind::RBrace,
                    b'[' => TokKind::LBracket,
                    b']' => TokKind::RBracket,
                    _ => TokKind::Comma,
                }
            }
            _ => {
                while pos < src.len() && !src[pos].is_ascii_whitespace() && !b"{}[],\"".contains(&src[pos]) {
                    pos += 1;
                }
                TokKind::Bare
            }
        };
        let pos32 = |p: usize| u32::try_from(p).map_err(|_| (p, "file larger than 4 GiB".to_string()));
        toks.push(RawTok {
            kind,
            trivia: pos32(trivia)?,
            start: pos32(start)?,
            end: pos32(pos.min(src.len()))?,
        });
    }
}

fn bytes_to_string(b: &[u8]) -> Cow<'_, str> {
    crate::strings::decode(b)
}

/// The text of a string token with Valve's `utlbuffer` escapes resolved.
fn decode<'s>(src: &'s [u8], t: &RawTok) -> Cow<'s, str> {
    let raw = &src[t.start as usize..t.end as usize];
    if t.kind != TokKind::Str {
        return bytes_to_string(raw);
    }
    let inner = &raw[1..raw.len().saturating_sub(1).max(1)];
    if !inner.contains(&b'\\') {
        return bytes_to_string(inner);
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        if inner[i] == b'\\' && i + 1 < inner.len() {
            let c = inner[i + 1];
            let mapped = match c {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'v' => Some(0x0B),
                b'b' => Some(0x08),
                b'r' => Some(b'\r'),
                b'f' => Some(0x0C),
                b'a' => Some(0x07),
                b'\\' | b'?' | b'\'' | b'"' => Some(c),
                _ => None,
            };
            match mapped {
                Some(m) => out.push(m),
                None => out.extend_from_slice(&inner[i..i + 2]),
            }
            i += 2;
        } else {
            out.push(inner[i]);
            i += 1;
        }
    }
    Cow::Owned(bytes_to_string(&out).into_owned())
}

fn escape(s: &str, out: &mut Vec<u8>) {
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

// ---------------------------------------------------------------------------------------------
// Parsing

enum Event {
    Ref(Guid),
    InlineDef(u32),
}

/// A GUID reference to resolve once every element is known: element, attribute, array item.
struct Pending {
    elem: u32,
    attr: u32,
    item: Option<u32>,
    guid: Guid,
}

struct Parser<'a> {
    src: &'a [u8],
    toks: &'a [RawTok],
    i: usize,
    elements: Vec<Element>,
    texts: Vec<ElemText>,
    events: Vec<Event>,
    pending: Vec<Pending>,
    lines: Option<LineIndex>,
    depth: usize,
    /// Token index of each element's class, for error positions.
    class_toks: Vec<u32>,
    entry_toks: Vec<u32>,
}

impl<'a> Parser<'a> {
    fn err_at(&mut self, offset: usize, message: impl Into<String>) -> DmxError {
        let idx = self.lines.get_or_insert_with(|| LineIndex::new(self.src));
        let (line, column) = idx.line_col(self.src, offset);
        DmxError::Text {
            line,
            column,
            message: message.into(),
        }
    }

    fn err_here(&mut self, message: impl Into<String>) -> DmxError {
        let off = self.toks.get(self.i).map_or(self.src.len(), |t| t.start as usize);
        self.err_at(off, message)
    }

    fn peek(&self) -> Option<TokKind> {
        self.toks.get(self.i).map(|t| t.kind)
    }

    fn expect(&mut self, kind: TokKind, what: &str) -> Result<RawTok, DmxError> {
        match self.toks.get(self.i) {
            Some(t) if t.kind == kind => {
                self.i += 1;
                Ok(*t)
            }
            Some(_) => Err(self.err_here(format!("expected {what}"))),
            None => Err(self.err_here(format!("expected {what}, found the end of the file"))),
        }
    }

    /// A string token, quoted or bare.
    fn string(&mut self, what: &str) -> Result<(Cow<'a, str>, usize), DmxError> {
        match self.toks.get(self.i) {
            Some(t) if matches!(t.kind, TokKind::Str | TokKind::Bare) => {
                self.i += 1;
                Ok((decode(self.src, t), t.start as usize))
            }
            Some(_) => Err(self.err_here(format!("expected {what} (a quoted string)"))),
            None => Err(self.err_here(format!("expected {what}, found the end of the file"))),
        }
    }

    fn guid_ref(&mut self, at: usize, text: &str) -> Result<Option<Guid>, DmxError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        match Guid::parse(text) {
            Some(g) => {
                self.events.push(Event::Ref(g));
                Ok(Some(g))
            }
            None => Err(self.err_at(at, format!("`{text}` is not an element id"))),
        }
    }

    /// Parses `{ attr* }` for an element of `class` whose class token was token `class_tok`.
    fn element(&mut self, class: String, class_tok: usize, inline: bool) -> Result<u32, DmxError> {
        let idx = self.elements.len() as u32;
        if inline {
            // Recorded before the body: references inside it come after the definition site.
            self.events.push(Event::InlineDef(idx));
        }
        let seed = ((self.src.len() as u64) << 32) ^ class_tok as u64;
        self.class_toks.push(class_tok as u32);
        self.elements.push(Element {
            class,
            name: String::new(),
            id: Guid::from_seed(seed),
            attrs: Vec::new(),
        });
        self.texts.push(ElemText::default());
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_here(format!("elements nested more than {MAX_DEPTH} deep")));
        }
        let body = self.body(idx, false)?;
        self.depth -= 1;
        let e = &mut self.elements[idx as usize];
        e.attrs = body.attrs;
        if let Some(id) = body.id {
            e.id = id;
        }
        e.name = body.name.unwrap_or_default();
        let t = &mut self.texts[idx as usize];
        t.id_pos = body.id_pos;
        t.name_pos = body.name_pos;
        t.class_tok = class_tok as u32;
        t.entries_start = body.entries_start;
        t.entries_len = body.entries_len;
        Ok(idx)
    }

    fn body(&mut self, owner: u32, prefix: bool) -> Result<Body, DmxError> {
        self.expect(TokKind::LBrace, "`{`")?;
        let mut attrs = Vec::new();
        let (mut id, mut id_pos, mut name, mut name_pos) = (None, None, None, None);
        let mut pos = 0u32;
        let mut entry_toks = Vec::new();
        while self.peek() != Some(TokKind::RBrace) {
            entry_toks.push(self.i as u32);
            let (attr_name, _) = self.string("an attribute name")?;
            let (ty_name, ty_at) = self.string("an attribute type")?;
            if attr_name == "id" && ty_name == "elementid" && id_pos.is_none() {
                let (v, at) = self.string("an element id")?;
                id = Some(
                    Guid::parse(&v).ok_or_else(|| self.err_at(at, format!("`{v}` is not an element id")))?,
                );
                id_pos = Some(pos);
            } else if !prefix && attr_name == "name" && ty_name == "string" && name_pos.is_none() {
                name = Some(self.string("a name")?.0.into_owned());
                name_pos = Some(pos);
            } else {
                let attr_index = attrs.len() as u32;
                let is_element = Type::from_name(&ty_name).is_none_or(|t| t.kind == Kind::Element);
                if prefix && is_element {
                    return Err(self.err_at(ty_at, "the prefix element holds plain values, not elements"));
                }
                let value = match Type::from_name(&ty_name) {
                    Some(Type {
                        kind: Kind::Element,
                        array: false,
                    }) => {
                        let (v, at) = self.string("an element id")?;
                        match self.guid_ref(at, &v)? {
                            None => Value::Element(ElemRef::Null),
                            Some(guid) => {
                                self.pending.push(Pending {
                                    elem: owner,
                                    attr: attr_index,
                                    item: None,
                                    guid,
                                });
                                Value::Element(ElemRef::Null)
                            }
                        }
                    }
                    Some(ty) if !ty.array => {
                        let (v, at) = self.string("a value")?;
                        parse_scalar(ty.kind, &v).ok_or_else(|| {
                            self.err_at(at, format!("cannot read `{v}` as {}", ty.kind.name()))
                        })?
                    }
                    Some(ty) => self.array(ty.kind, owner, attr_index)?,
                    None => {
                        // Any other type name followed by `{` is an in-line element of that class.
                        if self.peek() != Some(TokKind::LBrace) {
                            return Err(self.err_at(ty_at, format!("unknown attribute type `{ty_name}`")));
                        }
                        let child = self.element(ty_name.into_owned(), self.i - 1, true)?;
                        Value::Element(ElemRef::Local(child))
                    }
                };
                attrs.push(Attribute {
                    name: attr_name.into_owned(),
                    value,
                });
            }
            pos += 1;
        }
        self.expect(TokKind::RBrace, "`}`")?;
        let entries_start = self.entry_toks.len() as u32;
        let entries_len = entry_toks.len() as u32;
        self.entry_toks.extend(entry_toks);
        Ok(Body {
            attrs,
            id,
            id_pos,
            name,
            name_pos,
            entries_start,
            entries_len,
        })
    }

    fn array(&mut self, kind: Kind, owner: u32, attr: u32) -> Result<Value, DmxError> {
        self.expect(TokKind::LBracket, "`[`")?;
        let mut out = Value::empty_array(kind);
        let mut item = 0u32;
        while self.peek() != Some(TokKind::RBracket) {
            let (v, at) = self.string("an array item")?;
            if kind == Kind::Element {
                let r = if self.peek() == Some(TokKind::LBrace) {
                    let child = self.element(v.into_owned(), self.i - 1, true)?;
                    ElemRef::Local(child)
                } else if v == "element" {
                    let (g, at) = self.string("an element id")?;
                    if let Some(guid) = self.guid_ref(at, &g)? {
                        self.pending.push(Pending {
                            elem: owner,
                            attr,
                            item: Some(item),
                            guid,
                        });
                    }
                    ElemRef::Null
                } else {
                    return Err(self.err_at(at, "expected `\"element\" \"<id>\"` or an in-line element"));
                };
                out.push_item(Value::Element(r));
            } else {
                let parsed = parse_scalar(kind, &v)
                    .ok_or_else(|| self.err_at(at, format!("cannot read `{v}` as {}", kind.name())))?;
                out.push_item(parsed);
            }
            item += 1;
            if self.peek() == Some(TokKind::Comma) {
                self.i += 1;
            } else if self.peek() != Some(TokKind::RBracket) {
                return Err(self.err_here("expected `,` or `]`"));
            }
        }
        self.i += 1;
        Ok(out)
    }
}

pub(crate) fn read(data: &[u8], header: Header, body: usize) -> Result<Dmx, DmxError> {
    let (tokens, tail) = lex(data, body).map_err(|(off, msg)| {
        let (line, column) = srcmap_bytes::line_col(data, off);
        DmxError::Text {
            line,
            column,
            message: msg,
        }
    })?;
    let mut p = Parser {
        src: data,
        toks: &tokens,
        i: 0,
        elements: Vec::new(),
        texts: Vec::new(),
        events: Vec::new(),
        pending: Vec::new(),
        lines: None,
        depth: 0,
        class_toks: Vec::new(),
        entry_toks: Vec::new(),
    };
    let mut prefix = Vec::new();
    let mut prefix_text = Vec::new();
    let mut top_order = Vec::new();
    while p.i < tokens.len() {
        let class_tok = p.i;
        let (class, _) = p.string("an element class")?;
        if class == PREFIX_CLASS && p.elements.is_empty() {
            let body = p.body(u32::MAX, true)?;
            prefix.push(PrefixElement {
                id: body.id,
                attrs: body.attrs,
            });
            prefix_text.push(ElemText {
                top_level: true,
                id_pos: body.id_pos,
                class_tok: class_tok as u32,
                entries_start: body.entries_start,
                entries_len: body.entries_len,
                ..Default::default()
            });
            continue;
        }
        let idx = p.element(class.into_owned(), class_tok, false)?;
        p.texts[idx as usize].top_level = true;
        top_order.push(idx);
    }
    if p.elements.is_empty() {
        return Err(p.err_here("the file has no elements"));
    }
    // Resolve GUID references.
    let mut by_id: HashMap<Guid, u32> = HashMap::with_capacity(p.elements.len());
    for i in 0..p.elements.len() {
        let id = p.elements[i].id;
        if by_id.insert(id, i as u32).is_some() {
            let at = p.toks[p.class_toks[i] as usize].start as usize;
            return Err(p.err_at(at, format!("element id {id} is used by an earlier element too")));
        }
    }
    for pend in std::mem::take(&mut p.pending) {
        let r = by_id
            .get(&pend.guid)
            .map_or(ElemRef::External(pend.guid), |&i| ElemRef::Local(i));
        if pend.elem == u32::MAX {
            return Err(DmxError::Text {
                line: 0,
                column: 0,
                message: "element references are not allowed in the prefix".into(),
            });
        }
        let a = &mut p.elements[pend.elem as usize].attrs[pend.attr as usize];
        match (&mut a.value, pend.item) {
            (Value::Element(slot), None) => *slot = r,
            (Value::ElementArray(v), Some(k)) => v[k as usize] = r,
            _ => {}
        }
    }
    // Number the in-line definition sites.
    let mut seen: HashMap<Guid, u32> = HashMap::new();
    for ev in &p.events {
        match ev {
            Event::Ref(g) => *seen.entry(*g).or_default() += 1,
            Event::InlineDef(e) => {
                let g = p.elements[*e as usize].id;
                let n = seen.entry(g).or_default();
                p.texts[*e as usize].inline_site = *n;
                *n += 1;
            }
        }
    }
    let (elements, texts, entry_toks) = (p.elements, p.texts, p.entry_toks);
    let layout = TextLayout {
        src: data.to_vec(),
        tokens,
        tail,
        elements: texts,
        prefix: prefix_text,
        top_order,
        entry_toks,
    };
    Ok(Dmx {
        header,
        elements,
        prefix,
        binary_layout: None,
        text_layout: Some(Box::new(layout)),
    })
}

// ---------------------------------------------------------------------------------------------
// Writing

#[derive(Clone, Copy)]
enum Trivia {
    None,
    Space,
    Line(usize),
    BlankLine,
}

enum Tok<'b> {
    Punct(TokKind),
    Str(&'b str),
    Type(Type),
    Value(&'b Value),
}

struct Emitter<'a> {
    out: Vec<u8>,
    orig: Option<&'a TextLayout>,
    j: usize,
    crlf: bool,
    scratch: String,
}

impl Emitter<'_> {
    fn newline(&mut self) {
        if self.crlf {
            self.out.extend_from_slice(b"\r\n");
        } else {
            self.out.push(b'\n');
        }
    }

    fn emit(&mut self, trivia: Trivia, tok: Tok<'_>) {
        self.scratch.clear();
        if let Tok::Value(v) = &tok {
            format_scalar(v, &mut self.scratch);
        }
        if let Some(l) = self.orig
            && let Some(t) = l.tokens.get(self.j)
        {
            self.j += 1;
            if self.same(l, t, &tok) {
                self.out
                    .extend_from_slice(&l.src[t.trivia as usize..t.end as usize]);
                return;
            }
        }
        match trivia {
            Trivia::None => {}
            Trivia::Space => self.out.push(b' '),
            Trivia::Line(depth) => {
                self.newline();
                self.out.extend(std::iter::repeat_n(b'\t', depth));
            }
            Trivia::BlankLine => {
                self.newline();
                self.newline();
            }
        }
        match tok {
            Tok::Punct(k) => self.out.push(match k {
                TokKind::LBrace => b'{',
                TokKind::RBrace => b'}',
                TokKind::LBracket => b'[',
                TokKind::RBracket => b']',
                _ => b',',
            }),
            Tok::Str(s) => escape(s, &mut self.out),
            Tok::Type(t) => escape(&t.name(), &mut self.out),
            Tok::Value(_) => {
                let s = std::mem::take(&mut self.scratch);
                escape(&s, &mut self.out);
                self.scratch = s;
            }
        }
    }

    /// Moves the cursor in the source tokens to `j` (an element's class token), so formatting
    /// is reused again after an edit shifted the token sequence.
    fn resync(&mut self, j: u32) {
        if self.orig.is_some() {
            self.j = j as usize;
        }
    }

    /// Before an entry called `name`: if the source token here is not that name, moves to the
    /// element's entry of that name (after an attribute was added, removed or reordered).
    fn resync_entry(&mut self, name: &str, start: u32, len: u32) {
        let Some(l) = self.orig else { return };
        let is_name = |j: usize| {
            l.tokens
                .get(j)
                .is_some_and(|t| matches!(t.kind, TokKind::Str | TokKind::Bare) && decode(&l.src, t) == name)
        };
        if is_name(self.j) {
            return;
        }
        let range = l
            .entry_toks
            .get(start as usize..(start + len) as usize)
            .unwrap_or(&[]);
        if let Some(&j) = range.iter().find(|&&j| is_name(j as usize)) {
            self.j = j as usize;
        }
    }

    /// Copies a trailing comma the source had before `]` (readers tolerate it; ours skips it).
    fn trailing_comma(&mut self) {
        if let Some(l) = self.orig
            && let Some(t) = l.tokens.get(self.j)
            && t.kind == TokKind::Comma
            && l.tokens
                .get(self.j + 1)
                .is_some_and(|n| n.kind == TokKind::RBracket)
        {
            self.out
                .extend_from_slice(&l.src[t.trivia as usize..t.end as usize]);
            self.j += 1;
        }
    }

    /// Whether original token `t` means the same as `tok`.
    fn same(&self, l: &TextLayout, t: &RawTok, tok: &Tok<'_>) -> bool {
        match tok {
            Tok::Punct(k) => t.kind == *k,
            _ if !matches!(t.kind, TokKind::Str | TokKind::Bare) => false,
            Tok::Str(s) => decode(&l.src, t) == *s,
            Tok::Type(ty) => Type::from_name(&decode(&l.src, t)) == Some(*ty),
            Tok::Value(v) => {
                let text = decode(&l.src, t);
                if *text == *self.scratch {
                    return true;
                }
                match parse_scalar(v.kind(), &text) {
                    Some(parsed) => {
                        let mut s = String::new();
                        format_scalar(&parsed, &mut s);
                        s == self.scratch
                    }
                    None => false,
                }
            }
        }
    }
}

struct Writer<'a> {
    doc: &'a Dmx,
    em: Emitter<'a>,
    written: Vec<bool>,
    seen: Vec<u32>,
    refcount: Vec<u32>,
    /// Current element nesting (1 inside a top-level element), mirroring the reader's limit.
    nest: usize,
}

enum Entry {
    Id,
    Name,
    Attr(usize),
}

impl<'a> Writer<'a> {
    fn text_of(&self, i: u32) -> Option<ElemText> {
        self.doc
            .text_layout
            .as_ref()
            .and_then(|l| l.elements.get(i as usize).copied())
    }

    fn default_top_level(&self, i: u32) -> bool {
        i == 0 || self.doc.header.is_flat() || self.refcount[i as usize] != 1
    }

    /// Decides, at one reference to element `i`, whether to write it in line here.
    fn inline_here(&mut self, i: u32) -> bool {
        let n = self.seen[i as usize];
        self.seen[i as usize] += 1;
        if self.written[i as usize] {
            return false;
        }
        match self.text_of(i) {
            Some(t) => !t.top_level && n == t.inline_site,
            // A class spelled like a value type would read back as a value: keep it top-level.
            None => {
                !self.default_top_level(i) && Type::from_name(&self.doc.elements[i as usize].class).is_none()
            }
        }
    }

    fn entries(n_attrs: usize, id_pos: Option<u32>, name_pos: Option<u32>) -> Vec<Entry> {
        let total = n_attrs + id_pos.is_some() as usize + name_pos.is_some() as usize;
        let mut out = Vec::with_capacity(total);
        let mut next_attr = 0;
        for pos in 0..total as u32 {
            if id_pos == Some(pos) {
                out.push(Entry::Id);
            } else if name_pos == Some(pos) {
                out.push(Entry::Name);
            } else if next_attr < n_attrs {
                out.push(Entry::Attr(next_attr));
                next_attr += 1;
            }
        }
        // Positions past the end (after an edit removed attributes) still get written.
        if id_pos.is_some_and(|p| p >= total as u32) {
            out.push(Entry::Id);
        }
        if name_pos.is_some_and(|p| p >= total as u32) {
            out.push(Entry::Name);
        }
        while next_attr < n_attrs {
            out.push(Entry::Attr(next_attr));
            next_attr += 1;
        }
        out
    }

    fn element(&mut self, i: u32, depth: usize, class_trivia: Trivia) {
        let doc = self.doc;
        let e = &doc.elements[i as usize];
        self.written[i as usize] = true;
        self.nest += 1;
        let text = self.text_of(i);
        if let Some(t) = text {
            self.em.resync(t.class_tok);
        }
        self.em.emit(class_trivia, Tok::Str(&e.class));
        self.em.emit(Trivia::Line(depth), Tok::Punct(TokKind::LBrace));
        let (id_pos, name_pos) = match self.text_of(i) {
            Some(t) => (
                t.id_pos,
                if t.name_pos.is_none() && e.name.is_empty() {
                    None
                } else {
                    t.name_pos.or(Some(1))
                },
            ),
            None if doc.header.is_noids() => (None, Some(0)),
            None => (Some(0), Some(1)),
        };
        for entry in Self::entries(e.attrs.len(), id_pos, name_pos) {
            if let Some(t) = text {
                let name = match entry {
                    Entry::Id => "id",
                    Entry::Name => "name",
                    Entry::Attr(k) => &e.attrs[k].name,
                };
                self.em.resync_entry(name, t.entries_start, t.entries_len);
            }
            match entry {
                Entry::Id => {
                    self.em.emit(Trivia::Line(depth + 1), Tok::Str("id"));
                    self.em.emit(
                        Trivia::Space,
                        Tok::Type(Type {
                            kind: Kind::ElementId,
                            array: false,
                        }),
                    );
                    let v = Value::ElementId(e.id);
                    self.em.emit(Trivia::Space, Tok::Value(&v));
                }
                Entry::Name => {
                    self.em.emit(Trivia::Line(depth + 1), Tok::Str("name"));
                    self.em.emit(
                        Trivia::Space,
                        Tok::Type(Type {
                            kind: Kind::String,
                            array: false,
                        }),
                    );
                    self.em.emit(Trivia::Space, Tok::Str(&e.name));
                }
                Entry::Attr(k) => self.attribute(&e.attrs[k], depth + 1),
            }
        }
        self.em.emit(Trivia::Line(depth), Tok::Punct(TokKind::RBrace));
        self.nest -= 1;
    }

    fn element_ref(&mut self, r: ElemRef, depth: usize, first: Trivia) {
        if let ElemRef::Local(i) = r
            && self.nest < MAX_DEPTH
            && self.inline_here(i)
        {
            self.element(i, depth, first);
            return;
        }
        self.em.emit(
            first,
            Tok::Type(Type {
                kind: Kind::Element,
                array: false,
            }),
        );
        // Ids compare as values, so an original spelling (upper case, braces) is kept.
        let id = match r {
            ElemRef::Null => None,
            ElemRef::Local(i) => Some(self.doc.elements[i as usize].id),
            ElemRef::External(g) => Some(g),
        };
        match id {
            None => self.em.emit(Trivia::Space, Tok::Str("")),
            Some(g) => self.em.emit(Trivia::Space, Tok::Value(&Value::ElementId(g))),
        }
    }

    fn attribute(&mut self, a: &Attribute, depth: usize) {
        self.em.emit(Trivia::Line(depth), Tok::Str(&a.name));
        let ty = a.value.ty();
        match &a.value {
            Value::Element(r) => self.element_ref(*r, depth, Trivia::Space),
            v if !ty.array => {
                self.em.emit(Trivia::Space, Tok::Type(ty));
                self.em.emit(Trivia::Space, Tok::Value(v));
            }
            v => {
                self.em.emit(Trivia::Space, Tok::Type(ty));
                let n = v.array_len().unwrap_or(0);
                self.em.emit(
                    if n == 0 {
                        Trivia::Space
                    } else {
                        Trivia::Line(depth)
                    },
                    Tok::Punct(TokKind::LBracket),
                );
                for k in 0..n {
                    if k > 0 {
                        self.em.emit(Trivia::None, Tok::Punct(TokKind::Comma));
                    }
                    match v {
                        Value::ElementArray(refs) => {
                            self.element_ref(refs[k], depth + 1, Trivia::Line(depth + 1))
                        }
                        _ => {
                            if let Some(item) = v.array_item(k) {
                                self.em.emit(Trivia::Line(depth + 1), Tok::Value(&item));
                            }
                        }
                    }
                }
                if n > 0 {
                    self.em.trailing_comma();
                }
                self.em.emit(
                    if n == 0 {
                        Trivia::Space
                    } else {
                        Trivia::Line(depth)
                    },
                    Tok::Punct(TokKind::RBracket),
                );
            }
        }
    }

    fn prefix(&mut self, k: usize, p: &PrefixElement, first: bool) -> Result<(), DmxError> {
        let t = self
            .doc
            .text_layout
            .as_ref()
            .and_then(|l| l.prefix.get(k).copied());
        if let Some(t) = t {
            self.em.resync(t.class_tok);
        }
        self.em.emit(
            if first { Trivia::None } else { Trivia::Line(0) },
            Tok::Str(PREFIX_CLASS),
        );
        self.em.emit(Trivia::Line(0), Tok::Punct(TokKind::LBrace));
        let id_pos = match (p.id, t) {
            (None, _) => None,
            (Some(_), Some(t)) => t.id_pos.or(Some(0)),
            (Some(_), None) => Some(0),
        };
        for entry in Self::entries(p.attrs.len(), id_pos, None) {
            if let Some(t) = t {
                let name = match entry {
                    Entry::Attr(i) => &p.attrs[i].name,
                    _ => "id",
                };
                self.em.resync_entry(name, t.entries_start, t.entries_len);
            }
            match entry {
                Entry::Id => {
                    self.em.emit(Trivia::Line(1), Tok::Str("id"));
                    self.em.emit(
                        Trivia::Space,
                        Tok::Type(Type {
                            kind: Kind::ElementId,
                            array: false,
                        }),
                    );
                    let v = Value::ElementId(p.id.unwrap_or_default());
                    self.em.emit(Trivia::Space, Tok::Value(&v));
                }
                Entry::Name => {}
                Entry::Attr(i) => {
                    let a = &p.attrs[i];
                    if a.value.kind() == Kind::Element {
                        return Err(DmxError::Encode(format!(
                            "prefix attribute {:?} is an element reference",
                            a.name
                        )));
                    }
                    self.attribute(a, 1);
                }
            }
        }
        self.em.emit(Trivia::Line(0), Tok::Punct(TokKind::RBrace));
        Ok(())
    }
}

pub(crate) fn write(doc: &Dmx) -> Result<Vec<u8>, DmxError> {
    doc.validate()?;
    let v = doc.header.encoding_version;
    if !doc.prefix.is_empty() && v < 4 {
        return Err(DmxError::Encode(format!(
            "keyvalues2 version {v} has no prefix element (use 4)"
        )));
    }
    if doc.elements.is_empty() {
        return Err(DmxError::Encode(
            "a DMX file needs at least a root element".into(),
        ));
    }
    let n = doc.elements.len();
    // keyvalues2 refers to elements by id, so two elements sharing one cannot be told apart.
    let mut ids = std::collections::HashMap::with_capacity(n);
    for (i, e) in doc.elements.iter().enumerate() {
        if let Some(first) = ids.insert(e.id, i) {
            return Err(DmxError::Encode(format!(
                "elements {first} and {i} share the id {}; keyvalues2 cannot keep them apart",
                e.id
            )));
        }
    }
    let mut refcount = vec![0u32; n];
    for e in &doc.elements {
        for a in &e.attrs {
            a.value.for_each_ref(|r| {
                if let ElemRef::Local(i) = r {
                    refcount[i as usize] += 1;
                }
            });
        }
    }
    let mut out = doc.header.bytes();
    out.reserve(doc.text_layout.as_ref().map_or(1 << 16, |l| l.src.len()));
    let layout = doc.text_layout.as_deref();
    // Skip the original header's tokens: there are none (the lexer starts after the header).
    let mut w = Writer {
        doc,
        em: Emitter {
            out,
            orig: layout,
            j: 0,
            crlf: doc.header.crlf(),
            scratch: String::new(),
        },
        written: vec![false; n],
        seen: vec![0; n],
        refcount,
        nest: 0,
    };
    let mut first = true;
    for (k, p) in doc.prefix.iter().enumerate() {
        w.prefix(k, p, first)?;
        first = false;
    }
    let mut order: Vec<u32> = match layout {
        Some(l) => l
            .top_order
            .iter()
            .copied()
            .filter(|&i| (i as usize) < n)
            .collect(),
        None => Vec::new(),
    };
    // Elements the layout does not know (added by an edit, or no layout at all).
    let known = layout.map_or(0, |l| l.elements.len());
    for i in known as u32..n as u32 {
        if w.default_top_level(i) {
            order.push(i);
        }
    }
    if order.first() != Some(&0) {
        order.retain(|&i| i != 0);
        order.insert(0, 0);
    }
    for i in order {
        if !w.written[i as usize] {
            w.element(i, 0, if first { Trivia::None } else { Trivia::BlankLine });
            first = false;
        }
    }
    // Anything not reached from a written element still has to be defined somewhere.
    for i in 0..n as u32 {
        if !w.written[i as usize] {
            w.element(i, 0, Trivia::BlankLine);
        }
    }
    let mut out = w.em.out;
    match layout {
        Some(l) => out.extend_from_slice(&l.src[l.tail as usize..]),
        None => {
            if doc.header.crlf() {
                out.extend_from_slice(b"\r\n");
            } else {
                out.push(b'\n');
            }
        }
    }
    Ok(out)
}
