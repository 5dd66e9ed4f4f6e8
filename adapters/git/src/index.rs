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

/// One stage-0 entry: its mode, object id and full path (the path's
/// bytes are in the index itself, or, for version 4's prefix-compressed
/// names, in the parse's own buffer: [`Parsed::path`]).
struct Entry<'a> {
    mode: u32,
    oid: &'a [u8],
    path: std::ops::Range<usize>,
    /// The cached stat data: ctime, mtime (seconds and nanoseconds), dev,
    /// ino, mode, uid, gid and size, 32 bits each (empty for an entry
    /// that is not the index's: [`tree_with`]).
    stat: &'a [u8],
    /// Assume-valid (`0x8000` of the flags) or skip-worktree (`0x4000` of
    /// the extended flags): git does not look at the work tree's file.
    unlooked: bool,
}

/// A node of the cache-tree extension (`TREE`), kept flat in pre-order:
/// a directory's name, the id of its tree when still valid, and how many
/// nodes below it follow it.
#[derive(Clone, Copy)]
struct CacheNode<'a> {
    name: &'a [u8],
    /// Index entries the tree covers, and its id; `None` when invalidated.
    valid: Option<(usize, &'a [u8])>,
    descendants: usize,
}

/// A parsed index: its stage-0 entries in order, and its cache tree.
struct Parsed<'a> {
    entries: Vec<Entry<'a>>,
    /// Where the entries' paths are: the index (versions 2 and 3) or the
    /// names version 4 spelled out.
    paths: std::borrow::Cow<'a, [u8]>,
    /// Paths [`Index::tree_with`] added, after `paths` (an entry's range
    /// from `paths.len()` on is here).
    extra: Vec<u8>,
    /// The cache tree in pre-order (empty: none); the first node is the
    /// root.
    cache: Vec<CacheNode<'a>>,
}

impl Parsed<'_> {
    fn path(&self, e: &Entry<'_>) -> &[u8] {
        let base = self.paths.len();
        match e.path.start.checked_sub(base) {
            Some(at) => &self.extra[at..e.path.end - base],
            None => &self.paths[e.path.clone()],
        }
    }
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
///
/// A cached subtree is taken only when `present` says the store holds it
/// (`write-tree` rebuilds one it lacks); `None` from `present` answers
/// `None`.
pub(crate) fn index_tree_id(
    bytes: &[u8],
    hash_len: usize,
    present: &mut dyn FnMut(&[u8]) -> Option<bool>,
) -> Option<Vec<u8>> {
    let parsed = parse(bytes, hash_len)?;
    Builder {
        parsed: &parsed,
        hash_len,
        present,
        use_cache: true,
    }
    .root()
}

/// The tree of the index file `bytes` built from its entries alone, its
/// cache-tree extension ignored: what `write-tree` writes when no cached
/// subtree is taken. Where this equals the tree `write-tree` wrote, every
/// entry of that tree is one of the index's (D-R159).
pub(crate) fn entries_tree_id(bytes: &[u8], hash_len: usize) -> Option<Vec<u8>> {
    let parsed = parse(bytes, hash_len)?;
    Builder {
        parsed: &parsed,
        hash_len,
        present: &mut |_| None,
        use_cache: false,
    }
    .root()
}

/// The cached stat data of an entry, as git keeps it: each field cut to
/// 32 bits (the mode is the entry's own, apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub(crate) ctime: (u32, u32),
    pub(crate) mtime: (u32, u32),
    pub(crate) dev: u32,
    pub(crate) ino: u32,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) size: u32,
}

/// One stage-0 entry, for the work-tree reader ([`crate::worktree`]).
pub(crate) struct Tracked<'i> {
    pub(crate) path: &'i [u8],
    pub(crate) mode: u32,
    pub(crate) oid: &'i [u8],
    pub(crate) stat: Stat,
}

/// A parsed index file, everything [`index_tree_id`] handles.
pub(crate) struct Index<'a> {
    parsed: Parsed<'a>,
    hash_len: usize,
}

