//! Writing a document back. Unedited: the source verbatim. Edited: every source byte between
//! live tokens is copied, edited tokens are substituted, removed nodes are skipped together with
//! the trivia in front of them, and new nodes are formatted the way Hammer writes (one per line,
//! tab-indented).

use crate::{Document, NodeId, NodeKind, Token};

pub(crate) fn write(doc: &Document, out: &mut Vec<u8>) {
    if !doc.edited {
        out.extend_from_slice(doc.text.as_bytes());
        return;
    }
    let root = doc.node(NodeId::ROOT);
    let end = write_children(doc, NodeId::ROOT, 0, 0, out);
    out.extend_from_slice(&doc.text.as_bytes()[end.min(root.end as usize)..]);
}

/// Writes the children of `block`, whose content starts at source offset `cursor`; returns the
/// source offset up to which everything has been written.
fn write_children(
    doc: &Document,
    block: NodeId,
    mut cursor: usize,
    depth: usize,
    out: &mut Vec<u8>,
) -> usize {
    let src = doc.text.as_bytes();
    let mut next = doc.node(block).first_child;
    while next != NodeId::NONE {
        let id = NodeId(next);
        let node = doc.node(id);
        next = node.next_sibling;
        if node.new {
            if !node.removed {
                out.push(b'\n');
                indent(out, depth);
                write_new(doc, id, depth, out);
            }
            continue;
        }
        if node.removed {
            cursor = node.end as usize;
            continue;
        }
        out.extend_from_slice(&src[cursor..node.start as usize]);
        cursor = write_source_node(doc, id, depth, out);
    }
    cursor
}

fn write_token(doc: &Document, tok: Token, out: &mut Vec<u8>) {
    if tok.owned() {
        let s = &doc.owned[tok.start as usize];
        if tok.quoted() {
            out.push(b'"');
            out.extend_from_slice(s.as_bytes());
            out.push(b'"');
        } else {
            out.extend_from_slice(s.as_bytes());
        }
    } else {
        out.extend_from_slice(&doc.text.as_bytes()[tok.start as usize..tok.end as usize]);
    }
}

/// Writes a node that came from the source; returns the source offset just past it. Edited
/// tokens are replaced, using the original token extents recorded at the first edit.
fn write_source_node(doc: &Document, id: NodeId, depth: usize, out: &mut Vec<u8>) -> usize {
    let node = doc.node(id);
    let key_end = key_source_end(doc, id);
    write_token(doc, node.key, out);
    match node.kind {
        NodeKind::Block => write_source_block(doc, id, key_end, depth, out),
        _ => write_source_value(doc, id, key_end, out),
    }
}

/// The rest of a block from the source after its key (from `cursor`): its condition, its
/// braces and its children.
fn write_source_block(
    doc: &Document,
    id: NodeId,
    mut cursor: usize,
    depth: usize,
    out: &mut Vec<u8>,
) -> usize {
    let src = doc.text.as_bytes();
    let node = doc.node(id);
    if node.condition.present() && !node.condition.owned() {
        out.extend_from_slice(&src[cursor..node.condition.start as usize]);
        write_token(doc, node.condition, out);
        cursor = node.condition.end as usize;
    }
    out.extend_from_slice(&src[cursor..=node.open as usize]);
    let inner = write_children(doc, id, node.open as usize + 1, depth + 1, out);
    out.extend_from_slice(&src[inner..=node.close as usize]);
    node.close as usize + 1
}

/// The rest of a key/value from the source after its key (from `cursor`): the value and its
/// condition, which may stand before the value (`"k" [$X] "v"`) or after it.
fn write_source_value(doc: &Document, id: NodeId, mut cursor: usize, out: &mut Vec<u8>) -> usize {
    let src = doc.text.as_bytes();
    let node = doc.node(id);
    let value = (value_source_start(doc, id), value_source_end(doc, id), node.value);
    let mut rest = [Some(value), None];
    if node.condition.present() {
        let cond = (
            node.condition.start as usize,
            node.condition.end as usize,
            node.condition,
        );
        rest = if cond.0 < value.0 {
            [Some(cond), Some(value)]
        } else {
            [Some(value), Some(cond)]
        };
    }
    for (start, end, tok) in rest.into_iter().flatten() {
        out.extend_from_slice(&src[cursor..start]);
        write_token(doc, tok, out);
        cursor = end;
    }
    cursor.max(node.end as usize)
}

fn key_source_end(doc: &Document, id: NodeId) -> usize {
    let n = doc.node(id);
    match n.key.owned() {
        false => n.key.end as usize,
        true => doc.original_spans(id).0,
    }
}

fn value_source_start(doc: &Document, id: NodeId) -> usize {
    let n = doc.node(id);
    match n.value.owned() {
        false => n.value.start as usize,
        true => doc.original_spans(id).1,
    }
}

fn value_source_end(doc: &Document, id: NodeId) -> usize {
    let n = doc.node(id);
    match n.value.owned() {
        false => n.value.end as usize,
        true => doc.original_spans(id).2,
    }
}

fn write_new(doc: &Document, id: NodeId, depth: usize, out: &mut Vec<u8>) {
    let node = doc.node(id);
    write_token(doc, node.key, out);
    match node.kind {
        NodeKind::Block => {
            out.push(b'\n');
            indent(out, depth);
            out.push(b'{');
            write_children(doc, id, 0, depth + 1, out);
            out.push(b'\n');
            indent(out, depth);
            out.push(b'}');
        }
        _ => {
            out.push(b' ');
            write_token(doc, node.value, out);
        }
    }
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    out.extend(std::iter::repeat_n(b'\t', depth));
}
