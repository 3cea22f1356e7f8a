use srcmap_kv::{Document, NodeId, ParseOptions};

const SAMPLE: &str = "// header comment\r\n\"root\"\r\n{\r\n\t\"a\" \"1\" [$WIN32]\r\n\tb   two // trailing\r\n\t\"a\" \"dup\"\r\n\t#base \"other.txt\"\r\n\tsub [$X360]\r\n\t{\r\n\t}\r\n}\r\n";

#[test]
fn unedited_document_is_byte_identical() {
    let doc = Document::parse(SAMPLE).unwrap();
    assert_eq!(doc.to_text(), SAMPLE);
}

#[test]
fn structure_conditions_duplicates_and_directives() {
    let doc = Document::parse(SAMPLE).unwrap();
    let root = doc.find_child(NodeId::ROOT, "root").unwrap();
    let kids: Vec<_> = doc.children(root).collect();
    assert_eq!(kids.len(), 5);
    assert_eq!(doc.key(kids[0]), "a");
    assert_eq!(doc.condition(kids[0]), Some("$WIN32"));
    assert_eq!(doc.value(kids[1]), Some("two"));
    assert!(!doc.value_quoted(kids[1]));
    assert_eq!(doc.value(kids[2]), Some("dup"));
    assert!(doc.is_directive(kids[3]));
    assert!(doc.is_block(kids[4]));
    assert_eq!(doc.condition(kids[4]), Some("$X360"));
    // Duplicate keys are kept; find returns the first.
    assert_eq!(doc.value_of(root, "A"), Some("1"));
}

#[test]
fn edits_touch_only_what_changed() {
    let mut doc = Document::parse(SAMPLE).unwrap();
    let root = doc.find_child(NodeId::ROOT, "root").unwrap();
    doc.set_value(root, "b", "three words");
    let text = doc.to_text();
    assert_eq!(text, SAMPLE.replace("b   two", "b   \"three words\""));
    let again = Document::parse(text.clone()).unwrap();
    let root2 = again.find_child(NodeId::ROOT, "root").unwrap();
    assert_eq!(again.value_of(root2, "b"), Some("three words"));
}

#[test]
fn append_and_remove() {
    let mut doc = Document::parse("world\n{\n\t\"id\" \"1\"\n\t\"x\" \"y\"\n}\n").unwrap();
    let world = doc.find_child(NodeId::ROOT, "world").unwrap();
    let x = doc.find_child(world, "x").unwrap();
    doc.remove(x);
    doc.append_value(world, "new", "v");
    let solid = doc.append_block(world, "solid");
    doc.append_value(solid, "id", "2");
    let text = doc.to_text();
    assert_eq!(
        text,
        "world\n{\n\t\"id\" \"1\"\n\t\"new\" \"v\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n\t}\n}\n"
    );
    let back = Document::parse(text).unwrap();
    let w = back.find_child(NodeId::ROOT, "world").unwrap();
    assert_eq!(back.children(w).count(), 3);
}

#[test]
fn escapes_only_when_asked() {
    let text = r#""k" "a\"b\\c""#;
    let raw = Document::parse(r#""k" "C:\path\""#).unwrap();
    let k = raw.find_child(NodeId::ROOT, "k").unwrap();
    assert_eq!(raw.value(k), Some(r"C:\path\"));
    let esc = Document::parse_with(
        text,
        ParseOptions {
            escapes: true,
            ..Default::default()
        },
    )
    .unwrap();
    let k = esc.find_child(NodeId::ROOT, "k").unwrap();
    assert_eq!(esc.value_unescaped(k).unwrap(), "a\"b\\c");
    assert_eq!(esc.to_text(), text);
}

fn err(text: &[u8]) -> String {
    Document::parse_bytes(text).unwrap_err().to_string()
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(
        err(b"a\n{\n\t\"k\" \"v\n}\n"),
        "3:6: unterminated string: no closing `\"`"
    );
    assert_eq!(
        err(b"a\n{\n\t\"k\" \"v\"\n"),
        "2:1: unbalanced braces: block a opened here is never closed"
    );
    assert_eq!(err(b"a { }\n}"), "2:1: unbalanced braces: `}` with no open block");
    assert_eq!(err(b"a\n{\n\t\"k\"\n}"), "3:2: key \"k\" has no value");
    assert_eq!(
        err(b"\"k\" \"v\xff\""),
        "1:7: invalid UTF-8 byte (KeyValues text must be UTF-8)"
    );
    assert_eq!(err(b"{"), "1:1: `{` without a key before it");
}

#[test]
fn never_panics_on_prefixes_of_valid_input() {
    for cut in 0..SAMPLE.len() {
        if let Ok(doc) = Document::parse_bytes(&SAMPLE.as_bytes()[..cut]) {
            assert_eq!(doc.to_bytes(), &SAMPLE.as_bytes()[..cut]);
        }
    }
}

#[test]
fn condition_before_a_value_survives_an_edit() {
    let mut doc = Document::parse("\"k\" [$X] \"v\"\n").unwrap();
    let k = doc.find_child(NodeId::ROOT, "k").unwrap();
    assert_eq!(doc.condition(k), Some("$X"));
    doc.set_node_value(k, "w");
    assert_eq!(doc.to_text(), "\"k\" [$X] \"w\"\n");
    // Found by fuzzing: a condition between key and value, then an append.
    let mut doc = Document::parse_bytes(b"$\n[\0\0]]").unwrap();
    doc.append_value(NodeId::ROOT, "k", "v w");
    assert_eq!(doc.to_bytes(), b"$\n[\0\0]]\n\"k\" \"v w\"");
}

/// `depth` blocks, each inside the last: `a { a { ... } }`.
fn nested(depth: usize) -> String {
    "a {\n".repeat(depth) + &"}\n".repeat(depth)
}

#[test]
fn nesting_is_capped_with_a_located_error() {
    assert!(Document::parse(nested(srcmap_kv::MAX_DEPTH)).is_ok());
    let e = Document::parse(nested(srcmap_kv::MAX_DEPTH + 1)).unwrap_err();
    assert!(e.message.contains("nested deeper"), "{e}");
    assert_eq!(e.line, srcmap_kv::MAX_DEPTH + 1, "{e}");
    // A hostile depth (a 240 KB VMT) is refused the same way instead of exhausting the stack.
    assert!(Document::parse(nested(40_000)).is_err());
}
