//! KeyValues1 trees for materials and `gameinfo.txt`: owned entries built from `srcmap-kv`'s
//! document, `[$CONDITION]` suffixes kept (not evaluated). Keys keep their case; lookups are
//! case-insensitive, as the engine's are.

use crate::{ContentError, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvValue {
    Text(String),
    Block(Vec<KvNode>),
}

/// One `key value` or `key { ... }` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvNode {
    pub key: String,
    pub value: KvValue,
    /// A `[$X360]`-style condition after the entry, if any.
    pub condition: Option<String>,
}

impl KvNode {
    pub fn text(&self) -> Option<&str> {
        match &self.value {
            KvValue::Text(t) => Some(t),
            KvValue::Block(_) => None,
        }
    }
    pub fn children(&self) -> &[KvNode] {
        match &self.value {
            KvValue::Block(b) => b,
            KvValue::Text(_) => &[],
        }
    }
    /// First child named `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&KvNode> {
        self.children().iter().find(|n| n.key.eq_ignore_ascii_case(key))
    }
    pub fn get_text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(KvNode::text)
    }
}

/// Parses a KeyValues document into its top-level entries. `path` names the file in errors.
/// The text is read by `srcmap-kv`, the project's one KeyValues parser; game files that are not
/// UTF-8 (Latin-1 comments in old VMTs) are read with the odd bytes replaced.
pub fn parse(text: &[u8], path: &str) -> Result<Vec<KvNode>> {
    let text = String::from_utf8_lossy(text);
    let doc = srcmap_kv::Document::parse(text.as_ref()).map_err(|e| ContentError::Syntax {
        path: path.to_string(),
        line: e.line,
        message: format!("column {}: {}", e.column, e.message),
    })?;
    Ok(nodes(&doc, srcmap_kv::NodeId::ROOT))
}

fn nodes(doc: &srcmap_kv::Document, block: srcmap_kv::NodeId) -> Vec<KvNode> {
    doc.children(block)
        .map(|id| KvNode {
            key: doc.key(id).to_owned(),
            value: match doc.value(id) {
                Some(v) => KvValue::Text(v.to_owned()),
                None => KvValue::Block(nodes(doc, id)),
            },
            condition: doc.condition(id).map(str::to_owned),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_blocks_comments_and_conditions() {
        let t = b"// c\n\"LightmappedGeneric\"\n{\n $basetexture \"a/b\" // x\n $alpha 0.5 [$X360]\n Proxies { Sine { resultVar $alpha } }\n}\n";
        let kv = super::parse(t, "t.vmt").unwrap();
        assert_eq!(kv.len(), 1);
        assert_eq!(kv[0].key, "LightmappedGeneric");
        assert_eq!(kv[0].get_text("$BASETEXTURE"), Some("a/b"));
        assert_eq!(kv[0].get("$alpha").unwrap().condition.as_deref(), Some("$X360"));
        assert!(kv[0].get("proxies").unwrap().get("sine").is_some());
        assert!(super::parse(b"a { b c", "x").is_err());
        assert!(super::parse(b"a } ", "x").is_err());
    }

    #[test]
    fn hostile_nesting_is_a_syntax_error_naming_the_file() {
        let deep = "LightmappedGeneric {\n".repeat(40_000) + &"}\n".repeat(40_000);
        let e = super::parse(deep.as_bytes(), "materials/deep.vmt")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("materials/deep.vmt") && e.contains("nested deeper"),
            "{e}"
        );
    }
}
