//! Binary encoding, versions 1–9 (see dmx.md §4): an optional prefix block (v7+), a string
//! table (v2+), the element index, then the element bodies.

use std::collections::HashMap;

use srcmap_bytes::{Endian, ReadError, Reader, Writer};

use crate::value::{Kind, Type, Value};
use crate::{Attribute, BinaryLayout, Dmx, DmxError, ElemRef, Element, Guid, Header, PrefixElement};

/// Per-version layout switches.
#[derive(Clone, Copy)]
struct Layout {
    version: u32,
    has_table: bool,
    /// Table count is i32 (else i16).
    wide_count: bool,
    /// Table indexes are i32 (else i16).
    wide_index: bool,
    /// Element names and scalar string values go through the table.
    indexed_values: bool,
    /// Versions 6–7 store an i32 "link type" after each element's type in the index (−1 in
    /// the only real v7 file known, Dota 2's 2015 barebones.vmap).
    link_type: bool,
    prefix: bool,
}

impl Layout {
    fn new(h: &Header) -> Layout {
        let v = h.encoding_version;
        let has_table = v >= 2 && !h.legacy;
        Layout {
            version: v,
            has_table,
            wide_count: v >= 4,
            wide_index: v >= 5,
            indexed_values: has_table && v >= 4,
            link_type: v == 6 || v == 7,
            prefix: v >= 7 && !h.legacy,
        }
    }
}

fn bad(r: &Reader<'_>, message: impl Into<String>) -> ReadError {
    r.invalid(message)
}

fn to_string(b: &[u8]) -> String {
    crate::strings::decode(b).into_owned()
}

/// A count field: negative values are errors, not empty lists (they could not be written back).
fn read_count(r: &Reader<'_>, n: i32, min_size: u64, what: &str) -> Result<usize, ReadError> {
    if n < 0 {
        return Err(bad(r, format!("negative {what} count {n}")));
    }
    r.check_count(n as u64, min_size)
}

/// `n` items read one after another into an array value.
macro_rules! read_array {
    ($n:expr, $variant:ident, $read:expr) => {{
        let mut v = Vec::with_capacity($n);
        for _ in 0..$n {
            v.push($read);
        }
        Value::$variant(v)
    }};
}

struct Decoder<'a> {
    r: Reader<'a>,
    l: Layout,
    table: Vec<String>,
    table_has_empty: bool,
    element_count: u32,
}

impl<'a> Decoder<'a> {
    fn index(&mut self) -> Result<i32, ReadError> {
        Ok(if self.l.wide_index {
            self.r.i32()?
        } else {
            self.r.i16()? as i32
        })
    }

    /// A string through the table. `allow_null`: index −1 is a null string (Dota 2's v7 tools
    /// write it for empty values); it reads as "" when the table has no "" of its own, so the
    /// writer can tell the two apart again.
    fn table_string(&mut self, allow_null: bool) -> Result<String, ReadError> {
        let at = self.r.clone();
        let i = self.index()?;
        if i == -1 && allow_null && !self.table_has_empty {
            return Ok(String::new());
        }
        self.table
            .get(usize::try_from(i).map_err(|_| bad(&at, format!("negative string index {i}")))?)
            .cloned()
            .ok_or_else(|| {
                bad(
                    &at,
                    format!("string index {i} is outside the table of {}", self.table.len()),
                )
            })
    }

    /// A name: through the table when there is one, else inline.
    fn name(&mut self) -> Result<String, ReadError> {
        if self.l.has_table {
            self.table_string(false)
        } else {
            Ok(to_string(self.r.cstr()?))
        }
    }

    fn elem_ref(&mut self) -> Result<ElemRef, ReadError> {
        let at = self.r.clone();
        let i = self.r.i32()?;
        match i {
            -1 => Ok(ElemRef::Null),
            -2 => {
                let s = self.r.cstr()?;
                let g = std::str::from_utf8(s)
                    .ok()
                    .and_then(Guid::parse)
                    .ok_or_else(|| bad(&at, "external element reference without a valid GUID string"))?;
                Ok(ElemRef::External(g))
            }
            i if i >= 0 && (i as u32) < self.element_count => Ok(ElemRef::Local(i as u32)),
            i => Err(bad(
                &at,
                format!("element index {i} out of range (0..{})", self.element_count),
            )),
        }
    }