/// The index file `bytes`, or `None` for anything [`index_tree_id`] does
/// not handle.
pub(crate) fn read(bytes: &[u8], hash_len: usize) -> Option<Index<'_>> {
    Some(Index {
        parsed: parse(bytes, hash_len)?,
        hash_len,
    })
}

/// A change to an index's entries: the path, and its new mode and id
/// (`None`: removed).
pub(crate) type Change = (Vec<u8>, Option<(u32, Vec<u8>)>);

impl Index<'_> {
    pub(crate) fn len(&self) -> usize {
        self.parsed.entries.len()
    }

    /// The object id of the entry at `path` (stage 0, the only stage a
    /// parsed index holds), found by its sorted order.
    pub(crate) fn oid_of(&self, path: &[u8]) -> Option<&[u8]> {
        let entries = &self.parsed.entries;
        let at = entries
            .binary_search_by(|e| self.parsed.path(e).cmp(path))
            .ok()?;
        Some(entries[at].oid)
    }

    /// The path of entry `i`.
    pub(crate) fn path(&self, i: usize) -> Option<&[u8]> {
        Some(self.parsed.path(self.parsed.entries.get(i)?))
    }

    /// Whether entry `i` is one the work-tree reader leaves to git: a
    /// gitlink, or one git does not look at (assume-valid, skip-worktree).
    pub(crate) fn unlooked_or_gitlink(&self, i: usize) -> Option<bool> {
        let e = self.parsed.entries.get(i)?;
        Some(e.unlooked || e.mode == 0o160000)
    }

    /// Entry `i`, in the index's order (a path's bytes, ascending).
    pub(crate) fn entry(&self, i: usize) -> Option<Tracked<'_>> {
        let e = self.parsed.entries.get(i)?;
        let s = |k: usize| -> Option<u32> {
            Some(u32::from_be_bytes(
                e.stat.get(k * 4..k * 4 + 4)?.try_into().ok()?,
            ))
        };
        Some(Tracked {
            path: self.parsed.path(e),
            mode: e.mode,
            oid: e.oid,
            stat: Stat {
                ctime: (s(0)?, s(1)?),
                mtime: (s(2)?, s(3)?),
                dev: s(4)?,
                ino: s(5)?,
                // 6 is the entry's mode, kept apart.
                uid: s(7)?,
                gid: s(8)?,
                size: s(9)?,
            },
        })
    }

    /// The tree `write-tree` would write from this index with `changes`
    /// made (sorted by path, each path once; a mode among those
    /// [`mode_octal`] spells): the cache tree is kept for every directory
    /// no change is under. `None` as [`index_tree_id`].
    /// A cached subtree is taken as [`index_tree_id`] takes it.
    pub(crate) fn tree_with(
        &self,
        changes: &[Change],
        present: &mut dyn FnMut(&[u8]) -> Option<bool>,
    ) -> Option<Vec<u8>> {
        let old = &self.parsed;
        if changes.windows(2).any(|w| w[0].0 >= w[1].0) {
            return None;
        }
        // The merged entries, in order: the index's keep their paths
        // where they are, a changed one's path is appended.
        // Added paths go after the index's own, which stay where they are.
        let base = old.paths.len();
        let mut extra = Vec::new();
        let mut entries: Vec<Entry<'_>> = Vec::with_capacity(old.entries.len() + changes.len());
        let (mut i, mut j) = (0, 0);
        loop {
            let here = old.entries.get(i).map(|e| (old.path(e), e));
            let change = changes.get(j);
            match (here, change) {
                (Some((path, e)), c) if c.is_none_or(|(p, _)| p.as_slice() > path) => {
                    entries.push(Entry {
                        mode: e.mode,
                        oid: e.oid,
                        path: e.path.clone(),
                        stat: &[],
                        unlooked: false,
                    });
                    i += 1;
                }
                (here, Some((p, new))) => {
                    // A change replaces the entry of its path, if any.
                    if here.is_some_and(|(path, _)| path == p.as_slice()) {
                        i += 1;
                    }
                    if let Some((mode, oid)) = new {
                        let from = base + extra.len();
                        extra.extend_from_slice(p);
                        entries.push(Entry {
                            mode: *mode,
                            oid,
                            path: from..base + extra.len(),
                            stat: &[],
                            unlooked: false,
                        });
                    }
                    j += 1;
                }
                _ => break,
            }
        }
        let mut cache = old.cache.clone();
        let mut kids = vec![None; cache.len()];
        for (path, _) in changes {
            invalidate(&mut cache, &mut kids, path);
        }
        let parsed = Parsed {
            entries,
            paths: std::borrow::Cow::Borrowed(&old.paths),
            extra,
            cache,
        };
        Builder {
            parsed: &parsed,
            hash_len: self.hash_len,
            present,
            use_cache: true,
        }
        .root()
    }
}

