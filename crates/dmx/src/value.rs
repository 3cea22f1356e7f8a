//! Attribute values, their type names and their keyvalues2 text forms.

use std::fmt::Write as _;

use crate::{ElemRef, Guid};

/// The value type of an attribute, without the array flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Element,
    Int,
    Float,
    Bool,
    String,
    Binary,
    /// Object id (binary v1–2 type 7; SDK 2013 `AT_OBJECTID`).
    ElementId,
    /// Seconds, stored as ticks of 1/10000 s (binary v3+ type 7).
    Time,
    Color,
    Vector2,
    Vector3,
    Vector4,
    QAngle,
    Quaternion,
    Matrix,
    UInt64,
    UInt8,
}

pub const ALL_KINDS: [Kind; 17] = [
    Kind::Element,
    Kind::Int,
    Kind::Float,
    Kind::Bool,
    Kind::String,
    Kind::Binary,
    Kind::ElementId,
    Kind::Time,
    Kind::Color,
    Kind::Vector2,
    Kind::Vector3,
    Kind::Vector4,
    Kind::QAngle,
    Kind::Quaternion,
    Kind::Matrix,
    Kind::UInt64,
    Kind::UInt8,
];

impl Kind {
    /// The keyvalues2 type name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Element => "element",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Binary => "binary",
            Kind::ElementId => "elementid",
            Kind::Time => "time",
            Kind::Color => "color",
            Kind::Vector2 => "vector2",
            Kind::Vector3 => "vector3",
            Kind::Vector4 => "vector4",
            Kind::QAngle => "qangle",
            Kind::Quaternion => "quaternion",
            Kind::Matrix => "matrix",
            Kind::UInt64 => "uint64",
            Kind::UInt8 => "uint8",
        }
    }

    fn from_name(s: &str) -> Option<Kind> {
        Some(match s {
            "element" => Kind::Element,
            "int" => Kind::Int,
            "float" => Kind::Float,
            "bool" => Kind::Bool,
            "string" => Kind::String,
            "binary" | "void" => Kind::Binary,
            "elementid" => Kind::ElementId,
            "time" => Kind::Time,
            "color" => Kind::Color,
            "vector2" => Kind::Vector2,
            "vector3" => Kind::Vector3,
            "vector4" => Kind::Vector4,
            "qangle" | "angle" => Kind::QAngle,
            "quaternion" => Kind::Quaternion,
            "matrix" => Kind::Matrix,
            "uint64" => Kind::UInt64,
            "uint8" => Kind::UInt8,
            _ => return None,
        })
    }

    /// Binary type id (scalar) for an encoding version.
    pub fn binary_id(self, version: u32) -> Option<u8> {
        Some(match self {
            Kind::Element => 1,
            Kind::Int => 2,
            Kind::Float => 3,
            Kind::Bool => 4,
            Kind::String => 5,
            Kind::Binary => 6,
            Kind::ElementId if version < 3 => 7,
            Kind::Time if version >= 3 => 7,
            Kind::ElementId | Kind::Time => return None,
            Kind::Color => 8,
            Kind::Vector2 => 9,
            Kind::Vector3 => 10,
            Kind::Vector4 => 11,
            Kind::QAngle => 12,
            Kind::Quaternion => 13,
            Kind::Matrix => 14,
            Kind::UInt64 if version >= 9 => 15,
            Kind::UInt8 if version >= 9 => 16,
            Kind::UInt64 | Kind::UInt8 => return None,
        })
    }
}

/// A value type: a kind, scalar or array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type {
    pub kind: Kind,
    pub array: bool,
}

impl Type {
    /// Parses a keyvalues2 type name (`vector3`, `int_array`, `angle`).
    pub fn from_name(s: &str) -> Option<Type> {
        match s.strip_suffix("_array") {
            Some(base) => Kind::from_name(base).map(|kind| Type { kind, array: true }),
            None => Kind::from_name(s).map(|kind| Type { kind, array: false }),
        }
    }

    pub fn name(self) -> String {
        if self.array {
            format!("{}_array", self.kind.name())
        } else {
            self.kind.name().to_string()
        }
    }

    /// Offset between scalar and array ids in binary files.
    pub fn array_offset(version: u32) -> u8 {
        if version >= 9 { 32 } else { 14 }
    }

