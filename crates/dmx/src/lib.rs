//! Datamodel exchange (DMX): keyvalues2 text and binary encodings, read and write.
//!
//! One in-memory model serves every encoding: a [`Dmx`] holds an ordered list of [`Element`]s
//! (element 0 is the root), each with a class, a name, a 16-byte id and an ordered list of typed
//! [`Attribute`]s. Element references are indexes into that list ([`ElemRef::Local`]), null, or
//! the GUID of an element outside the file ([`ElemRef::External`]).
//!
//! Byte-exact writing: a document keeps what its source encoding needs beyond the model — the
//! binary string table in its original order, and for keyvalues2 the original tokens, their
//! spellings and the whitespace between them ([`TextLayout`]). Writing in the source encoding
//! reuses every original token whose meaning is unchanged, so an unmodified document is written
//! back byte for byte and an edited one changes only the edited tokens. Converting to the other
//! encoding uses canonical formatting (Valve's layout for keyvalues2, first-use string order for
//! binary).
//!
//! Supported: binary versions 1–5, 7 and 9, legacy `<!-- DMXVersion binary_vN -->` headers,
//! and keyvalues2 1–4 with or without ids, including the `$prefix_element$` block. Version 7
//! is pinned down from Dota 2's 2015 `barebones.vmap`: a prefix block, an i32 "link type"
//! after each element's class in the index, null (−1) name and string indexes, and the
//! version 3–5 type ids (arrays at +14). Versions 6 and 8 follow datamodel-rs's description
//! (6: link type, no prefix; 8: prefix, no link type) and are unverified: no file exists.
//!
//! Known limits of byte-exact rewriting (none occur in real files): a binary string table that
//! repeats a string is written with the first index of each string; an external reference's
//! GUID string is written in lower case; NaN payloads do not survive keyvalues2.

mod binary;
mod guid;
mod header;
mod strings;
mod text;
mod value;

pub use guid::Guid;
pub use header::Header;
pub use text::TextLayout;
pub use value::{Kind, Type, Value};

/// Errors from decoding or encoding. Binary errors carry a byte offset, text errors a
/// `line:column` position.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DmxError {
    #[error("bad DMX header: {0}")]
    Header(String),
    #[error("byte {offset}: {message}")]
    Binary { offset: u64, message: String },
    #[error("{line}:{column}: {message}")]
    Text {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("cannot encode: {0}")]
    Encode(String),
}

impl From<srcmap_bytes::ReadError> for DmxError {
    fn from(e: srcmap_bytes::ReadError) -> Self {
        // The offset is a field of its own; keep it out of the message.
        let message = match &e {
            srcmap_bytes::ReadError::UnexpectedEnd {
                needed, available, ..
            } => {
                format!("unexpected end of data: needed {needed} bytes, {available} available")
            }
            srcmap_bytes::ReadError::Invalid { message, .. } => message.clone(),
        };
        DmxError::Binary {
            offset: e.offset(),
            message,
        }
    }
}

/// A reference from an attribute to an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemRef {
    Null,
    /// Index into [`Dmx::elements`].
    Local(u32),
    /// An element stored elsewhere, known only by its id (binary index −2).
    External(Guid),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub class: String,
    pub name: String,
    pub id: Guid,
    pub attrs: Vec<Attribute>,
}

impl Element {
    pub fn new(class: impl Into<String>, name: impl Into<String>, id: Guid) -> Self {
        Element {
            class: class.into(),
            name: name.into(),
            id,
            attrs: Vec::new(),
        }
    }
    /// The first attribute called `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.attrs.iter().find(|a| a.name == name).map(|a| &a.value)
    }
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.attrs
            .iter_mut()
            .find(|a| a.name == name)
            .map(|a| &mut a.value)
    }
    /// Sets (replacing the first of that name) or appends an attribute.
    pub fn set(&mut self, name: &str, value: Value) {
        match self.get_mut(name) {
            Some(v) => *v = value,
            None => self.attrs.push(Attribute {
                name: name.to_string(),
                value,
            }),
        }
    }
}

/// The loose attribute list stored before the root (binary 7/9; keyvalues2 4 `$prefix_element$`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PrefixElement {
    /// The `id` a text file gave the block, if any.
    pub id: Option<Guid>,
    pub attrs: Vec<Attribute>,
}

/// The parts of a binary file the model does not hold, kept for byte-exact rewriting.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BinaryLayout {
    /// The string table in its original order (duplicates and unused entries included).
    pub string_table: Vec<String>,
    /// Elements whose name index was −1 (no name); they read as "" and are written as −1
    /// again while their name stays empty.
    pub null_names: Vec<u32>,
    /// Versions 6–7: the i32 stored after each element's type (meaning unknown).
    pub link_types: Vec<i32>,
}

/// Which encoding a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Binary(u32),
    KeyValues2(u32),
}

