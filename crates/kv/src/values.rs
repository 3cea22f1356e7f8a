//! Entity key values as the engine reads them (`sscanf`/`atof` semantics), for every crate
//! that reads entities, from a VMF or a BSP's entity lump: vectors (`origin`, `angles`),
//! colours with a brightness (`_light`), booleans (`spawnflags`-style `0`/`1` keys) and plain
//! numbers. One reading of each, so the stages agree on what a key means.

/// The leading whitespace-separated numbers of a value, stopping at the first word that is
/// not one (as `sscanf("%f %f %f")` does).
pub fn numbers(value: &str) -> impl Iterator<Item = f64> + '_ {
    value.split_whitespace().map_while(|t| t.parse::<f64>().ok())
}

/// `x y z`: the first three numbers, all finite (`origin`, `angles`, a direction). Words after
/// the third are ignored, as the engine ignores them.
pub fn vector(value: &str) -> Option<[f64; 3]> {
    let mut it = numbers(value);
    let v = [it.next()?, it.next()?, it.next()?];
    v.iter().all(|x| x.is_finite()).then_some(v)
}

/// `x y z` with missing or unreadable components 0 (how lights read `angles` and `origin`).
pub fn vector_or_zero(value: &str) -> [f64; 3] {
    let mut v = [0.0; 3];
    for (slot, x) in v.iter_mut().zip(numbers(value)) {
        *slot = x;
    }
    v
}

/// A colour with a brightness, `r g b [brightness]`, as written by Hammer (`_light`,
/// `_ambient`, `rendercolor`). Missing parts are 0; `None` when no number reads at all.
/// Lights with an HDR part (`r g b i R G B I`) keep all eight numbers in [`Color::hdr`].
pub fn color(value: &str) -> Option<Color> {
    let v: Vec<f64> = numbers(value).collect();
    if v.is_empty() {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0.0);
    Some(Color {
        rgb: [at(0), at(1), at(2)],
        brightness: at(3),
        count: v.len(),
        hdr: (v.len() >= 8).then(|| ([at(4), at(5), at(6)], at(7))),
    })
}

/// A colour key's numbers; see [`color`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Color {
    /// Red, green, blue (0–255 in Hammer's keys).
    pub rgb: [f64; 3],
    /// The fourth number (0 when absent).
    pub brightness: f64,
    /// How many numbers the value held.
    pub count: usize,
    /// The HDR colour and brightness of an eight-number light value.
    pub hdr: Option<([f64; 3], f64)>,
}

/// A boolean key: a number that is not zero (`"1"`, `"2"`), as `atoi(value) != 0`.
pub fn boolean(value: &str) -> bool {
    atof(value) != 0.0
}

/// C's `atof`: the longest numeric prefix after leading blanks, 0 when there is none.
pub fn atof(value: &str) -> f64 {
    let s = value.trim_start();
    let end = s
        .char_indices()
        .take_while(|&(i, c)| {
            c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0) || c == 'e' || c == 'E'
        })
        .count();
    (1..=end)
        .rev()
        .find_map(|n| s.get(..n).and_then(|p| p.parse().ok()))
        .unwrap_or(0.0)
}

/// C's `atoi`: the longest integer prefix after leading blanks (an optional sign, then
/// digits), 0 when there is none; saturates where C's would overflow.
pub fn atoi(value: &str) -> i64 {
    let s = value.trim_start();
    let sign_len = usize::from(s.starts_with(['-', '+']));
    let digits = s[sign_len..].bytes().take_while(u8::is_ascii_digit).count();
    let magnitude = s[sign_len..sign_len + digits].bytes().fold(0i64, |n, d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    if s.starts_with('-') { -magnitude } else { magnitude }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors() {
        assert_eq!(vector("1 -2 3.5"), Some([1.0, -2.0, 3.5]));
        assert_eq!(vector(" 1 2 3 extra"), Some([1.0, 2.0, 3.0]));
        assert_eq!(vector("1 2"), None);
        assert_eq!(vector("1 x 3"), None);
        assert_eq!(vector("1 2 inf"), None);
        assert_eq!(vector_or_zero("0 90"), [0.0, 90.0, 0.0]);
        assert_eq!(vector_or_zero(""), [0.0; 3]);
    }

    #[test]
    fn colors() {
        let c = color("255 128 0 200").unwrap();
        assert_eq!(
            (c.rgb, c.brightness, c.count, c.hdr),
            ([255.0, 128.0, 0.0], 200.0, 4, None)
        );
        let c = color("1 2 3 4 5 6 7 8").unwrap();
        assert_eq!(c.hdr, Some(([5.0, 6.0, 7.0], 8.0)));
        assert_eq!(color("255 255").unwrap().rgb, [255.0, 255.0, 0.0]);
        assert_eq!(color("bright"), None);
    }

    #[test]
    fn c_like_numbers() {
        assert_eq!(atof("4096"), 4096.0);
        assert_eq!(atof(" 2500.5 junk"), 2500.5);
        assert_eq!(atof("x"), 0.0);
        assert_eq!(atof("-3e2"), -300.0);
        assert_eq!(atoi(" 10"), 10);
        assert_eq!(atoi("-4x"), -4);
        assert_eq!(atoi("1.9"), 1);
        assert_eq!(atoi("1e2"), 1);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("+"), 0);
        assert!(boolean("1") && boolean("2") && !boolean("0") && !boolean("") && !boolean("no"));
    }
}
