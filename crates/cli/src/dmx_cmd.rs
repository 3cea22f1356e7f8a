//! `info` and `convert` for DMX and VMAP files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::output::printable;
use serde_json::json;
use srcmap_dmx::{Dmx, DmxError, Encoding};
use srcmap_vmap::Vmap;

/// Reads a DMX file; errors name the file and the byte offset or line:column.
fn load(path: &Path, data: &[u8]) -> anyhow::Result<Dmx> {
    Dmx::read(data).map_err(|e| match e {
        DmxError::Text { .. } => anyhow::anyhow!("{}:{e}", path.display()),
        DmxError::Binary { offset, message } => {
            anyhow::anyhow!("{}: byte {offset}: {message}", path.display())
        }
        e => anyhow::anyhow!("{}: {e}", path.display()),
    })
}

fn classes(doc: &Dmx) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for e in &doc.elements {
        *m.entry(e.class.as_str()).or_insert(0) += 1;
    }
    m
}

fn dmx_json(path: &Path, doc: &Dmx) -> serde_json::Value {
    let h = &doc.header;
    json!({
        "file": path.display().to_string(),
        "format": "dmx",
        "encoding": h.encoding,
        "encoding_version": h.encoding_version,
        "dmx_format": h.format,
        "dmx_format_version": h.format_version,
        "elements": doc.elements.len(),
        "reachable_elements": doc.reachable().len(),
        "root_class": doc.root().map(|r| r.class.clone()),
        "root_name": doc.root().map(|r| r.name.clone()),
        "prefix_attributes": doc.prefix.iter().flat_map(|p| p.attrs.iter().map(|a| a.name.clone())).collect::<Vec<_>>(),
        "string_table": doc.binary_layout.as_ref().map(|b| b.string_table.len()),
        "classes": classes(doc),
    })
}

/// Nodes per element class.
fn node_classes<'m>(map: &'m Vmap, nodes: &[srcmap_vmap::NodeRef]) -> BTreeMap<&'m str, usize> {
    let mut node_classes: BTreeMap<&str, usize> = BTreeMap::new();
    for n in nodes {
        *node_classes
            .entry(map.doc.elements[n.element as usize].class.as_str())
            .or_insert(0) += 1;
    }
    node_classes
}

/// Entities per classname, and their connections (outputs) all together.
fn entity_classes(map: &Vmap) -> (BTreeMap<String, usize>, usize) {
    let mut entity_classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut connections = 0;
    for e in map.entities() {
        *entity_classes
            .entry(e.classname().unwrap_or_else(|| "(none)".into()))
            .or_insert(0) += 1;
        connections += e.connections().len();
    }
    (entity_classes, connections)
}

/// Faces and vertices of the polygon meshes that pass the topology check, and the ones that
/// fail it with their first error.
fn mesh_counts(map: &Vmap, meshes: &[u32]) -> (usize, usize, Vec<serde_json::Value>) {
    let (mut faces, mut verts, mut bad_meshes) = (0, 0, Vec::new());
    for &m in meshes {
        match map.polygon_mesh(m).map(|pm| pm.check()) {
            Ok(Ok(s)) => {
                faces += s.faces;
                verts += s.vertices;
            }
            Ok(Err(errs)) => bad_meshes.push(json!({ "element": m, "error": errs[0].to_string() })),
            Err(e) => bad_meshes.push(json!({ "element": m, "error": e.to_string() })),
        }
    }
    (faces, verts, bad_meshes)
}

fn vmap_json(path: &Path, map: &Vmap) -> serde_json::Value {
    let nodes = map.nodes();
    let (entity_classes, connections) = entity_classes(map);
    let info = map.root_info();
    let mut v = json!({
        "file": path.display().to_string(),
        "format": "vmap",
        "encoding": map.doc.header.encoding,
        "encoding_version": map.doc.header.encoding_version,
        "vmap_version": map.format_version(),
        "editor_build": info.editor_build,
        "editor_version": info.editor_version,
        "is_prefab": info.is_prefab,
        "map_usage_type": info.map_usage_type,
        "elements": map.doc.elements.len(),
        "nodes": nodes.len(),
        "node_classes": node_classes(map, &nodes),
        "entities": entity_classes.values().sum::<usize>(),
        "entity_classes": entity_classes,
        "connections": connections,
        "groups": map.groups().len(),
        "instances": map.instances().len(),
        "prefabs": map.prefabs().len(),
        "selection_sets": map.selection_sets().len(),
        "map_variables": map.map_variables().len(),
    });
    add_meshes_json(&mut v, map);
    v
}

