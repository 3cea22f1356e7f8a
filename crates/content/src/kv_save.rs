//! KeyValues as Valve's tools load and save them, for the files vbsp rewrites from the game's
//! own (a material's `_wvt_patch` copy). Loading evaluates `[$CONDITION]`s as a Windows PC
//! tool does and types each value (int, float or string); saving prints ints with `%d` and
//! floats with `%f` (so `0.005` comes back as `0.005000`), drops empty strings and empty
//! blocks, and ends lines with CRLF, as a text file added to the pakfile.

use crate::kv::{KvNode, KvValue};

/// Whether an entry's `[$CONDITION]` holds for Valve's tools on a Windows PC: `$WIN32` and
/// `$WINDOWS` do, the other platforms don't, `!` negates, anything unknown fails.
pub fn condition_holds(condition: &str) -> bool {
    let c = condition.trim_start_matches('[').to_ascii_uppercase();
    let not = c.starts_with('!');
    for (name, on_windows_pc) in [
        ("$DECK", false),
        ("$X360", false),
        ("$WIN32", true),
        ("$WINDOWS", true),
        ("$OSX", false),
        ("$LINUX", false),
        ("$POSIX", false),
    ] {
        if c.contains(name) {
            return on_windows_pc ^ not;
        }
    }
    false
}

/// The entries Valve's loader keeps: those whose condition holds, at every depth.
pub fn evaluate_conditions(nodes: &[KvNode]) -> Vec<KvNode> {
    nodes
        .iter()
        .filter(|n| n.condition.as_deref().is_none_or(condition_holds))
        .map(|n| KvNode {
            key: n.key.clone(),
            value: match &n.value {
                KvValue::Text(t) => KvValue::Text(t.clone()),
                KvValue::Block(b) => KvValue::Block(evaluate_conditions(b)),
            },
            condition: None,
        })
        .collect()
}

/// A value as Valve's loader types it.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedValue<'a> {
    Int(i32),
    Float(f32),
    /// An 18-character `0x` + 16 hex digits value.
    Uint64(u64),
    Text(&'a str),
}

impl TypedValue<'_> {
    /// The value's text as Valve's saver prints it; `None` for an empty string (not written).
    pub fn saved(&self) -> Option<String> {
        match self {
            TypedValue::Int(i) => Some(i.to_string()),
            TypedValue::Float(f) => Some(format!("{:.6}", *f as f64)),
            TypedValue::Uint64(u) => Some(format!("0x{u:016X}")),
            TypedValue::Text("") => None,
            TypedValue::Text(t) => Some(t.to_string()),
        }
    }

    /// Valve's `GetInt`: ints as they are, floats truncated, strings by `atoi`.
    pub fn as_int(&self) -> i64 {
        match self {
            TypedValue::Int(i) => *i as i64,
            TypedValue::Float(f) => *f as i64,
            TypedValue::Uint64(u) => *u as i64,
            TypedValue::Text(t) => {
                let (sign, digits) = number_prefix(t.trim_start());
                digits.parse::<i64>().map_or(0, |v| sign * v)
            }
        }
    }
}

/// Leading sign and the digits after it.
fn number_prefix(t: &str) -> (i64, &str) {
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let end = rest.bytes().take_while(u8::is_ascii_digit).count();
    (sign, &rest[..end])
}

/// Where the whitespace C's number parsers skip ends.
fn leading_space(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_whitespace()).count()
}

/// `i`, past a sign there.
fn after_sign(b: &[u8], i: usize) -> usize {
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i + 1
    } else {
        i
    }
}

/// How many decimal digits start at `i`.
fn digits_at(b: &[u8], i: usize) -> usize {
    b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
}

/// How far C's `strtol(s, &end, 10)` reads (0 when it reads no number).
fn strtol_len(s: &str) -> usize {
    let b = s.as_bytes();
    let i = after_sign(b, leading_space(b));
    let digits = digits_at(b, i);
    if digits == 0 { 0 } else { i + digits }
}

/// How far C's `strtod` reads a decimal number (0 when it reads none); infinities, NaNs and
/// hex are left to be text, as Valve's loader treats them.
fn strtod_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = after_sign(b, leading_space(b));
    let int_digits = digits_at(b, i);
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        frac_digits = digits_at(b, i + 1);
        if int_digits + frac_digits > 0 {
            i += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return 0;
    }
    exponent_end(b, i)
}

/// Where a number's mantissa ending at `i` ends with its exponent (`e`, sign, digits), if it
/// has a whole one.
fn exponent_end(b: &[u8], i: usize) -> usize {
    if !matches!(b.get(i), Some(b'e' | b'E')) {
        return i;
    }
    let j = after_sign(b, i + 1);
    let exp_digits = digits_at(b, j);
    if exp_digits > 0 { j + exp_digits } else { i }
}

/// Types a value as Valve's `RecursiveLoadFromBuffer`: a float when `strtod` reads all of it
/// and further than `strtol`, an int when `strtol` reads all of it without overflow (32-bit
/// `long`, as on Windows), else text.
pub fn typed_value(text: &str) -> TypedValue<'_> {
    if text.is_empty() {
        return TypedValue::Text(text);
    }
    let b = text.as_bytes();
    if b.len() == 18 && b[0] == b'0' && b[1] == b'x' {
        return TypedValue::Uint64(valve_hex(&b[2..]));
    }
    let (int_end, float_end) = (strtol_len(text), strtod_len(text));
    if float_end > int_end && float_end == text.len() {
        let f: f64 = text.trim_start().parse().unwrap_or(0.0);
        return TypedValue::Float(f as f32);
    }
    if int_end == text.len()
        && let Some(v) = long_value(text)
    {
        return TypedValue::Int(v);
    }
    TypedValue::Text(text)
}

