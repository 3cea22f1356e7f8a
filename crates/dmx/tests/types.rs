//! Every attribute type and its array form through every encoding and version, on a
//! self-made document.

use srcmap_dmx::*;

fn guid(n: u64) -> Guid {
    Guid::from_seed(n)
}

/// A document using every kind the given binary version can store (or all, for text).
fn sample(binary_version: Option<u32>) -> Dmx {
    let allows = |k: Kind| binary_version.is_none_or(|v| k.binary_id(v).is_some());
    let mut root = Element::new("DmElement", "root", guid(1));
    let mut child = Element::new("DmeChild", "child \"quoted\" \\ name", guid(2));
    child.set("back", Value::Element(ElemRef::Local(0)));
    let values = vec![
        Value::Element(ElemRef::Local(1)),
        Value::Int(-1230552801),
        Value::Float(-16211.593),
        Value::Bool(true),
        Value::String("tab\there \"q\" back\\slash\nnewline".into()),
        Value::Binary(vec![0, 1, 0xAB, 0xFF]),
        Value::ElementId(guid(9)),
        Value::Time(15000),
        Value::Color([240, 32, 32, 128]),
        Value::Vector2([0.5, -1.25]),
        Value::Vector3([1.0, 2.5, -3.0e-5]),
        Value::Vector4([1.0, 2.0, 3.0, 4.0]),
        Value::QAngle([90.0, 0.0, -45.5]),
        Value::Quaternion([0.0, 0.0, 0.70710677, 0.70710677]),
        Value::Matrix(Box::new(std::array::from_fn(|i| i as f32 * 0.5))),
        Value::UInt64(0xdf41645d6af564a),
        Value::UInt8(200),
        Value::ElementArray(vec![
            ElemRef::Local(1),
            ElemRef::Null,
            ElemRef::External(guid(77)),
        ]),
        Value::IntArray(vec![1, -2, 3]),
        Value::FloatArray(vec![0.1, 1e-7, 3.0e8]),
        Value::BoolArray(vec![true, false]),
        Value::StringArray(vec!["a".into(), "".into(), "c d".into()]),
        Value::BinaryArray(vec![vec![1, 2], vec![]]),
        Value::ElementIdArray(vec![guid(3), guid(4)]),
        Value::TimeArray(vec![0, 10000, -5]),
        Value::ColorArray(vec![[1, 2, 3, 4]]),
        Value::Vector2Array(vec![[1.0, 2.0]]),
        Value::Vector3Array(vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        Value::Vector4Array(vec![[1.0, 2.0, 3.0, 4.0]]),
        Value::QAngleArray(vec![[0.0, 90.0, 180.0]]),
        Value::QuaternionArray(vec![[0.0, 0.0, 0.0, 1.0]]),
        Value::MatrixArray(vec![[1.0; 16]]),
        Value::UInt64Array(vec![0, u64::MAX]),
        Value::UInt8Array(vec![0, 255]),
        Value::IntArray(vec![]),
    ];
    for (i, v) in values.into_iter().enumerate() {
        if allows(v.kind()) {
            root.attrs.push(Attribute {
                name: format!("attr{i}_{}", v.ty().name()),
                value: v,
            });
        }
    }
    let mut doc = Dmx::new(Header::new("binary", 9, "dmx", 1), root);
    doc.elements.push(child);
    doc
}

fn with_encoding(mut doc: Dmx, binary: bool, version: u32) -> Dmx {
    doc.header = doc.header.with_encoding(binary, version);
    doc
}

#[test]
fn binary_versions_round_trip_every_storable_type() {
    for version in [1, 2, 3, 4, 5, 9] {
        let doc = with_encoding(sample(Some(version)), true, version);
        let bytes = doc.write().unwrap_or_else(|e| panic!("v{version}: {e}"));
        let back = Dmx::read(&bytes).unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(back.elements, doc.elements, "binary v{version}");
        assert_eq!(back.write().unwrap(), bytes, "binary v{version} rewrite");
    }
}

#[test]
fn keyvalues2_round_trips_every_type_and_matches_binary() {
    for version in 1..=4 {
        let doc = with_encoding(sample(None), false, version);
        let text = doc.write().unwrap();
        let back = Dmx::read(&text)
            .unwrap_or_else(|e| panic!("kv2 v{version}: {e}\n{}", String::from_utf8_lossy(&text)));
        compare(&doc, &back).unwrap();
        assert_eq!(back.write().unwrap(), text);
        // Text → binary 9 (elementid cannot be stored there; drop it first).
        let mut b = back.clone();
        for e in &mut b.elements {
            e.attrs.retain(|a| a.value.kind() != Kind::ElementId);
        }
        let bin = b.write_as(true, Some(9)).unwrap();
        compare(&b, &Dmx::read(&bin).unwrap()).unwrap();
    }
}

#[test]
fn prefix_element_in_binary9_and_keyvalues2_4() {
    let mut doc = with_encoding(sample(Some(9)), true, 9);
    doc.prefix.push(PrefixElement {
        id: None,
        attrs: vec![
            Attribute {
                name: "asset_preview_thumbnail_format".into(),
                value: Value::String("jpg".into()),
            },
            Attribute {
                name: "map_asset_references".into(),
                value: Value::StringArray(vec!["materials/a.vmat".into()]),
            },
        ],
    });
    let bin = doc.write().unwrap();
    let text = Dmx::read(&bin).unwrap().write_as(false, None).unwrap();
    assert!(String::from_utf8_lossy(&text).contains("$prefix_element$"));
    assert!(text.starts_with(b"<!-- dmx encoding keyvalues2 4 "));
    let back = Dmx::read(&text).unwrap();
    assert_eq!(back.prefix[0].attrs, doc.prefix[0].attrs);
    compare(&doc, &back).unwrap();
    assert_eq!(back.write_as(true, Some(9)).unwrap(), bin);
}

#[test]
fn text_edits_keep_untouched_formatting() {
    let src = b"<!-- dmx encoding keyvalues2 1 format dmx 4 -->\r\n\"DmElement\"\r\n{\r\n\t\"id\" \"elementid\" \"b66a2ce3-d686-4dbf-85df-07c6b275bebb\"\r\n\t\"name\" \"string\" \"root\"\r\n\r\n\t\"f\"   \"float\" \"45.0\"   // comment\r\n\t\"v\" \"vector3\" \"1e-05 0 2\"\r\n\t\"child\" \"DmeThing\"\r\n\t{\r\n\t\t\"x\" \"int\" \"1\"\r\n\t}\r\n}\r\n";
    let mut doc = Dmx::read(src).unwrap();
    assert_eq!(doc.write().unwrap(), src.to_vec());
    // No id on the child: it is written back without one.
    doc.elements[1].set("x", Value::Int(2));
    let out = String::from_utf8(doc.write().unwrap()).unwrap();
    assert!(out.contains("\"f\"   \"float\" \"45.0\"   // comment"), "{out}");
    assert!(out.contains("\"x\" \"int\" \"2\""), "{out}");
    assert_eq!(out.len(), src.len());
    let back = Dmx::read(out.as_bytes()).unwrap();
    assert_eq!(back.elements[1].get("x"), Some(&Value::Int(2)));
}

#[test]
fn binary_edit_reads_back() {
    let doc = with_encoding(sample(Some(5)), true, 5);
    let mut doc = Dmx::read(&doc.write().unwrap()).unwrap();
    doc.elements[0].set("attr1_int", Value::Int(7));
    doc.elements[0].set("added", Value::String("new string not in the table".into()));
    let back = Dmx::read(&doc.write().unwrap()).unwrap();
    assert_eq!(back.elements[0].get("attr1_int"), Some(&Value::Int(7)));
    assert_eq!(
        back.elements[0].get("added").and_then(Value::as_str),
        Some("new string not in the table")
    );
}

#[test]
fn bad_input_gives_positioned_errors() {
    let text =
        b"<!-- dmx encoding keyvalues2 1 format dmx 4 -->\n\"DmElement\"\n{\n\t\"a\" \"int\" \"nope\"\n}\n";
    match Dmx::read(text) {
        Err(DmxError::Text { line: 4, .. }) => {}
        other => panic!("{other:?}"),
    }
    let unterminated = b"<!-- dmx encoding keyvalues2 1 format dmx 4 -->\n\"DmElement\n";
    assert!(matches!(Dmx::read(unterminated), Err(DmxError::Text { .. })));
    assert!(matches!(Dmx::read(b"hello"), Err(DmxError::Header(_))));
    let mut bin = with_encoding(sample(Some(9)), true, 9).write().unwrap();
    bin.truncate(bin.len() - 3);
    assert!(matches!(Dmx::read(&bin), Err(DmxError::Binary { .. })));
    // Hostile counts.
    let mut h = b"<!-- dmx encoding binary 9 format dmx 1 -->\n\0".to_vec();
    h.extend_from_slice(&[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]);
    assert!(Dmx::read(&h).is_err());
    // Unsupported types for the version are encode errors, not garbage.
    let mut d = with_encoding(sample(Some(9)), true, 2);
    d.clear_layout();
    assert!(matches!(d.write(), Err(DmxError::Encode(_))));
}

#[test]
fn deep_reference_chains_convert_without_exhausting_the_stack() {
    // 20 000 elements, each referenced once by the previous: in-line nesting is capped and the
    // rest goes to top level, so text conversion neither recurses 20 000 deep nor loses anything.
    let mut doc = Dmx::new(
        Header::new("binary", 9, "dmx", 1),
        Element::new("DmElement", "e0", guid(0)),
    );
    for i in 1..20_000u32 {
        doc.elements
            .push(Element::new("DmElement", format!("e{i}"), guid(i as u64)));
        doc.elements[i as usize - 1].set("next", Value::Element(ElemRef::Local(i)));
    }
    let text = doc.write_as(false, None).unwrap();
    let back = Dmx::read(&text).unwrap();
    compare(&doc, &back).unwrap();
    assert_eq!(back.write().unwrap(), text);
    // Hostile nesting in text is an error, not a stack overflow.
    let mut deep = b"<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" {".to_vec();
    for _ in 0..10_000 {
        deep.extend_from_slice(b" \"x\" \"A\" {");
    }
    assert!(matches!(Dmx::read(&deep), Err(DmxError::Text { .. })));
}

#[test]
fn trailing_commas_upper_case_ids_and_type_named_classes() {
    let src = b"<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"DmElement\"\n{\n\t\"id\" \"elementid\" \"B66A2CE3-D686-4DBF-85DF-07C6B275BEBB\"\n\t\"a\" \"int_array\" [ \"1\", \"2\", ]\n\t\"r\" \"element\" \"B66A2CE3-D686-4DBF-85DF-07C6B275BEBB\"\n}\n";
    let doc = Dmx::read(src).unwrap();
    assert_eq!(doc.write().unwrap(), src.to_vec());
    // An element whose class reads like a value type must not be written in line.
    let mut doc = Dmx::new(
        Header::new("binary", 5, "dmx", 1),
        Element::new("DmElement", "root", guid(1)),
    );
    doc.elements.push(Element::new("vector3", "odd", guid(2)));
    doc.elements[0].set("shape", Value::Element(ElemRef::Local(1)));
    let text = doc.write_as(false, None).unwrap();
    compare(&doc, &Dmx::read(&text).unwrap()).unwrap();
}

#[test]
fn text_insertions_and_removals_keep_the_rest_of_the_formatting() {
    let src = b"<!-- dmx encoding keyvalues2 1 format dmx 4 -->\r\n\"DmElement\"\r\n{\r\n\t\"id\" \"elementid\" \"b66a2ce3-d686-4dbf-85df-07c6b275bebb\"\r\n\t\"a\"    \"int\" \"1\"\r\n\t\"b\"    \"float\" \"2.50\"\r\n\t\"child\" \"DmeThing\"\r\n\t{\r\n\t\t\"x\"  \"vector3\" \"0 0 1.0\"\r\n\t}\r\n}\r\n\r\n\"DmeOther\"\r\n{\r\n\t\"z\"   \"int\" \"7\"   // seven\r\n}\r\n";
    let mut doc = Dmx::read(src).unwrap();
    assert_eq!(doc.write().unwrap(), src.to_vec());
    // Remove `a`, add `new` at the end of the root: the child and the second element keep
    // their spacing, numbers and comment.
    doc.elements[0].attrs.retain(|a| a.name != "a");
    doc.elements[0].set("new", Value::Int(5));
    let out = String::from_utf8(doc.write().unwrap()).unwrap();
    assert!(out.contains("\t\"b\"    \"float\" \"2.50\""), "{out}");
    assert!(out.contains("\t\t\"x\"  \"vector3\" \"0 0 1.0\""), "{out}");
    assert!(out.contains("\"z\"   \"int\" \"7\"   // seven"), "{out}");
    assert!(out.contains("\"new\" \"int\" \"5\""), "{out}");
    assert!(!out.contains("\"a\""), "{out}");
    // (The child has no id, so compare values rather than ids.)
    let back = Dmx::read(out.as_bytes()).unwrap();
    assert_eq!(back.elements[0].attrs, doc.elements[0].attrs);
    assert_eq!(back.elements[1].attrs, doc.elements[1].attrs);
    assert_eq!(back.elements[2].attrs, doc.elements[2].attrs);
}
