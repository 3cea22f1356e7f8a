//! Writing a [`Bsp`] as a whole file: a fresh one in the lump order of its branch's tools, or an update of the file
//! it was parsed from. Values no reader can use ([`crate::check::unwritable`]) are refused first.

use crate::bsp::Bsp;
use crate::check::{HEADER, unwritable};
use crate::document::BspDocument;
use crate::error::{BspError, Result};
use crate::file::BspFile;
use crate::lump::{GAME_LUMP, HEADER_LUMPS};
use crate::order::write_order;

impl Bsp {
    /// A fresh document holding every lump re-serialised, in Valve's lump order.
    pub fn to_document(&self) -> Result<BspDocument<'static>> {
        let mut doc = BspDocument::with_order(self.version, self.order);
        doc.endian = self.endian;
        doc.revision = self.revision;
        let written = write_order(self.version, self.order);
        for lump in 0..HEADER_LUMPS {
            let bytes = self.lump_bytes(lump)?;
            if bytes.is_empty() && !written.contains(&lump) {
                // Keep Valve's zero offset for lumps its tools never write.
                doc.lumps[lump].version = self.lump_versions[lump];
                continue;
            }
            doc.set_lump(lump, bytes, self.lump_versions[lump]);
        }
        Ok(doc)
    }

    /// Serialises the whole file, every lump uncompressed. Values no reader can use (see
    /// [`crate::check::unwritable`]) are refused, the first one named.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.refuse_unwritable()?;
        self.to_document()?.to_bytes()
    }

    fn refuse_unwritable(&self) -> Result<()> {
        match unwritable(self).into_iter().next() {
            None => Ok(()),
            Some(v) if v.lump == HEADER => Err(BspError::Header {
                offset: 4,
                message: v.message,
            }),
            Some(v) => Err(BspError::Write {
                lump: v.lump,
                message: match v.record {
                    Some(r) => format!("record {r}: {}", v.message),
                    None => v.message,
                },
            }),
        }
    }

    /// Serialises this BSP as an update of `earlier`, an earlier file of the same map (the one
    /// it was parsed from, or one an earlier compile stage wrote): lumps keep that file's order,
    /// untouched ones their stored bytes and place. Running the stages in one process and writing
    /// once this way gives the same file as running them one after another on files.
    pub fn to_bytes_over(&self, earlier: &[u8]) -> Result<Vec<u8>> {
        self.refuse_unwritable()?;
        let file = BspFile::parse(earlier)?;
        let mut doc = BspDocument::from_file(&file);
        self.update_document(&mut doc)?;
        doc.to_bytes()
    }

    /// Whether `doc`'s lump `lump` holds what `new` does: the same bytes, or bytes that parse
    /// to the same typed value (entity whitespace, padding; the original is kept then). The
    /// game lump is compared typed.
    fn same_content(&self, doc: &BspDocument<'_>, lump: usize, new: &[u8]) -> Result<bool> {
        let mut old = Bsp::new(self.version);
        old.endian = self.endian;
        if lump == GAME_LUMP {
            old.lump_versions = self.lump_versions;
            old.game_lumps = doc.game_lumps_typed(&self.ctx(lump))?;
            return Ok(old.lump_bytes(lump)? == new);
        }
        let old_bytes = doc.lump_data(lump)?;
        if *old_bytes == *new {
            return Ok(true);
        }
        old.lump_versions = doc
            .lumps
            .iter()
            .map(|l| l.version)
            .collect::<Vec<_>>()
            .try_into()
            .unwrap_or(self.lump_versions);
        Ok(old.parse_lump(lump, &old_bytes, 0).is_ok() && old.lump_bytes(lump)? == new)
    }

    /// Writes this typed view into `doc` (opened from the file it was parsed from), replacing
    /// only lumps whose content differs: untouched lumps keep their stored bytes, compression and
    /// place in the file.
    pub fn update_document(&self, doc: &mut BspDocument<'_>) -> Result<Vec<usize>> {
        self.update_document_knowing(doc, |_| None)
    }

    /// [`Bsp::update_document`] told by `known` what the caller knows of each lump since
    /// `doc` was parsed (a stage that serialised it before its changes and after):
    /// `Some(false)`, it holds what `doc`'s parsed to, version included; `Some(true)`, it
    /// differs; `None`, compare. Knowing spares decoding a stored LZMA lump only to compare.
    pub fn update_document_knowing(
        &self,
        doc: &mut BspDocument<'_>,
        known: impl Fn(usize) -> Option<bool>,
    ) -> Result<Vec<usize>> {
        let mut changed = Vec::new();
        for lump in (0..HEADER_LUMPS).filter(|&l| known(l) != Some(false)) {
            let new = self.lump_bytes(lump)?;
            let unchanged = known(lump).is_none() && self.same_content(doc, lump, &new)?;
            if !unchanged || doc.lumps[lump].version != self.lump_versions[lump] {
                doc.set_lump(lump, new, self.lump_versions[lump]);
                changed.push(lump);
            }
        }
        doc.revision = self.revision;
        Ok(changed)
    }
}
