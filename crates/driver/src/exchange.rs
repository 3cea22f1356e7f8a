//! How the shards of a sharded vis see each other's flow results while they run: through
//! files in one folder they all reach (the part files' folder by default; on a cluster, a
//! shared file system, as Slurm and Kubernetes jobs have one).
//!
//! Shard `k` appends each result it computes to its journal `TAG.K.journal` (a record and its
//! check, [`srcmap_vvis::part`]) and reads the other shards' journals from where it stopped;
//! a record not yet whole is read again at the next look, a damaged one ends the reading of
//! that journal (its results are then computed again where they are needed). It rewrites
//! `TAG.K.alive` with a new count twice a second: a shard whose count has not changed for the
//! exchange's patience has stopped (or never started), and its positions are taken over.
//! `TAG` names the input, the options and the shard count, so journals of another run are
//! never read; those of an earlier run of the same one hold the same results, and are.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use srcmap_bytes::{Endian, ReadError, Reader, Writer};
use srcmap_vvis::bits::Bits;
use srcmap_vvis::part::{FlowRecord, read_record, write_record};

/// How often a running shard says it is alive.
const HEARTBEAT: Duration = Duration::from_millis(500);

/// The file exchange of shard `index` of `count`.
pub struct FileExchange {
    dir: PathBuf,
    tag: String,
    index: u32,
    patience: Duration,
    journal: Mutex<File>,
    /// The first write error (the run fails with it at the end; until then other shards
    /// simply compute what this one could not publish).
    failed: Mutex<Option<std::io::Error>>,
    peers: Mutex<Vec<Peer>>,
    beating: Arc<AtomicBool>,
}

/// What this shard knows of another.
struct Peer {
    /// Bytes of its journal read so far; `u64::MAX` once a damaged record was met.
    read: u64,
    /// Its last alive count seen, and when it was first seen.
    alive: Option<(Vec<u8>, Instant)>,
    first_look: Option<Instant>,
}

/// The journal and alive files of a run in `dir`.
pub fn journal_path(dir: &Path, tag: &str, index: u32) -> PathBuf {
    dir.join(format!("{tag}.{index}.journal"))
}

fn alive_path(dir: &Path, tag: &str, index: u32) -> PathBuf {
    dir.join(format!("{tag}.{index}.alive"))
}

impl FileExchange {
    /// Opens shard `index`'s journal afresh in `dir` and starts its heartbeat.
    pub fn open(dir: &Path, tag: &str, index: u32, count: u32, patience: Duration) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let journal = File::create(journal_path(dir, tag, index))?;
        let beating = Arc::new(AtomicBool::new(true));
        start_heartbeat(alive_path(dir, tag, index), beating.clone());
        let peers = (0..count)
            .map(|_| Peer {
                read: 0,
                alive: None,
                first_look: None,
            })
            .collect();
        Ok(FileExchange {
            dir: dir.to_path_buf(),
            tag: tag.to_string(),
            index,
            patience,
            journal: Mutex::new(journal),
            failed: Mutex::new(None),
            peers: Mutex::new(peers),
            beating,
        })
    }

    /// Stops the heartbeat; the first error met writing the journal, if any.
    pub fn close(self) -> Result<(), std::io::Error> {
        self.beating.store(false, Ordering::Relaxed);
        match self.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The records of peer `k`'s journal past what was read, advancing the mark.
    fn read_peer(&self, k: u32, peer: &mut Peer) -> Vec<(u32, u64, Bits)> {
        if peer.read == u64::MAX {
            return Vec::new();
        }
        let path = journal_path(&self.dir, &self.tag, k);
        // One look at the size first: most looks find nothing new.
        if std::fs::metadata(&path).map_or(true, |m| m.len() <= peer.read) {
            return Vec::new();
        }
        let Ok(bytes) = read_from(&path, peer.read) else {
            return Vec::new();
        };
        let (records, used, damaged) = journal_records(&bytes);
        peer.read = if damaged {
            u64::MAX
        } else {
            peer.read + used as u64
        };
        records
            .into_iter()
            .map(|r| (r.position, r.states, r.vis))
            .collect()
    }
}

impl Drop for FileExchange {
    fn drop(&mut self) {
        self.beating.store(false, Ordering::Relaxed);
    }
}