    fn f32s<const N: usize>(&mut self) -> Result<[f32; N], ReadError> {
        let mut out = [0.0; N];
        for o in &mut out {
            *o = self.r.f32()?;
        }
        Ok(out)
    }

    fn scalar(&mut self, kind: Kind, inline_strings: bool) -> Result<Value, ReadError> {
        let r = &mut self.r;
        Ok(match kind {
            Kind::Element => Value::Element(self.elem_ref()?),
            Kind::Int => Value::Int(r.i32()?),
            Kind::Float => Value::Float(r.f32()?),
            Kind::Bool => Value::Bool(self.bool_byte()?),
            Kind::String => {
                if inline_strings || !self.l.indexed_values {
                    Value::String(to_string(r.cstr()?))
                } else {
                    Value::String(self.table_string(true)?)
                }
            }
            Kind::Binary => Value::Binary(self.binary()?),
            Kind::ElementId => Value::ElementId(Guid(r.array()?)),
            Kind::Time => Value::Time(r.i32()?),
            Kind::Color => Value::Color(r.array()?),
            Kind::Vector2 => Value::Vector2(self.f32s()?),
            Kind::Vector3 => Value::Vector3(self.f32s()?),
            Kind::Vector4 => Value::Vector4(self.f32s()?),
            Kind::QAngle => Value::QAngle(self.f32s()?),
            Kind::Quaternion => Value::Quaternion(self.f32s()?),
            Kind::Matrix => Value::Matrix(Box::new(self.f32s()?)),
            Kind::UInt64 => Value::UInt64(r.u64()?),
            Kind::UInt8 => Value::UInt8(r.u8()?),
        })
    }

