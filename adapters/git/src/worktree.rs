//! The live candidate tree read in-process when that is certainly git's
//! answer (issue 24, D-R152).
//!
//! The live candidate is the tree `git add -A` then `git write-tree` would
//! write from a stand-in of the user's index ([`crate::candidate`]). A
//! gate, a `finalize` or a `status` asks it, and all it needs is the id:
//! when the object store already holds that tree (an approved candidate's,
//! written at `start`), nothing needs writing. This module computes the id
//! from the index, the work tree and the ignore files as `git status`
//! reads them, writes nothing, and starts no process.
//!
//! It answers only where it is certain to give git's id, and `None`
//! otherwise (git then runs as before, so a mistake here can only cost
//! time, never name another tree):
//!
//! - configuration: read in-process only where [`crate::config`] is sure
//!   of it, and every `core.*` key must be one whose effect is known here:
//!   `core.fileMode` and `core.symlinks` true, `core.ignoreCase`,
//!   `core.autocrlf`, `core.precomposeUnicode` and `core.sparseCheckout`
//!   false or unset, no `core.eol`, `core.attributesFile` or
//!   `core.worktree`;
//! - attributes (filters, line endings, encodings) are git's: any
//!   `.gitattributes` in a listed directory or the index, the repository's
//!   `info/attributes`, or the user's or the system's attributes file,
//!   gives up;
//! - the index: everything [`crate::index::index_tree_id`] handles, and no
//!   gitlink, assume-valid or skip-worktree entry, no `.gitmodules`;
//! - ignore rules: `.gitignore` files (regular files of at most 1 MiB),
//!   `info/exclude` and the user's excludes file, with no negation, no
//!   backslash, no bracket, no `**`, no carriage return or byte-order mark;
//!   what remains (`*`, `?`, a leading, inner or trailing `/`) is matched
//!   here as git's `wildmatch` does;
//! - the work tree: only directories, regular files and symbolic links; no
//!   `.git` below the top (a nested repository); no name git's path checks
//!   might refuse (a byte over 0x7f, a backslash, a `~` after `git`, a
//!   `.git` with trailing dots, spaces or a colon); at most 256
//!   directories deep and 4,000,000 entries; files of at most 64 MiB;
//! - each tracked file: its cached stat data equal to the file's and older
//!   than the index (git takes the cached id; so does this module), or its
//!   contents hashed here. A content that differs from the cached id is
//!   git's answer only when git certainly looks at it (the size, the mtime
//!   second or the mode changed, or the entry is racily clean); otherwise
//!   (a file rewritten with its old size and timestamps) git may keep the
//!   cached id, and this module gives up.

use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::Repo;
use crate::index::{Change, Index, Stat, Tracked};

/// The largest ignore file read.
const IGNORE_FILE_CAP: u64 = 1 << 20;
/// The largest file hashed here.
const FILE_CAP: u64 = 64 << 20;
/// The deepest directory walked.
const DEPTH_CAP: usize = 256;
/// The most directory entries listed.
const ENTRY_CAP: usize = 4_000_000;
/// The most ignore rules in force at once.
const RULE_CAP: usize = 10_000;
/// Fewer directories than this a worker: listed on the walking thread.
const DIRS_PER_THREAD: usize = 2;

