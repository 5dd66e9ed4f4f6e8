//! Discovery and HEAD's tree read in-process when that is certainly git's
//! answer (issue 24, D-R142): the pre-commit gate and `start` start no
//! `rev-parse` in the common case.
//!
//! git stays the reader of every case this module is not sure of. It
//! answers `None`, and [`crate::Repo::discover_reading_head`] asks
//! `git rev-parse` as before, when
//!
//! - the run keeps git's configuration from the environment (the server
//!   gate); every other git runs with every `GIT_*` variable cleared
//!   ([`crate::cmd`]), so no `GIT_DIR`, `GIT_WORK_TREE`,
//!   `GIT_CEILING_DIRECTORIES` or `GIT_DISCOVERY_ACROSS_FILESYSTEM` reaches
//!   git either, and discovery is the walk below;
//! - the walk up from the starting directory meets anything but a `.git`
//!   directory or a `gitdir:` file before its filesystem ends: a symbolic
//!   link at `.git`, a directory that looks like a bare repository, another
//!   filesystem (git stops there), an unreadable entry, the root;
//! - the work tree, the `.git` entry, the git directory or the common
//!   directory is owned by another user than this process's effective one
//!   (git's `safe.directory` check: git decides);
//! - the repository's `config` sets a `core.worktree` that names another
//!   directory than the one the walk found, a `core.bare` other
//!   than a plain false, an `include` or `includeIf`, a repository format
//!   other than 0 or 1, or any extension but `objectFormat` (sha1 or
//!   sha256) on format 1; or git would refuse the file; or the repository
//!   stores refs in a reftable.
//!
//! HEAD's tree is read only after that, and only when its commit is
//! read whole from the repository's own objects (no alternates): git
//! looks in every pack before the loose objects, so this reader does
//! too (a pack index of version 2, the commit stored whole, not as a
//! delta), then the loose object; the commit is inflated only as far as
//! its `tree` line. Replace refs and grafts play no part: every git
//! Probity starts ignores them ([`crate::cmd`]). The tests compare every
//! answer with git's.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use probity_core::review::TreeId;

/// What in-process discovery found: the paths `git rev-parse
/// --path-format=absolute --show-toplevel --git-dir --git-common-dir`
/// prints, and the object format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) root: PathBuf,
    pub(crate) git_dir: PathBuf,
    pub(crate) common_dir: PathBuf,
    pub(crate) object_format: &'static str,
}

/// The largest `.git` file, `commondir`, `HEAD` or `config` read.
const SMALL_FILE: u64 = 64 * 1024;

/// How far up from the starting directory the walk goes.
const MAX_DEPTH: usize = 256;