    /// A bool: one byte, 0 or 1.
    fn bool_byte(&mut self) -> Result<bool, ReadError> {
        let at = self.r.clone();
        match self.r.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(bad(&at, format!("bool value {b} (expected 0 or 1)"))),
        }
    }

    /// A binary blob: u32 length, then the bytes.
    fn binary(&mut self) -> Result<Vec<u8>, ReadError> {
        let len = self.r.u32()?;
        let len = self.r.check_count(len as u64, 1)?;
        Ok(self.r.bytes(len)?.to_vec())
    }

    fn value(&mut self, ty: Type, inline_strings: bool) -> Result<Value, ReadError> {
        if !ty.array {
            return self.scalar(ty.kind, inline_strings);
        }
        let n = self.r.u32()?;
        let n = self.r.check_count(n as u64, array_item_min_size(ty.kind))?;
        self.array(ty.kind, n)
    }

    /// The `n` items of an array of `kind`.
    fn array(&mut self, kind: Kind, n: usize) -> Result<Value, ReadError> {
        Ok(match kind {
            Kind::Element => read_array!(n, ElementArray, self.elem_ref()?),
            Kind::Int => read_array!(n, IntArray, self.r.i32()?),
            Kind::Float => read_array!(n, FloatArray, self.r.f32()?),
            Kind::Bool => read_array!(n, BoolArray, self.bool_byte()?),
            // String array items are always inline, in every version.
            Kind::String => read_array!(n, StringArray, to_string(self.r.cstr()?)),
            Kind::Binary => read_array!(n, BinaryArray, self.binary()?),
            Kind::ElementId => read_array!(n, ElementIdArray, Guid(self.r.array()?)),
            Kind::Time => read_array!(n, TimeArray, self.r.i32()?),
            Kind::Color => read_array!(n, ColorArray, self.r.array()?),
            Kind::Vector2 => read_array!(n, Vector2Array, self.f32s()?),
            Kind::Vector3 => read_array!(n, Vector3Array, self.f32s()?),
            Kind::Vector4 => read_array!(n, Vector4Array, self.f32s()?),
            Kind::QAngle => read_array!(n, QAngleArray, self.f32s()?),
            Kind::Quaternion => read_array!(n, QuaternionArray, self.f32s()?),
            Kind::Matrix => read_array!(n, MatrixArray, self.f32s()?),
            Kind::UInt64 => read_array!(n, UInt64Array, self.r.u64()?),
            Kind::UInt8 => read_array!(n, UInt8Array, self.r.u8()?),
        })
    }

    fn attribute(&mut self, inline_names: bool) -> Result<Attribute, ReadError> {
        let name = if inline_names {
            to_string(self.r.cstr()?)
        } else {
            self.name()?
        };
        let at = self.r.clone();
        let id = self.r.u8()?;
        let ty = Type::from_binary_id(id, self.l.version)
            .ok_or_else(|| bad(&at, format!("attribute {name:?}: unknown type id {id}")))?;
        let value = self.value(ty, inline_names)?;
        Ok(Attribute { name, value })
    }

    /// The prefix block (v7+): elements of inline-named attributes.
    fn prefix(&mut self) -> Result<Vec<PrefixElement>, ReadError> {
        let mut prefix = Vec::new();
        let n = self.r.i32()?;
        let n = read_count(&self.r, n, 4, "prefix element")?;
        for _ in 0..n {
            let c = self.r.i32()?;
            let count = read_count(&self.r, c, 2, "prefix attribute")?;
            let mut attrs = Vec::with_capacity(count);
            for _ in 0..count {
                attrs.push(self.attribute(true)?);
            }
            prefix.push(PrefixElement { id: None, attrs });
        }
        Ok(prefix)
    }

    /// The string table (v2+), kept for lookups and returned for the layout.
    fn string_table(&mut self) -> Result<Vec<String>, ReadError> {
        let n = if self.l.wide_count {
            self.r.i32()?
        } else {
            self.r.i16()? as i32
        };
        let n = read_count(&self.r, n, 1, "string table")?;
        let mut table = Vec::with_capacity(n);
        for _ in 0..n {
            table.push(to_string(self.r.cstr()?));
        }
        self.table_has_empty = table.iter().any(String::is_empty);
        self.table = table.clone();
        Ok(table)
    }

    /// The element index: each element's class, name and id (bodies come after), with the
    /// layout facts a faithful rewrite needs.
    fn element_index(&mut self) -> Result<ElementIndex, ReadError> {
        let n = self.r.i32()?;
        let count = read_count(&self.r, n, 17, "element")?;
        self.element_count = count as u32;
        let mut index = ElementIndex {
            elements: Vec::with_capacity(count),
            null_names: Vec::new(),
            link_types: Vec::new(),
        };
        for k in 0..count {
            let class = self.name()?;
            if self.l.link_type {
                index.link_types.push(self.r.i32()?);
            }
            let name = self.element_name(k, &mut index.null_names)?;
            let id = Guid(self.r.array()?);
            index.elements.push(Element {
                class,
                name,
                id,
                attrs: Vec::new(),
            });
        }
        Ok(index)
    }

    /// Element `k`'s name: through the table when values are indexed (index −1: a null name,
    /// read as "" and remembered in `null_names`), else inline.
    fn element_name(&mut self, k: usize, null_names: &mut Vec<u32>) -> Result<String, ReadError> {
        if !self.l.indexed_values {
            return Ok(to_string(self.r.cstr()?));
        }
        let at = self.r.clone();
        let i = self.index()?;
        if i == -1 {
            null_names.push(k as u32);
            Ok(String::new())
        } else {
            self.table
                .get(i as usize)
                .cloned()
                .ok_or_else(|| bad(&at, format!("element name index {i} out of range")))
        }
    }

    /// The element bodies, in index order: each an attribute count and the attributes. An
    /// error names the element.
    fn element_bodies(&mut self, elements: &mut [Element]) -> Result<(), DmxError> {
        for (i, e) in elements.iter_mut().enumerate() {
            let at = self.r.offset();
            let n = self.r.i32()?;
            let n = read_count(&self.r, n, 2, "attribute")?;
            e.attrs.reserve(n);
            for _ in 0..n {
                let a = self.attribute(false).map_err(|err| {
                    let DmxError::Binary { offset, message } = DmxError::from(err) else {
                        unreachable!()
                    };
                    DmxError::Binary {
                        offset,
                        message: format!("element {i} ({}, body at byte {at}): {message}", e.class),
                    }
                })?;
                e.attrs.push(a);
            }
        }
        Ok(())
    }
}

/// The element index as read: elements without bodies, the null names and link types.
struct ElementIndex {
    elements: Vec<Element>,
    null_names: Vec<u32>,
    link_types: Vec<i32>,
}