    pub fn binary_id(self, version: u32) -> Option<u8> {
        let id = self.kind.binary_id(version)?;
        Some(if self.array {
            id + Self::array_offset(version)
        } else {
            id
        })
    }

    pub fn from_binary_id(id: u8, version: u32) -> Option<Type> {
        let off = Self::array_offset(version);
        let (base, array) = if id > off { (id - off, true) } else { (id, false) };
        let kind = *ALL_KINDS.iter().find(|k| k.binary_id(version) == Some(base))?;
        Some(Type { kind, array })
    }
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Element(ElemRef),
    Int(i32),
    Float(f32),
    Bool(bool),
    String(String),
    Binary(Vec<u8>),
    ElementId(Guid),
    /// Ticks of 1/10000 second.
    Time(i32),
    Color([u8; 4]),
    Vector2([f32; 2]),
    Vector3([f32; 3]),
    Vector4([f32; 4]),
    QAngle([f32; 3]),
    Quaternion([f32; 4]),
    /// Row-major 4×4.
    Matrix(Box<[f32; 16]>),
    UInt64(u64),
    UInt8(u8),
    ElementArray(Vec<ElemRef>),
    IntArray(Vec<i32>),
    FloatArray(Vec<f32>),
    BoolArray(Vec<bool>),
    StringArray(Vec<String>),
    BinaryArray(Vec<Vec<u8>>),
    ElementIdArray(Vec<Guid>),
    TimeArray(Vec<i32>),
    ColorArray(Vec<[u8; 4]>),
    Vector2Array(Vec<[f32; 2]>),
    Vector3Array(Vec<[f32; 3]>),
    Vector4Array(Vec<[f32; 4]>),
    QAngleArray(Vec<[f32; 3]>),
    QuaternionArray(Vec<[f32; 4]>),
    MatrixArray(Vec<[f32; 16]>),
    UInt64Array(Vec<u64>),
    UInt8Array(Vec<u8>),
}

/// Calls `$m!(Variant, ArrayVariant, Kind)` for every kind, to write per-kind code once.
macro_rules! for_kinds {
    ($m:ident) => {
        $m! {
            Element ElementArray Element;
            Int IntArray Int;
            Float FloatArray Float;
            Bool BoolArray Bool;
            String StringArray String;
            Binary BinaryArray Binary;
            ElementId ElementIdArray ElementId;
            Time TimeArray Time;
            Color ColorArray Color;
            Vector2 Vector2Array Vector2;
            Vector3 Vector3Array Vector3;
            Vector4 Vector4Array Vector4;
            QAngle QAngleArray QAngle;
            Quaternion QuaternionArray Quaternion;
            UInt64 UInt64Array UInt64;
            UInt8 UInt8Array UInt8;
        }
    };
}

impl Value {
    pub fn ty(&self) -> Type {
        macro_rules! m {
            ($($s:ident $a:ident $k:ident;)*) => {
                match self {
                    $(Value::$s(_) => Type { kind: Kind::$k, array: false },
                      Value::$a(_) => Type { kind: Kind::$k, array: true },)*
                    Value::Matrix(_) => Type { kind: Kind::Matrix, array: false },
                    Value::MatrixArray(_) => Type { kind: Kind::Matrix, array: true },
                }
            };
        }
        for_kinds!(m)
    }

    pub fn kind(&self) -> Kind {
        self.ty().kind
    }

    /// Number of items of an array value (`None` for scalars).
    pub fn array_len(&self) -> Option<usize> {
        macro_rules! m {
            ($($s:ident $a:ident $k:ident;)*) => {
                match self {
                    $(Value::$a(v) => Some(v.len()),)*
                    Value::MatrixArray(v) => Some(v.len()),
                    _ => None,
                }
            };
        }
        for_kinds!(m)
    }

    /// Item `i` of an array value as a scalar value.
    pub fn array_item(&self, i: usize) -> Option<Value> {
        macro_rules! m {
            ($($s:ident $a:ident $k:ident;)*) => {
                match self {
                    $(Value::$a(v) => v.get(i).cloned().map(Value::$s),)*
                    Value::MatrixArray(v) => v.get(i).map(|m| Value::Matrix(Box::new(*m))),
                    _ => None,
                }
            };
        }
        for_kinds!(m)
    }