/// A cache-tree node's subdirectories by name ([`children`]).
type Kids<'a> = Vec<(&'a [u8], usize)>;

/// Marks the cache-tree nodes of every directory above `path` invalid;
/// `kids` keeps each node's [`children`] once asked.
fn invalidate<'a>(cache: &mut [CacheNode<'a>], kids: &mut [Option<Kids<'a>>], path: &[u8]) {
    let Some(root) = cache.first_mut() else {
        return;
    };
    root.valid = None;
    let mut node = 0;
    let mut dirs = path.split(|b| *b == b'/');
    let _file = dirs.next_back();
    for dir in dirs {
        let Some(slot) = kids.get_mut(node) else {
            return;
        };
        let of_node = slot.get_or_insert_with(|| children(cache, node));
        let Some(at) = child(of_node, dir) else {
            return;
        };
        cache[at].valid = None;
        node = at;
    }
}

/// The symbolic links (mode `120000`) of the index file `bytes`: each
/// one's path and object id (hex), in the index's order; `None` for
/// anything [`index_tree_id`] does not handle (the tree `write-tree` would
/// write holds exactly these links when it answers).
pub(crate) fn index_symlinks(bytes: &[u8], hash_len: usize) -> Option<crate::symlinks::IndexLinks> {
    let parsed = parse(bytes, hash_len)?;
    Some(
        parsed
            .entries
            .iter()
            .filter(|e| e.mode == 0o120000)
            .map(|e| (parsed.path(e).to_vec(), hex(e.oid)))
            .collect(),
    )
}