impl Encoding {
    /// Parses `binary9`, `binary 5`, `binary`, `keyvalues2`, `keyvalues2_4`, `kv2`, …
    /// A missing version is chosen from the document when writing (see [`Dmx::write_as`]).
    pub fn parse(s: &str) -> Option<(bool, Option<u32>)> {
        let s = s.trim().to_ascii_lowercase();
        let (is_binary, rest) = if let Some(r) = s.strip_prefix("binary") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("keyvalues2") {
            (false, r)
        } else if let Some(r) = s.strip_prefix("kv2") {
            (false, r)
        } else {
            return None;
        };
        let rest = rest.trim_start_matches(['_', ' ', '-', 'v']);
        if rest.is_empty() {
            return Some((is_binary, None));
        }
        rest.parse().ok().map(|v| (is_binary, Some(v)))
    }
}

/// A DMX document.
#[derive(Debug, Clone, PartialEq)]
pub struct Dmx {
    pub header: Header,
    /// Element 0 is the root.
    pub elements: Vec<Element>,
    pub prefix: Vec<PrefixElement>,
    /// What a binary source needs beyond the model: its string table and null names.
    pub binary_layout: Option<BinaryLayout>,
    /// Tokens and whitespace of the keyvalues2 source, for byte-exact rewriting.
    pub text_layout: Option<Box<TextLayout>>,
}

impl Dmx {
    /// A new empty document with a root element.
    pub fn new(header: Header, root: Element) -> Self {
        Dmx {
            header,
            elements: vec![root],
            prefix: Vec::new(),
            binary_layout: None,
            text_layout: None,
        }
    }

    /// Decodes a file in any supported encoding.
    pub fn read(data: &[u8]) -> Result<Dmx, DmxError> {
        let (header, body_start) = header::parse(data)?;
        if header.is_binary() {
            binary::read(data, header, body_start)
        } else {
            text::read(data, header, body_start)
        }
    }

    /// The encoding named by the header.
    pub fn encoding(&self) -> Encoding {
        if self.header.is_binary() {
            Encoding::Binary(self.header.encoding_version)
        } else {
            Encoding::KeyValues2(self.header.encoding_version)
        }
    }

    /// Encodes in the document's own encoding.
    pub fn write(&self) -> Result<Vec<u8>, DmxError> {
        if self.header.is_binary() {
            binary::write(self)
        } else {
            text::write(self)
        }
    }

    /// Encodes in another encoding (or version). `version: None` keeps the current version when
    /// the kind of encoding is unchanged, else picks binary 9 / keyvalues2 1 (4 when the document
    /// needs version-4 features: a prefix, uint8 or uint64).
    pub fn write_as(&self, binary: bool, version: Option<u32>) -> Result<Vec<u8>, DmxError> {
        let same_kind = binary == self.header.is_binary();
        let version = match version {
            Some(v) => v,
            None if same_kind => self.header.encoding_version,
            None if binary => 9,
            None => {
                if self.needs_v4_text() {
                    4
                } else {
                    1
                }
            }
        };
        if same_kind && version == self.header.encoding_version {
            return self.write();
        }
        let mut doc = self.clone();
        doc.header = self.header.with_encoding(binary, version);
        doc.clear_layout();
        doc.write()
    }

    fn needs_v4_text(&self) -> bool {
        !self.prefix.is_empty()
            || self.elements.iter().any(|e| {
                e.attrs
                    .iter()
                    .any(|a| matches!(a.value.kind(), Kind::UInt8 | Kind::UInt64))
            })
    }

    pub fn root(&self) -> Option<&Element> {
        self.elements.first()
    }

    /// The element a reference points to, if it is local and in range.
    pub fn resolve(&self, r: ElemRef) -> Option<&Element> {
        match r {
            ElemRef::Local(i) => self.elements.get(i as usize),
            _ => None,
        }
    }

    /// Index of the element with this id.
    pub fn find_by_id(&self, id: Guid) -> Option<u32> {
        self.elements.iter().position(|e| e.id == id).map(|i| i as u32)
    }

    /// Drops the remembered source formatting, so the next write is fully canonical.
    pub fn clear_layout(&mut self) {
        self.text_layout = None;
        self.binary_layout = None;
    }