/// The polygon meshes' counts and topology failures, then the prefix attributes.
fn add_meshes_json(v: &mut serde_json::Value, map: &Vmap) {
    let meshes = map.polygon_mesh_elements();
    let (faces, verts, bad_meshes) = mesh_counts(map, &meshes);
    v["polygon_meshes"] = json!(meshes.len());
    v["mesh_faces"] = json!(faces);
    v["mesh_vertices"] = json!(verts);
    v["meshes_failing_topology_check"] = json!(bad_meshes);
    v["prefix_attributes"] = json!(
        map.doc
            .prefix
            .iter()
            .flat_map(|p| p.attrs.iter().map(|a| a.name.clone()))
            .collect::<Vec<_>>()
    );
}

fn print_value(out: &mut impl Write, v: &serde_json::Value, indent: usize) -> std::io::Result<()> {
    if let Some(obj) = v.as_object() {
        for (k, val) in obj {
            match val {
                serde_json::Value::Object(o) if !o.is_empty() => {
                    writeln!(out, "{:indent$}{k}:", "")?;
                    print_value(out, val, indent + 2)?;
                }
                serde_json::Value::Array(a) if a.is_empty() => {}
                serde_json::Value::Object(_) | serde_json::Value::Null => {}
                serde_json::Value::String(s) => {
                    writeln!(out, "{:indent$}{:<20} {}", "", printable(k), printable(s))?
                }
                other => writeln!(out, "{:indent$}{:<20} {other}", "", printable(k))?,
            }
        }
    }
    Ok(())
}

/// `srcmap info FILE.dmx|FILE.vmap`.
pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let doc = load(path, data)?;
    let is_vmap = doc.root().is_some_and(|r| r.class.starts_with("CMap"));
    let report = if is_vmap {
        let map = Vmap::from_dmx(doc).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        vmap_json(path, &map)
    } else {
        dmx_json(path, &doc)
    };
    if json {
        crate::output::print_json(&report)
    } else {
        Ok(print_text(path, if is_vmap { "VMAP" } else { "DMX" }, report)?)
    }
}

/// The report as text: the encoding on the first line, then every other field.
fn print_text(path: &Path, kind: &str, report: serde_json::Value) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {kind} ({} {})",
        path.display(),
        printable(report["encoding"].as_str().unwrap_or("")),
        report["encoding_version"]
    )?;
    let mut rest = report;
    if let Some(o) = rest.as_object_mut() {
        for k in ["file", "format", "encoding", "encoding_version"] {
            o.remove(k);
        }
    }
    print_value(&mut out, &rest, 2)
}
/// `srcmap convert a.dmx b.dmx [--encoding binary9|keyvalues2|...]`. Without `--encoding` the
/// input's encoding is kept and an unmodified document is written back byte for byte.
pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    if args.compress || args.decompress {
        anyhow::bail!(
            "{}: --compress/--decompress apply to BSP files only",
            args.input.display()
        );
    }
    if crate::convert::output_is(args, "vmf") {
        return crate::convert::convert_map(args, srcmap_driver::mapconv::vmap_to_vmf, false);
    }
    crate::convert::require_extension(
        args,
        "DMX file",
        &["dmx", "vmap", "pcf", "vmdl", "vmat"],
        "name a .vmf output to convert a VMAP to Source 1",
    )?;
    let doc = load(&args.input, data)?;
    let out = match &args.encoding {
        None => doc.write(),
        Some(enc) => {
            let (binary, version) = Encoding::parse(enc)
                .ok_or_else(|| crate::usage::usage_error(crate::convert::parse_encoding(enc).unwrap_err()))?;
            doc.write_as(binary, version)
        }
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.input.display()))?;
    crate::output::write_output(&args.output, &out)
}