fn parse(bytes: &[u8], hash_len: usize) -> Option<Parsed<'_>> {
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
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(count.min(bytes.len() / 62));
    // Version 4's names, spelled out one after the other.
    let mut names: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = r.at;
        let stat = bytes.get(start..start.checked_add(40)?)?;
        // ctime, mtime, dev, ino: 24 bytes.
        r.take(24)?;
        let mode = r.u32()?;
        // uid, gid, size.
        r.take(12)?;
        let oid = r.take(hash_len)?;
        let flags = r.u16()?;
        let extended = flags & 0x4000 != 0;
        let stage = (flags >> 12) & 3;
        let mut unlooked = flags & 0x8000 != 0;
        if extended {
            if version < 3 {
                return None;
            }
            let ext = r.u16()?;
            // Intent to add (0x2000): write-tree leaves the entry out.
            if ext & 0x2000 != 0 {
                return None;
            }
            unlooked |= ext & 0x4000 != 0;
        }
        let (path, previous) = if version == 4 {
            // The previous name's prefix, then the rest of this one.
            let previous = entries.last().map_or(0..0, |e| e.path.clone());
            let strip = r.varint()?;
            let keep = previous.len().checked_sub(strip)?;
            let from = names.len();
            names.extend_from_within(previous.start..previous.start + keep);
            names.extend_from_slice(r.until_nul()?);
            let path = from..names.len();
            (path.clone(), (&names[previous], &names[path]))
        } else {
            let name_len = usize::from(flags & 0x0fff);
            let name_start;
            let name = if name_len < 0x0fff {
                name_start = r.at;
                let name = r.take(name_len)?;
                if r.take(1)? != [0] {
                    return None;
                }
                name
            } else {
                name_start = r.at;
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
            let previous = entries.last().map_or(&[][..], |e| &bytes[e.path.clone()]);
            (name_start..name_start + name.len(), (previous, name))
        };
        let (last, name) = previous;
        if stage != 0 || name.is_empty() {
            return None;
        }
        // Only the modes write-tree writes: regular, executable, symlink,
        // gitlink (a sparse index's directory entries are refused here).
        if !matches!(mode, 0o100644 | 0o100755 | 0o120000 | 0o160000) {
            return None;
        }
        // Sorted and unique, as git keeps them.
        if !entries.is_empty() && last >= name {
            return None;
        }
        entries.push(Entry {
            mode,
            oid,
            path,
            stat,
            unlooked,
        });
    }
    // Extensions, then the trailing checksum.
    let mut cache = Vec::new();
    while bytes.len().checked_sub(r.at)? > hash_len {
        let signature = r.take(4)?;
        let size = r.u32()? as usize;
        let data = r.take(size)?;
        match signature {
            b"TREE" => cache = parse_cache_tree(data, hash_len)?,
            // A split index ("link") holds only part of the entries; a
            // sparse one ("sdir") holds directories as entries.
            b"link" | b"sdir" => return None,
            // With `index.threads`, git reads the entries and extensions
            // from the offsets these record, which need not be where they
            // lie in order (D-R159's second review).
            b"EOIE" | b"IEOT" => return None,
            // Optional extensions start with an uppercase letter; any other
            // must be understood.
            s if s[0].is_ascii_uppercase() => {}
            _ => return None,
        }
    }
    let paths = if version == 4 {
        std::borrow::Cow::Owned(names)
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    (bytes.len() - r.at == hash_len).then_some(Parsed {
        entries,
        paths,
        extra: Vec::new(),
        cache,
    })
}

/// The cache-tree extension: per directory, pre-order, `name\0`, entry
/// count (`-1`: invalid), a space, subtree count, `\n`, and the id when
/// valid.
fn parse_cache_tree(data: &[u8], hash_len: usize) -> Option<Vec<CacheNode<'_>>> {
    let mut r = Reader { bytes: data, at: 0 };
    let mut nodes = Vec::new();
    cache_node(&mut r, hash_len, 0, &mut nodes)?;
    // git ignores a cache tree whose root has a name, and builds every
    // tree from the entries (D-R159's second review).
    if nodes.first().is_some_and(|n| !n.name.is_empty()) {
        return None;
    }
    (r.at == data.len()).then_some(nodes)
}

/// Appends the node at `r` and every node below it to `nodes`.
fn cache_node<'a>(
    r: &mut Reader<'a>,
    hash_len: usize,
    depth: usize,
    nodes: &mut Vec<CacheNode<'a>>,
) -> Option<()> {
    if depth > 4096 {
        return None;
    }
    let name = r.until_nul()?;
    let rest = r.bytes.get(r.at..)?;
    let line_end = rest.iter().position(|b| *b == b'\n')?;
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    r.at += line_end + 1;
    let (count, subtrees) = line.split_once(' ')?;
    // git reads both into an `int`: a count past its range is another
    // number there (D-R159's second review).
    let count: i32 = count.parse().ok()?;
    let subtrees: i32 = subtrees.parse().ok()?;
    let subtrees = usize::try_from(subtrees).ok()?;
    let valid = if count >= 0 {
        Some((usize::try_from(count).ok()?, r.take(hash_len)?))
    } else {
        None
    };
    let at = nodes.len();
    nodes.push(CacheNode {
        name,
        valid,
        descendants: 0,
    });
    for _ in 0..subtrees {
        cache_node(r, hash_len, depth + 1, nodes)?;
    }
    nodes[at].descendants = nodes.len() - at - 1;
    Some(())
}

