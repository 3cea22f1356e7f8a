//! Switchable lights, as Valve's VBSP `SetLightStyles` sets them up: every entity whose class
//! begins with `light` (any case; `light_dynamic` is a runtime light and is left alone) and
//! that has a `targetname` gets light style 32 + N, N counting the distinct names in entity
//! order (names compared with case, as Valve's `strcmp` does), so lights sharing a name share a
//! style. A mapper's own non-zero `style` (a pattern such as 10, fluorescent flicker) moves to
//! `defaultstyle`, from which the game makes a switchable copy of that pattern; vrad lights
//! each into its style and the game turns styles 32 and up on or off (and off at spawn for
//! "initially dark", spawnflags 1).

use srcmap_kv::values::atoi;

use crate::types::set_kv;

/// The first style handed to named lights (styles below are the game's fixed patterns).
pub const FIRST_SWITCHABLE_STYLE: usize = 32;
/// Valve's `MAX_SWITCHED_LIGHTS`: distinct light names a map may have.
pub const MAX_SWITCHED_LIGHTS: usize = 32;

/// More distinct light names than styles to give them: the first name left without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManySwitchedLights {
    /// The targetname of the first light left without a style.
    pub name: String,
    /// That light's entity index among `assign`'s entities.
    pub entity: usize,
}

/// Whether an entity of `classname` is a light VBSP makes switchable when it is named.
pub fn is_switchable_class(classname: &str) -> bool {
    let lower = classname.to_ascii_lowercase();
    lower.starts_with("light") && lower != "light_dynamic"
}

/// A named switchable light's name, `None` for any other entity.
fn switchable_name(kv: &[(String, String)]) -> Option<&str> {
    let get = |key: &str| {
        kv.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    };
    is_switchable_class(get("classname")?)
        .then(|| get("targetname"))
        .flatten()
        .filter(|name| !name.is_empty())
}

/// Gives every named light of `entities` (the first, the world, is skipped as Valve skips it)
/// its switchable style and keeps a non-zero old style in `defaultstyle`. Returns the names in
/// style order (name `i` has style 32 + `i`).
pub fn assign<'e>(
    entities: impl IntoIterator<Item = &'e mut Vec<(String, String)>>,
) -> Result<Vec<String>, TooManySwitchedLights> {
    let mut names: Vec<String> = Vec::new();
    for (entity, kv) in entities.into_iter().enumerate().skip(1) {
        let Some(name) = switchable_name(kv) else { continue };
        let slot = match names.iter().position(|n| n == name) {
            Some(slot) => slot,
            None if names.len() == MAX_SWITCHED_LIGHTS => {
                let name = name.to_string();
                return Err(TooManySwitchedLights { name, entity });
            }
            None => {
                names.push(name.to_string());
                names.len() - 1
            }
        };
        set_style(kv, FIRST_SWITCHABLE_STYLE + slot);
    }
    Ok(names)
}

/// Sets a light's `style`; the old one, when it is a pattern (`atoi` not 0), is kept as
/// written in `defaultstyle`.
fn set_style(kv: &mut Vec<(String, String)>, style: usize) {
    let old = kv.iter().find(|(k, _)| k.eq_ignore_ascii_case("style"));
    if let Some((_, old)) = old.filter(|(_, v)| atoi(v) != 0) {
        let old = old.clone();
        set_kv(kv, "defaultstyle", old);
    }
    set_kv(kv, "style", style.to_string());
}

/// What [`assign`] leaves, checked on its own terms: every named light has a style in
/// 32..64, lights share a style exactly when they share a name, and the styles are handed out
/// from 32 without gaps in entity order.
pub fn verify<'e>(entities: impl IntoIterator<Item = &'e [(String, String)]>) -> Result<(), String> {
    let mut styles: Vec<(&str, usize)> = Vec::new();
    for (i, kv) in entities.into_iter().enumerate().skip(1) {
        let Some(name) = switchable_name(kv) else { continue };
        let style = kv
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("style"))
            .map_or(-1, |(_, v)| atoi(v));
        let expected = match styles.iter().find(|(n, _)| *n == name) {
            Some(&(_, s)) => s,
            None => FIRST_SWITCHABLE_STYLE + styles.len(),
        };
        if style != expected as i64 {
            return Err(format!(
                "entity {i}: light '{name}' has style {style}, expected {expected}"
            ));
        }
        if !styles.iter().any(|(n, _)| *n == name) {
            styles.push((name, expected));
        }
    }
    Ok(())
}

