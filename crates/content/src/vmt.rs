//! VMT materials: the shader, its parameters, `patch` materials resolved through `include`,
//! and the keys the map compiler reads (`%compile*`, `$translucent`, `$surfaceprop`...).

use crate::kv::{self, KvNode, KvValue};
use crate::{ContentError, Result};

/// A material: shader name and parameters (keys lowercased, file order kept; the last of a
/// repeated key wins on lookup, as in the engine).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Vmt {
    pub shader: String,
    pub params: Vec<(String, String)>,
    /// Sub-blocks (`proxies`, fallback blocks), kept as KeyValues.
    pub blocks: Vec<KvNode>,
    /// For a `patch` material not yet resolved: the included material path.
    pub include: Option<String>,
}

/// The compile-relevant properties of a material, as vbsp/vrad read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompileFlags {
    pub water: bool,
    pub nodraw: bool,
    pub clip: bool,
    pub player_clip: bool,
    pub npc_clip: bool,
    pub trigger: bool,
    pub sky: bool,
    pub sky_2d: bool,
    pub hint: bool,
    pub skip: bool,
    pub invisible: bool,
    pub areaportal: bool,
    pub occluder: bool,
    pub block_light: bool,
    pub no_light: bool,
    pub ladder: bool,
    pub nonsolid: bool,
    pub detail: bool,
    pub fog: bool,
    pub origin: bool,
    pub slime: bool,
    pub translucent: bool,
    pub alphatest: bool,
    pub no_chop: bool,
    pub pass_bullets: bool,
}

fn truthy(v: &str) -> bool {
    let v = v.trim();
    !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
}

impl Vmt {
    /// Parses a material's text. `path` names it in errors.
    pub fn parse(text: &[u8], path: &str) -> Result<Vmt> {
        let nodes = kv::parse(text, path)?;
        let root = nodes
            .into_iter()
            .find(|n| matches!(n.value, KvValue::Block(_)))
            .ok_or_else(|| ContentError::Syntax {
                path: path.to_string(),
                line: 1,
                message: "no shader block".into(),
            })?;
        let mut vmt = Vmt {
            shader: root.key.clone(),
            ..Default::default()
        };
        let is_patch = root.key.eq_ignore_ascii_case("patch");
        for child in root.children() {
            match &child.value {
                KvValue::Text(t) if is_patch && child.key.eq_ignore_ascii_case("include") => {
                    vmt.include = Some(t.clone())
                }
                KvValue::Text(t) => vmt.params.push((child.key.to_ascii_lowercase(), t.clone())),
                KvValue::Block(_) => vmt.blocks.push(child.clone()),
            }
        }
        Ok(vmt)
    }

    /// Resolves a `patch` material: loads the included material with `load` (a path such as
    /// `materials/foo.vmt` → its bytes), then applies `insert` and `replace` blocks. Nested
    /// patches resolve up to 8 levels deep.
    pub fn resolve(self, load: &mut dyn FnMut(&str) -> Option<Vec<u8>>) -> Result<Vmt> {
        self.resolve_depth(load, 0)
    }

    fn resolve_depth(self, load: &mut dyn FnMut(&str) -> Option<Vec<u8>>, depth: usize) -> Result<Vmt> {
        let Some(include) = self.include.clone() else {
            return Ok(self);
        };
        let fail = |m: String| ContentError::Syntax {
            path: include.clone(),
            line: 0,
            message: m,
        };
        if depth > 8 {
            return Err(fail("patch materials nest more than 8 deep".into()));
        }
        let bytes = load(&include).ok_or_else(|| fail("included material not found".into()))?;
        let mut base = Vmt::parse(&bytes, &include)?.resolve_depth(load, depth + 1)?;
        self.patch(&mut base);
        Ok(base)
    }

    /// Applies this patch material's `replace` (keys `base` has) and `insert` (any key)
    /// blocks to the material it includes.
    fn patch(&self, base: &mut Vmt) {
        for block in &self.blocks {
            let replace = block.key.eq_ignore_ascii_case("replace");
            if !(replace || block.key.eq_ignore_ascii_case("insert")) {
                continue;
            }
            for kv in block.children() {
                let Some(v) = kv.text() else { continue };
                let key = kv.key.to_ascii_lowercase();
                match base.params.iter_mut().find(|(k, _)| *k == key) {
                    Some(p) => p.1 = v.to_string(),
                    None if !replace => base.params.push((key, v.to_string())),
                    None => {}
                }
            }
        }
    }

