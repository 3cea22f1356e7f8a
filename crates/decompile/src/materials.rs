//! Material names as the mapper wrote them. The compiler renames materials it patches:
//! `maps/<map>/<name>_<x>_<y>_<z>` for a side an `env_cubemap` at (x, y, z) reflects,
//! `<name>_wvt_patch` for blended brushes, `<name>_depth_<n>` for water. Each patch VMT in the
//! pakfile names its original by `include`; without one the suffixes are cut off.

use srcmap_bsp::Bsp;
use srcmap_bsp::pak::Pak;
use srcmap_kv::{Document, NodeId};

/// One texdata's material: the original name, and the cubemap whose patch it was.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Material {
    pub name: String,
    pub cubemap: Option<[i32; 3]>,
}

/// The material of every texdata, resolved once.
#[derive(Debug, Default)]
pub(crate) struct Materials {
    by_texdata: Vec<Material>,
}

impl Materials {
    pub fn new(bsp: &Bsp) -> Materials {
        let pak = Pak::parse(&bsp.pakfile, 0).ok();
        let by_texdata = (0..bsp.texdata.len())
            .map(|i| resolve(bsp.texdata_name(i).unwrap_or(""), pak.as_ref()))
            .collect();
        Materials { by_texdata }
    }

    /// The material of texinfo `texinfo`, when it names a texdata that exists.
    pub fn of_texinfo(&self, bsp: &Bsp, texinfo: i32) -> Option<&Material> {
        let ti = bsp.texinfo.get(usize::try_from(texinfo).ok()?)?;
        self.by_texdata.get(usize::try_from(ti.texdata).ok()?)
    }
}

/// The original of `name`: through the patch VMTs' includes (a few levels: a water patch of a
/// cubemap patch), else by cutting the suffixes.
fn resolve(name: &str, pak: Option<&Pak<'_>>) -> Material {
    let cubemap = patch_rest(name).and_then(cubemap_suffix);
    let mut current = name.replace('\\', "/");
    for _ in 0..4 {
        let Some(included) = patch_rest(&current).and_then(|_| pak.and_then(|p| include_of(p, &current)))
        else {
            break;
        };
        current = included;
    }
    if let Some(rest) = patch_rest(&current) {
        current = cut_suffixes(rest).to_string();
    }
    Material {
        name: current,
        cubemap,
    }
}

/// `<rest>` of `maps/<map>/<rest>`, the names the compiler makes.
fn patch_rest(name: &str) -> Option<&str> {
    let lower = name.get(..5)?;
    if !lower.eq_ignore_ascii_case("maps/") && !lower.eq_ignore_ascii_case("maps\\") {
        return None;
    }
    let after = &name[5..];
    let slash = after.find(['/', '\\'])?;
    Some(&after[slash + 1..])
}

/// The material a patch VMT includes, without `materials/` and `.vmt`.
fn include_of(pak: &Pak<'_>, name: &str) -> Option<String> {
    let entry = pak.find(&format!("materials/{name}.vmt"))?;
    let doc = Document::parse_bytes(&pak.read(entry).ok()?).ok()?;
    let patch = doc.children(NodeId::ROOT).find(|&c| doc.is_block(c))?;
    let include = doc.value_of(patch, "include")?.replace('\\', "/");
    let lower = include.to_ascii_lowercase();
    let start = if lower.starts_with("materials/") { 10 } else { 0 };
    let end = if lower.ends_with(".vmt") {
        include.len() - 4
    } else {
        include.len()
    };
    include
        .get(start..end)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `name` without the compiler's trailing `_x_y_z`, `_wvt_patch` and `_depth_n` suffixes.
fn cut_suffixes(mut name: &str) -> &str {
    loop {
        let cut = (name.strip_suffix("_wvt_patch"))
            .or_else(|| strip_numbers(name, 3))
            .or_else(|| strip_numbers(name, 1).and_then(|s| s.strip_suffix("_depth")));
        match cut {
            Some(shorter) if !shorter.is_empty() => name = shorter,
            _ => return name,
        }
    }
}

/// `name` without `count` trailing `_<integer>` words.
fn strip_numbers(name: &str, count: usize) -> Option<&str> {
    let mut rest = name;
    for _ in 0..count {
        let (head, word) = rest.rsplit_once('_')?;
        word.parse::<i32>().ok()?;
        rest = head;
    }
    Some(rest)
}

/// The cubemap origin of a `<name>_x_y_z` patch.
fn cubemap_suffix(rest: &str) -> Option<[i32; 3]> {
    let mut words = rest.rsplitn(4, '_');
    let z = words.next()?.parse().ok()?;
    let y = words.next()?.parse().ok()?;
    let x = words.next()?.parse().ok()?;
    words.next().filter(|n| !n.is_empty())?;
    Some([x, y, z])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_are_cut_back_to_the_original() {
        assert_eq!(resolve("maps/m/metal/floor_1_-2_30", None).name, "metal/floor");
        assert_eq!(
            resolve("maps/m/metal/floor_1_-2_30", None).cubemap,
            Some([1, -2, 30])
        );
        assert_eq!(
            resolve("maps/m/nature/blend_wvt_patch", None).name,
            "nature/blend"
        );
        assert_eq!(resolve("maps/m/water/w_depth_64", None).name, "water/w");
        assert_eq!(resolve("maps/m/water/w_depth_64", None).cubemap, None);
        assert_eq!(resolve("brick/wall_1", None).name, "brick/wall_1");
        assert_eq!(resolve("maps/m/a_b_1", None).name, "a_b_1");
    }
}
