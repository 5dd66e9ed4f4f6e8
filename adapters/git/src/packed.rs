//! Blobs read in-process from the repository's packs when that is
//! certainly git's answer (issue 24): a new `start` reads the heads of
//! every changed blob, and the base side's are usually packed (git's
//! automatic gc packs a repository's history). `git cat-file` answered
//! them one round trip at a time, with a sizes pass before the contents.
//!
//! A blob is answered here only when all of this holds, and the loose
//! reader and then git's object reader are asked otherwise, as before:
//!
//! - the repository's own `objects/pack` holds version-2 pack indexes,
//!   each beside a version-2 or -3 pack; their names, counted from the
//!   fan-out tables first, fit [`NAMES_CAP`];
//! - the object is found in an index, stored whole or as a chain of at
//!   most [`MAX_DEPTH`] deltas (by offset, or by the id of an object of
//!   these packs), each entry within its place in the pack (up to the next
//!   entry's offset), each inflated to exactly its header's size, every
//!   object of the chain at most [`CHAIN_CAP`] bytes and the blob at most
//!   the cap asked;
//! - each delta applies exactly (its source size the base's, every copy
//!   within the base, its result the size it announces);
//! - the chain ends in a blob, and `blob <size>\0` and the bytes hash to
//!   the id asked (SHA-1 with collision detection, or SHA-256).
//!
//! The hash makes the answer the object's bytes; git prints the bytes of
//! the copy it reads first and never hashes them, so an answer is taken
//! only where git reads that same copy (D-R155's review): exactly one pack
//! lists the id, no multi-pack index is there, a delta's base by id is in
//! its own pack (git looks nowhere else), and each index is one git
//! accepts (its length, a fan-out that counts its names, its pack's
//! object count and checksum). A pack that is corrupt, has been replaced
//! since its index was read, or stores the object in a way this reader
//! does not follow is left to git.
//!
//! Bounded: the indexes' names and offsets are read once per call (at
//! most [`NAMES_CAP`] of names), and only when enough blobs are asked to
//! pay for it ([`worth_opening`]); resolved bases are kept per thread up
//! to [`CACHE_BYTES`].

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::Arc;

use flate2::Decompress;

use crate::loose::Format;

/// The most bytes of names read from all pack indexes.
pub(crate) const NAMES_CAP: u64 = 64 << 20;

/// The longest delta chain followed (git's default `pack.depth` is 50).
pub(crate) const MAX_DEPTH: usize = 64;

/// The largest object of a chain (a base, or a delta's data) resolved.
pub(crate) const CHAIN_CAP: usize = 16 << 20;

/// The most resolved bases kept per thread.
pub(crate) const CACHE_BYTES: usize = 32 << 20;

/// Fewer ids than this are read on one thread.
const PER_THREAD: usize = 64;

/// One pack: its file and its index's names and offsets.
struct Pack {
    file: File,
    len: u64,
    /// Sorted names, `hash_len` bytes each.
    names: Vec<u8>,
    /// Each name's offset in the pack, in the names' order.
    offsets: Vec<u64>,
    /// Every offset, ascending: an entry ends where the next begins.
    sorted: Vec<u64>,
}

/// The repository's packs, opened for one batch of reads.
pub(crate) struct Packs {
    packs: Vec<Pack>,
    format: Format,
}

/// Whether reading `objects` indexes (`total` names) pays for `asked`
/// blobs: at least 16, and at least one per 1,024 names.
pub(crate) fn worth_opening(asked: usize, total: u64) -> bool {
    asked >= 16 && total <= (asked as u64).saturating_mul(1024)
}