/// The repository containing `cwd`, when certainly git's answer (see the
/// module); `None` to ask git.
pub(crate) fn find(cwd: &Path) -> Option<Found> {
    let start = std::fs::canonicalize(cwd).ok()?;
    let start_meta = std::fs::metadata(&start).ok()?;
    if !start_meta.is_dir() {
        return None;
    }
    let euid = effective_uid()?;
    let mut dir = start.as_path();
    for _ in 0..MAX_DEPTH {
        let dot_git = dir.join(".git");
        match std::fs::symlink_metadata(&dot_git) {
            Ok(m) if m.is_dir() => {
                return found(dir, &dot_git, &dot_git, euid);
            }
            Ok(m) if m.is_file() => {
                let git_dir = read_gitfile(dir, &dot_git, &m)?;
                return found(dir, &dot_git, &git_dir, euid);
            }
            Ok(_) => return None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        // A directory git could take for a bare repository (it needs a
        // `HEAD` there, among others): git decides.
        if std::fs::symlink_metadata(dir.join("HEAD")).is_ok() {
            return None;
        }
        let parent = dir.parent()?;
        if std::fs::metadata(parent).ok()?.dev() != start_meta.dev() {
            return None;
        }
        dir = parent;
    }
    None
}

/// The effective user id of this process: the owner of `/proc/self`
/// (proc(5)). `None` where there is no such directory.
fn effective_uid() -> Option<u32> {
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// The git directory a `gitdir:` file names (relative to the file's
/// directory), resolved.
fn read_gitfile(dir: &Path, file: &Path, meta: &std::fs::Metadata) -> Option<PathBuf> {
    if meta.len() > SMALL_FILE {
        return None;
    }
    let text = std::fs::read(file).ok()?;
    let text = std::str::from_utf8(&text).ok()?;
    let line = text.strip_prefix("gitdir: ")?;
    let line = line.trim_end_matches(['\n', '\r']);
    if line.is_empty() || line.contains('\n') {
        return None;
    }
    std::fs::canonicalize(dir.join(line)).ok()
}

fn found(root: &Path, dot_git: &Path, git_dir: &Path, euid: u32) -> Option<Found> {
    let owned = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.uid() == euid);
    if !owned(root) || !owned(dot_git) || !owned(git_dir) {
        return None;
    }
    let common_dir = match small_file(&git_dir.join("commondir"))? {
        None => git_dir.to_path_buf(),
        Some(text) => {
            let text = std::str::from_utf8(&text).ok()?;
            let line = text.trim_end_matches(['\n', '\r']);
            if line.is_empty() || line.contains('\n') {
                return None;
            }
            std::fs::canonicalize(git_dir.join(line)).ok()?
        }
    };
    if !owned(&common_dir) {
        return None;
    }
    let head = small_file(&git_dir.join("HEAD"))??;
    if !valid_head(&head) {
        return None;
    }
    let is_dir = |p: PathBuf| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if !is_dir(common_dir.join("objects"))
        || !is_dir(common_dir.join("refs"))
        || common_dir.join("reftable").exists()
    {
        return None;
    }
    let config = small_file(&common_dir.join("config"))?.unwrap_or_default();
    let (object_format, worktree) = repository_format(&config)?;
    // `core.worktree` (every submodule has one) is read relative to the
    // git directory; only where it names the directory the walk found is
    // the answer certain.
    if let Some(worktree) = worktree {
        let worktree = std::str::from_utf8(&worktree).ok()?;
        if worktree.is_empty() || std::fs::canonicalize(git_dir.join(worktree)).ok()? != root {
            return None;
        }
    }
    Some(Found {
        root: root.to_path_buf(),
        git_dir: git_dir.to_path_buf(),
        common_dir,
        object_format,
    })
}

/// A regular file's bytes: `Some(None)` when there is none, `None` when
/// something else stands there, it is too large or cannot be read.
fn small_file(path: &Path) -> Option<Option<Vec<u8>>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && m.len() <= SMALL_FILE => std::fs::read(path).ok().map(Some),
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

/// A `HEAD` git's discovery accepts (`ref: refs/...` or an object id), in
/// the plain forms this reader knows.
fn valid_head(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let line = text.strip_suffix('\n').unwrap_or(text);
    line.strip_prefix("ref: refs/")
        .is_some_and(|r| !r.is_empty() && !r.contains(['\n', ' ']))
        || (matches!(line.len(), 40 | 64) && line.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The object format the repository's `config` declares and its
/// `core.worktree`, when the file is one discovery is certain about (see
/// the module).
fn repository_format(config: &[u8]) -> Option<(&'static str, Option<Vec<u8>>)> {
    let mut worktree = None;
    let mut version = 0u8;
    let mut format: Option<&'static str> = None;
    let mut other_extension = false;
    for (key, value) in crate::config::parse(config)? {
        let value = value.as_deref();
        match key.as_str() {
            "core.worktree" => worktree = Some(value?.to_vec()),
            "core.bare" if crate::config::plain_bool(value) != Some(false) => return None,
            "core.repositoryformatversion" => {
                version = match value? {
                    b"0" => 0,
                    b"1" => 1,
                    _ => return None,
                }
            }
            "extensions.objectformat" => {
                format = Some(match value?.to_ascii_lowercase().as_slice() {
                    b"sha1" => "sha1",
                    b"sha256" => "sha256",
                    _ => return None,
                });
            }
            k if k.starts_with("include.") || k.starts_with("includeif.") => return None,
            k if k.starts_with("extensions.") => other_extension = true,
            _ => {}
        }
    }
    match (version, format, other_extension) {
        (_, _, true) => None,
        (0, Some(_), _) => None,
        (_, f, false) => Some((f.unwrap_or("sha1"), worktree)),
    }
}

/// The tree of the commit `commit` (a full hex id), read from the
/// repository's own objects in git's order (every pack, then the loose
/// object); `None` to ask git (see the module).
pub(crate) fn commit_tree(common_dir: &Path, format: &str, commit: &str) -> Option<TreeId> {
    let objects = common_dir.join("objects");
    if objects.join("info").join("alternates").exists() {
        return None;
    }
    let raw = hex_bytes(commit)?;
    if raw.len() != hash_len(format)? {
        return None;
    }
    let head = match in_packs(&objects.join("pack"), &raw)? {
        Some(body) => body,
        None => {
            let loose = objects.join(&commit[..2]).join(&commit[2..]);
            let body = inflate_prefix(regular(&loose)?, 0)?;
            let nul = body.iter().position(|b| *b == 0)?;
            if !body.starts_with(b"commit ") {
                return None;
            }
            body[nul + 1..].to_vec()
        }
    };
    let rest = head.strip_prefix(b"tree ")?;
    let end = rest.iter().position(|b| *b == b'\n')?;
    let tree = std::str::from_utf8(&rest[..end]).ok()?;
    if tree.len() != 2 * raw.len() {
        return None;
    }
    TreeId::parse(tree).ok()
}

/// The most bytes of pack-index names [`Presence`] reads.
const NAMES_CAP: u64 = 64 << 20;

/// Whether the repository's own object store holds an object, as git's
/// `has_object` would answer: every version-2 pack index's names read
/// once, then a loose object looked for. `None` (from [`Presence::of`] or
/// [`Presence::has`]) where this reader is not sure: an alternate store,
/// a pack index it does not read, more names than it reads.
pub(crate) struct Presence {
    objects: std::path::PathBuf,
    /// Each pack index's sorted names, `hash_len` bytes each.
    packs: Vec<Vec<u8>>,
    hash_len: usize,
}

impl Presence {
    pub(crate) fn of(common_dir: &Path, hash_len: usize) -> Option<Self> {
        let objects = common_dir.join("objects");
        if objects.join("info").join("alternates").exists() {
            return None;
        }
        // Every index's header first: more names than the bound give up
        // before any is read (a gate runs in a hook).
        let mut heads = Vec::new();
        match std::fs::read_dir(objects.join("pack")) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
            Ok(entries) => {
                // git reads a multi-pack index's names, not the indexes'.
                if multi_pack_index(&objects.join("pack")) {
                    return None;
                }
                for entry in entries {
                    let path = entry.ok()?.path();
                    // git reads an index only beside its pack, and a pack
                    // only as `pack_is_gits` checks it: another is as if
                    // absent (D-R159's second review).
                    if pack_index(&path)?
                        && std::fs::symlink_metadata(path.with_extension("pack"))
                            .is_ok_and(|m| m.is_file())
                    {
                        let head = idx_head(&path)?;
                        if pack_is_gits(&head, &path, hash_len) {
                            heads.push(head);
                        }
                    }
                }
            }
        }
        let hl = hash_len as u64;
        let mut total = 0u64;
        for (_, _, head) in &heads {
            total = total.checked_add(idx_count(head).checked_mul(hl)?)?;
        }
        if total > NAMES_CAP {
            return None;
        }
        let packs = heads
            .into_iter()
            .map(|head| idx_names(head, hash_len))
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            objects,
            packs,
            hash_len,
        })
    }

    /// Whether the object `raw` is there.
    pub(crate) fn has(&self, raw: &[u8]) -> Option<bool> {
        if raw.len() != self.hash_len {
            return None;
        }
        let hl = self.hash_len;
        for names in &self.packs {
            let n = names.len() / hl;
            let found = {
                let (mut lo, mut hi) = (0, n);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    match names[mid * hl..(mid + 1) * hl].cmp(raw) {
                        std::cmp::Ordering::Less => lo = mid + 1,
                        std::cmp::Ordering::Greater => hi = mid,
                        std::cmp::Ordering::Equal => break,
                    }
                }
                lo < hi
            };
            if found {
                return Some(true);
            }
        }
        let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let loose = self.objects.join(hex.get(..2)?).join(hex.get(2..)?);
        Some(std::fs::symlink_metadata(&loose).is_ok_and(|m| m.is_file()))
    }
}