/// The tree (hex id) `git add -A && git write-tree` would write from the
/// index at `<git dir>/index`, or `None` (see the module; also when the
/// object format is not known yet: asking git would cost the process this
/// saves).
pub(crate) fn candidate_tree(repo: &Repo) -> Option<String> {
    let hash_len = match repo.shared().object_format.lock().ok()?.as_deref()? {
        "sha1" => 20,
        "sha256" => 32,
        _ => return None,
    };
    let root = repo.root();
    // git's own directory must be `.git` at the top (or outside the work
    // tree): git skips only that name.
    for dir in [repo.git_dir(), repo.common_dir()] {
        if let Ok(rel) = dir.strip_prefix(root)
            && rel.components().next() != Some(std::path::Component::Normal(".git".as_ref()))
        {
            return None;
        }
    }
    let sources = crate::config::Sources::of(
        repo.git().exe(),
        repo.common_dir(),
        repo.git().keeps_config_env(),
    );
    let settings = crate::config::core_settings(&sources)?;
    let excludes = core_check(&settings, &sources)?;
    // Attributes anywhere outside the work tree.
    let mut attribute_files = vec![repo.common_dir().join("info").join("attributes")];
    for c in &sources.system_candidates {
        attribute_files.push(c.with_file_name("gitattributes"));
    }
    attribute_files.extend(
        sources
            .global
            .as_ref()?
            .first()
            .map(|x| x.with_file_name("attributes")),
    );
    if attribute_files
        .iter()
        .any(|f| std::fs::symlink_metadata(f).is_ok())
    {
        return None;
    }
    let mut top = Vec::new();
    for file in [
        Some(repo.common_dir().join("info").join("exclude")),
        excludes,
    ]
    .into_iter()
    .flatten()
    {
        top.extend(rules(&read_outside(&file)?)?);
    }
    let index_path = repo.git_dir().join("index");
    let index_meta = std::fs::symlink_metadata(&index_path).ok()?;
    if !index_meta.is_file() || index_meta.len() > (1 << 30) {
        return None;
    }
    // git calls no entry racy under an index dated at second 0.
    if index_meta.mtime() as u32 == 0 {
        return None;
    }
    let bytes = std::fs::read(&index_path).ok()?;
    let index = crate::index::read(&bytes, hash_len)?;
    // Every directory the index names, listed with each entry's `lstat`
    // on a few threads (the system calls are most of the work; an
    // `lstat` by the directory's handle looks up one name, not a path).
    let mut dirs: Vec<Vec<u8>> = vec![Vec::new()];
    let mut previous: &[u8] = &[];
    for i in 0..index.len() {
        let path = index.path(i)?;
        let name = path.rsplit(|b| *b == b'/').next()?;
        if index.unlooked_or_gitlink(i)? || name == b".gitattributes" || name == b".gitmodules" {
            return None;
        }
        // A name a crafted index may hold and git's checks would refuse
        // on the way in.
        if path
            .split(|b| *b == b'/')
            .any(|c| c.is_empty() || c == b"." || c == b".." || c.eq_ignore_ascii_case(b".git"))
        {
            return None;
        }
        // Directories the previous path shares were pushed with it.
        let common = path
            .iter()
            .zip(previous)
            .take_while(|(a, b)| a == b)
            .count();
        for (at, _) in path
            .iter()
            .enumerate()
            .skip(common)
            .filter(|(_, b)| **b == b'/')
        {
            dirs.push(path[..=at].to_vec());
        }
        previous = path;
    }
    dirs.sort();
    dirs.dedup();
    // Listed ahead, in the walk's order, while this thread walks.
    let walked = crate::par::ahead(
        &dirs,
        DIRS_PER_THREAD,
        |rel| list(root, rel),
        |take| {
            let mut walk = Walk {
                root: root.to_path_buf(),
                hash_len,
                index: &index,
                index_mtime: (index_meta.mtime() as u32, index_meta.mtime_nsec() as u32),
                ignores: vec![(Vec::new(), top)],
                changes: Vec::new(),
                dirs: &dirs,
                take,
                listed: 0,
            };
            walk.dir(&[], 0..index.len(), 0, false)?;
            Some(walk.changes)
        },
    );
    let mut changes = walked?;
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    // A cached subtree is taken only where git would take it: when the
    // object is there.
    let mut presence = None;
    let id = index.tree_with(&changes, &mut |id| {
        presence
            .get_or_insert_with(|| crate::discover::Presence::of(repo.common_dir(), hash_len))
            .as_ref()?
            .has(id)
    })?;
    Some(crate::index::hex(&id))
}