/// One line per named light: entity index, class, name, style and default style.
pub fn dump<'e>(entities: impl IntoIterator<Item = &'e [(String, String)]>) -> String {
    let mut out = String::new();
    for (i, kv) in entities.into_iter().enumerate() {
        let Some(name) = switchable_name(kv) else { continue };
        let get = |key: &str| {
            kv.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map_or("", |(_, v)| v.as_str())
        };
        out += &format!(
            "light {i} {} {name:?} style {} defaultstyle {:?}\n",
            get("classname"),
            get("style"),
            get("defaultstyle")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ent(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn get<'a>(kv: &'a [(String, String)], key: &str) -> Option<&'a str> {
        kv.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn world() -> Vec<(String, String)> {
        ent(&[("classname", "worldspawn"), ("targetname", "w")])
    }

    #[test]
    fn names_get_styles_in_order_shared_by_name() {
        let mut ents = vec![
            world(),
            ent(&[("classname", "light"), ("targetname", "b")]),
            ent(&[("classname", "light_spot"), ("targetname", "a"), ("style", "0")]),
            ent(&[("classname", "LIGHT"), ("targetname", "b")]),
            ent(&[("classname", "light"), ("targetname", "B")]),
            ent(&[("classname", "light")]),
            ent(&[("classname", "light_dynamic"), ("targetname", "d")]),
            ent(&[("classname", "info_target"), ("targetname", "t")]),
            ent(&[("classname", "light_environment"), ("targetname", "sun")]),
        ];
        let names = assign(&mut ents).unwrap();
        assert_eq!(names, ["b", "a", "B", "sun"]);
        let styles: Vec<_> = ents.iter().map(|e| get(e, "style")).collect();
        let expected = [
            None,
            Some("32"),
            Some("33"),
            Some("32"),
            Some("34"),
            None,
            None,
            None,
        ];
        assert_eq!(styles[..8], expected);
        assert_eq!(styles[8], Some("35"));
        // An existing "0" is replaced in place, a missing style added at the end.
        assert_eq!(ents[2][2], ("style".to_string(), "33".to_string()));
        assert_eq!(ents[1].last().unwrap().0, "style");
        assert!(ents.iter().all(|e| get(e, "defaultstyle").is_none()));
        verify(ents.iter().map(Vec::as_slice)).unwrap();
    }

    #[test]
    fn a_pattern_moves_to_defaultstyle_as_written() {
        let mut ents = vec![
            world(),
            ent(&[("classname", "light"), ("style", "10"), ("targetname", "lamp")]),
            ent(&[("classname", "light"), ("style", " 4x"), ("targetname", "other")]),
            ent(&[("classname", "light"), ("style", "6")]),
        ];
        assign(&mut ents).unwrap();
        assert_eq!(
            ents[1],
            ent(&[
                ("classname", "light"),
                ("style", "32"),
                ("targetname", "lamp"),
                ("defaultstyle", "10")
            ])
        );
        assert_eq!(get(&ents[2], "defaultstyle"), Some(" 4x"));
        // An unnamed light keeps its pattern.
        assert_eq!(ents[3], ent(&[("classname", "light"), ("style", "6")]));
    }

    #[test]
    fn thirty_three_names_are_too_many_but_shared_names_are_not() {
        let mut ents = vec![world()];
        for i in 0..MAX_SWITCHED_LIGHTS {
            ents.push(ent(&[("classname", "light"), ("targetname", &format!("l{i}"))]));
            ents.push(ent(&[("classname", "light"), ("targetname", &format!("l{i}"))]));
        }
        assert_eq!(assign(&mut ents.clone()).unwrap().len(), MAX_SWITCHED_LIGHTS);
        assert_eq!(get(ents.last().unwrap(), "style"), None);
        ents.push(ent(&[("classname", "light_spot"), ("targetname", "extra")]));
        let err = assign(&mut ents).unwrap_err();
        assert_eq!(
            err,
            TooManySwitchedLights {
                name: "extra".into(),
                entity: 65
            }
        );
    }

    #[test]
    fn verify_catches_a_wrong_or_shared_style() {
        let wrong = [
            world(),
            ent(&[("classname", "light"), ("targetname", "a"), ("style", "32")]),
            ent(&[("classname", "light"), ("targetname", "b"), ("style", "32")]),
        ];
        let views = || wrong.iter().map(Vec::as_slice);
        assert!(
            verify(views())
                .unwrap_err()
                .contains("light 'b' has style 32, expected 33")
        );
        assert!(dump(views()).contains("light 2 light \"b\" style 32 defaultstyle \"\""));
    }
}