/// The subdirectories of cache node `at`, by name (for a name given twice,
/// the last one, as a map filled in order keeps it).
fn children<'a>(cache: &[CacheNode<'a>], at: usize) -> Kids<'a> {
    let end = at + 1 + cache[at].descendants;
    let mut out = Vec::new();
    let mut c = at + 1;
    while c < end {
        out.push((cache[c].name, c));
        c += 1 + cache[c].descendants;
    }
    // Stable: of equal names, the last stays last.
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The child named `name` among `kids` ([`children`]).
fn child(kids: &[(&[u8], usize)], name: &[u8]) -> Option<usize> {
    let after = kids.partition_point(|(n, _)| *n <= name);
    let (n, at) = kids.get(after.checked_sub(1)?)?;
    (*n == name).then_some(*at)
}

/// Builds trees as `write-tree` does from a parsed index.
struct Builder<'p, 'a> {
    parsed: &'p Parsed<'a>,
    hash_len: usize,
    /// Whether the store holds a cached subtree's object.
    present: &'p mut dyn FnMut(&[u8]) -> Option<bool>,
    /// Whether valid cache-tree nodes are taken (else every tree is
    /// built from the entries).
    use_cache: bool,
}

impl Builder<'_, '_> {
    /// The root tree's id.
    fn root(&mut self) -> Option<Vec<u8>> {
        let root = (!self.parsed.cache.is_empty()).then_some(0);
        let mut body = Vec::new();
        self.build(&self.parsed.entries, 0, root, 0, &mut body)
    }

    /// The id of the tree of `entries` (all under one directory whose
    /// names start at byte `base` of each path), a still valid cache-tree
    /// id (node `cache` of the parse's cache tree) the store holds taken
    /// as is; `None` when it cannot be built as git would (a valid node
    /// not taken among them). `body` is scratch space.
    fn build(
        &mut self,
        entries: &[Entry<'_>],
        base: usize,
        cache: Option<usize>,
        depth: usize,
        body: &mut Vec<u8>,
    ) -> Option<Vec<u8>> {
        let parsed = self.parsed;
        if depth > 4096 {
            return None;
        }
        let node = cache.map(|at| (at, &parsed.cache[at]));
        // git takes a valid node as it is whenever it finds the object,
        // and then skips as many entries as the node counts, whatever the
        // entries are (D-R159). So a node is taken only when its count is
        // this directory's and the object is certainly there; any other
        // valid node leaves the tree to git: rebuilt here from the entries,
        // it could differ from the tree git writes.
        if self.use_cache
            && let Some((count, oid)) = node.and_then(|(_, n)| n.valid)
        {
            return (count == entries.len() && (self.present)(oid) == Some(true))
                .then(|| oid.to_vec());
        }
        let kids = node.map(|(at, _)| children(&parsed.cache, at));
        // This tree's body, after whatever the caller's body holds.
        let from = body.len();
        let mut last_name: &[u8] = &[];
        let mut i = 0;
        while i < entries.len() {
            let path = parsed.path(&entries[i]);
            let rest = path.get(base..)?;
            let (name, mode) = match rest.iter().position(|b| *b == b'/') {
                Some(slash) => {
                    let name = &rest[..slash];
                    let prefix = &path[..base + slash + 1];
                    let j = i + entries[i..]
                        .iter()
                        .take_while(|e| parsed.path(e).starts_with(prefix))
                        .count();
                    let sub = kids.as_deref().and_then(|k| child(k, name));
                    let oid = self.build(&entries[i..j], prefix.len(), sub, depth + 1, body)?;
                    i = j;
                    if name.is_empty() || name == last_name {
                        return None;
                    }
                    push_entry(body, "40000", name, &oid);
                    last_name = name;
                    continue;
                }
                None => (rest, entries[i].mode),
            };
            if name.is_empty() || name == last_name {
                // An empty component, or a name that is both a file and a
                // directory: write-tree refuses such an index.
                return None;
            }
            push_entry(body, mode_octal(mode)?, name, entries[i].oid);
            last_name = name;
            i += 1;
        }
        let id = object_id("tree", &body[from..], self.hash_len);
        body.truncate(from);
        id
    }
}

/// A file mode as a tree entry spells it (only those [`parse`] takes).
fn mode_octal(mode: u32) -> Option<&'static str> {
    Some(match mode {
        0o100644 => "100644",
        0o100755 => "100755",
        0o120000 => "120000",
        0o160000 => "160000",
        _ => return None,
    })
}