/// The user's excludes file: `core.excludesFile` (absolute, or `~/`
/// under `HOME`), else `$XDG_CONFIG_HOME/git/ignore`; `None` (outer) when
/// a setting is not one this module knows the effect of (see the module).
fn core_check(
    settings: &[(String, Option<Vec<u8>>)],
    sources: &crate::config::Sources,
) -> Option<Option<PathBuf>> {
    use crate::config::plain_bool;
    let last = |key: &str| {
        settings
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_deref())
    };
    for (key, _) in settings {
        let known = matches!(
            key.strip_prefix("core.")?,
            "filemode"
                | "symlinks"
                | "ignorecase"
                | "autocrlf"
                | "precomposeunicode"
                | "sparsecheckout"
                | "sparsecheckoutcone"
                | "excludesfile"
                | "safecrlf"
                | "protecthfs"
                | "protectntfs"
                | "checkstat"
                | "trustctime"
                | "fsmonitor"
                | "untrackedcache"
                | "splitindex"
                | "bare"
                | "repositoryformatversion"
                | "logallrefupdates"
                | "editor"
                | "pager"
                | "hookspath"
                | "sshcommand"
                | "askpass"
                | "quotepath"
                | "commentchar"
                | "commentstring"
                | "whitespace"
                | "abbrev"
                | "compression"
                | "loosecompression"
                | "packedgitwindowsize"
                | "packedgitlimit"
                | "deltabasecachelimit"
                | "bigfilethreshold"
                | "preloadindex"
                | "multipackindex"
                | "commitgraph"
                | "sharedrepository"
                | "warnambiguousrefs"
                | "fsync"
                | "fsyncmethod"
                | "fsyncobjectfiles"
                | "createobject"
                | "notesref"
                | "filesreflocktimeout"
                | "packedrefstimeout"
                | "checkroundtripencoding"
                | "maxtreedepth"
        );
        if !known {
            return None;
        }
    }
    let is = |key: &str, default: bool| match last(key) {
        None => Some(default),
        Some(v) => plain_bool(v),
    };
    if !is("core.filemode", true)?
        || !is("core.symlinks", true)?
        || is("core.ignorecase", false)?
        || is("core.autocrlf", false)?
        || is("core.precomposeunicode", false)?
        || is("core.sparsecheckout", false)?
        // `minimal` leaves nanoseconds out of git's comparison even where
        // it compares them for racy entries: the rule below would not hold.
        || last("core.checkstat").is_some_and(|v| v != Some(&b"default"[..]))
    {
        return None;
    }
    let home = sources.global.as_ref()?.get(1)?.parent()?.to_path_buf();
    match last("core.excludesfile") {
        None => Some(Some(
            sources.global.as_ref()?.first()?.with_file_name("ignore"),
        )),
        Some(None) => None,
        Some(Some(v)) => {
            let v = std::str::from_utf8(v).ok()?;
            if let Some(rest) = v.strip_prefix("~/") {
                Some(Some(home.join(rest)))
            } else if v.starts_with('/') {
                Some(Some(PathBuf::from(v)))
            } else {
                None
            }
        }
    }
}

