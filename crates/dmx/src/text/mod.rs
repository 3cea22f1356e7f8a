//! keyvalues2 text encoding (dmx.md §5), versions 1–4, with or without ids.
//!
//! Lossless rewriting works on tokens: the reader keeps every token's span and the whitespace
//! and comments before it ([`TextLayout`]). The writer generates the canonical token sequence
//! for the model and, position by position, reuses the original token (and its leading trivia)
//! whenever it means the same thing: same punctuation, same decoded string, same type, or a
//! value that parses to the same bits. An unmodified document therefore comes back byte for
//! byte, including odd number spellings (`45.0`, `1e-05`), alignment spaces and blank lines.

mod lex;
mod read;
mod write;

pub(crate) use read::read;
pub(crate) use write::write;

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
