//! Lists which lumps of a [`srcmap_bsp::BspView`] were copied (decoded) rather than viewed in
//! place: `cargo run --release --example view_owned_fields FILE...`
use std::borrow::Cow;

fn kind<T: Clone>(c: &Cow<'_, [T]>) -> &'static str {
    match c {
        Cow::Borrowed(s) if s.is_empty() => "empty",
        Cow::Borrowed(_) => "borrowed",
        Cow::Owned(_) => "decoded",
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let v = srcmap_bsp::BspView::parse(&data).expect("parse");
        println!("{path}");
        println!(
            "  lighting {} lighting_hdr {} ambient {} ambient_hdr {}",
            kind(&v.lighting),
            kind(&v.lighting_hdr),
            kind(&v.leaf_ambient_lighting),
            kind(&v.leaf_ambient_lighting_hdr)
        );
        println!(
            "  planes {} vertexes {} texinfo {} texdata {} models {} brushes {} surfedges {} disp_verts {}",
            kind(&v.planes),
            kind(&v.vertexes),
            kind(&v.texinfo),
            kind(&v.texdata),
            kind(&v.models),
            kind(&v.brushes),
            kind(&v.surfedges),
            kind(&v.disp_verts)
        );
        println!(
            "  faces {} nodes {} leafs {} edges {} pakfile {}",
            kind(&v.faces),
            kind(&v.nodes),
            kind(&v.leafs),
            kind(&v.edges),
            kind(&v.pakfile)
        );
    }
}
