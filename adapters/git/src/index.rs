//! The tree an index file names, computed in-process (issue 24, D-R87).
//!
//! The pre-commit gate's candidate is the tree `git write-tree` would write
//! from the temporary index `git add -A` just wrote. When that tree is
//! already in the object store (an approved candidate's was written at
//! `start`), `write-tree` would write nothing: the gate then takes the id
//! computed here and starts no third git. Anything this reader does not
//! handle exactly as `write-tree` does (a split or sparse index, an
//! unmerged or intent-to-add entry, a name that is both a file and a
//! directory, an unknown version, a detected SHA-1 collision, a malformed
//! file) answers `None`, and `write-tree` runs as before: a mistake here can
//! only cost the process it meant to save, never name a tree git would not
//! write (an id is only used when the object store already holds it).

use std::collections::HashMap;

/// One stage-0 entry: its mode, object id and full path.
struct Entry {
    mode: u32,
    oid: Vec<u8>,
    path: Vec<u8>,
}

/// A node of the cache-tree extension (`TREE`): the id of a directory's
/// tree when still valid, and its subdirectories by name.
#[derive(Default)]
struct CacheNode {
    /// Index entries the tree covers, and its id; `None` when invalidated.
    valid: Option<(usize, Vec<u8>)>,
    children: HashMap<Vec<u8>, CacheNode>,
}

/// A cursor over the index bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    /// Bytes up to the next NUL, which is consumed.
    fn until_nul(&mut self) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.at..)?;
        let end = rest.iter().position(|b| *b == 0)?;
        self.at += end + 1;
        Some(&rest[..end])
    }

    /// git's offset varint (index version 4's prefix length).
    fn varint(&mut self) -> Option<usize> {
        let mut c = *self.take(1)?.first()?;
        let mut val = usize::from(c & 127);
        while c & 128 != 0 {
            val = val.checked_add(1)?.checked_mul(128)?;
            c = *self.take(1)?.first()?;
            val = val.checked_add(usize::from(c & 127))?;
        }
        Some(val)
    }
}

/// The tree id (raw bytes) git's `write-tree` would write for the index
/// file `bytes` of a repository whose object ids are `hash_len` bytes (20
/// for SHA-1, 32 for SHA-256); `None` for anything not handled (see the
/// module).
pub(crate) fn index_tree_id(bytes: &[u8], hash_len: usize) -> Option<Vec<u8>> {
    let (entries, cache) = parse(bytes, hash_len)?;
    build(&entries, 0, Some(&cache), hash_len, 0)
}

fn parse(bytes: &[u8], hash_len: usize) -> Option<(Vec<Entry>, CacheNode)> {
    if hash_len != 20 && hash_len != 32 {
        return None;
    }
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != b"DIRC" {
        return None;
    }
    let version = r.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = r.u32()? as usize;
    let mut entries: Vec<Entry> = Vec::with_capacity(count.min(bytes.len() / 62));
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = r.at;
        // ctime, mtime, dev, ino: 24 bytes.
        r.take(24)?;
        let mode = r.u32()?;
        // uid, gid, size.
        r.take(12)?;
        let oid = r.take(hash_len)?.to_vec();
        let flags = r.u16()?;
        let extended = flags & 0x4000 != 0;
        let stage = (flags >> 12) & 3;
        if extended {
            if version < 3 {
                return None;
            }
            let ext = r.u16()?;
            // Intent to add (0x2000): write-tree leaves the entry out.
            if ext & 0x2000 != 0 {
                return None;
            }
        }
        let path = if version == 4 {
            let strip = r.varint()?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(r.until_nul()?);
            path
        } else {
            let name_len = usize::from(flags & 0x0fff);
            let name = if name_len < 0x0fff {
                let name = r.take(name_len)?;
                if r.take(1)? != [0] {
                    return None;
                }
                name
            } else {
                r.until_nul()?
            };
            // Padded with NULs to a multiple of 8 bytes from the entry's
            // start: (offset of the name + its length + 8) & !7.
            let name_at = 40 + hash_len + 2 + if extended { 2 } else { 0 };
            let size = (name_at + name.len() + 8) & !7;
            let consumed = r.at - start;
            let pad = size.checked_sub(consumed)?;
            if r.take(pad)?.iter().any(|b| *b != 0) {
                return None;
            }
            name.to_vec()
        };
        if stage != 0 || path.is_empty() {
            return None;
        }
        // Only the modes write-tree writes: regular, executable, symlink,
        // gitlink (a sparse index's directory entries are refused here).
        if !matches!(mode, 0o100644 | 0o100755 | 0o120000 | 0o160000) {
            return None;
        }
        // Sorted and unique, as git keeps them.
        if let Some(last) = entries.last()
            && last.path >= path
        {
            return None;
        }
        previous.clone_from(&path);
        entries.push(Entry { mode, oid, path });
    }
    // Extensions, then the trailing checksum.
    let mut cache = CacheNode::default();
    while bytes.len().checked_sub(r.at)? > hash_len {
        let signature = r.take(4)?;
        let size = r.u32()? as usize;
        let data = r.take(size)?;
        match signature {
            b"TREE" => cache = parse_cache_tree(data, hash_len)?,
            // A split index ("link") holds only part of the entries; a
            // sparse one ("sdir") holds directories as entries.
            b"link" | b"sdir" => return None,
            // Optional extensions start with an uppercase letter; any other
            // must be understood.
            s if s[0].is_ascii_uppercase() => {}
            _ => return None,
        }
    }
    (bytes.len() - r.at == hash_len).then_some((entries, cache))
}

