//! The first line: `<!-- dmx encoding ENC VER format FMT VER -->`, or the legacy
//! `<!-- DMXVersion binary_v2 -->`.

use crate::DmxError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `binary`, `keyvalues2`, `keyvalues2_noids`, `keyvalues2_flat`, `unicode_keyvalues2`, …
    pub encoding: String,
    pub encoding_version: u32,
    pub format: String,
    pub format_version: u32,
    /// The legacy `DMXVersion` form (no format; binary without a string table).
    pub legacy: bool,
    /// The header exactly as read, including its line end (and the NUL of binary files).
    pub raw: Vec<u8>,
}

impl Header {
    pub fn new(encoding: &str, encoding_version: u32, format: &str, format_version: u32) -> Header {
        let mut h = Header {
            encoding: encoding.into(),
            encoding_version,
            format: format.into(),
            format_version,
            legacy: false,
            raw: Vec::new(),
        };
        h.raw = h.canonical(false);
        h
    }

    pub fn is_binary(&self) -> bool {
        self.encoding.contains("binary")
    }

    /// keyvalues2 without element ids.
    pub fn is_noids(&self) -> bool {
        self.encoding.contains("noids")
    }

    /// keyvalues2_flat: every element top-level.
    pub fn is_flat(&self) -> bool {
        self.encoding.contains("flat")
    }

    /// The same header with another encoding.
    pub fn with_encoding(&self, binary: bool, version: u32) -> Header {
        let encoding = if binary { "binary" } else { "keyvalues2" };
        let mut h = Header::new(encoding, version, &self.format, self.format_version);
        if self.legacy && !binary {
            h.format = "dmx".into();
        }
        h.raw = h.canonical(false);
        h
    }

    /// Valve's spelling of this header, with its line end (CRLF when `crlf`).
    pub fn canonical(&self, crlf: bool) -> Vec<u8> {
        let mut s = if self.legacy {
            format!("<!-- DMXVersion {}_v{} -->", self.encoding, self.encoding_version)
        } else {
            format!(
                "<!-- dmx encoding {} {} format {} {} -->",
                self.encoding, self.encoding_version, self.format, self.format_version
            )
        }
        .into_bytes();
        s.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        if self.is_binary() {
            s.push(0);
        }
        s
    }

    /// The bytes to write: the original spelling if it still says the same thing.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        match parse(&self.raw) {
            Ok((h, _))
                if h.encoding == self.encoding
                    && h.encoding_version == self.encoding_version
                    && h.format == self.format
                    && h.format_version == self.format_version
                    && h.legacy == self.legacy =>
            {
                self.raw.clone()
            }
            _ => self.canonical(self.raw.ends_with(b"\r\n")),
        }
    }

    pub(crate) fn crlf(&self) -> bool {
        self.raw.windows(2).any(|w| w == b"\r\n")
    }
}

/// Parses the header; returns it and the offset of the body.
pub(crate) fn parse(data: &[u8]) -> Result<(Header, usize), DmxError> {
    let bom = if data.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let end = data.iter().take(4096).position(|&b| b == b'\n').ok_or_else(|| {
        DmxError::Header("no header line (expected `<!-- dmx encoding ... -->` followed by a newline)".into())
    })?;
    let line = std::str::from_utf8(&data[bom..end])
        .map_err(|_| DmxError::Header("header line is not text".into()))?
        .trim_end_matches('\r')
        .trim();
    let mut h = header_fields(line)?;
    let mut body = end + 1;
    if h.is_binary() {
        if data.get(body) != Some(&0) {
            return Err(DmxError::Binary {
                offset: body as u64,
                message: "expected a NUL after the binary header line".into(),
            });
        }
        body += 1;
    }
    h.raw = data[..body].to_vec();
    Ok((h, body))
}

/// The encoding and its version of a legacy header's `E_vV` (`sfm` meaning binary).
fn legacy_encoding(ver: &str) -> Option<(String, u32)> {
    let (enc, v) = ver.rsplit_once("_v")?;
    let encoding = if enc == "sfm" {
        "binary".into()
    } else {
        enc.to_string()
    };
    Some((encoding, v.parse().ok()?))
}

/// The header comment's fields: `dmx encoding E V format F V`, or the legacy `DMXVersion
/// E_vV` (`sfm` meaning binary). `raw` is left empty.
fn header_fields(line: &str) -> Result<Header, DmxError> {
    let inner = line
        .strip_prefix("<!--")
        .and_then(|l| l.strip_suffix("-->"))
        .ok_or_else(|| DmxError::Header(format!("`{line}` is not a `<!-- ... -->` comment")))?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    let bad = || DmxError::Header(format!("cannot read `{line}`"));
    let (encoding, encoding_version, format, format_version, legacy) = match words.as_slice() {
        ["dmx", "encoding", enc, ev, "format", fmt, fv] => (
            enc.to_string(),
            ev.parse().map_err(|_| bad())?,
            fmt.to_string(),
            fv.parse().map_err(|_| bad())?,
            false,
        ),
        ["DMXVersion", ver] => {
            let (encoding, version) = legacy_encoding(ver).ok_or_else(bad)?;
            (encoding, version, String::new(), 0, true)
        }
        _ => return Err(bad()),
    };
    Ok(Header {
        encoding,
        encoding_version,
        format,
        format_version,
        legacy,
        raw: Vec::new(),
    })
}