/// An ignore file outside the work tree: empty when absent.
fn read_outside(path: &Path) -> Option<Vec<u8>> {
    use probity_scratch::input::{InputError, read_regular};
    match read_regular(path, IGNORE_FILE_CAP) {
        Ok(bytes) => Some(bytes),
        Err(InputError::Unreadable(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            Some(Vec::new())
        }
        Err(_) => None,
    }
}

/// One ignore pattern.
#[derive(Debug, PartialEq, Eq)]
struct Rule {
    /// The pattern, without its leading and trailing `/`.
    pattern: Vec<u8>,
    /// A trailing `/`: directories only.
    dir_only: bool,
    /// A `/` anywhere but at the end: matched against the path from the
    /// ignore file's directory; otherwise against the name alone.
    anchored: bool,
}

/// The rules of an ignore file, or `None` for anything not handled here
/// (see the module).
fn rules(bytes: &[u8]) -> Option<Vec<Rule>> {
    if bytes.starts_with(b"\xef\xbb\xbf") {
        return None;
    }
    let mut out = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        if line.first() == Some(&b'#') {
            continue;
        }
        if line.iter().any(|b| matches!(b, b'\r' | b'\\' | b'[' | 0)) {
            return None;
        }
        let end = line.len() - line.iter().rev().take_while(|b| **b == b' ').count();
        let mut p = &line[..end];
        if p.is_empty() {
            continue;
        }
        if p[0] == b'!' || p.windows(2).any(|w| w == b"**") {
            return None;
        }
        let dir_only = p.last() == Some(&b'/');
        if dir_only {
            p = &p[..p.len() - 1];
        }
        let anchored = p.contains(&b'/');
        if p.first() == Some(&b'/') {
            p = &p[1..];
        }
        if p.is_empty() || p.first() == Some(&b'/') || p.last() == Some(&b'/') {
            return None;
        }
        out.push(Rule {
            pattern: p.to_vec(),
            dir_only,
            anchored,
        });
    }
    Some(out)
}

/// `*` and `?` (neither matching `/`) against `text`, as git's
/// `wildmatch` with `WM_PATHNAME` for patterns without brackets,
/// backslashes or `**`: each `/`-separated part of the pattern against
/// the text's part of the same rank.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let mut p = pattern.split(|b| *b == b'/');
    let mut t = text.split(|b| *b == b'/');
    loop {
        match (p.next(), t.next()) {
            (None, None) => return true,
            (Some(p), Some(t)) if glob_part(p, t) => {}
            _ => return false,
        }
    }
}

/// One part of [`glob`] (no `/` in either).
fn glob_part(p: &[u8], t: &[u8]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(c) if *c == b'?' || *c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    star = Some((sp, st + 1));
                    pi = sp + 1;
                    ti = st + 1;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

/// Whether `name` (one path component; `link`: of a symbolic link) is
/// one git's path checks may refuse, or one git treats specially (see the
/// module): git's NTFS and HFS forms of `.git` and, for a link, of
/// `.gitmodules` (short names with `~` among them) are left to it whole.
fn unsure_name(name: &[u8], link: bool) -> bool {
    let lower = name.to_ascii_lowercase();
    let dotgit = lower
        .strip_prefix(b".git")
        .is_some_and(|rest| rest.iter().all(|b| matches!(b, b' ' | b'.')));
    dotgit
        || lower.starts_with(b"git~")
        || name.iter().any(|b| *b >= 0x80 || matches!(b, b'\\' | b':'))
        || lower.starts_with(b".gitattributes")
        || lower.starts_with(b".gitmodules")
        || (link && name.contains(&b'~'))
}

/// The walk over the work tree beside the index.
struct Walk<'i, 't> {
    root: PathBuf,
    hash_len: usize,
    index: &'i Index<'i>,
    index_mtime: (u32, u32),
    /// The ignore rules in force: each file's directory (from the top,
    /// with its trailing `/`; empty for the top) and rules, outermost
    /// first.
    ignores: Vec<(Vec<u8>, Vec<Rule>)>,
    changes: Vec<Change>,
    /// The directories the index names (sorted, the walk's order; each
    /// with its trailing `/`, the top empty), and their listings, each
    /// taken once.
    dirs: &'i [Vec<u8>],
    take: &'t mut dyn FnMut(usize) -> Option<Option<Listing>>,
    listed: usize,
}

/// A directory's entries, sorted by name; `Missing` when there is no
/// such directory.
enum Listing {
    Missing,
    Entries(Vec<Listed>),
}

/// One directory entry: its name, type and inode number as listed, and
/// the `lstat` of anything but a directory.
struct Listed {
    name: Vec<u8>,
    kind: std::fs::FileType,
    ino: u64,
    lstat: Option<Lstat>,
    seen: bool,
}

/// The directory `rel` (from the top, with its trailing `/`) under `root`
/// listed, each entry but a directory with its `lstat`, looked up by the
/// directory's handle (a directory's type is the listing's, where the
/// file system gives it); `None` when it cannot be read.
fn list(root: &Path, rel: &[u8]) -> Option<Listing> {
    let entries = match std::fs::read_dir(under(root, rel)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Listing::Missing),
        Err(_) => return None,
    };
    let mut listed = Vec::new();
    for de in entries {
        if listed.len() >= ENTRY_CAP {
            return None;
        }
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::fs::DirEntryExt as _;
        let de = de.ok()?;
        let name = de.file_name().as_bytes().to_vec();
        let kind = de.file_type().ok()?;
        let lstat = if !kind.is_dir() {
            Some(Lstat::of(&de.metadata().ok()?))
        } else {
            None
        };
        listed.push(Listed {
            name,
            kind,
            ino: de.ino(),
            lstat,
            seen: false,
        });
    }
    listed.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Some(Listing::Entries(listed))
}

