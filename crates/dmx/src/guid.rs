//! Element ids: 16 bytes in file order, shown as text GUIDs with the Microsoft (`bytes_le`)
//! mapping — the first three groups are little-endian.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(pub [u8; 16]);

/// Byte order of the text form: which file byte each printed byte comes from.
const TEXT_ORDER: [usize; 16] = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];

impl Guid {
    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (braces and case tolerated).
    pub fn parse(s: &str) -> Option<Guid> {
        let s = s.trim().trim_start_matches('{').trim_end_matches('}');
        let b = s.as_bytes();
        if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
            return None;
        }
        let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
        if hex.len() != 32 {
            return None;
        }
        let mut text = [0u8; 16];
        for (i, pair) in hex.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            text[i] = (hi * 16 + lo) as u8;
        }
        let mut out = [0u8; 16];
        for (i, &src) in TEXT_ORDER.iter().enumerate() {
            out[src] = text[i];
        }
        Some(Guid(out))
    }

    /// A deterministic version-4-shaped id derived from `seed` (SplitMix64), for elements a text
    /// file gives no id: the same file always gets the same ids.
    pub fn from_seed(seed: u64) -> Guid {
        let mut x = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&next().to_le_bytes());
        b[8..].copy_from_slice(&next().to_le_bytes());
        b[7] = (b[7] & 0x0F) | 0x40; // version 4 (text byte 6)
        b[8] = (b[8] & 0x3F) | 0x80; // RFC 4122 variant
        Guid(b)
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &src) in TEXT_ORDER.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{:02x}", self.0[src])?;
        }
        Ok(())
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Guid({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips_with_bytes_le_order() {
        let g = Guid::parse("b66a2ce3-d686-4dbf-85df-07c6b275bebb").unwrap();
        assert_eq!(g.0[0], 0xe3);
        assert_eq!(g.0[4], 0x86);
        assert_eq!(g.0[8], 0x85);
        assert_eq!(g.to_string(), "b66a2ce3-d686-4dbf-85df-07c6b275bebb");
        assert!(Guid::parse("nonsense").is_none());
        assert!(Guid::parse("ef7272f0-7c48-4d-e2affd-036e30a2da15").is_none());
        assert_eq!(Guid::parse("B66A2CE3-D686-4DBF-85DF-07C6B275BEBB"), Some(g));
        assert_ne!(Guid::from_seed(1), Guid::from_seed(2));
    }
}