/// The bytes of `path` from `offset` on.
fn read_from(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole records at the start of `bytes`, the bytes they take, and whether a damaged
/// record (its check wrong, or its fields impossible) stopped the reading.
pub fn journal_records(bytes: &[u8]) -> (Vec<FlowRecord>, usize, bool) {
    let mut r = Reader::new(bytes, Endian::Little);
    let mut records = Vec::new();
    loop {
        let start = r.position();
        match read_checked(&mut r) {
            Ok(record) => records.push(record),
            Err(ReadError::UnexpectedEnd { .. }) => return (records, start, false),
            Err(ReadError::Invalid { .. }) => return (records, start, true),
        }
    }
}

/// One record and its check.
fn read_checked(r: &mut Reader<'_>) -> Result<FlowRecord, ReadError> {
    let start = r.position();
    let record = read_record(r)?;
    let body = &r.data()[start..r.position()];
    if r.u64()? != srcmap_shard::hash(&[body]) {
        return Err(r.invalid("journal record damaged"));
    }
    Ok(record)
}

/// A record's journal bytes: the record, then its check.
pub fn journal_entry(record: &FlowRecord) -> Vec<u8> {
    let mut w = Writer::new(Endian::Little);
    write_record(&mut w, record);
    let mut bytes = w.into_inner();
    let check = srcmap_shard::hash(&[&bytes]);
    bytes.extend_from_slice(&check.to_le_bytes());
    bytes
}

/// Rewrites `path` with a growing count every [`HEARTBEAT`] while `beating`.
fn start_heartbeat(path: PathBuf, beating: Arc<AtomicBool>) {
    static BEATS: AtomicU64 = AtomicU64::new(0);
    std::thread::spawn(move || {
        while beating.load(Ordering::Relaxed) {
            let n = BEATS.fetch_add(1, Ordering::Relaxed);
            let _ = srcmap_bytes::write_atomic(&path, format!("{n}\n").as_bytes());
            std::thread::sleep(HEARTBEAT);
        }
    });
}

impl srcmap_vvis::Exchange for FileExchange {
    fn publish(&self, position: u32, portal: u32, states: u64, vis: &Bits) {
        let record = FlowRecord {
            position,
            portal,
            states,
            vis: vis.clone(),
        };
        let entry = journal_entry(&record);
        let mut journal = self.journal.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = journal.write_all(&entry).and_then(|()| journal.flush()) {
            self.failed
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    }

    fn collect(&self) -> Vec<(u32, u64, Bits)> {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for (k, peer) in peers.iter_mut().enumerate() {
            if k as u32 != self.index {
                out.extend(self.read_peer(k as u32, peer));
            }
        }
        out
    }

    fn owner_alive(&self, index: u32) -> bool {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        let Some(peer) = peers.get_mut(index as usize) else {
            return false;
        };
        if peer.read == u64::MAX {
            return false; // its journal is damaged: what it publishes cannot be read
        }
        let now = Instant::now();
        let count = std::fs::read(alive_path(&self.dir, &self.tag, index)).ok();
        let first = *peer.first_look.get_or_insert(now);
        match (count, &peer.alive) {
            (Some(c), Some((seen, _))) if c == *seen => {}
            (Some(c), _) => peer.alive = Some((c, now)),
            (None, _) => {}
        }
        let last_sign = peer.alive.as_ref().map_or(first, |(_, at)| *at);
        now.duration_since(last_sign) < self.patience
    }
}

/// Removes the journals and alive files of run `tag` with `count` shards from `dir` (after a
/// merge); files already gone are no error.
pub fn remove_run_files(dir: &Path, tag: &str, count: u32) {
    for k in 0..count {
        let _ = std::fs::remove_file(journal_path(dir, tag, k));
        let _ = std::fs::remove_file(alive_path(dir, tag, k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(position: u32) -> FlowRecord {
        FlowRecord {
            position,
            portal: position * 2,
            states: u64::from(position) * 3,
            vis: Bits {
                words: vec![u64::from(position), 7],
            },
        }
    }

    #[test]
    fn a_journal_reads_whole_records_waits_on_a_partial_one_and_stops_at_damage() {
        let mut bytes = journal_entry(&record(0));
        let one = bytes.len();
        bytes.extend(journal_entry(&record(1)));
        let (records, used, damaged) = journal_records(&bytes);
        assert_eq!(
            (records, used, damaged),
            (vec![record(0), record(1)], 2 * one, false)
        );
        // Half a record: the whole ones, and the rest read again later.
        let (records, used, damaged) = journal_records(&bytes[..one + one / 2]);
        assert_eq!((records.len(), used, damaged), (1, one, false));
        // A damaged record ends the reading.
        bytes[one + 5] ^= 1;
        let (records, used, damaged) = journal_records(&bytes);
        assert_eq!((records.len(), used, damaged), (1, one, true));
    }
}