/// The sorted names of every pack index of the object directories `dirs`
/// (each `<dir>/pack/*.idx`, valid or not: git may read any of them), for
/// the loose reader, which answers only for ids no pack lists (git looks
/// in the packs first and never hashes what it reads). `None` when any
/// index is not a version-2 one this reader reads, a multi-pack index is
/// there, the names are over [`NAMES_CAP`] or, past [`SMALL_NAMES`],
/// reading them does not pay for `asked` blobs ([`worth_opening`]).
pub(crate) fn listed_names(
    dirs: &[std::path::PathBuf],
    format: Format,
    asked: usize,
) -> Option<Listed> {
    let hl = format.hash_len();
    let mut heads = Vec::new();
    for dir in dirs {
        let pack_dir = dir.join("pack");
        if crate::discover::multi_pack_index(&pack_dir) {
            return None;
        }
        match std::fs::read_dir(&pack_dir) {
            Ok(entries) => {
                for entry in entries {
                    let path = entry.ok()?.path();
                    if crate::discover::pack_index(&path)? {
                        heads.push(crate::discover::idx_head(&path)?);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
    }
    let mut total = 0u64;
    for (_, _, head) in &heads {
        total = total.checked_add(crate::discover::idx_count(head))?;
    }
    // A few packs' names cost less than a git; beyond, only many blobs
    // pay for them.
    if total.checked_mul(hl as u64)? > NAMES_CAP
        || (total > SMALL_NAMES && !worth_opening(asked, total))
    {
        return None;
    }
    let names = heads
        .into_iter()
        .map(|head| crate::discover::idx_names(head, hl))
        .collect::<Option<Vec<_>>>()?;
    Some(Listed { names, hl })
}

/// Every pack index's sorted names ([`listed_names`]).
pub(crate) struct Listed {
    names: Vec<Vec<u8>>,
    hl: usize,
}

impl Listed {
    /// Whether any pack index lists `raw`.
    pub(crate) fn has(&self, raw: &[u8]) -> bool {
        let hl = self.hl;
        raw.len() == hl
            && self.names.iter().any(|names| {
                let n = names.len() / hl;
                let (mut lo, mut hi) = (0usize, n);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    match names[mid * hl..(mid + 1) * hl].cmp(raw) {
                        std::cmp::Ordering::Less => lo = mid + 1,
                        std::cmp::Ordering::Greater => hi = mid,
                        std::cmp::Ordering::Equal => return true,
                    }
                }
                false
            })
    }
}

/// As many names as are read for the loose reader whatever it is asked.
const SMALL_NAMES: u64 = 65_536;

/// A resolved object: its kind (git's pack type: 1 commit, 2 tree,
/// 3 blob, 4 tag) and bytes.
type Resolved = (u8, Arc<Vec<u8>>);

/// Resolved objects by (pack, offset), up to [`CACHE_BYTES`].
#[derive(Default)]
struct Cache {
    kept: HashMap<(usize, u64), Resolved>,
    bytes: usize,
}

impl Cache {
    fn keep(&mut self, at: (usize, u64), resolved: &Resolved) {
        let len = resolved.1.len();
        if len > CACHE_BYTES {
            return;
        }
        if self.bytes + len > CACHE_BYTES {
            self.kept.clear();
            self.bytes = 0;
        }
        self.bytes += len;
        self.kept.insert(at, resolved.clone());
    }
}

impl Packs {
    /// The version-2 indexes (and their packs) of `objects/pack`, when
    /// every one is readable as this reader reads them and reading them
    /// pays for `asked` blobs; `None` otherwise (git answers).
    pub(crate) fn open(objects: &Path, format: Format, asked: usize) -> Option<Self> {
        let hl = format.hash_len();
        // git reads a multi-pack index's offsets, not the indexes'.
        if crate::discover::multi_pack_index(&objects.join("pack")) {
            return None;
        }
        let entries = match std::fs::read_dir(objects.join("pack")) {
            Ok(e) => e,
            Err(_) => return None,
        };
        let mut heads = Vec::new();
        for entry in entries {
            let path = entry.ok()?.path();
            if crate::discover::pack_index(&path)? {
                heads.push((crate::discover::idx_head(&path)?, path));
            }
        }
        let mut total = 0u64;
        for ((_, _, head), _) in &heads {
            total = total.checked_add(crate::discover::idx_count(head))?;
        }
        if heads.is_empty()
            || total.checked_mul(hl as u64)? > NAMES_CAP
            || !worth_opening(asked, total)
        {
            return None;
        }
        let mut packs = Vec::with_capacity(heads.len());
        for ((file, len, head), path) in heads {
            let n = crate::discover::idx_count(&head);
            // The index and pack git would take (their lengths, the
            // header's count, the pack's checksum the one its index names).
            let head = (file, len, head);
            if !crate::discover::pack_is_gits(&head, &path, hl) {
                return None;
            }
            let (file, len, head) = head;
            let fan: Vec<u64> = head[8..]
                .chunks_exact(4)
                .map(|w| u64::from(u32::from_be_bytes([w[0], w[1], w[2], w[3]])))
                .collect();
            let names = crate::discover::idx_names((file.try_clone().ok()?, len, head), hl)?;
            // The fan-out counts, for every first byte, the names up to it,
            // as git looks them up.
            let mut below = 0u64;
            let mut at = 0usize;
            for (byte, count) in fan.iter().enumerate() {
                while at < names.len() && usize::from(names[at]) == byte {
                    below += 1;
                    at += hl;
                }
                if *count != below {
                    return None;
                }
            }
            let nu = usize::try_from(n).ok()?;
            let at = 8 + 1024 + n * (hl as u64 + 4);
            let mut small = vec![0u8; nu.checked_mul(4)?];
            file.read_exact_at(&mut small, at).ok()?;
            let large_at = at + n * 4;
            let mut offsets = Vec::with_capacity(nu);
            for word in small.chunks_exact(4) {
                let v = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
                if v & 0x8000_0000 == 0 {
                    offsets.push(u64::from(v));
                } else {
                    let mut wide = [0u8; 8];
                    let i = u64::from(v & 0x7fff_ffff);
                    file.read_exact_at(&mut wide, large_at.checked_add(i.checked_mul(8)?)?)
                        .ok()?;
                    offsets.push(u64::from_be_bytes(wide));
                }
            }
            let pack = crate::discover::regular(&path.with_extension("pack"))?;
            let end = pack.metadata().ok()?.len().checked_sub(hl as u64)?;
            let mut sorted = offsets.clone();
            sorted.sort_unstable();
            if sorted.first().is_some_and(|o| *o < 12) || sorted.last().is_some_and(|o| *o >= end) {
                return None;
            }
            packs.push(Pack {
                file: pack,
                len: end,
                names,
                offsets,
                sorted,
            });
        }
        Some(Self { packs, format })
    }

    /// Where the object `raw` is: (pack, offset), when exactly one pack
    /// lists it. git reads the copy of the pack it tries first and never
    /// hashes it, so with two copies a true one here could differ from
    /// what git prints.
    fn find(&self, raw: &[u8]) -> Option<(usize, u64)> {
        let mut found = (0..self.packs.len()).filter_map(|i| Some((i, self.find_in(i, raw)?)));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// The offset of `raw` in pack `i`.
    fn find_in(&self, i: usize, raw: &[u8]) -> Option<u64> {
        let hl = self.format.hash_len();
        let p = self.packs.get(i)?;
        if raw.len() != hl {
            return None;
        }
        let (mut lo, mut hi) = (0usize, p.offsets.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match p.names[mid * hl..(mid + 1) * hl].cmp(raw) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(p.offsets[mid]),
            }
        }
        None
    }

    /// The content of each of `ids` that is a packed blob of at most `cap`
    /// bytes and certainly git's answer (see the module), on a few
    /// threads in pack order; `None` for every other.
    pub(crate) fn read_blobs(&self, ids: &[&str], cap: usize) -> Vec<Option<Vec<u8>>> {
        let mut located: Vec<(usize, (usize, u64), Vec<u8>)> = ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| {
                let raw = crate::loose::raw_id(self.format, id)?;
                Some((i, self.find(&raw)?, raw))
            })
            .collect();
        // In pack order: a delta's base is usually just before it, and
        // each thread keeps what it resolved.
        located.sort_by_key(|(_, at, _)| *at);
        let read = crate::par::map_parts(&located, PER_THREAD, |part| {
            let mut cache = Cache::default();
            let mut z = Decompress::new(true);
            part.iter()
                .map(|(_, at, raw)| self.blob(*at, raw, cap, &mut cache, &mut z))
                .collect()
        });
        let mut out: Vec<Option<Vec<u8>>> = ids.iter().map(|_| None).collect();
        for ((i, _, _), got) in located.iter().zip(read) {
            out[*i] = got.flatten();
        }
        out
    }

    /// The blob `raw` at `at`, checked by its hash.
    fn blob(
        &self,
        at: (usize, u64),
        raw: &[u8],
        cap: usize,
        cache: &mut Cache,
        z: &mut Decompress,
    ) -> Option<Vec<u8>> {
        let (kind, bytes) = self.object(at, cap, cache, z)?;
        if kind != 3 {
            return None;
        }
        let mut object = format!("blob {}\0", bytes.len()).into_bytes();
        object.extend_from_slice(&bytes);
        (self.format.id_of(&object)? == raw).then(|| bytes.to_vec())
    }

    /// The object stored at `at`, resolved through its deltas; at most
    /// `limit` bytes. The chain is walked down by the entries' headers
    /// alone to a stored object (or one resolved before), then applied
    /// from the bottom up: at most a base, a delta and a result are held
    /// at once, whatever the depth.
    fn object(
        &self,
        at: (usize, u64),
        limit: usize,
        cache: &mut Cache,
        z: &mut Decompress,
    ) -> Option<Resolved> {
        let mut chain: Vec<((usize, u64), Head)> = Vec::new();
        let mut here = at;
        let base: Resolved = loop {
            if let Some(hit) = cache.kept.get(&here) {
                break hit.clone();
            }
            if chain.len() > MAX_DEPTH {
                return None;
            }
            let head = self.head(here)?;
            match head.kind {
                1..=4 => {
                    let cap = if chain.is_empty() { limit } else { CHAIN_CAP };
                    if head.size > cap {
                        return None;
                    }
                    let entry = self.entry(here)?;
                    let bytes = inflate(entry.get(head.data..)?, head.size, z)?;
                    let resolved = (head.kind, Arc::new(bytes));
                    cache.keep(here, &resolved);
                    break resolved;
                }
                6 | 7 if head.size <= CHAIN_CAP => {
                    let next = head.base?;
                    if chain.is_empty() {
                        // The result's size first, as git's sizes pass
                        // reads it: a blob over the limit resolves nothing.
                        let entry = self.entry(here)?;
                        let delta = inflate(entry.get(head.data..)?, head.size, z)?;
                        let (_, a) = delta_size(&delta)?;
                        if delta_size(delta.get(a..)?)?.0 > limit {
                            return None;
                        }
                    }
                    chain.push((here, head));
                    here = next;
                }
                _ => return None,
            }
        };
        let mut current = base;
        for (pos, head) in chain.into_iter().rev() {
            let entry = self.entry(pos)?;
            let delta = inflate(entry.get(head.data..)?, head.size, z)?;
            drop(entry);
            let cap = if pos == at { limit } else { CHAIN_CAP };
            let out = apply_delta(&current.1, &delta, cap)?;
            current = (current.0, Arc::new(out));
            cache.keep(pos, &current);
        }
        (current.1.len() <= limit).then_some(current)
    }

    /// Where the entry at `at` ends: the next entry's offset, or the
    /// pack's trailing hash.
    fn entry_len(&self, at: (usize, u64)) -> Option<(&Pack, usize)> {
        let pack = self.packs.get(at.0)?;
        let next = pack.sorted.partition_point(|o| *o <= at.1);
        let end = pack.sorted.get(next).copied().unwrap_or(pack.len);
        Some((pack, usize::try_from(end.checked_sub(at.1)?).ok()?))
    }

    /// The whole entry at `at` (its compressed bytes at most a stored
    /// deflate of [`CHAIN_CAP`] bytes, with its headers).
    fn entry(&self, at: (usize, u64)) -> Option<Vec<u8>> {
        let (pack, len) = self.entry_len(at)?;
        if len > CHAIN_CAP + CHAIN_CAP / 8_192 + 1_024 + self.format.hash_len() {
            return None;
        }
        let mut entry = vec![0u8; len];
        pack.file.read_exact_at(&mut entry, at.1).ok()?;
        Some(entry)
    }

    /// The headers of the entry at `at`, read alone.
    fn head(&self, at: (usize, u64)) -> Option<Head> {
        let (pack, len) = self.entry_len(at)?;
        let mut first = vec![0u8; len.min(64)];
        pack.file.read_exact_at(&mut first, at.1).ok()?;
        let (kind, size, mut data) = entry_header(&first)?;
        let base = match kind {
            6 => {
                let (rel, used) = ofs_delta(first.get(data..)?)?;
                data += used;
                // A base lies before its delta.
                Some((at.0, at.1.checked_sub(rel).filter(|b| *b >= 12 && rel > 0)?))
            }
            7 => {
                // git looks for the base in the delta's own pack only.
                let hl = self.format.hash_len();
                let id = first.get(data..data + hl)?;
                data += hl;
                Some((at.0, self.find_in(at.0, id)?))
            }
            _ => None,
        };
        Some(Head {
            kind,
            size,
            data,
            base,
        })
    }
}

/// What an entry's headers say: its type, its size (a delta's data size
/// for a delta), where its data starts, and a delta's base.
struct Head {
    kind: u8,
    size: usize,
    data: usize,
    base: Option<(usize, u64)>,
}

/// A pack entry's type, size and where its data starts.
fn entry_header(entry: &[u8]) -> Option<(u8, usize, usize)> {
    let mut byte = *entry.first()?;
    let kind = (byte >> 4) & 0x7;
    let mut size = u64::from(byte & 0x0f);
    let mut shift = 4u32;
    let mut at = 1usize;
    while byte & 0x80 != 0 {
        byte = *entry.get(at)?;
        at += 1;
        if shift > 57 {
            return None;
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
    }
    Some((kind, usize::try_from(size).ok()?, at))
}

/// An offset delta's distance back to its base, and the bytes it took.
fn ofs_delta(data: &[u8]) -> Option<(u64, usize)> {
    let mut byte = *data.first()?;
    let mut rel = u64::from(byte & 0x7f);
    let mut at = 1usize;
    while byte & 0x80 != 0 {
        byte = *data.get(at)?;
        at += 1;
        rel = rel.checked_add(1)?.checked_mul(128)? | u64::from(byte & 0x7f);
    }
    Some((rel, at))
}

/// Exactly `size` bytes inflated from one zlib stream that ends.
fn inflate(compressed: &[u8], size: usize, z: &mut Decompress) -> Option<Vec<u8>> {
    z.reset(true);
    let mut out = Vec::with_capacity(size + 1);
    crate::loose::inflate_to_end(compressed, &mut out, size, z)?;
    (out.len() == size).then_some(out)
}

/// A delta's size field (little-endian base 128) and the bytes it took.
fn delta_size(data: &[u8]) -> Option<(usize, usize)> {
    let mut size = 0u64;
    let mut shift = 0u32;
    let mut at = 0usize;
    loop {
        let byte = *data.get(at)?;
        at += 1;
        if shift > 57 {
            return None;
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some((usize::try_from(size).ok()?, at));
        }
    }
}

/// `delta` applied to `base` as git's `patch_delta` applies it; `None`
/// when it does not apply exactly or its result is over `limit`.
fn apply_delta(base: &[u8], delta: &[u8], limit: usize) -> Option<Vec<u8>> {
    // git's `patch_delta` refuses a delta shorter than its two smallest
    // size fields and one op.
    if delta.len() < 4 {
        return None;
    }
    let (source, a) = delta_size(delta)?;
    let (target, b) = delta_size(delta.get(a..)?)?;
    if source != base.len() || target > limit {
        return None;
    }
    let mut out = Vec::with_capacity(target);
    let mut at = a + b;
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            let mut field = |bit: u8, shift: u32, into: &mut usize| -> Option<()> {
                if op & bit != 0 {
                    *into |= usize::from(*delta.get(at)?) << shift;
                    at += 1;
                }
                Some(())
            };
            let (mut off, mut len) = (0usize, 0usize);
            field(0x01, 0, &mut off)?;
            field(0x02, 8, &mut off)?;
            field(0x04, 16, &mut off)?;
            field(0x08, 24, &mut off)?;
            field(0x10, 0, &mut len)?;
            field(0x20, 8, &mut len)?;
            field(0x40, 16, &mut len)?;
            if len == 0 {
                len = 0x10000;
            }
            let end = off.checked_add(len)?;
            if end > base.len() || out.len() + len > target {
                return None;
            }
            out.extend_from_slice(&base[off..end]);
        } else if op != 0 {
            let len = usize::from(op);
            let bytes = delta.get(at..at + len)?;
            if out.len() + len > target {
                return None;
            }
            out.extend_from_slice(bytes);
            at += len;
        } else {
            return None;
        }
    }
    (out.len() == target).then_some(out)
}

/// What a run keeps of the store's packs: filled on the first read that
/// pays for it, never on a decline (a later, larger batch may pay), and
/// dropped when a start moves its quarantine into the store. A pack
/// written during the run is then not seen until git is asked: its
/// objects are answered by git, or by the loose reader only where git
/// wrote both copies itself.
#[derive(Default)]
pub(crate) struct StoreCache {
    listed: Option<Arc<Listed>>,
    packs: Option<Arc<Packs>>,
}

impl std::fmt::Debug for StoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreCache")
            .field("listed", &self.listed.is_some())
            .field("packs", &self.packs.is_some())
            .finish()
    }
}

