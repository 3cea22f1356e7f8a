//! Lossless byte ↔ string mapping. DMX strings are UTF-8 in practice, but older tools wrote
//! code-page bytes. A string that is not valid UTF-8 keeps each byte ≥ 0x80 as a private-use
//! character U+F780 + (byte − 0x80) — the same trick as Python's `surrogateescape` — so it is
//! written back as the very same bytes. (Valid UTF-8 that itself contains those private-use
//! characters is escaped the same way, so it also comes back unchanged.)

use std::borrow::Cow;

const ESCAPE_BASE: u32 = 0xF780;

fn escaped(c: char) -> bool {
    (ESCAPE_BASE..ESCAPE_BASE + 0x80).contains(&(c as u32))
}

pub(crate) fn decode(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        // Valid UTF-8 that happens to contain the escape characters is escaped byte-wise too,
        // so that writing it back cannot turn them into single bytes.
        Ok(s) if !s.chars().any(escaped) => Cow::Borrowed(s),
        _ => Cow::Owned(
            b.iter()
                .map(|&c| {
                    if c < 0x80 {
                        c as char
                    } else {
                        char::from_u32(ESCAPE_BASE + (c as u32 - 0x80)).unwrap_or('?')
                    }
                })
                .collect(),
        ),
    }
}

pub(crate) fn encode(s: &str) -> Cow<'_, [u8]> {
    if !s
        .chars()
        .any(|c| (ESCAPE_BASE..ESCAPE_BASE + 0x80).contains(&(c as u32)))
    {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        if (ESCAPE_BASE..ESCAPE_BASE + 0x80).contains(&u) {
            out.push((u - ESCAPE_BASE + 0x80) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn non_utf8_bytes_survive() {
        let raw = b"caf\xe9 \xff";
        let s = super::decode(raw);
        assert_eq!(&*super::encode(&s), raw);
        assert_eq!(&*super::encode("café"), "café".as_bytes());
        let private = "\u{F7D5}a".as_bytes();
        assert_eq!(&*super::encode(&super::decode(private)), private);
    }
}