    /// A parameter (case-insensitive, with or without `$`/`%`).
    pub fn get(&self, key: &str) -> Option<&str> {
        let key = key.to_ascii_lowercase();
        self.params
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    fn flag(&self, key: &str) -> bool {
        self.get(key).is_some_and(truthy)
    }

    pub fn base_texture(&self) -> Option<&str> {
        self.get("$basetexture")
    }
    pub fn surface_prop(&self) -> Option<&str> {
        self.get("$surfaceprop")
    }
    /// `$reflectivity "[r g b]"` when the material overrides the texture's, each component
    /// clamped to 0..1: it is the fraction of light a surface bounces, and a hostile or mistyped
    /// value (-100, 1e30) would otherwise make bounce light negative or explode.
    pub fn reflectivity(&self) -> Option<[f32; 3]> {
        let v = self.get("$reflectivity")?;
        let nums: Vec<f32> = v
            .trim_matches(|c| c == '[' || c == ']' || c == '{' || c == '}')
            .split_whitespace()
            .filter_map(|s| s.parse::<f32>().ok().filter(|x| x.is_finite()))
            .map(|x| x.clamp(0.0, 1.0))
            .collect();
        (nums.len() == 3).then(|| [nums[0], nums[1], nums[2]])
    }

    /// `$translucent`, or an `$alpha` below 1.
    fn is_translucent(&self) -> bool {
        self.flag("$translucent")
            || self.flag("$alpha")
                && self
                    .get("$alpha")
                    .is_some_and(|a| a.trim().parse::<f32>().is_ok_and(|x| x < 1.0))
    }

    pub fn compile_flags(&self) -> CompileFlags {
        let water_shader = self.shader.eq_ignore_ascii_case("water");
        CompileFlags {
            water: water_shader || self.flag("%compilewater"),
            nodraw: self.flag("%compilenodraw"),
            clip: self.flag("%compileclip"),
            player_clip: self.flag("%compileplayerclip") || self.flag("%playerclip"),
            npc_clip: self.flag("%compilenpcclip"),
            trigger: self.flag("%compiletrigger"),
            sky: self.flag("%compilesky"),
            sky_2d: self.flag("%compile2dsky"),
            hint: self.flag("%compilehint"),
            skip: self.flag("%compileskip"),
            invisible: self.flag("%compileinvisible"),
            areaportal: self.flag("%compileareaportal"),
            occluder: self.flag("%compileoccluder"),
            block_light: self.flag("%compileblocklight"),
            no_light: self.flag("%compilenolight"),
            ladder: self.flag("%compileladder"),
            nonsolid: self.flag("%compilenonsolid"),
            detail: self.flag("%compiledetail"),
            fog: self.flag("%compilefog"),
            origin: self.flag("%compileorigin"),
            slime: self.flag("%compileslime"),
            translucent: self.is_translucent(),
            alphatest: self.flag("$alphatest"),
            no_chop: self.flag("%nochop") || self.flag("%compilenochop"),
            pass_bullets: self.flag("%compilepassbullets"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn patch_resolves_through_include() {
        let base = b"LightmappedGeneric { $basetexture brick/a $surfaceprop brick %compilewater 0 }";
        let patch = b"patch { include \"materials/brick/a.vmt\" insert { $envmap env_cubemap } replace { $surfaceprop concrete } }";
        let vmt = Vmt::parse(patch, "p.vmt").unwrap();
        assert_eq!(vmt.include.as_deref(), Some("materials/brick/a.vmt"));
        let mut load = |p: &str| (p == "materials/brick/a.vmt").then(|| base.to_vec());
        let r = vmt.resolve(&mut load).unwrap();
        assert_eq!(r.shader, "LightmappedGeneric");
        assert_eq!(r.base_texture(), Some("brick/a"));
        assert_eq!(r.surface_prop(), Some("concrete"));
        assert_eq!(r.get("$ENVMAP"), Some("env_cubemap"));
        assert!(!r.compile_flags().water);
    }
    #[test]
    fn reflectivity_is_a_clamped_fraction() {
        let read = |v: &str| {
            Vmt::parse(
                format!("VertexLitGeneric {{ $reflectivity \"{v}\" }}").as_bytes(),
                "r.vmt",
            )
            .unwrap()
            .reflectivity()
        };
        assert_eq!(read("[.25 0.5 1]"), Some([0.25, 0.5, 1.0]));
        assert_eq!(read("[-100 1e30 0.5]"), Some([0.0, 1.0, 0.5]));
        assert_eq!(read("[nan 0.5 0.5]"), None);
    }

    #[test]
    fn tool_flags() {
        let v = Vmt::parse(
            b"\"UnlitGeneric\" { \"%compilenodraw\" 1 \"%compileclip\" \"1\" $translucent 1 }",
            "t",
        )
        .unwrap();
        let f = v.compile_flags();
        assert!(f.nodraw && f.clip && f.translucent && !f.water);
        assert!(Vmt::parse(b"Water { }", "w").unwrap().compile_flags().water);
    }
}