/// How many objects a pack index's fan-out table counts.
pub(crate) fn idx_count(head: &[u8; 8 + 256 * 4]) -> u64 {
    u64::from(u32::from_be_bytes([
        head[1028], head[1029], head[1030], head[1031],
    ]))
}

/// The sorted names of an opened version-2 pack index ([`idx_head`]);
/// `None` for anything else.
pub(crate) fn idx_names(
    (file, len, head): (File, u64, [u8; 8 + 256 * 4]),
    hash_len: usize,
) -> Option<Vec<u8>> {
    let total = idx_count(&head);
    let hl = hash_len as u64;
    let bytes = total.checked_mul(hl)?;
    if len < 8 + 1024 + total * (hl + 8) + 2 * hl {
        return None;
    }
    let mut names = vec![0u8; usize::try_from(bytes).ok()?];
    file.read_exact_at(&mut names, 8 + 1024).ok()?;
    // Sorted, as git writes them (a search needs it).
    names
        .chunks(hash_len)
        .zip(names.chunks(hash_len).skip(1))
        .all(|(a, b)| a < b)
        .then_some(names)
}

fn hash_len(format: &str) -> Option<usize> {
    match format {
        "sha1" => Some(20),
        "sha256" => Some(32),
        _ => None,
    }
}

fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