/// Smallest encoded item per kind, so a hostile count cannot allocate beyond the data.
fn array_item_min_size(kind: Kind) -> u64 {
    match kind {
        Kind::Bool | Kind::UInt8 | Kind::String => 1,
        Kind::Color | Kind::Int | Kind::Float | Kind::Time | Kind::Element | Kind::Binary => 4,
        Kind::UInt64 | Kind::Vector2 => 8,
        Kind::Vector3 | Kind::QAngle => 12,
        Kind::ElementId | Kind::Vector4 | Kind::Quaternion => 16,
        Kind::Matrix => 64,
    }
}

pub(crate) fn read(data: &[u8], header: Header, body: usize) -> Result<Dmx, DmxError> {
    let l = Layout::new(&header);
    let mut d = Decoder::at_body(data, l, body)?;
    let prefix = if l.prefix { d.prefix()? } else { Vec::new() };
    let string_table = if l.has_table {
        Some(d.string_table()?)
    } else {
        None
    };
    let ElementIndex {
        mut elements,
        null_names,
        link_types,
    } = d.element_index()?;
    d.element_bodies(&mut elements)?;
    d.check_end()?;
    let binary_layout = Some(BinaryLayout {
        string_table: string_table.unwrap_or_default(),
        null_names,
        link_types,
    });
    Ok(Dmx {
        header,
        elements,
        prefix,
        binary_layout,
        text_layout: None,
    })
}