/// `rel` (bytes from the top) under `root`.
fn under(root: &Path, rel: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt as _;
    root.join(std::ffi::OsStr::from_bytes(rel))
}

/// What an `lstat` says of a file, as far as `add` reads it.
#[derive(Clone, Copy)]
struct Lstat {
    /// The index mode of a regular file or a symbolic link; `None` for
    /// anything else.
    mode: Option<u32>,
    ino: u64,
    len: u64,
    stat: Stat,
}

impl Lstat {
    fn of(m: &std::fs::Metadata) -> Self {
        Self {
            mode: mode_of(m),
            ino: m.ino(),
            len: m.len(),
            stat: Stat {
                ctime: (m.ctime() as u32, m.ctime_nsec() as u32),
                mtime: (m.mtime() as u32, m.mtime_nsec() as u32),
                dev: m.dev() as u32,
                ino: m.ino() as u32,
                uid: m.uid(),
                gid: m.gid(),
                size: m.size() as u32,
            },
        }
    }
}

impl Walk<'_, '_> {
    fn path(&self, rel: &[u8]) -> PathBuf {
        under(&self.root, rel)
    }

    /// The `lstat` of the entry `l` of the directory `rel`: the listing's,
    /// or taken now (`None` when the file is gone or another one).
    fn lstat(&self, rel: &[u8], l: &Listed) -> Option<Lstat> {
        if let Some(lstat) = l.lstat {
            return Some(lstat);
        }
        let mut path = rel.to_vec();
        path.extend_from_slice(&l.name);
        let lstat = Lstat::of(&std::fs::symlink_metadata(self.path(&path)).ok()?);
        (lstat.ino == l.ino).then_some(lstat)
    }