    /// Elements reachable from the root, in depth-first pre-order (root first).
    pub fn reachable(&self) -> Vec<u32> {
        let mut seen = vec![false; self.elements.len()];
        let mut order = Vec::new();
        if self.elements.is_empty() {
            return order;
        }
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i as usize], true) {
                continue;
            }
            order.push(i);
            let mut children = Vec::new();
            for a in &self.elements[i as usize].attrs {
                a.value.for_each_ref(|r| {
                    if let ElemRef::Local(j) = r
                        && (j as usize) < seen.len()
                        && !seen[j as usize]
                    {
                        children.push(j);
                    }
                });
            }
            stack.extend(children.into_iter().rev());
        }
        order
    }

    /// Checks that every local reference is in range.
    pub fn validate(&self) -> Result<(), DmxError> {
        let n = self.elements.len() as u32;
        for (i, e) in self.elements.iter().enumerate() {
            for a in &e.attrs {
                let mut bad = None;
                a.value.for_each_ref(|r| {
                    if let ElemRef::Local(j) = r
                        && j >= n
                    {
                        bad = Some(j);
                    }
                });
                if let Some(j) = bad {
                    return Err(DmxError::Encode(format!(
                        "element {i} ({}) attribute {}: reference to element {j}, but there are only {n}",
                        e.class, a.name
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The first difference [`compare`] finds between two documents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Difference {
    #[error("prefix element count {0} vs {1}")]
    PrefixCount(usize, usize),
    #[error("prefix attributes differ")]
    PrefixAttributes,
    #[error("reachable element count {0} vs {1}")]
    ReachableCount(usize, usize),
    /// An element of the first document has no element with its id in the second.
    #[error("element {id} ({class}) missing")]
    Missing { id: Guid, class: String },
    #[error("element {id}: class/name {}/{} vs {}/{}", .a.0, .a.1, .b.0, .b.1)]
    ClassOrName {
        id: Guid,
        /// Class and name in each document.
        a: (String, String),
        b: (String, String),
    },
    #[error("element {id} ({class}): {a} vs {b} attributes")]
    AttributeCount {
        id: Guid,
        class: String,
        a: usize,
        b: usize,
    },
    #[error("element {id} ({class}) attribute {name} differs")]
    Attribute { id: Guid, class: String, name: String },
}

/// Compares two documents element for element, following references by structure (ids,
/// classes, names, attribute order and values), ignoring layout and element order. Returns the
/// first difference found.
pub fn compare(a: &Dmx, b: &Dmx) -> Result<(), Difference> {
    compare_prefix(a, b)?;
    let (ra, rb) = (a.reachable(), b.reachable());
    if ra.len() != rb.len() {
        return Err(Difference::ReachableCount(ra.len(), rb.len()));
    }
    // Map by id: ids are preserved by every conversion.
    let mut by_id = std::collections::HashMap::new();
    for &j in &rb {
        by_id.insert(b.elements[j as usize].id, j);
    }
    for &i in &ra {
        let ea = &a.elements[i as usize];
        let Some(&j) = by_id.get(&ea.id) else {
            return Err(Difference::Missing {
                id: ea.id,
                class: ea.class.clone(),
            });
        };
        compare_element(a, ea, b, &b.elements[j as usize])?;
    }
    Ok(())
}

/// The prefix elements: as many, with the same attributes.
fn compare_prefix(a: &Dmx, b: &Dmx) -> Result<(), Difference> {
    if a.prefix.len() != b.prefix.len() {
        return Err(Difference::PrefixCount(a.prefix.len(), b.prefix.len()));
    }
    for (pa, pb) in a.prefix.iter().zip(&b.prefix) {
        if pa.attrs != pb.attrs {
            return Err(Difference::PrefixAttributes);
        }
    }
    Ok(())
}

/// Element `ea` of `a` against element `eb` of `b` (the same id): class, name, attributes.
fn compare_element(a: &Dmx, ea: &Element, b: &Dmx, eb: &Element) -> Result<(), Difference> {
    if ea.class != eb.class || ea.name != eb.name {
        return Err(Difference::ClassOrName {
            id: ea.id,
            a: (ea.class.clone(), ea.name.clone()),
            b: (eb.class.clone(), eb.name.clone()),
        });
    }
    if ea.attrs.len() != eb.attrs.len() {
        return Err(Difference::AttributeCount {
            id: ea.id,
            class: ea.class.clone(),
            a: ea.attrs.len(),
            b: eb.attrs.len(),
        });
    }
    for (x, y) in ea.attrs.iter().zip(&eb.attrs) {
        if !same_attribute(a, x, b, y) {
            return Err(Difference::Attribute {
                id: ea.id,
                class: ea.class.clone(),
                name: x.name.clone(),
            });
        }
    }
    Ok(())
}

/// Whether attribute `x` of `a` and `y` of `b` are the same: name, and value (element
/// references compared by the id they lead to).
fn same_attribute(a: &Dmx, x: &Attribute, b: &Dmx, y: &Attribute) -> bool {
    x.name == y.name
        && match (&x.value, &y.value) {
            (Value::Element(p), Value::Element(q)) => ref_id(a, *p) == ref_id(b, *q),
            (Value::ElementArray(p), Value::ElementArray(q)) => {
                p.len() == q.len() && p.iter().zip(q).all(|(p, q)| ref_id(a, *p) == ref_id(b, *q))
            }
            (p, q) => p.bits_eq(q),
        }
}

/// The id a reference in `doc` leads to (`None` for null or a dangling local index).
fn ref_id(doc: &Dmx, r: ElemRef) -> Option<Guid> {
    match r {
        ElemRef::Local(k) => doc.elements.get(k as usize).map(|e| e.id),
        ElemRef::External(g) => Some(g),
        ElemRef::Null => None,
    }
}
