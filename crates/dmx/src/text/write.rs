//! Writing keyvalues2: the canonical token sequence, reusing the original tokens and their
//! trivia wherever they mean the same thing (see the module docs of `text`).

use crate::value::{Kind, Type, Value, format_scalar, parse_scalar};
use crate::{Attribute, Dmx, DmxError, ElemRef, Guid, PrefixElement};

use super::lex::{decode, escape};
use super::{ElemText, MAX_DEPTH, PREFIX_CLASS, RawTok, TextLayout, TokKind};

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
        self.trivia(trivia);
        self.token(tok);
    }

    /// Generated whitespace before a token that does not reuse the source's.
    fn trivia(&mut self, trivia: Trivia) {
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
    }

    /// A generated token (a value's text is already in `scratch`).
    fn token(&mut self, tok: Tok<'_>) {
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

#[derive(Clone, Copy)]
enum Entry {
    Id,
    Name,
    Attr(usize),
}

impl<'a> Writer<'a> {
    /// A writer of `doc`, its output the header so far, reusing the source's tokens when the
    /// document has a text layout (the lexer starts after the header, so no tokens are
    /// skipped).
    fn new(doc: &'a Dmx) -> Writer<'a> {
        let n = doc.elements.len();
        let mut out = doc.header.bytes();
        out.reserve(doc.text_layout.as_ref().map_or(1 << 16, |l| l.src.len()));
        Writer {
            doc,
            em: Emitter {
                out,
                orig: doc.text_layout.as_deref(),
                j: 0,
                crlf: doc.header.crlf(),
                scratch: String::new(),
            },
            written: vec![false; n],
            seen: vec![0; n],
            refcount: ref_counts(doc),
            nest: 0,
        }
    }

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
        let (id_pos, name_pos) = self.entry_positions(i);
        for entry in Self::entries(e.attrs.len(), id_pos, name_pos) {
            if let Some(t) = text {
                self.em
                    .resync_entry(entry.name(&e.attrs), t.entries_start, t.entries_len);
            }
            match entry {
                Entry::Id => self.id_entry(depth + 1, e.id),
                Entry::Name => {
                    self.em.emit(Trivia::Line(depth + 1), Tok::Str("name"));
                    self.em.emit(Trivia::Space, Tok::Type(STRING));
                    self.em.emit(Trivia::Space, Tok::Str(&e.name));
                }
                Entry::Attr(k) => self.attribute(&e.attrs[k], depth + 1),
            }
        }
        self.em.emit(Trivia::Line(depth), Tok::Punct(TokKind::RBrace));
        self.nest -= 1;
    }

    /// The output, ended as the source ended (its trailing trivia), or with a newline.
    fn finish(mut self, layout: Option<&TextLayout>) -> Vec<u8> {
        match layout {
            Some(l) => self.em.out.extend_from_slice(&l.src[l.tail as usize..]),
            None => self.em.newline(),
        }
        self.em.out
    }

    /// Where element `i`'s `id` and `name` entries go among its attributes: where the source
    /// had them (a name only if it had one or the name is not empty), else first (no id in
    /// the id-less encodings).
    fn entry_positions(&self, i: u32) -> (Option<u32>, Option<u32>) {
        let e = &self.doc.elements[i as usize];
        match self.text_of(i) {
            Some(t) => (
                t.id_pos,
                if t.name_pos.is_none() && e.name.is_empty() {
                    None
                } else {
                    t.name_pos.or(Some(1))
                },
            ),
            None if self.doc.header.is_noids() => (None, Some(0)),
            None => (Some(0), Some(1)),
        }
    }

    /// The `"id" "elementid" "<guid>"` entry.
    fn id_entry(&mut self, depth: usize, id: Guid) {
        self.em.emit(Trivia::Line(depth), Tok::Str("id"));
        self.em.emit(Trivia::Space, Tok::Type(ELEMENT_ID));
        let v = Value::ElementId(id);
        self.em.emit(Trivia::Space, Tok::Value(&v));
    }

    fn element_ref(&mut self, r: ElemRef, depth: usize, first: Trivia) {
        if let ElemRef::Local(i) = r
            && self.nest < MAX_DEPTH
            && self.inline_here(i)
        {
            self.element(i, depth, first);
            return;
        }
        self.em.emit(first, Tok::Type(ELEMENT));
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
                self.array(v, depth);
            }
        }
    }

    /// An array value's `[ items ]`: one item a line, an empty array on the type's line.
    fn array(&mut self, v: &Value, depth: usize) {
        let n = v.array_len().unwrap_or(0);
        let bracket_trivia = if n == 0 {
            Trivia::Space
        } else {
            Trivia::Line(depth)
        };
        self.em.emit(bracket_trivia, Tok::Punct(TokKind::LBracket));
        for k in 0..n {
            if k > 0 {
                self.em.emit(Trivia::None, Tok::Punct(TokKind::Comma));
            }
            match v {
                Value::ElementArray(refs) => self.element_ref(refs[k], depth + 1, Trivia::Line(depth + 1)),
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
        self.em.emit(bracket_trivia, Tok::Punct(TokKind::RBracket));
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
        let id_pos = p.id.map(|_| t.and_then(|t| t.id_pos).unwrap_or(0));
        for entry in Self::entries(p.attrs.len(), id_pos, None) {
            if let Some(t) = t {
                self.em
                    .resync_entry(entry.name(&p.attrs), t.entries_start, t.entries_len);
            }
            match entry {
                Entry::Id => self.id_entry(1, p.id.unwrap_or_default()),
                Entry::Name => {}
                Entry::Attr(i) => self.prefix_attribute(&p.attrs[i])?,
            }
        }
        self.em.emit(Trivia::Line(0), Tok::Punct(TokKind::RBrace));
        Ok(())
    }

    /// A prefix attribute: a plain value (the prefix holds no element references).
    fn prefix_attribute(&mut self, a: &Attribute) -> Result<(), DmxError> {
        if a.value.kind() == Kind::Element {
            return Err(DmxError::Encode(format!(
                "prefix attribute {:?} is an element reference",
                a.name
            )));
        }
        self.attribute(a, 1);
        Ok(())
    }

    /// The top-level elements in order: the source's (those still there), then elements the
    /// layout does not know that stand at top level; the root always first.
    fn top_order(&self) -> Vec<u32> {
        let n = self.doc.elements.len();
        let layout = self.doc.text_layout.as_deref();
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
            if self.default_top_level(i) {
                order.push(i);
            }
        }
        if order.first() != Some(&0) {
            order.retain(|&i| i != 0);
            order.insert(0, 0);
        }
        order
    }
}