/// The cache-tree extension: per directory, pre-order, `name\0`, entry
/// count (`-1`: invalid), a space, subtree count, `\n`, and the id when
/// valid.
fn parse_cache_tree(data: &[u8], hash_len: usize) -> Option<CacheNode> {
    let mut r = Reader { bytes: data, at: 0 };
    let (_, root) = cache_node(&mut r, hash_len, 0)?;
    (r.at == data.len()).then_some(root)
}

fn cache_node(r: &mut Reader<'_>, hash_len: usize, depth: usize) -> Option<(Vec<u8>, CacheNode)> {
    if depth > 4096 {
        return None;
    }
    let name = r.until_nul()?.to_vec();
    let rest = r.bytes.get(r.at..)?;
    let line_end = rest.iter().position(|b| *b == b'\n')?;
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    r.at += line_end + 1;
    let (count, subtrees) = line.split_once(' ')?;
    let count: i64 = count.parse().ok()?;
    let subtrees: usize = subtrees.parse().ok()?;
    let mut node = CacheNode::default();
    if count >= 0 {
        node.valid = Some((usize::try_from(count).ok()?, r.take(hash_len)?.to_vec()));
    }
    for _ in 0..subtrees {
        let (child_name, child) = cache_node(r, hash_len, depth + 1)?;
        node.children.insert(child_name, child);
    }
    Some((name, node))
}

/// The id of the tree of `entries` (all under one directory whose names
/// start at byte `base` of each path), a still valid cache-tree id taken
/// as is; `None` when it cannot be built as git would.
fn build(
    entries: &[Entry],
    base: usize,
    cache: Option<&CacheNode>,
    hash_len: usize,
    depth: usize,
) -> Option<Vec<u8>> {
    if depth > 4096 {
        return None;
    }
    if let Some((count, oid)) = cache.and_then(|c| c.valid.as_ref())
        && *count == entries.len()
    {
        return Some(oid.clone());
    }
    let mut body = Vec::new();
    let mut last_name: &[u8] = &[];
    let mut i = 0;
    while i < entries.len() {
        let rest = entries[i].path.get(base..)?;
        let (name, mode, oid) = match rest.iter().position(|b| *b == b'/') {
            Some(slash) => {
                let name = &rest[..slash];
                let prefix_len = base + slash + 1;
                let prefix = &entries[i].path[..prefix_len];
                let j = i + entries[i..]
                    .iter()
                    .take_while(|e| e.path.starts_with(prefix))
                    .count();
                let child = cache.and_then(|c| c.children.get(name));
                let oid = build(&entries[i..j], prefix_len, child, hash_len, depth + 1)?;
                i = j;
                (name, 0o40000, oid)
            }
            None => {
                let e = &entries[i];
                i += 1;
                (rest, e.mode, e.oid.clone())
            }
        };
        if name.is_empty() || name == last_name {
            // An empty component, or a name that is both a file and a
            // directory: write-tree refuses such an index.
            return None;
        }
        last_name = name;
        body.extend_from_slice(format!("{mode:o} ").as_bytes());
        body.extend_from_slice(name);
        body.push(0);
        body.extend_from_slice(&oid);
    }
    hash_tree(&body, hash_len)
}

/// The id of a tree object whose body is `body`.
fn hash_tree(body: &[u8], hash_len: usize) -> Option<Vec<u8>> {
    let header = format!("tree {}\0", body.len());
    if hash_len == 32 {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update(header.as_bytes());
        h.update(body);
        return Some(h.finalize().to_vec());
    }
    let mut h = sha1_checked::Sha1::new();
    sha1_checked::digest::Update::update(&mut h, header.as_bytes());
    sha1_checked::digest::Update::update(&mut h, body);
    let result = h.try_finalize();
    // A collision attack detected: leave it to git, which refuses it.
    (!result.has_collision()).then(|| result.hash().to_vec())
}

/// Lower-case hex of an id.
pub(crate) fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_index_names_the_empty_tree() {
        let mut index = b"DIRC\0\0\0\x02\0\0\0\0".to_vec();
        index.extend_from_slice(&[0; 20]);
        assert_eq!(
            index_tree_id(&index, 20).map(|id| hex(&id)).as_deref(),
            Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        );
        // Truncated, a wrong signature, an unknown version: not handled.
        assert!(index_tree_id(&index[..20], 20).is_none());
        assert!(index_tree_id(b"DIRX\0\0\0\x02\0\0\0\0", 20).is_none());
        let mut v9 = index.clone();
        v9[7] = 9;
        assert!(index_tree_id(&v9, 20).is_none());
    }

    #[test]
    fn varints_are_gits() {
        let mut r = Reader {
            bytes: &[0x05, 0x80, 0x00, 0xff, 0x7f],
            at: 0,
        };
        assert_eq!(r.varint(), Some(5));
        assert_eq!(r.varint(), Some(128));
        assert_eq!(r.varint(), Some(16511));
    }
}