impl crate::Repo {
    /// The names every pack index of `dirs` lists ([`listed_names`]), the
    /// store's own read once per run; `None` as [`listed_names`].
    pub(crate) fn listed_in(
        &self,
        dirs: &[std::path::PathBuf],
        format: Format,
        asked: usize,
    ) -> Option<Vec<Arc<Listed>>> {
        let store = self.common_dir().join("objects");
        dirs.iter()
            .map(|dir| {
                if *dir != store {
                    return listed_names(std::slice::from_ref(dir), format, asked).map(Arc::new);
                }
                let mut cache = self.shared().packs.lock().ok()?;
                if let Some(listed) = &cache.listed {
                    return Some(listed.clone());
                }
                let listed = Arc::new(listed_names(std::slice::from_ref(dir), format, asked)?);
                cache.listed = Some(listed.clone());
                Some(listed)
            })
            .collect()
    }

    /// The store's packs ([`Packs::open`]), opened once per run.
    fn store_packs(&self, format: Format, asked: usize) -> Option<Arc<Packs>> {
        let mut cache = self.shared().packs.lock().ok()?;
        if let Some(packs) = &cache.packs {
            return Some(packs.clone());
        }
        let packs = Arc::new(Packs::open(
            &self.common_dir().join("objects"),
            format,
            asked,
        )?);
        cache.packs = Some(packs.clone());
        Some(packs)
    }