    /// An empty array of a kind.
    pub fn empty_array(kind: Kind) -> Value {
        macro_rules! m {
            ($($s:ident $a:ident $k:ident;)*) => {
                match kind {
                    $(Kind::$k => Value::$a(Vec::new()),)*
                    Kind::Matrix => Value::MatrixArray(Vec::new()),
                }
            };
        }
        for_kinds!(m)
    }

    /// Appends a scalar to an array value of the same kind; returns false on a kind mismatch.
    pub fn push_item(&mut self, item: Value) -> bool {
        macro_rules! m {
            ($($s:ident $a:ident $k:ident;)*) => {
                match (self, item) {
                    $((Value::$a(v), Value::$s(x)) => { v.push(x); true })*
                    (Value::MatrixArray(v), Value::Matrix(x)) => { v.push(*x); true }
                    _ => false,
                }
            };
        }
        for_kinds!(m)
    }

    /// Calls `f` on every element reference in the value.
    pub fn for_each_ref(&self, mut f: impl FnMut(ElemRef)) {
        match self {
            Value::Element(r) => f(*r),
            Value::ElementArray(v) => v.iter().for_each(|r| f(*r)),
            _ => {}
        }
    }

    /// Equality that compares floats by bits (−0 differs from 0), with every NaN equal.
    pub fn bits_eq(&self, other: &Value) -> bool {
        // Any two NaNs count as equal: keyvalues2 text cannot carry NaN payloads.
        fn f(a: &[f32], b: &[f32]) -> bool {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
        }
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => f(&[*a], &[*b]),
            (Value::Vector2(a), Value::Vector2(b)) => f(a, b),
            (Value::Vector3(a), Value::Vector3(b)) | (Value::QAngle(a), Value::QAngle(b)) => f(a, b),
            (Value::Vector4(a), Value::Vector4(b)) | (Value::Quaternion(a), Value::Quaternion(b)) => f(a, b),
            (Value::Matrix(a), Value::Matrix(b)) => f(&a[..], &b[..]),
            (Value::FloatArray(a), Value::FloatArray(b)) => f(a, b),
            (Value::Vector2Array(a), Value::Vector2Array(b)) => f(a.as_flattened(), b.as_flattened()),
            (Value::Vector3Array(a), Value::Vector3Array(b))
            | (Value::QAngleArray(a), Value::QAngleArray(b)) => f(a.as_flattened(), b.as_flattened()),
            (Value::Vector4Array(a), Value::Vector4Array(b))
            | (Value::QuaternionArray(a), Value::QuaternionArray(b)) => f(a.as_flattened(), b.as_flattened()),
            (Value::MatrixArray(a), Value::MatrixArray(b)) => f(a.as_flattened(), b.as_flattened()),
            (a, b) => a == b,
        }
    }

    /// The keyvalues2 text of a scalar value (strings as they are; `None` for element
    /// references and arrays).
    pub fn to_text(&self) -> Option<String> {
        if self.ty().array || matches!(self, Value::Element(_)) {
            return None;
        }
        let mut s = String::new();
        format_scalar(self, &mut s);
        Some(s)
    }

    pub fn as_int(&self) -> Option<i32> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt8(v) => Some(*v as i32),
            Value::Bool(b) => Some(*b as i32),
            _ => None,
        }
    }
    pub fn as_float(&self) -> Option<f32> {
        match self {
            Value::Float(v) => Some(*v),
            Value::Int(v) => Some(*v as f32),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(v) => Some(*v),
            Value::Int(v) => Some(*v != 0),
            Value::UInt8(v) => Some(*v != 0),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_element(&self) -> Option<ElemRef> {
        match self {
            Value::Element(r) => Some(*r),
            _ => None,
        }
    }
    pub fn as_vector3(&self) -> Option<[f32; 3]> {
        match self {
            Value::Vector3(v) | Value::QAngle(v) => Some(*v),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// keyvalues2 text forms of scalars

fn floats<const N: usize>(s: &str) -> Option<[f32; N]> {
    let mut out = [0.0f32; N];
    let mut it = s.split_ascii_whitespace();
    for o in out.iter_mut() {
        *o = parse_f32(it.next()?)?;
    }
    if it.next().is_some() {
        return None;
    }
    Some(out)
}

fn parse_f32(s: &str) -> Option<f32> {
    s.parse::<f32>().ok().or_else(|| {
        // MSVC spellings of special values.
        let l = s.to_ascii_lowercase();
        if l.contains("#inf") || l == "inf" {
            Some(if l.starts_with('-') {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            })
        } else if l.contains("#ind") || l.contains("#qnan") || l.contains("nan") {
            Some(f32::NAN)
        } else {
            None
        }
    })
}

fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim();
    t.parse::<i64>()
        .ok()
        .or_else(|| t.parse::<f64>().ok().filter(|f| f.is_finite()).map(|f| f as i64))
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| Some(((p[0] as char).to_digit(16)? * 16 + (p[1] as char).to_digit(16)?) as u8))
        .collect()
}

/// Parses the text of one scalar of `kind` (not an element reference).
pub(crate) fn parse_scalar(kind: Kind, s: &str) -> Option<Value> {
    Some(match kind {
        Kind::Element => return None,
        Kind::Int => Value::Int(parse_int(s)? as i32),
        Kind::Float => Value::Float(parse_f32(s.trim())?),
        Kind::Bool => Value::Bool(parse_bool(s)?),
        Kind::String => Value::String(s.to_string()),
        Kind::Binary => Value::Binary(hex_bytes(s)?),
        Kind::ElementId => Value::ElementId(Guid::parse(s)?),
        Kind::Time => Value::Time((s.trim().parse::<f64>().ok()? * 10000.0).round() as i32),
        Kind::Color => Value::Color(parse_color(s)?),
        Kind::Vector2 => Value::Vector2(floats(s)?),
        Kind::Vector3 => Value::Vector3(floats(s)?),
        Kind::Vector4 => Value::Vector4(floats(s)?),
        Kind::QAngle => Value::QAngle(floats(s)?),
        Kind::Quaternion => Value::Quaternion(floats(s)?),
        Kind::Matrix => Value::Matrix(Box::new(floats(s)?)),
        Kind::UInt64 => Value::UInt64(parse_u64(s)?),
        Kind::UInt8 => Value::UInt8(parse_int(s)?.clamp(0, 255) as u8),
    })
}

/// A bool: `1`/`true`/`yes`, `0`/`false`/`no`/empty, or any number (true when not zero).
fn parse_bool(s: &str) -> Option<bool> {
    Some(match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => true,
        "0" | "false" | "no" | "" => false,
        other => other.parse::<f64>().ok()? != 0.0,
    })
}

/// A colour: three or four integers (alpha 255 when left out), each clamped to 0-255.
fn parse_color(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<i64> = s.split_ascii_whitespace().map(parse_int).collect::<Option<_>>()?;
    let c = |i: usize| parts.get(i).map(|&v| v.clamp(0, 255) as u8);
    match parts.len() {
        3 => Some([c(0)?, c(1)?, c(2)?, 255]),
        4 => Some([c(0)?, c(1)?, c(2)?, c(3)?]),
        _ => None,
    }
}

/// A u64: hexadecimal after `0x`, else decimal.
fn parse_u64(s: &str) -> Option<u64> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

fn push_display(out: &mut String, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn push_floats(out: &mut String, v: &[f32]) {
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{x}");
    }
}

/// Valve's text spelling of a scalar value (element references excluded). Floats use the
/// shortest form that reads back to the same bits.
pub(crate) fn format_scalar(v: &Value, out: &mut String) {
    match v {
        Value::Int(x) => push_display(out, x),
        Value::Float(x) => push_floats(out, &[*x]),
        Value::Bool(b) => out.push(if *b { '1' } else { '0' }),
        Value::String(s) => out.push_str(s),
        Value::Binary(b) => {
            for byte in b {
                let _ = write!(out, "{byte:02X}");
            }
        }
        Value::ElementId(g) => push_display(out, g),
        Value::Time(t) => push_display(out, *t as f64 / 10000.0),
        Value::Color(c) => {
            let _ = write!(out, "{} {} {} {}", c[0], c[1], c[2], c[3]);
        }
        Value::Vector2(v) => push_floats(out, v),
        Value::Vector3(v) | Value::QAngle(v) => push_floats(out, v),
        Value::Vector4(v) | Value::Quaternion(v) => push_floats(out, v),
        Value::Matrix(m) => push_floats(out, &m[..]),
        Value::UInt64(x) => {
            let _ = write!(out, "{x:#x}");
        }
        Value::UInt8(x) => push_display(out, x),
        Value::Element(_) => {}
        _ => {}
    }
}