    /// Walks the directory `rel` (from the top, with its trailing `/`;
    /// empty for the top) whose index entries are `range`.
    /// `ignored_above`: the directory or one above it is matched by a rule
    /// (a tracked one: its untracked entries are all ignored).
    fn dir(
        &mut self,
        rel: &[u8],
        range: std::ops::Range<usize>,
        depth: usize,
        ignored_above: bool,
    ) -> Option<()> {
        if depth > DEPTH_CAP {
            return None;
        }
        // Listed beforehand when the index names it; an untracked one now.
        let listing = match self.dirs.binary_search_by(|d| d.as_slice().cmp(rel)) {
            Ok(at) => (self.take)(at)??,
            Err(_) => list(&self.root, rel)?,
        };
        let Listing::Entries(mut listed) = listing else {
            // Listed as a directory by its parent, gone since.
            return None;
        };
        for l in &listed {
            if l.name == b".git" && !rel.is_empty() {
                // git skips its own directory; any other is a nested
                // repository, which `add -A` would add as a gitlink.
                return None;
            }
            if l.name == b".gitattributes" {
                return None;
            }
        }
        listed.retain(|l| !(rel.is_empty() && l.name == b".git"));
        self.listed += listed.len();
        if self.listed > ENTRY_CAP {
            return None;
        }
        // The listing's entry of `name`: the one after the last found
        // first (a directory's files come in the listing's order), else
        // searched.
        let mut next = 0;
        let mut find = |listed: &[Listed], name: &[u8]| {
            let at = match listed.get(next) {
                Some(l) if l.name == name => Some(next),
                _ => listed
                    .binary_search_by(|l| l.name.as_slice().cmp(name))
                    .ok(),
            };
            if let Some(at) = at {
                next = at + 1;
            }
            at
        };
        let pushed = match find(&listed, b".gitignore") {
            Some(at) => {
                let lstat = self.lstat(rel, &listed[at])?;
                if lstat.mode != Some(0o100644) && lstat.mode != Some(0o100755)
                    || lstat.len > IGNORE_FILE_CAP
                {
                    return None;
                }
                let mut full = rel.to_vec();
                full.extend_from_slice(b".gitignore");
                let bytes = self.read_file(&full, &lstat)?;
                self.ignores.push((rel.to_vec(), rules(&bytes)?));
                if self.ignores.iter().map(|(_, r)| r.len()).sum::<usize>() > RULE_CAP {
                    return None;
                }
                true
            }
            None => false,
        };
        // The tracked entries, a file or a directory at a time.
        let mut i = range.start;
        while i < range.end {
            let e = self.index.entry(i)?;
            let rest = e.path.get(rel.len()..)?;
            match rest.iter().position(|b| *b == b'/') {
                None => {
                    match find(&listed, rest) {
                        None => self.changes.push((e.path.to_vec(), None)),
                        Some(at) => {
                            listed[at].seen = true;
                            let lstat = self.lstat(rel, &listed[at])?;
                            self.tracked(&e, &lstat)?;
                        }
                    }
                    i += 1;
                }
                Some(slash) => {
                    let prefix = e.path.get(..rel.len() + slash + 1)?.to_vec();
                    let mut j = i + 1;
                    while j < range.end && self.index.path(j)?.starts_with(&prefix) {
                        j += 1;
                    }
                    match find(&listed, &rest[..slash]) {
                        None => {
                            for k in i..j {
                                self.changes.push((self.index.path(k)?.to_vec(), None));
                            }
                        }
                        Some(at) => {
                            listed[at].seen = true;
                            if !listed[at].kind.is_dir() {
                                return None;
                            }
                            let below =
                                ignored_above || self.matched(&prefix[..prefix.len() - 1], true);
                            self.dir(&prefix, i..j, depth + 1, below)?;
                        }
                    }
                    i = j;
                }
            }
        }
        // The untracked entries.
        for l in listed.iter().filter(|l| !l.seen) {
            let mut path = rel.to_vec();
            path.extend_from_slice(&l.name);
            let is_dir = l.kind.is_dir();
            if ignored_above || self.matched(&path, is_dir) {
                continue;
            }
            if unsure_name(&l.name, l.kind.is_symlink()) {
                return None;
            }
            if is_dir {
                path.push(b'/');
                self.dir(&path, 0..0, depth + 1, false)?;
            } else {
                let lstat = self.lstat(rel, l)?;
                let (mode, oid) = self.content(&path, &lstat)?;
                self.changes.push((path, Some((mode, oid))));
            }
        }
        if pushed {
            self.ignores.pop();
        }
        Some(())
    }