const ELEMENT: Type = Type {
    kind: Kind::Element,
    array: false,
};
const ELEMENT_ID: Type = Type {
    kind: Kind::ElementId,
    array: false,
};
const STRING: Type = Type {
    kind: Kind::String,
    array: false,
};

impl Entry {
    /// The entry's name in the source, to find it again there.
    fn name(self, attrs: &[Attribute]) -> &str {
        match self {
            Entry::Id => "id",
            Entry::Name => "name",
            Entry::Attr(k) => &attrs[k].name,
        }
    }
}

/// What keyvalues2 cannot hold: a prefix before version 4, no elements, two elements with one
/// id (it refers to elements by id, so they could not be told apart).
fn check_writable(doc: &Dmx) -> Result<(), DmxError> {
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
    let mut ids = std::collections::HashMap::with_capacity(doc.elements.len());
    for (i, e) in doc.elements.iter().enumerate() {
        if let Some(first) = ids.insert(e.id, i) {
            return Err(DmxError::Encode(format!(
                "elements {first} and {i} share the id {}; keyvalues2 cannot keep them apart",
                e.id
            )));
        }
    }
    Ok(())
}

/// How many references each element has.
fn ref_counts(doc: &Dmx) -> Vec<u32> {
    let mut refcount = vec![0u32; doc.elements.len()];
    for e in &doc.elements {
        for a in &e.attrs {
            a.value.for_each_ref(|r| {
                if let ElemRef::Local(i) = r {
                    refcount[i as usize] += 1;
                }
            });
        }
    }
    refcount
}

pub(crate) fn write(doc: &Dmx) -> Result<Vec<u8>, DmxError> {
    doc.validate()?;
    check_writable(doc)?;
    let layout = doc.text_layout.as_deref();
    let mut w = Writer::new(doc);
    let mut first = true;
    for (k, p) in doc.prefix.iter().enumerate() {
        w.prefix(k, p, first)?;
        first = false;
    }
    for i in w.top_order() {
        if !w.written[i as usize] {
            w.element(i, 0, if first { Trivia::None } else { Trivia::BlankLine });
            first = false;
        }
    }
    // Anything not reached from a written element still has to be defined somewhere.
    for i in 0..doc.elements.len() as u32 {
        if !w.written[i as usize] {
            w.element(i, 0, Trivia::BlankLine);
        }
    }
    Ok(w.finish(layout))
}