/// The 64-bit value of 16 hex digits; Valve folds each character into a hex digit without
/// checking it.
fn valve_hex(digits: &[u8]) -> u64 {
    digits.iter().fold(0u64, |acc, &c| {
        let digit = match c {
            b'a'.. => c.wrapping_sub(b'a' - b'9' - 1),
            b'A'.. => c.wrapping_sub(b'A' - b'9' - 1),
            _ => c,
        };
        acc.wrapping_mul(16).wrapping_add(digit.wrapping_sub(b'0') as u64)
    })
}

/// A whole-text integer's value, when a 32-bit `long` holds it without overflow (`strtol`'s
/// clamped limits count as overflow).
fn long_value(text: &str) -> Option<i32> {
    let (sign, digits) = number_prefix(text.trim_start());
    let v = i32::try_from(sign * digits.parse::<i64>().ok()?).ok()?;
    (v != i32::MAX && v != i32::MIN).then_some(v)
}

/// `"` escaped with a backslash, as Valve's `WriteConvertedString` does (backslashes are not).
fn escaped(s: &str) -> String {
    s.replace('"', "\\\"")
}

/// The text Valve's `RecursiveSaveToFile` writes for `root` at indent 0, with CRLF line ends.
pub fn saved_text(root: &KvNode) -> String {
    let mut out = String::new();
    save_block(&mut out, &root.key, root.children(), 0);
    out.replace('\n', "\r\n")
}

fn save_block(out: &mut String, name: &str, children: &[KvNode], depth: usize) {
    let indent = "\t".repeat(depth);
    out.push_str(&format!("{indent}\"{}\"\n{indent}{{\n", escaped(name)));
    for child in children {
        match &child.value {
            KvValue::Block(b) if !b.is_empty() => save_block(out, &child.key, b, depth + 1),
            // An empty block has no value to write.
            KvValue::Block(_) => {}
            KvValue::Text(t) => {
                let typed = typed_value(t);
                let Some(value) = typed.saved() else { continue };
                let key = match typed {
                    TypedValue::Text(_) => escaped(&child.key),
                    _ => child.key.clone(),
                };
                out.push_str(&format!(
                    "{indent}\t\"{key}\"\t\t\"{}\"\n",
                    escaped_if_text(&typed, value)
                ));
            }
        }
    }
    out.push_str(&format!("{indent}}}\n"));
}

fn escaped_if_text(typed: &TypedValue<'_>, value: String) -> String {
    match typed {
        TypedValue::Text(_) => escaped(&value),
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_as_valve_loads_them() {
        assert_eq!(typed_value("1"), TypedValue::Int(1));
        assert_eq!(typed_value(" -7"), TypedValue::Int(-7));
        assert_eq!(typed_value("0.005").saved().unwrap(), "0.005000");
        assert_eq!(typed_value(".5").saved().unwrap(), "0.500000");
        assert_eq!(typed_value("1.").saved().unwrap(), "1.000000");
        assert_eq!(typed_value("2e2").saved().unwrap(), "200.000000");
        assert_eq!(typed_value("[ .2 .2 .2 ]"), TypedValue::Text("[ .2 .2 .2 ]"));
        assert_eq!(typed_value("1 2"), TypedValue::Text("1 2"));
        assert_eq!(typed_value("99999999999"), TypedValue::Text("99999999999"));
        assert_eq!(typed_value("2e"), TypedValue::Text("2e"));
        assert_eq!(typed_value("nature/rock01"), TypedValue::Text("nature/rock01"));
        assert_eq!(
            typed_value("0x00000000000000fF").saved().unwrap(),
            "0x00000000000000FF"
        );
        assert_eq!(typed_value("").saved(), None);
        assert_eq!(typed_value("3.9").as_int(), 3);
        assert_eq!(typed_value("12abc").as_int(), 12);
    }

    #[test]
    fn conditions_hold_for_a_windows_pc_tool() {
        assert!(condition_holds("$WIN32") && condition_holds("[$WINDOWS]"));
        assert!(!condition_holds("$X360") && condition_holds("!$X360"));
        assert!(!condition_holds("!$WIN32") && !condition_holds("$SOMETHING"));
    }

    #[test]
    fn saves_with_tabs_crlf_typed_values_and_no_empties() {
        let text = b"\"WorldVertexTransition\"\n{\n \"<dx90\" { \"$fallbackmaterial\" \"a_dx8\" }\n $basetexture \"Nature/Rock\" \n $seamless_scale 0.005\n $ssbump 1\n $x \"\"\n $y 2 [$X360]\n \"empty\" { }\n}\n";
        let nodes = evaluate_conditions(&crate::kv::parse(text, "t.vmt").unwrap());
        let saved = saved_text(&nodes[0]);
        assert_eq!(
            saved,
            "\"WorldVertexTransition\"\r\n{\r\n\t\"<dx90\"\r\n\t{\r\n\t\t\"$fallbackmaterial\"\t\t\"a_dx8\"\r\n\t}\r\n\
             \t\"$basetexture\"\t\t\"Nature/Rock\"\r\n\t\"$seamless_scale\"\t\t\"0.005000\"\r\n\t\"$ssbump\"\t\t\"1\"\r\n}\r\n"
        );
        let quoted = KvNode {
            key: "a".into(),
            value: KvValue::Block(vec![KvNode {
                key: "$q".into(),
                value: KvValue::Text("say \"hi\"".into()),
                condition: None,
            }]),
            condition: None,
        };
        assert_eq!(
            saved_text(&quoted),
            "\"a\"\r\n{\r\n\t\"$q\"\t\t\"say \\\"hi\\\"\"\r\n}\r\n"
        );
    }
}