    /// Whether a rule in force matches `path` itself (from the top, no
    /// trailing `/`). Without negations one match decides, and what is
    /// under a matched directory is ignored whole: the walk carries that
    /// down (`ignored_above`).
    fn matched(&self, path: &[u8], is_dir: bool) -> bool {
        self.ignores.iter().any(|(base, rules)| {
            let Some(rel) = path.strip_prefix(base.as_slice()) else {
                return false;
            };
            if rel.is_empty() {
                return false;
            }
            let name = rel.rsplit(|b| *b == b'/').next().unwrap_or(rel);
            rules.iter().any(|r| {
                (is_dir || !r.dir_only)
                    && if r.anchored {
                        glob(&r.pattern, rel)
                    } else {
                        glob_part(&r.pattern, name)
                    }
            })
        })
    }

    /// A tracked file found in the work tree: unchanged, changed (pushed to
    /// the changes) or `None` (see the module).
    fn tracked(&mut self, e: &Tracked<'_>, lstat: &Lstat) -> Option<()> {
        let mode = lstat.mode?;
        let stat = lstat.stat;
        // git's racy-clean test, on the entry's cached mtime: surely racy
        // whether or not git compares nanoseconds, or surely not.
        let (idx, ce) = (self.index_mtime, e.stat.mtime);
        let surely_racy = idx.0 < ce.0 || (idx.0 == ce.0 && idx.1 <= ce.1);
        let surely_clean = ce.0 < idx.0;
        // An entry smudged to size 0 (racily clean when written) is read
        // by git unless it names the empty blob: it is hashed here.
        if stat == e.stat && mode == e.mode && surely_clean && e.stat.size != 0 {
            return Some(());
        }
        // A file become a link: a name git refuses for links is its.
        if mode == 0o120000
            && e.mode != mode
            && unsure_name(e.path.rsplit(|b| *b == b'/').next()?, true)
        {
            return None;
        }
        let (mode, oid) = self.content(e.path, lstat)?;
        if oid == e.oid && mode == e.mode {
            return Some(());
        }
        // git looks at the contents when it sees the size, the mtime or the
        // mode changed, or the entry is racily clean. A changed mtime
        // nanosecond is seen by a git that compares nanoseconds; one that
        // does not calls an entry racy when its mtime second is the
        // index's: either way, it looks.
        let git_looks = mode != e.mode
            || stat.size != e.stat.size
            || stat.mtime.0 != e.stat.mtime.0
            || (stat.mtime.1 != e.stat.mtime.1 && ce.0 >= idx.0)
            || e.stat.size == 0
            || surely_racy;
        if !git_looks {
            return None;
        }
        self.changes.push((e.path.to_vec(), Some((mode, oid))));
        Some(())
    }

    /// The mode and blob id git's `add` gives the file at `path`, whose
    /// `lstat` is `lstat`.
    fn content(&self, path: &[u8], lstat: &Lstat) -> Option<(u32, Vec<u8>)> {
        let mode = lstat.mode?;
        let full = self.path(path);
        if mode == 0o120000 {
            use std::os::unix::ffi::OsStrExt as _;
            let target = std::fs::read_link(&full).ok()?;
            return Some((
                mode,
                crate::index::object_id("blob", target.as_os_str().as_bytes(), self.hash_len)?,
            ));
        }
        if lstat.len > FILE_CAP {
            return None;
        }
        Some((
            mode,
            crate::index::object_id("blob", &self.read_file(path, lstat)?, self.hash_len)?,
        ))
    }

    /// The bytes of the regular file at `path` whose `lstat` is `lstat`:
    /// `None` if another file is found there, or another length read.
    fn read_file(&self, path: &[u8], lstat: &Lstat) -> Option<Vec<u8>> {
        // Never waiting on a FIFO swapped in since the `lstat` (opened
        // without blocking); a link swapped in shows another inode below.
        let mut file = probity_scratch::input::open_regular(&self.path(path)).ok()?;
        let opened = file.metadata().ok()?;
        if !opened.is_file() || opened.ino() != lstat.ino || opened.len() != lstat.len {
            return None;
        }
        let mut bytes = Vec::with_capacity(usize::try_from(lstat.len).ok()?);
        (&mut file)
            .take(lstat.len.saturating_add(1))
            .read_to_end(&mut bytes)
            .ok()?;
        (bytes.len() as u64 == lstat.len).then_some(bytes)
    }
}

