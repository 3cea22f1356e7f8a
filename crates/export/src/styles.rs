//! Light styles as the game shows them when the map starts, and named lights switched on or
//! off: how bright each of a face's up to four lightmaps is drawn.
//!
//! A style's brightness is a letter of its pattern, `a` dark, `m` normal (1), `z` about
//! double. At spawn the game sets styles 0-12 to its default patterns (`world.cpp`) and each
//! named light of style 32 and up (`lights.cpp`, `CLight::Spawn`) to `a` when it starts off
//! (spawnflags 1), else to its `pattern` key, else to the default pattern its `defaultstyle`
//! names, else `m`. A picture is one moment: the patterns' first letter.

use std::str::FromStr;

use srcmap_bsp::{Bsp, Entity};
use srcmap_kv::values::atoi;

/// The styles a map may use (Valve's `MAX_LIGHTSTYLES`).
pub const MAX_LIGHTSTYLES: usize = 64;
/// The first style vbsp gives named lights; below are the game's fixed patterns.
const FIRST_SWITCHABLE: usize = 32;
/// "Initially dark".
const START_OFF: i64 = 1;

/// The game's default patterns of styles 0-12 (`g_DefaultLightstyles`), first letters only:
/// normal, flicker, slow strong pulse, candle, fast strobe, gentle pulse, flicker 2, candle 2,
/// candle 3, slow strobe, fluorescent flicker, slow pulse, underwater.
const DEFAULT_FIRST_LETTERS: &[u8; 13] = b"mmammjnmmamam";

/// A pattern letter's brightness: `a` 0, `m` 1 (the engine's `(c - 'a') * 22 / 264`).
fn letter_brightness(letter: u8) -> f32 {
    f32::from(letter.saturating_sub(b'a')) / 12.0
}

/// Default pattern `style`'s first letter's brightness (`m` past the table, as the game's
/// `GetDefaultLightstyleString`).
fn default_brightness(style: i64) -> f32 {
    let letter = usize::try_from(style)
        .ok()
        .and_then(|s| DEFAULT_FIRST_LETTERS.get(s))
        .copied();
    letter_brightness(letter.unwrap_or(b'm'))
}

/// `NAME=on` or `NAME=off`: a named light shown on or off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LightSwitch {
    pub name: String,
    pub on: bool,
}

/// A light switch that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LightSwitchError {
    #[error("'{0}': expected NAME=on or NAME=off")]
    Syntax(String),
    #[error("no switchable light is named '{0}' (named lights of style 32 and up: {1})")]
    Unknown(String, String),
}

impl FromStr for LightSwitch {
    type Err = LightSwitchError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || LightSwitchError::Syntax(s.to_string());
        let (name, state) = s.rsplit_once('=').ok_or_else(syntax)?;
        let on = match state.to_ascii_lowercase().as_str() {
            "on" => true,
            "off" => false,
            _ => return Err(syntax()),
        };
        if name.is_empty() {
            return Err(syntax());
        }
        let name = name.to_string();
        Ok(LightSwitch { name, on })
    }
}

/// Per style, how bright its lightmap is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct StyleScales {
    scales: [f32; MAX_LIGHTSTYLES],
}

/// A key's value, `""` when missing.
fn key<'e>(e: &'e Entity, name: &str) -> &'e str {
    e.get(name).unwrap_or("")
}

/// A named light's switchable style (32 and up), `None` for any other entity.
fn switchable_style(e: &Entity) -> Option<usize> {
    let class = key(e, "classname").to_ascii_lowercase();
    let style = usize::try_from(atoi(key(e, "style"))).ok()?;
    (class.starts_with("light") && !key(e, "targetname").is_empty())
        .then_some(style)
        .filter(|s| (FIRST_SWITCHABLE..MAX_LIGHTSTYLES).contains(s))
}

/// A switchable light's brightness at spawn (`CLight::Spawn`).
fn spawn_brightness(e: &Entity) -> f32 {
    let pattern = key(e, "pattern");
    if atoi(key(e, "spawnflags")) & START_OFF != 0 {
        0.0
    } else if let Some(&first) = pattern.as_bytes().first() {
        letter_brightness(first.to_ascii_lowercase())
    } else {
        default_brightness(atoi(key(e, "defaultstyle")))
    }
}

impl StyleScales {
    /// The map as it looks when it starts (see the module's note).
    pub fn at_spawn(bsp: &Bsp) -> StyleScales {
        let mut scales = [1.0; MAX_LIGHTSTYLES];
        for (style, scale) in scales.iter_mut().enumerate().take(DEFAULT_FIRST_LETTERS.len()) {
            *scale = default_brightness(style as i64);
        }
        for e in &bsp.entities {
            if let Some(style) = switchable_style(e) {
                scales[style] = spawn_brightness(e);
            }
        }
        StyleScales { scales }
    }

