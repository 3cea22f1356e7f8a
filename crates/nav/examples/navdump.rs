//! Prints a NAV file's header, layout and counts: `cargo run -p srcmap-nav --example navdump FILE...`
fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        match srcmap_nav::NavMesh::read(&data) {
            Ok(m) => println!(
                "{path}: v{} sub {:?} layout {} areas {} ladders {:?} places {} pre {} post {:?}",
                m.version,
                m.sub_version,
                m.layout.name(),
                m.areas.len(),
                m.ladders.as_ref().map(Vec::len),
                m.places.len(),
                m.pre_area_data.len(),
                (
                    m.post_mesh_data.len(),
                    &m.post_mesh_data[..m.post_mesh_data.len().min(16)],
                    m.areas.iter().map(|a| a.id).take(8).collect::<Vec<_>>(),
                    m.areas.last().map(|a| a.id)
                )
            ),
            Err(e) => println!("{path}: error: {e}"),
        }
    }
}
