//! Parsing keyvalues2 tokens into a [`Dmx`], keeping the [`TextLayout`] for rewriting.

use std::borrow::Cow;
use std::collections::HashMap;

use srcmap_bytes::LineIndex;

use crate::value::{Kind, Type, Value, parse_scalar};
use crate::{Attribute, Dmx, DmxError, ElemRef, Element, Guid, Header, PrefixElement};

use super::lex::{decode, lex};
use super::{ElemText, MAX_DEPTH, PREFIX_CLASS, RawTok, TextLayout, TokKind};

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
    /// A parser at the first of `toks`, the tokens of `src`.
    fn new(src: &'a [u8], toks: &'a [RawTok]) -> Parser<'a> {
        Parser {
            src,
            toks,
            i: 0,
            elements: Vec::new(),
            texts: Vec::new(),
            events: Vec::new(),
            pending: Vec::new(),
            lines: None,
            depth: 0,
            class_toks: Vec::new(),
            entry_toks: Vec::new(),
        }
    }

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
        self.fill_element(idx, class_tok, body);
        Ok(idx)
    }

    /// Puts a parsed body into element `idx` and its text layout.
    fn fill_element(&mut self, idx: u32, class_tok: usize, body: Body) {
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
    }

    fn body(&mut self, owner: u32, prefix: bool) -> Result<Body, DmxError> {
        self.expect(TokKind::LBrace, "`{`")?;
        let mut body = Body {
            attrs: Vec::new(),
            id: None,
            id_pos: None,
            name: None,
            name_pos: None,
            entries_start: 0,
            entries_len: 0,
        };
        let mut pos = 0u32;
        let mut entry_toks = Vec::new();
        while self.peek() != Some(TokKind::RBrace) {
            entry_toks.push(self.i as u32);
            self.entry(&mut body, pos, owner, prefix)?;
            pos += 1;
        }
        self.expect(TokKind::RBrace, "`}`")?;
        body.entries_start = self.entry_toks.len() as u32;
        body.entries_len = entry_toks.len() as u32;
        self.entry_toks.extend(entry_toks);
        Ok(body)
    }

    /// Entry `pos` of a body, `"name" "type" value`: the element's own id or name (the first
    /// of each), else an attribute.
    fn entry(&mut self, body: &mut Body, pos: u32, owner: u32, prefix: bool) -> Result<(), DmxError> {
        let (attr_name, _) = self.string("an attribute name")?;
        let (ty_name, ty_at) = self.string("an attribute type")?;
        if attr_name == "id" && ty_name == "elementid" && body.id_pos.is_none() {
            let (v, at) = self.string("an element id")?;
            body.id =
                Some(Guid::parse(&v).ok_or_else(|| self.err_at(at, format!("`{v}` is not an element id")))?);
            body.id_pos = Some(pos);
        } else if !prefix && attr_name == "name" && ty_name == "string" && body.name_pos.is_none() {
            body.name = Some(self.string("a name")?.0.into_owned());
            body.name_pos = Some(pos);
        } else {
            let attr_index = body.attrs.len() as u32;
            let value = self.attribute_value(ty_name, ty_at, owner, attr_index, prefix)?;
            body.attrs.push(Attribute {
                name: attr_name.into_owned(),
                value,
            });
        }
        Ok(())
    }

    /// The value of attribute `attr_index` of `owner`, whose type token `ty_name` was read.
    fn attribute_value(
        &mut self,
        ty_name: Cow<'a, str>,
        ty_at: usize,
        owner: u32,
        attr_index: u32,
        prefix: bool,
    ) -> Result<Value, DmxError> {
        let ty = Type::from_name(&ty_name);
        if prefix && ty.is_none_or(|t| t.kind == Kind::Element) {
            return Err(self.err_at(ty_at, "the prefix element holds plain values, not elements"));
        }
        match ty {
            Some(Type {
                kind: Kind::Element,
                array: false,
            }) => self.element_ref(owner, attr_index),
            Some(ty) if !ty.array => {
                let (v, at) = self.string("a value")?;
                parse_scalar(ty.kind, &v)
                    .ok_or_else(|| self.err_at(at, format!("cannot read `{v}` as {}", ty.kind.name())))
            }
            Some(ty) => self.array(ty.kind, owner, attr_index),
            None => self.inline_element(ty_name, ty_at),
        }
    }

    /// Any other type name followed by `{` is an in-line element of that class.
    fn inline_element(&mut self, ty_name: Cow<'a, str>, ty_at: usize) -> Result<Value, DmxError> {
        if self.peek() != Some(TokKind::LBrace) {
            return Err(self.err_at(ty_at, format!("unknown attribute type `{ty_name}`")));
        }
        let child = self.element(ty_name.into_owned(), self.i - 1, true)?;
        Ok(Value::Element(ElemRef::Local(child)))
    }

    /// A single element reference by id: null until every element is known, then resolved.
    fn element_ref(&mut self, owner: u32, attr: u32) -> Result<Value, DmxError> {
        let (v, at) = self.string("an element id")?;
        if let Some(guid) = self.guid_ref(at, &v)? {
            self.pending.push(Pending {
                elem: owner,
                attr,
                item: None,
                guid,
            });
        }
        Ok(Value::Element(ElemRef::Null))
    }

    fn array(&mut self, kind: Kind, owner: u32, attr: u32) -> Result<Value, DmxError> {
        self.expect(TokKind::LBracket, "`[`")?;
        let mut out = Value::empty_array(kind);
        let mut item = 0u32;
        while self.peek() != Some(TokKind::RBracket) {
            let (v, at) = self.string("an array item")?;
            if kind == Kind::Element {
                let r = self.element_item(v, at, owner, attr, item)?;
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

    /// Item `item` of an element array, whose first token `v` was read: an in-line element,
    /// or `"element" "<id>"` (null until resolved).
    fn element_item(
        &mut self,
        v: Cow<'a, str>,
        at: usize,
        owner: u32,
        attr: u32,
        item: u32,
    ) -> Result<ElemRef, DmxError> {
        if self.peek() == Some(TokKind::LBrace) {
            let child = self.element(v.into_owned(), self.i - 1, true)?;
            Ok(ElemRef::Local(child))
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
            Ok(ElemRef::Null)
        } else {
            Err(self.err_at(at, "expected `\"element\" \"<id>\"` or an in-line element"))
        }
    }

    /// The top-level elements in file order: the prefix elements (before any other), then
    /// the elements, marked top-level.
    fn top_level(&mut self) -> Result<TopLevel, DmxError> {
        let mut top = TopLevel::default();
        while self.i < self.toks.len() {
            let class_tok = self.i;
            let (class, _) = self.string("an element class")?;
            if class == PREFIX_CLASS && self.elements.is_empty() {
                let body = self.body(u32::MAX, true)?;
                top.prefix.push(PrefixElement {
                    id: body.id,
                    attrs: body.attrs,
                });
                top.prefix_text.push(ElemText {
                    top_level: true,
                    id_pos: body.id_pos,
                    class_tok: class_tok as u32,
                    entries_start: body.entries_start,
                    entries_len: body.entries_len,
                    ..Default::default()
                });
                continue;
            }
            let idx = self.element(class.into_owned(), class_tok, false)?;
            self.texts[idx as usize].top_level = true;
            top.order.push(idx);
        }
        Ok(top)
    }

    /// Resolves the GUID references, now that every element is known (ids must be unique);
    /// an id no element has is an external reference.
    fn resolve_refs(&mut self) -> Result<(), DmxError> {
        let mut by_id: HashMap<Guid, u32> = HashMap::with_capacity(self.elements.len());
        for i in 0..self.elements.len() {
            let id = self.elements[i].id;
            if by_id.insert(id, i as u32).is_some() {
                let at = self.toks[self.class_toks[i] as usize].start as usize;
                return Err(self.err_at(at, format!("element id {id} is used by an earlier element too")));
            }
        }
        for pend in std::mem::take(&mut self.pending) {
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
            let a = &mut self.elements[pend.elem as usize].attrs[pend.attr as usize];
            match (&mut a.value, pend.item) {
                (Value::Element(slot), None) => *slot = r,
                (Value::ElementArray(v), Some(k)) => v[k as usize] = r,
                _ => {}
            }
        }
        Ok(())
    }

    /// Numbers the in-line definition sites: how many references to the same id came before.
    fn number_inline_sites(&mut self) {
        let mut seen: HashMap<Guid, u32> = HashMap::new();
        for ev in &self.events {
            match ev {
                Event::Ref(g) => *seen.entry(*g).or_default() += 1,
                Event::InlineDef(e) => {
                    let g = self.elements[*e as usize].id;
                    let n = seen.entry(g).or_default();
                    self.texts[*e as usize].inline_site = *n;
                    *n += 1;
                }
            }
        }
    }
}

/// The prefix elements, their text layout and the top-level elements' order.
#[derive(Default)]
struct TopLevel {
    prefix: Vec<PrefixElement>,
    prefix_text: Vec<ElemText>,
    order: Vec<u32>,
}

/// An error at byte `off` of the text.
fn text_error(data: &[u8], off: usize, message: String) -> DmxError {
    let (line, column) = srcmap_bytes::line_col(data, off);
    DmxError::Text {
        line,
        column,
        message,
    }
}

pub(crate) fn read(data: &[u8], header: Header, body: usize) -> Result<Dmx, DmxError> {
    let (tokens, tail) = lex(data, body).map_err(|(off, msg)| text_error(data, off, msg))?;
    let mut p = Parser::new(data, &tokens);
    let top = p.top_level()?;
    if p.elements.is_empty() {
        return Err(p.err_here("the file has no elements"));
    }
    p.resolve_refs()?;
    p.number_inline_sites();
    let (elements, texts, entry_toks) = (p.elements, p.texts, p.entry_toks);
    let layout = TextLayout {
        src: data.to_vec(),
        tokens,
        tail,
        elements: texts,
        prefix: top.prefix_text,
        top_order: top.order,
        entry_toks,
    };
    Ok(Dmx {
        header,
        elements,
        prefix: top.prefix,
        binary_layout: None,
        text_layout: Some(Box::new(layout)),
    })
}