    /// The map at spawn with `switches` applied: a light switched on shows its pattern (as the
    /// game's `TurnOn`), off is dark. Names match the lights' targetnames without case, as the
    /// game's inputs find entities.
    pub fn with_switches(bsp: &Bsp, switches: &[LightSwitch]) -> Result<StyleScales, LightSwitchError> {
        let mut out = StyleScales::at_spawn(bsp);
        for switch in switches {
            out.switch(bsp, switch)?;
        }
        Ok(out)
    }

    fn switch(&mut self, bsp: &Bsp, switch: &LightSwitch) -> Result<(), LightSwitchError> {
        let named = |e: &&Entity| key(e, "targetname").eq_ignore_ascii_case(&switch.name);
        let mut found = false;
        for e in bsp.entities.iter().filter(named) {
            if let Some(style) = switchable_style(e) {
                found = true;
                self.scales[style] = if switch.on { on_brightness(e) } else { 0.0 };
            }
        }
        found
            .then_some(())
            .ok_or_else(|| LightSwitchError::Unknown(switch.name.clone(), switchable_names(bsp)))
    }

    /// How bright style `style` is drawn (0 for 255, no style).
    pub fn scale(&self, style: u8) -> f32 {
        self.scales.get(usize::from(style)).copied().unwrap_or(0.0)
    }
}

/// A light switched on: its pattern's (or default style's) first letter, else normal.
fn on_brightness(e: &Entity) -> f32 {
    let mut on = e.clone();
    on.pairs.retain(|(k, _)| !k.eq_ignore_ascii_case("spawnflags"));
    spawn_brightness(&on)
}

/// The names of the map's switchable lights, for a message.
fn switchable_names(bsp: &Bsp) -> String {
    let mut names: Vec<&str> = Vec::new();
    for e in bsp.entities.iter().filter(|e| switchable_style(e).is_some()) {
        let name = key(e, "targetname");
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return "none".to_string();
    }
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ent(pairs: &[(&str, &str)]) -> Entity {
        Entity::from_pairs(pairs)
    }

    fn map() -> Bsp {
        let entities = vec![
            ent(&[("classname", "worldspawn")]),
            ent(&[("classname", "light"), ("targetname", "plain"), ("style", "32")]),
            ent(&[
                ("classname", "light_spot"),
                ("targetname", "Dark"),
                ("style", "33"),
                ("spawnflags", "1"),
            ]),
            ent(&[
                ("classname", "light"),
                ("targetname", "pulse"),
                ("style", "34"),
                ("defaultstyle", "2"),
            ]),
            ent(&[
                ("classname", "light"),
                ("targetname", "glow"),
                ("style", "35"),
                ("pattern", "z"),
            ]),
            ent(&[("classname", "light"), ("targetname", "plain"), ("style", "32")]),
            ent(&[("classname", "info_target"), ("targetname", "t"), ("style", "36")]),
        ];
        Bsp {
            entities,
            ..Bsp::default()
        }
    }

    #[test]
    fn spawn_follows_the_game() {
        let s = StyleScales::at_spawn(&map());
        assert_eq!(s.scale(0), 1.0);
        // Slow strong pulse and slow strobe start at 'a'; style 5 at 'j'; unset styles normal.
        assert_eq!((s.scale(2), s.scale(9), s.scale(5)), (0.0, 0.0, 0.75));
        assert_eq!((s.scale(20), s.scale(36), s.scale(255)), (1.0, 1.0, 0.0));
        // Named: normal, initially dark, a default pattern's first letter, its own pattern.
        assert_eq!(
            [32, 33, 34, 35].map(|st| s.scale(st)),
            [1.0, 0.0, 0.0, 25.0 / 12.0]
        );
    }

    #[test]
    fn switches_turn_named_lights_on_and_off() {
        let bsp = map();
        let on = |name: &str, on: bool| LightSwitch {
            name: name.into(),
            on,
        };
        let s = StyleScales::with_switches(&bsp, &[on("dark", true), on("plain", false)]).unwrap();
        assert_eq!((s.scale(33), s.scale(32), s.scale(35)), (1.0, 0.0, 25.0 / 12.0));
        let err = StyleScales::with_switches(&bsp, &[on("t", true)]).unwrap_err();
        assert_eq!(
            err,
            LightSwitchError::Unknown("t".into(), "plain, Dark, pulse, glow".into())
        );
    }

    #[test]
    fn switches_parse() {
        let sw: LightSwitch = "lamp=ON".parse().unwrap();
        assert_eq!(
            sw,
            LightSwitch {
                name: "lamp".into(),
                on: true
            }
        );
        assert!(!"a=b=off".parse::<LightSwitch>().unwrap().on);
        for bad in ["lamp", "lamp=dim", "=on"] {
            assert!(matches!(
                bad.parse::<LightSwitch>(),
                Err(LightSwitchError::Syntax(_))
            ));
        }
    }
}