/// Whether a pack directory's entry is a pack index as git takes one:
/// `Some(true)` for a name ending in `.idx` before which something stands,
/// `Some(false)` for any other name, `None` for `.idx` itself (git reads
/// it as the index of a pack named `.pack`; `Path::extension` sees no
/// extension there), which leaves the store to git.
pub(crate) fn pack_index(path: &Path) -> Option<bool> {
    use std::os::unix::ffi::OsStrExt;
    let name = path.file_name()?.as_bytes();
    match name.strip_suffix(b".idx") {
        Some([]) => None,
        Some(_) => Some(true),
        None => Some(false),
    }
}

/// Whether git reads a multi-pack index in the pack directory `pack_dir`
/// (one file, or an incremental chain), which names its own offsets.
pub(crate) fn multi_pack_index(pack_dir: &Path) -> bool {
    std::fs::symlink_metadata(pack_dir.join("multi-pack-index")).is_ok()
        || std::fs::symlink_metadata(pack_dir.join("multi-pack-index.d")).is_ok()
}

/// Whether git would read objects from the pack behind the version-2
/// index `idx` opened as `head` ([`idx_head`]), as its
/// `check_packed_git_idx` and `open_packed_git_1` check them: the index's
/// length that of its objects (at most one large offset fewer than them),
/// its fan-out never decreasing, and the pack a regular file whose header
/// (`PACK`, version 2 or 3) counts the index's objects and whose trailing
/// checksum is the one the index names. `false` when unsure.
pub(crate) fn pack_is_gits(
    (file, len, head): &(File, u64, [u8; 8 + 256 * 4]),
    idx: &Path,
    hash_len: usize,
) -> bool {
    let checked = || -> Option<bool> {
        let n = idx_count(head);
        let hl = hash_len as u64;
        let min = (8 + 1024 + 2 * hl).checked_add(n.checked_mul(hl + 8)?)?;
        if *len < min || *len > min + 8 * n.saturating_sub(1) {
            return Some(false);
        }
        let fan: Vec<u32> = head[8..]
            .chunks_exact(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        if fan.windows(2).any(|w| w[1] < w[0]) {
            return Some(false);
        }
        let pack = regular(&idx.with_extension("pack"))?;
        let end = pack.metadata().ok()?.len().checked_sub(hl)?;
        let mut magic = [0u8; 12];
        pack.read_exact_at(&mut magic, 0).ok()?;
        let version = u32::from_be_bytes([magic[4], magic[5], magic[6], magic[7]]);
        let count = u32::from_be_bytes([magic[8], magic[9], magic[10], magic[11]]);
        if &magic[..4] != b"PACK" || !(2..=3).contains(&version) || u64::from(count) != n {
            return Some(false);
        }
        let (mut trailer, mut named) = (vec![0u8; hash_len], vec![0u8; hash_len]);
        pack.read_exact_at(&mut trailer, end).ok()?;
        file.read_exact_at(&mut named, len.checked_sub(2 * hl)?)
            .ok()?;
        Some(end >= 12 && trailer == named)
    };
    checked().unwrap_or(false)
}

/// A regular file opened for reading (never a FIFO or device).
pub(crate) fn regular(path: &Path) -> Option<File> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    // Opened without blocking and checked again on the handle: a FIFO
    // swapped in after the check never blocks the open.
    probity_scratch::input::open_regular(path).ok()
}

/// How many inflated bytes are enough for a commit's `tree` line (with a
/// loose object's header before it).
const PREFIX: u64 = 128;