/// Appends one tree entry: `<mode> <name>\0<id>`.
fn push_entry(body: &mut Vec<u8>, mode: &str, name: &[u8], oid: &[u8]) {
    body.extend_from_slice(mode.as_bytes());
    body.push(b' ');
    body.extend_from_slice(name);
    body.push(0);
    body.extend_from_slice(oid);
}

/// The id of a `kind` object (`tree`, `blob`) whose body is `body`;
/// `None` on a detected SHA-1 collision (git refuses it).
pub(crate) fn object_id(kind: &str, body: &[u8], hash_len: usize) -> Option<Vec<u8>> {
    let header = format!("{kind} {}\0", body.len());
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
            index_tree_id(&index, 20, &mut |_| Some(true))
                .map(|id| hex(&id))
                .as_deref(),
            Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        );
        // Truncated, a wrong signature, an unknown version: not handled.
        assert!(index_tree_id(&index[..20], 20, &mut |_| Some(true)).is_none());
        assert!(index_tree_id(b"DIRX\0\0\0\x02\0\0\0\0", 20, &mut |_| Some(true)).is_none());
        let mut v9 = index.clone();
        v9[7] = 9;
        assert!(index_tree_id(&v9, 20, &mut |_| Some(true)).is_none());
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
#[path = "index_review_tests.rs"]
mod review;

#[cfg(all(test, feature = "fixture"))]
mod against_git {
    use super::*;
    use crate::fixture::Fixture;

    /// The id computed here for the fixture's index, beside git's
    /// `write-tree` of it.
    fn both(f: &Fixture, hash_len: usize) -> (Option<String>, String) {
        let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
        let presence = crate::discover::Presence::of(&f.root().join(".git"), hash_len).unwrap();
        let ours = index_tree_id(&bytes, hash_len, &mut |id| presence.has(id)).map(|id| hex(&id));
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
    fn cached_siblings_are_found_by_name_whatever_their_order() {
        // git keeps a directory's cached subtrees shortest name first;
        // the entries sort by their bytes ('-' and '.' before '/').
        let f = Fixture::new().unwrap();
        let dirs = ["a", "a-b", "a.b", "a0", "ab", "b", "b/c", "b/c/d", "bb"];
        for d in dirs {
            f.write(&format!("{d}/f.txt"), d).unwrap();
        }
        f.write("top.txt", "t").unwrap();
        f.git(&["add", "-A"]).unwrap();
        f.git(&["write-tree"]).unwrap();
        for (i, d) in dirs.iter().enumerate() {
            f.write(&format!("{d}/g{i}.txt"), "g").unwrap();
            f.git(&["add", d]).unwrap();
            let (ours, git) = both(&f, 20);
            assert_eq!(ours.as_deref(), Some(git.as_str()), "{d} invalidated");
            f.git(&["write-tree"]).unwrap();
            let (ours, git) = both(&f, 20);
            assert_eq!(ours.as_deref(), Some(git.as_str()), "{d} cached again");
        }
    }

    #[test]
    fn an_unmerged_index_is_left_to_write_tree() {
        let f = Fixture::new().unwrap();
        f.write("a.txt", "a\n").unwrap();
        f.git(&["add", "a.txt"]).unwrap();
        let blob = String::from_utf8(f.git(&["rev-parse", ":a.txt"]).unwrap()).unwrap();
        let bytes_before = std::fs::read(f.root().join(".git/index")).unwrap();
        assert!(index_tree_id(&bytes_before, 20, &mut |_| Some(true)).is_some());
        let info = format!("100644 {} 2\tb.txt\n", blob.trim());
        f.repo()
            .unwrap()
            .run_with(["update-index", "--index-info"], &[], Some(info.as_bytes()))
            .unwrap();
        let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
        assert_eq!(index_tree_id(&bytes, 20, &mut |_| Some(true)), None);
    }
}