#[cfg(all(test, feature = "fixture"))]
mod against_git {
    use super::*;
    use crate::fixture::Fixture;

    /// The id computed here for the fixture's index, beside git's
    /// `write-tree` of it.
    fn both(f: &Fixture, hash_len: usize) -> (Option<String>, String) {
        let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
        let ours = index_tree_id(&bytes, hash_len).map(|id| hex(&id));
        let git = String::from_utf8(f.git(&["write-tree"]).unwrap()).unwrap();
        (ours, git.trim().to_string())
    }

    fn shapes(f: &Fixture, hash_len: usize) {
        f.write("a.txt", "a\n").unwrap();
        f.write("a-b.txt", "ab\n").unwrap();
        f.write("a0", "0\n").unwrap();
        f.write("a/b/c.rs", "c\n").unwrap();
        f.write("a/b.d/e", "e\n").unwrap();
        f.write("z/y/x/w.txt", "w\n").unwrap();
        f.write("tool.sh", "echo\n").unwrap();
        f.set_mode("tool.sh", 0o755).unwrap();
        std::os::unix::fs::symlink("a.txt", f.root().join("link")).unwrap();
        f.git(&["add", "-A"]).unwrap();
        f.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{},sub", "1".repeat(hash_len * 2)),
        ])
        .unwrap();
        // A path over 0xFFF bytes (its length is not in the flags), in the
        // index only: no file system takes it.
        let blob = String::from_utf8(f.git(&["rev-parse", ":a.txt"]).unwrap()).unwrap();
        let long = vec!["n".repeat(200); 21].join("/");
        f.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("100644,{},long/{long}", blob.trim()),
        ])
        .unwrap();
        for version in ["2", "3", "4", "2"] {
            f.git(&["update-index", "--index-version", version])
                .unwrap();
            // No cache tree yet (or invalidated), then the one write-tree
            // left in the index.
            let (ours, git) = both(f, hash_len);
            assert_eq!(ours.as_deref(), Some(git.as_str()), "version {version}");
            let (ours, git) = both(f, hash_len);
            assert_eq!(
                ours.as_deref(),
                Some(git.as_str()),
                "version {version}, cached"
            );
            // One directory invalidated, the others still cached.
            f.write(&format!("z/y/x/v{version}.txt"), version).unwrap();
            f.git(&["add", "z"]).unwrap();
            let (ours, git) = both(f, hash_len);
            assert_eq!(
                ours.as_deref(),
                Some(git.as_str()),
                "version {version}, partly cached"
            );
        }
        // What it does not handle is left to write-tree.
        f.write("ita.txt", "i\n").unwrap();
        f.git(&["add", "-N", "ita.txt"]).unwrap();
        assert_eq!(both(f, hash_len).0, None, "intent to add");
        f.git(&["rm", "-q", "--cached", "ita.txt"]).unwrap();
        f.git(&["update-index", "--split-index"]).unwrap();
        f.write("split.txt", "s\n").unwrap();
        f.git(&["add", "split.txt"]).unwrap();
        assert_eq!(both(f, hash_len).0, None, "split index");
        f.git(&["update-index", "--no-split-index"]).unwrap();
        let (ours, git) = both(f, hash_len);
        assert_eq!(ours.as_deref(), Some(git.as_str()), "unsplit");
    }

    #[test]
    fn the_tree_is_the_one_git_writes_in_sha1() {
        let f = Fixture::new().unwrap();
        shapes(&f, 20);
    }

    #[test]
    fn the_tree_is_the_one_git_writes_in_sha256() {
        let f = Fixture::new().unwrap();
        std::fs::remove_dir_all(f.root().join(".git")).unwrap();
        f.git(&["init", "-q", "-b", "main", "--object-format=sha256"])
            .unwrap();
        shapes(&f, 32);
    }

    #[test]
    fn an_unmerged_index_is_left_to_write_tree() {
        let f = Fixture::new().unwrap();
        f.write("a.txt", "a\n").unwrap();
        f.git(&["add", "a.txt"]).unwrap();
        let blob = String::from_utf8(f.git(&["rev-parse", ":a.txt"]).unwrap()).unwrap();
        let bytes_before = std::fs::read(f.root().join(".git/index")).unwrap();
        assert!(index_tree_id(&bytes_before, 20).is_some());
        let info = format!("100644 {} 2\tb.txt\n", blob.trim());
        f.repo()
            .unwrap()
            .run_with(["update-index", "--index-info"], &[], Some(info.as_bytes()))
            .unwrap();
        let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
        assert_eq!(index_tree_id(&bytes, 20), None);
    }
}
