//! VScripts (Squirrel): the scripts an entity runs, the scripts they include, and the files
//! their string literals name.

use crate::refs::{Ref, by_extension};

/// Functions whose first argument is a script this one runs.
const INCLUDES: &[&str] = &["IncludeScript", "DoIncludeScript"];

/// The string literals of Squirrel source, each with the text just before its opening quote.
fn literals(src: &str) -> Vec<(usize, String)> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'#' => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].find("*/").map_or(bytes.len(), |e| i + 4 + e)
            }
            b'"' => {
                let (text, end) = quoted(bytes, i + 1);
                out.push((i, text));
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

/// A string's text from `start` (after the quote) and the index after its closing quote.
fn quoted(bytes: &[u8], start: usize) -> (String, usize) {
    let mut text = Vec::new();
    let mut i = start;
    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
        if bytes[i] == b'\\' && i + 1 < bytes.len() {
            i += 1;
        }
        text.push(bytes[i]);
        i += 1;
    }
    (String::from_utf8_lossy(&text).into_owned(), i + 1)
}

/// Whether the source just before `at` calls one of the include functions.
fn is_include(src: &str, at: usize) -> bool {
    let before = src[..at].trim_end();
    let Some(call) = before.strip_suffix('(') else {
        return false;
    };
    INCLUDES.iter().any(|f| call.trim_end().ends_with(f))
}

/// The references of a script's source.
pub fn refs(src: &[u8]) -> Vec<Ref> {
    let src = String::from_utf8_lossy(src);
    literals(&src)
        .into_iter()
        .filter_map(|(at, text)| {
            if is_include(&src, at) && crate::refs::plausible_name(&text) {
                Some(Ref::to(crate::path::script(&text), "IncludeScript").including())
            } else {
                by_extension(&text, "string in script")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_and_named_files() {
        let src = br#"// IncludeScript("commented")
IncludeScript( "lib/util" ); DoIncludeScript("b.nut", null)
/* "x.mdl" */ PrecacheModel("models/props/a.mdl"); local s = "say \"hi\" mvm/x.wav"
PrecacheSound("ambient/wind.wav") # "c.mdl""#;
        let got: Vec<(String, bool)> = refs(src)
            .into_iter()
            .map(|r| (r.candidates[0].clone(), r.include))
            .collect();
        assert_eq!(
            got,
            [
                ("scripts/vscripts/lib/util.nut".to_string(), true),
                ("scripts/vscripts/b.nut".to_string(), true),
                ("models/props/a.mdl".to_string(), false),
                ("sound/ambient/wind.wav".to_string(), false),
            ]
        );
        assert!(refs(b"\"unterminated").is_empty());
    }
}