/// The first [`PREFIX`] inflated bytes of the zlib stream at `offset`.
fn inflate_prefix(file: File, offset: u64) -> Option<Vec<u8>> {
    struct At {
        file: File,
        offset: u64,
    }
    impl Read for At {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.file.read_at(buf, self.offset)?;
            self.offset += n as u64;
            Ok(n)
        }
    }
    let mut out = Vec::with_capacity(PREFIX as usize);
    let reader =
        flate2::read::ZlibDecoder::new(std::io::BufReader::with_capacity(512, At { file, offset }));
    reader.take(PREFIX).read_to_end(&mut out).ok()?;
    Some(out)
}

/// The commit `raw` inflated from the first pack whose index holds it:
/// `Some(None)` when no pack does, `None` when a pack cannot be read as
/// this reader reads them or holds the commit as a delta.
fn in_packs(pack_dir: &Path, raw: &[u8]) -> Option<Option<Vec<u8>>> {
    let entries = match std::fs::read_dir(pack_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(None),
        Err(_) => return None,
    };
    for entry in entries {
        let path = entry.ok()?.path();
        if !pack_index(&path)? {
            continue;
        }
        if let Some(offset) = idx_lookup(&path, raw)? {
            let pack = regular(&path.with_extension("pack"))?;
            return pack_commit(pack, offset).map(Some);
        }
    }
    Some(None)
}

/// A version-2 pack index opened: the file, its length, and its header
/// and fan-out table; `None` for anything else.
pub(crate) fn idx_head(idx: &Path) -> Option<(File, u64, [u8; 8 + 256 * 4])> {
    let file = regular(idx)?;
    let len = file.metadata().ok()?.len();
    let mut head = [0u8; 8 + 256 * 4];
    file.read_exact_at(&mut head, 0).ok()?;
    (head[..8] == [0xff, b't', b'O', b'c', 0, 0, 0, 2]).then_some((file, len, head))
}

/// The pack offset a version-2 pack index gives `raw`: `Some(None)` when
/// it lists no such object, `None` when the file is not one this reader
/// reads.
fn idx_lookup(idx: &Path, raw: &[u8]) -> Option<Option<u64>> {
    let (file, len, head) = idx_head(idx)?;
    let fan = |i: usize| -> u32 {
        let at = 8 + i * 4;
        u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]])
    };
    let total = u64::from(fan(255));
    let hl = raw.len() as u64;
    // Header, fan-out, names, CRCs, offsets, the pack's and its own hash.
    if len < 8 + 1024 + total * (hl + 8) + 2 * hl {
        return None;
    }
    let first = raw[0] as usize;
    let mut lo = if first == 0 {
        0
    } else {
        u64::from(fan(first - 1))
    };
    let mut hi = u64::from(fan(first));
    if lo > hi || hi > total {
        return None;
    }
    let mut name = vec![0u8; raw.len()];
    let names = 8 + 1024;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        file.read_exact_at(&mut name, names + mid * hl).ok()?;
        match name.as_slice().cmp(raw) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => {
                let offsets = names + total * hl + total * 4;
                let mut word = [0u8; 4];
                file.read_exact_at(&mut word, offsets + mid * 4).ok()?;
                let small = u32::from_be_bytes(word);
                if small & 0x8000_0000 == 0 {
                    return Some(Some(u64::from(small)));
                }
                let large = offsets + total * 4 + u64::from(small & 0x7fff_ffff) * 8;
                let mut wide = [0u8; 8];
                file.read_exact_at(&mut wide, large).ok()?;
                return Some(Some(u64::from_be_bytes(wide)));
            }
        }
    }
    Some(None)
}

/// The inflated start of the commit stored whole at `offset` of a pack;
/// `None` for any other entry (a delta, another kind of object).
fn pack_commit(pack: File, offset: u64) -> Option<Vec<u8>> {
    let mut header = [0u8; 16];
    let n = pack.read_at(&mut header, offset).ok()?;
    let mut at = 0;
    let mut byte = *header.get(at)?;
    // Type 1 is a commit; 6 and 7 are deltas.
    if (byte >> 4) & 0x7 != 1 {
        return None;
    }
    while byte & 0x80 != 0 {
        at += 1;
        if at >= n.min(header.len()) {
            return None;
        }
        byte = header[at];
    }
    inflate_prefix(pack, offset + at as u64 + 1)
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
