//! The flow results of a shard as bytes: the payload of a vvis partial file, and the records
//! shards publish to each other while they run (see [`crate::flow::shard`]).
//!
//! A record is `position u32, portal u32, states u64, words u32, words × u64` (little-endian;
//! `states` the walk states the result took, which later walks' shares of the flow's budget
//! depend on); a payload
//! is `portals u32, words u32, records u32` and that many records.

use srcmap_bytes::{Endian, ReadError, Reader, Writer};

use crate::bits::Bits;

/// One one-way portal's flow result and where it stood in the order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRecord {
    pub position: u32,
    pub portal: u32,
    pub states: u64,
    pub vis: Bits,
}

/// Appends `record`'s bytes to `w`.
pub fn write_record(w: &mut Writer, record: &FlowRecord) {
    w.u32(record.position);
    w.u32(record.portal);
    w.u64(record.states);
    w.u32(record.vis.words.len() as u32);
    for &word in &record.vis.words {
        w.u64(word);
    }
}

/// One record from `r`.
pub fn read_record(r: &mut Reader<'_>) -> Result<FlowRecord, ReadError> {
    let position = r.u32()?;
    let portal = r.u32()?;
    let states = r.u64()?;
    let words = r.u32()?;
    let n = r.check_count(u64::from(words), 8)?;
    let words = (0..n).map(|_| r.u64()).collect::<Result<Vec<u64>, _>>()?;
    Ok(FlowRecord {
        position,
        portal,
        states,
        vis: Bits { words },
    })
}

/// The payload of a shard's results over a graph of `portals` one-way portals, rows `words`
/// wide.
pub fn payload(portals: usize, words: usize, records: &[FlowRecord]) -> Vec<u8> {
    let mut w = Writer::new(Endian::Little);
    w.u32(portals as u32);
    w.u32(words as u32);
    w.u32(records.len() as u32);
    for r in records {
        write_record(&mut w, r);
    }
    w.into_inner()
}

/// What [`payload`] wrote: (portals, words, records).
pub fn read_payload(bytes: &[u8]) -> Result<(u32, u32, Vec<FlowRecord>), ReadError> {
    let mut r = Reader::new(bytes, Endian::Little);
    let portals = r.u32()?;
    let words = r.u32()?;
    // Each record takes at least its 20 bytes of header.
    let count = r.u32()?;
    let n = r.check_count(u64::from(count), 20)?;
    let records = (0..n)
        .map(|_| read_record(&mut r))
        .collect::<Result<Vec<_>, _>>()?;
    if r.remaining() != 0 {
        return Err(r.invalid("bytes after the last record"));
    }
    Ok((portals, words, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_reads_back_and_damage_is_an_error() {
        let records = vec![
            FlowRecord {
                position: 0,
                portal: 5,
                states: 7,
                vis: Bits { words: vec![1, 2] },
            },
            FlowRecord {
                position: 3,
                portal: 1,
                states: 0,
                vis: Bits {
                    words: vec![u64::MAX, 0],
                },
            },
        ];
        let bytes = payload(6, 2, &records);
        assert_eq!(read_payload(&bytes).unwrap(), (6, 2, records));
        for n in 0..bytes.len() {
            assert!(read_payload(&bytes[..n]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read_payload(&longer).is_err());
    }
}