    /// Forgets the store's packs (a start moved its quarantine in).
    pub(crate) fn forget_packs(&self) {
        if let Ok(mut cache) = self.shared().packs.lock() {
            *cache = StoreCache::default();
        }
    }

    /// Fills each `None` of `found` (answers for `ids`, in order) with the
    /// blob read from the repository's packs when that is certainly git's
    /// answer (see the module) and reading the packs pays for the blobs
    /// left; the rest stay `None`, for git.
    pub(crate) fn fill_from_packs(&self, ids: &[&str], found: &mut [Option<Vec<u8>>], cap: usize) {
        let left: Vec<usize> = (0..ids.len()).filter(|i| found[*i].is_none()).collect();
        let Some(format) = self.known_format() else {
            return;
        };
        let objects = self.common_dir().join("objects");
        if left.is_empty() || objects.join("info").join("alternates").exists() {
            return;
        }
        let Some(packs) = self.store_packs(format, left.len()) else {
            return;
        };
        let asked: Vec<&str> = left.iter().map(|i| ids[*i]).collect();
        for (i, got) in left.into_iter().zip(packs.read_blobs(&asked, cap)) {
            found[i] = got;
        }
    }
}

#[cfg(test)]
#[path = "packed_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "packed_review_tests.rs"]
mod review;