impl<'a> Decoder<'a> {
    /// A decoder at the body (byte `body`) of a file of a supported version (1-9).
    fn at_body(data: &'a [u8], l: Layout, body: usize) -> Result<Decoder<'a>, DmxError> {
        if l.version == 0 || l.version > 9 {
            return Err(DmxError::Header(format!(
                "binary version {} is not supported (1-9)",
                l.version
            )));
        }
        let mut r = Reader::new(data, Endian::Little);
        r.seek(body)?;
        Ok(Decoder {
            r,
            l,
            table: Vec::new(),
            table_has_empty: false,
            element_count: 0,
        })
    }

    /// Nothing may follow the last element body.
    fn check_end(&self) -> Result<(), DmxError> {
        if self.r.remaining() != 0 {
            return Err(DmxError::Binary {
                offset: self.r.offset(),
                message: format!("{} bytes after the last element body", self.r.remaining()),
            });
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

struct Encoder {
    w: Writer,
    l: Layout,
    table: HashMap<String, i32>,
}

fn enc(msg: impl Into<String>) -> DmxError {
    DmxError::Encode(msg.into())
}

impl Encoder {
    fn index(&mut self, s: &str) -> Result<(), DmxError> {
        let i = match self.table.get(s) {
            Some(&i) => i,
            // A table without "" came from a file that wrote empty strings as index −1.
            None if s.is_empty() => -1,
            None => return Err(enc(format!("string {s:?} missing from the table"))),
        };
        if self.l.wide_index {
            self.w.i32(i);
        } else {
            self.w
                .i16(i16::try_from(i).map_err(|_| enc("string table too large for 16-bit indexes"))?);
        }
        Ok(())
    }

    fn name(&mut self, s: &str) -> Result<(), DmxError> {
        if self.l.has_table {
            self.index(s)
        } else {
            self.cstr(s)
        }
    }

    fn cstr(&mut self, s: &str) -> Result<(), DmxError> {
        if s.as_bytes().contains(&0) {
            return Err(enc(format!("string {s:?} contains a NUL")));
        }
        self.w.cstr(&crate::strings::encode(s));
        Ok(())
    }

    fn elem_ref(&mut self, r: &ElemRef) {
        match r {
            ElemRef::Null => self.w.i32(-1),
            ElemRef::Local(i) => self.w.i32(*i as i32),
            ElemRef::External(g) => {
                self.w.i32(-2);
                self.w.cstr(g.to_string().as_bytes());
            }
        }
    }

    fn floats(&mut self, v: &[f32]) {
        for &x in v {
            self.w.f32(x);
        }
    }

    fn len(&mut self, n: usize) -> Result<(), DmxError> {
        self.w.u32(u32::try_from(n).map_err(|_| enc("array too long"))?);
        Ok(())
    }

    fn value(&mut self, v: &Value, inline_strings: bool) -> Result<(), DmxError> {
        match v.array_len() {
            Some(n) => {
                self.len(n)?;
                self.array_items(v)
            }
            None => self.scalar(v, inline_strings),
        }
    }

    /// A scalar value (arrays are written by [`Encoder::array_items`]).
    fn scalar(&mut self, v: &Value, inline_strings: bool) -> Result<(), DmxError> {
        match v {
            Value::Element(r) => self.elem_ref(r),
            Value::Int(x) | Value::Time(x) => self.w.i32(*x),
            Value::Float(x) => self.w.f32(*x),
            Value::Bool(b) => self.w.u8(*b as u8),
            Value::String(s) => {
                if inline_strings || !self.l.indexed_values {
                    self.cstr(s)?
                } else {
                    self.index(s)?
                }
            }
            Value::Binary(b) => self.binary(b)?,
            Value::ElementId(g) => self.w.bytes(&g.0),
            Value::Color(c) => self.w.bytes(c),
            Value::Vector2(f) => self.floats(f),
            Value::Vector3(f) | Value::QAngle(f) => self.floats(f),
            Value::Vector4(f) | Value::Quaternion(f) => self.floats(f),
            Value::Matrix(m) => self.floats(&m[..]),
            Value::UInt64(x) => self.w.u64(*x),
            Value::UInt8(x) => self.w.u8(*x),
            _ => {}
        }
        Ok(())
    }

    /// A binary blob: u32 length, then the bytes.
    fn binary(&mut self, b: &[u8]) -> Result<(), DmxError> {
        self.len(b.len())?;
        self.w.bytes(b);
        Ok(())
    }

    /// The items of an array value, after its count (scalars are written by
    /// [`Encoder::scalar`]).
    fn array_items(&mut self, v: &Value) -> Result<(), DmxError> {
        match v {
            Value::ElementArray(v) => v.iter().for_each(|r| self.elem_ref(r)),
            Value::IntArray(v) | Value::TimeArray(v) => v.iter().for_each(|x| self.w.i32(*x)),
            Value::FloatArray(v) => self.floats(v),
            Value::BoolArray(v) => v.iter().for_each(|x| self.w.u8(*x as u8)),
            Value::StringArray(v) => {
                for s in v {
                    self.cstr(s)?;
                }
            }
            Value::BinaryArray(v) => {
                for b in v {
                    self.binary(b)?;
                }
            }
            Value::ElementIdArray(v) => v.iter().for_each(|g| self.w.bytes(&g.0)),
            Value::ColorArray(v) => v.iter().for_each(|c| self.w.bytes(c)),
            Value::Vector2Array(v) => self.floats(v.as_flattened()),
            Value::Vector3Array(v) | Value::QAngleArray(v) => self.floats(v.as_flattened()),
            Value::Vector4Array(v) | Value::QuaternionArray(v) => self.floats(v.as_flattened()),
            Value::MatrixArray(v) => self.floats(v.as_flattened()),
            Value::UInt64Array(v) => v.iter().for_each(|x| self.w.u64(*x)),
            Value::UInt8Array(v) => self.w.bytes(v),
            _ => {}
        }
        Ok(())
    }

    fn attribute(&mut self, a: &Attribute, inline: bool, owner: &str) -> Result<(), DmxError> {
        let ty = a.value.ty();
        let id = ty.binary_id(self.l.version).ok_or_else(|| {
            enc(format!(
                "{owner} attribute {:?}: type {} cannot be stored in binary version {}",
                a.name,
                ty.name(),
                self.l.version
            ))
        })?;
        if inline {
            self.cstr(&a.name)?;
        } else {
            self.name(&a.name)?;
        }
        self.w.u8(id);
        self.value(&a.value, inline)
    }
}

/// Every string the table must hold, in the order the encoder first uses them.
fn table_strings(doc: &Dmx, l: &Layout) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut add = |s: &str| {
        if !seen.contains(s) {
            seen.insert(s.to_string());
            out.push(s.to_string());
        }
    };
    for e in &doc.elements {
        add(&e.class);
        if l.indexed_values {
            add(&e.name);
        }
    }
    for e in &doc.elements {
        for a in &e.attrs {
            add(&a.name);
            if l.indexed_values
                && let Value::String(s) = &a.value
            {
                add(s);
            }
        }
    }
    out
}

impl Encoder {
    /// The prefix block (v7+; earlier versions must have an empty prefix).
    fn prefix(&mut self, doc: &Dmx) -> Result<(), DmxError> {
        if self.l.prefix {
            self.w.i32(doc.prefix.len() as i32);
            for p in &doc.prefix {
                self.w.i32(p.attrs.len() as i32);
                for a in &p.attrs {
                    self.attribute(a, true, "prefix")?;
                }
            }
        } else if !doc.prefix.is_empty() {
            return Err(enc(format!(
                "binary version {} has no prefix block (use 9)",
                self.l.version
            )));
        }
        Ok(())
    }

    /// The string table: the original one (order and duplicates included) with what is
    /// missing added; every string's first index goes into `self.table`.
    fn build_table(&mut self, doc: &Dmx) -> Vec<String> {
        let mut table: Vec<String> = doc
            .binary_layout
            .as_ref()
            .map(|b| b.string_table.clone())
            .unwrap_or_default();
        for (i, s) in table.iter().enumerate() {
            self.table.entry(s.clone()).or_insert(i as i32);
        }
        let empty_as_null = doc.binary_layout.is_some() && !self.table.contains_key("");
        for s in table_strings(doc, &self.l) {
            if !(self.table.contains_key(&s) || s.is_empty() && empty_as_null) {
                self.table.insert(s.clone(), table.len() as i32);
                table.push(s);
            }
        }
        table
    }

    fn string_table(&mut self, doc: &Dmx) -> Result<(), DmxError> {
        let table = self.build_table(doc);
        if self.l.wide_count {
            self.w.i32(table.len() as i32);
        } else {
            self.w.i16(
                i16::try_from(table.len()).map_err(|_| enc("more than 32767 strings for a 16-bit table"))?,
            );
        }
        for s in &table {
            self.cstr(s)?;
        }
        Ok(())
    }

    /// The element index: each element's class, link type (v6–7), name and id.
    fn element_index(&mut self, doc: &Dmx) -> Result<(), DmxError> {
        let l = self.l;
        self.w
            .i32(i32::try_from(doc.elements.len()).map_err(|_| enc("too many elements"))?);
        let null_names = doc.binary_layout.as_ref().map_or(&[][..], |b| &b.null_names[..]);
        for (i, el) in doc.elements.iter().enumerate() {
            self.name(&el.class)?;
            if l.link_type {
                self.w.i32(
                    doc.binary_layout
                        .as_ref()
                        .and_then(|b| b.link_types.get(i).copied())
                        .unwrap_or(-1),
                );
            }
            let null_name = el.name.is_empty() && null_names.binary_search(&(i as u32)).is_ok();
            self.element_name(&el.name, null_name)?;
            self.w.bytes(&el.id.0);
        }
        Ok(())
    }

    /// An element's name: through the table when values are indexed (−1 for a name that was
    /// null in the file read), else inline.
    fn element_name(&mut self, name: &str, null_name: bool) -> Result<(), DmxError> {
        if self.l.indexed_values && null_name {
            if self.l.wide_index {
                self.w.i32(-1);
            } else {
                self.w.i16(-1);
            }
            Ok(())
        } else if self.l.indexed_values {
            self.index(name)
        } else {
            self.cstr(name)
        }
    }

    fn element_bodies(&mut self, doc: &Dmx) -> Result<(), DmxError> {
        for (i, el) in doc.elements.iter().enumerate() {
            self.w
                .i32(i32::try_from(el.attrs.len()).map_err(|_| enc("too many attributes"))?);
            let owner = format!("element {i} ({})", el.class);
            for a in &el.attrs {
                self.attribute(a, false, &owner)?;
            }
        }
        Ok(())
    }
}

pub(crate) fn write(doc: &Dmx) -> Result<Vec<u8>, DmxError> {
    doc.validate()?;
    let l = Layout::new(&doc.header);
    if l.version == 0 || l.version > 9 {
        return Err(enc(format!(
            "binary version {} is not supported (1-9)",
            l.version
        )));
    }
    let mut e = Encoder {
        w: Writer::with_capacity(Endian::Little, 1 << 16),
        l,
        table: HashMap::new(),
    };
    e.w.bytes(&doc.header.bytes());
    e.prefix(doc)?;
    if l.has_table {
        e.string_table(doc)?;
    }
    e.element_index(doc)?;
    e.element_bodies(doc)?;
    Ok(e.w.into_inner())
}
