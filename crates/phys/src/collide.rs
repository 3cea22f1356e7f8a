//! One brush model's collision as the BSP's physcollide lump holds it (the lump's container is
//! split by `srcmap-bsp`; this reads what it splits out).

use serde::Serialize;

use crate::error::Result;
use crate::keydata::KeyData;
use crate::solid::Solid;

/// `dphysmodel_t` header size.
pub const MODEL_HEADER_SIZE: u64 = 16;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCollision {
    pub model_index: i32,
    pub solids: Vec<Solid>,
    pub key_data: KeyData,
}

impl ModelCollision {
    /// Reads a model's solid blobs and key data; `base` is the absolute offset of the model's
    /// `dphysmodel_t` header, from which each blob's offset follows.
    pub fn parse(
        model_index: i32,
        solids: &[impl AsRef<[u8]>],
        key_data: &[u8],
        base: u64,
    ) -> Result<ModelCollision> {
        let mut at = base + MODEL_HEADER_SIZE;
        let mut out = Vec::with_capacity(solids.len());
        for (i, s) in solids.iter().enumerate() {
            let s = s.as_ref();
            out.push(Solid::parse(s, at + 4).map_err(|e| e.in_model(model_index).in_solid(i))?);
            at += 4 + s.len() as u64;
        }
        Ok(ModelCollision {
            model_index,
            solids: out,
            key_data: KeyData::parse(key_data, at).map_err(|e| e.in_model(model_index))?,
        })
    }

    /// Bytes of this model's entry: the solids' blobs and the key data.
    pub fn solid_blobs(&self) -> Vec<Vec<u8>> {
        self.solids.iter().map(Solid::to_bytes).collect()
    }

    /// The absolute offset of the entry after one of `blob_sizes` and `key_size` at `base`.
    pub fn next_base(base: u64, blob_sizes: impl Iterator<Item = usize>, key_size: usize) -> u64 {
        base + MODEL_HEADER_SIZE + blob_sizes.map(|s| 4 + s as u64).sum::<u64>() + key_size as u64
    }
}