/// The index mode of a regular file or a symbolic link (`core.fileMode`
/// and `core.symlinks` true); `None` for anything else.
fn mode_of(meta: &std::fs::Metadata) -> Option<u32> {
    let t = meta.file_type();
    if t.is_symlink() {
        Some(0o120000)
    } else if t.is_file() {
        Some(if meta.mode() & 0o100 != 0 {
            0o100755
        } else {
            0o100644
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_files_read_as_git_reads_them() {
        let r = rules(b"# comment\n\ntarget/\n/top  \n*.log\ndocs/*.md\nfoo/bar/\n").unwrap();
        let got: Vec<(&[u8], bool, bool)> = r
            .iter()
            .map(|r| (r.pattern.as_slice(), r.dir_only, r.anchored))
            .collect();
        assert_eq!(
            got,
            [
                (&b"target"[..], true, false),
                (b"top", false, true),
                (b"*.log", false, false),
                (b"docs/*.md", false, true),
                (b"foo/bar", true, true),
            ]
        );
        // Not handled here: left to git.
        for bad in [
            &b"!keep"[..],
            b"a\\ b",
            b"[ab]",
            b"**/x",
            b"a/**",
            b"x\r\n",
            b"\xef\xbb\xbfx",
            b"# [ok in a comment]\n[not]",
            b"//",
            b"a//",
        ] {
            assert_eq!(rules(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn globs_match_as_wildmatch_does() {
        assert!(glob_part(b"*.log", b"a.log"));
        assert!(glob_part(b"*.log", b".log"));
        assert!(!glob_part(b"*.log", b"a.logx"));
        assert!(glob_part(b"a*b*c", b"aXbYbZc"));
        assert!(!glob_part(b"a*b*c", b"aXbYbZ"));
        assert!(glob_part(b"?x", b"ax"));
        assert!(!glob_part(b"?x", b"x"));
        assert!(glob_part(b"*", b""));
        assert!(glob(b"docs/*.md", b"docs/a.md"));
        assert!(!glob(b"docs/*.md", b"docs/sub/a.md"));
        assert!(!glob(b"d*/a.md", b"docs/sub/a.md"));
        assert!(!glob(b"docs", b"docs/a"));
    }

    #[test]
    fn names_git_may_refuse_are_unsure() {
        for name in [
            &b".git "[..],
            b".GIT.",
            b".git::$INDEX_ALLOCATION",
            b".git.:x",
            b".GIT. :alt",
            b"GIT~1",
            b"caf\xc3\xa9",
            b"a\\b",
            b"a:b",
            b".gitmodules",
            b".GITMODULES.",
            b".gitattributes ",
        ] {
            assert!(
                unsure_name(name, false),
                "{}",
                String::from_utf8_lossy(name)
            );
        }
        for name in [&b".github"[..], b".gitkeep", b".gitignore", b"a~", b"x.git"] {
            assert!(
                !unsure_name(name, false),
                "{}",
                String::from_utf8_lossy(name)
            );
        }
        // A link's `.gitmodules` short names.
        assert!(unsure_name(b"GI7EBA~1", true) && unsure_name(b"gitmod~1", true));
        assert!(!unsure_name(b"a~", false) && unsure_name(b"a~", true));
    }
}

#[cfg(all(test, feature = "fixture"))]
#[path = "worktree_tests.rs"]
mod against_git;

/// A helper's adversarial probes (D-R152's review): each answer given is
/// git's.
#[cfg(all(test, feature = "fixture"))]
#[path = "worktree_review.rs"]
mod review;
