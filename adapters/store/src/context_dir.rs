//! Entity-context-snapshot trees on the file system: writing an assembled
//! tree (0700 directories, 0600 files), observing a directory for the pure
//! verifier without ever following a link or reading a file over the
//! verifier's limit (with every entry's permission bits; `verify_dir` reads
//! the root index first and no file its manifest does not list, nor one of
//! another size than listed), and the verified
//! read-only copy (0555 directories, 0444 files) written from the verified
//! bytes.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use probity_core::context::ContextTree;
use probity_core::context::HexDigest;
use probity_core::context::{MAX_OBSERVED_FILE_BYTES, Node, Observed, VerifiedTree, VerifyError};

/// Why a context directory could not be written, read or copied.
#[derive(Debug, thiserror::Error)]
pub enum ContextDirError {
    /// A file-system call failed.
    #[error("{path}: {source}")]
    Io {
        /// The path it failed on.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The destination exists (checked before writing and again before the
    /// rename into place); carries it.
    #[error("{0} already exists; context trees are only created fresh")]
    Exists(PathBuf),
    /// The destination lies inside a Git worktree (an ancestor holds
    /// `.git`): nothing is written (C5).
    #[error(
        "{path} is inside the Git worktree {repository}: a context tree lives outside every repository"
    )]
    InsideRepository {
        /// The refused destination.
        path: PathBuf,
        /// The worktree it is inside (the ancestor holding `.git`).
        repository: PathBuf,
    },
    /// The directory to observe is itself a symbolic link; carries it.
    #[error("context root {0} is a symlink")]
    RootSymlink(PathBuf),
    /// The directory to observe is a file or a special file; carries it.
    #[error("context root {0} is not a directory")]
    RootNotDirectory(PathBuf),
    /// An entry of the observed tree has a name that is not UTF-8; carries
    /// its path.
    #[error("{0} has a name that is not UTF-8")]
    NonUtf8Name(PathBuf),
    /// An entry changed under us: a file replaced or grown between its
    /// lookup and its read, a component that stopped being a directory, or
    /// a copy that does not read back as the verified bytes; carries the
    /// path.
    #[error("{0} changed while it was read")]
    Changed(PathBuf),
    /// A tree path to write is empty, absolute or has an empty, `.` or `..`
    /// segment; carries it.
    #[error("context path {0} is not a relative tree path")]
    BadPath(String),
    /// The observed tree fails verification (C3).
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ContextDirError + '_ {
    move |source| ContextDirError::Io {
        path: path.to_owned(),
        source,
    }
}

const DIR_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;
const RO_DIR_MODE: u32 = 0o555;
const RO_FILE_MODE: u32 = 0o444;

fn checked_join(root: &Path, rel: &str) -> Result<PathBuf, ContextDirError> {
    let ok = !rel.is_empty()
        && !rel.starts_with('/')
        && rel
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    if !ok {
        return Err(ContextDirError::BadPath(rel.to_owned()));
    }
    Ok(root.join(rel))
}

fn make_dir(path: &Path) -> Result<(), ContextDirError> {
    DirBuilder::new()
        .mode(DIR_MODE)
        .create(path)
        .map_err(io(path))?;
    // Independent of the umask.
    fs::set_permissions(path, Permissions::from_mode(DIR_MODE)).map_err(io(path))
}

/// `path` as the file system resolves it, though it need not exist yet:
/// the deepest ancestor that exists, canonicalized (every link and `..`
/// resolved), then the components that do not exist yet. A `..` among
/// those cannot be resolved (nothing could be created there): refused, as
/// is a dangling link.
fn resolved(path: &Path) -> Result<PathBuf, ContextDirError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_err(io(path))?.join(path)
    };
    let unresolvable = |why: &str| ContextDirError::Io {
        path: path.to_owned(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, why.to_owned()),
    };
    let mut existing = absolute.as_path();
    let mut missing = Vec::new();
    loop {
        match fs::canonicalize(existing) {
            Ok(mut real) => {
                for part in missing.iter().rev() {
                    real.push(part);
                }
                return Ok(real);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if fs::symlink_metadata(existing).is_ok() {
                    return Err(unresolvable("a dangling symbolic link on the path"));
                }
                // `file_name` is `None` for a path ending in `..`.
                let name = existing
                    .file_name()
                    .ok_or_else(|| unresolvable("`..` after a directory that does not exist"))?;
                missing.push(name.to_owned());
                existing = existing
                    .parent()
                    .ok_or_else(|| unresolvable("no ancestor exists"))?;
            }
            Err(e) => return Err(io(existing)(e)),
        }
    }
}

/// The Git worktree `path` would be inside (an ancestor holding `.git`),
/// if any, on the path the file system resolves (links followed, `..`
/// resolved: see [`resolved`]). `path` itself need not exist.
fn enclosing_repository(path: &Path) -> Result<Option<PathBuf>, ContextDirError> {
    let real = resolved(path)?;
    let mut dir = real.parent();
    while let Some(d) = dir {
        if fs::symlink_metadata(d.join(".git")).is_ok() {
            return Ok(Some(d.to_path_buf()));
        }
        dir = d.parent();
    }
    Ok(None)
}

/// The prefix of a tree being written beside its final name, under an
/// owner lock (see `probity_scratch`): what a killed writer leaves is
/// removed by the next write into the same directory.
const PARTIAL_PREFIX: &str = ".probity-context-";

/// Test-only: `PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS=N` pauses a writer N
/// milliseconds (at most 2,000) after each file of a partial tree, outside
/// [`step`], so a test can signal or kill a real `probity` mid-write
/// (`adapters/cli/tests/context_interrupt.rs`). Compiled into debug builds
/// only (the `probity` that `cargo test` builds); a release build reads no
/// such variable.
#[cfg(debug_assertions)]
fn test_pause() {
    const VAR: &str = "PROBITY_TEST_CONTEXT_WRITE_PAUSE_MS";
    const MAX_MS: u64 = 2_000;
    static PAUSE: std::sync::OnceLock<Option<std::time::Duration>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| {
        std::env::var(VAR)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map(|ms| std::time::Duration::from_millis(ms.min(MAX_MS)))
    });
    if let Some(p) = pause {
        std::thread::sleep(*p);
    }
}

#[cfg(not(debug_assertions))]
fn test_pause() {}

/// One change to a partial tree (a directory or file created in it, its
/// seal, its rename into place), made outside an interrupted run's
/// cleanup: the signal thread removes the partial tree either before the
/// change (which then never happens: this thread waits for the process to
/// end) or after it, never while this thread writes into it.
fn step<T>(f: impl FnOnce() -> T) -> T {
    probity_scratch::registry::exclusive(f)
}

/// Writes `files` under a new directory `root` (which must not exist, and
/// must be outside every Git worktree): directories 0700, files 0600,
/// written into a sibling under an owner lock and renamed into place whole,
/// so `root` never holds a partial tree. `seal` runs on the complete tree
/// before the rename (the read-only copy makes it 0555/0444 there). An
/// interrupted write (an error, Ctrl-C, SIGTERM, SIGHUP) removes the
/// partial tree; a killed one is scavenged by the next write beside it.
fn write_files<'a>(
    root: &Path,
    files: impl Iterator<Item = (&'a String, &'a Vec<u8>)>,
    seal: impl FnOnce(&Path) -> Result<(), ContextDirError>,
) -> Result<(), ContextDirError> {
    if fs::symlink_metadata(root).is_ok() {
        return Err(ContextDirError::Exists(root.to_owned()));
    }
    if let Some(repository) = enclosing_repository(root)? {
        return Err(ContextDirError::InsideRepository {
            path: root.to_owned(),
            repository,
        });
    }
    let parent = match root.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let scratch =
        probity_scratch::Scratch::reserve(&parent, PARTIAL_PREFIX).map_err(io(&parent))?;
    let partial = scratch.path();
    step(|| make_dir(partial))?;
    // On an error the scratch guard removes the partial tree.
    write_below(partial, files)?;
    step(|| seal(partial))?;
    step(|| {
        if fs::symlink_metadata(root).is_ok() {
            return Err(ContextDirError::Exists(root.to_owned()));
        }
        fs::rename(partial, root).map_err(io(root))
    })?;
    File::open(&parent)
        .and_then(|d| d.sync_all())
        .map_err(io(&parent))?;
    Ok(())
}

fn write_below<'a>(
    root: &Path,
    files: impl Iterator<Item = (&'a String, &'a Vec<u8>)>,
) -> Result<(), ContextDirError> {
    for (rel, bytes) in files {
        step(|| write_one(root, rel, bytes))?;
        test_pause();
    }
    Ok(())
}

/// Writes one file of a partial tree, and the directories above it.
fn write_one(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), ContextDirError> {
    let path = checked_join(root, rel)?;
    let mut dir = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_dir() => {}
            Ok(_) => return Err(ContextDirError::Changed(dir)),
            Err(_) => make_dir(&dir)?,
        }
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(&path)
        .map_err(io(&path))?;
    f.set_permissions(Permissions::from_mode(FILE_MODE))
        .map_err(io(&path))?;
    f.write_all(bytes).map_err(io(&path))?;
    f.sync_all().map_err(io(&path))?;
    Ok(())
}

/// Writes an assembled tree to a new directory (0700/0600).
pub fn write_tree(root: &Path, tree: &ContextTree) -> Result<(), ContextDirError> {
    write_files(root, tree.files().iter(), |_| Ok(()))
}

/// Reads a regular file without following links: the opened handle must be
/// the same inode the no-follow lookup saw.
fn read_regular(path: &Path, seen: &fs::Metadata) -> Result<Vec<u8>, ContextDirError> {
    let f = File::open(path).map_err(io(path))?;
    let m = f.metadata().map_err(io(path))?;
    if !m.file_type().is_file() || m.ino() != seen.ino() || m.dev() != seen.dev() {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    // Never allocate from the size the file system claims (a sparse file
    // can claim terabytes); read at most the limit, plus one byte to see a
    // file that grew past it.
    let mut bytes = Vec::new();
    f.take(MAX_OBSERVED_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io(path))?;
    if bytes.len() as u64 > MAX_OBSERVED_FILE_BYTES {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    let after = fs::symlink_metadata(path).map_err(io(path))?;
    if after.ino() != seen.ino() || after.dev() != seen.dev() {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    Ok(bytes)
}

/// Visits every entry below `root`, level by level in name order, with its
/// relative path, its path and its no-follow metadata (no link is ever
/// followed), descending into each directory after visiting it.
fn visit(
    root: &Path,
    rel: &str,
    f: &mut dyn FnMut(String, &Path, fs::Metadata) -> Result<(), ContextDirError>,
) -> Result<(), ContextDirError> {
    let dir = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    };
    let mut names = Vec::new();
    for entry in fs::read_dir(&dir).map_err(io(&dir))? {
        let entry = entry.map_err(io(&dir))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| ContextDirError::NonUtf8Name(entry.path()))?;
        names.push(name);
    }
    names.sort();
    for name in names {
        let child_rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let path = root.join(&child_rel);
        let m = fs::symlink_metadata(&path).map_err(io(&path))?;
        let is_dir = m.file_type().is_dir();
        f(child_rel.clone(), &path, m)?;
        if is_dir {
            visit(root, &child_rel, f)?;
        }
    }
    Ok(())
}

fn walk(root: &Path, out: &mut Observed) -> Result<(), ContextDirError> {
    visit(root, "", &mut |rel, path, m| {
        let ft = m.file_type();
        out.modes.insert(rel.clone(), m.mode() & 0o7777);
        let node = if ft.is_symlink() {
            Node::Symlink
        } else if ft.is_dir() {
            Node::Dir
        } else if ft.is_file() && m.len() > MAX_OBSERVED_FILE_BYTES {
            // Reported by its size, never read.
            Node::Oversized(m.len())
        } else if ft.is_file() {
            Node::File(read_regular(path, &m)?)
        } else {
            Node::Special
        };
        out.entries.insert(rel, node);
        Ok(())
    })
}

/// Observes a context directory: every entry below `root` with its kind
/// (no link is ever followed) and the bytes of every regular file up to
/// the verifier's limit, whatever the manifest lists (for inspection and
/// tests: [`verify_dir`] reads only what the retained manifest lists).
pub fn observe_dir(root: &Path) -> Result<Observed, ContextDirError> {
    let m = fs::symlink_metadata(root).map_err(io(root))?;
    if m.file_type().is_symlink() {
        return Err(ContextDirError::RootSymlink(root.to_owned()));
    }
    if !m.file_type().is_dir() {
        return Err(ContextDirError::RootNotDirectory(root.to_owned()));
    }
    let mut out = Observed::default();
    out.modes.insert(String::new(), m.mode() & 0o7777);
    walk(root, &mut out)?;
    Ok(out)
}

/// What a metadata-only walk sees of one entry.
enum Seen {
    Dir,
    File(fs::Metadata),
    Symlink,
    Special,
}

/// Every entry below `root` by its no-follow metadata alone (no file is
/// opened), with its permission bits; the root's mode under `""`.
fn scan(
    root: &Path,
    out: &mut std::collections::BTreeMap<String, Seen>,
    modes: &mut std::collections::BTreeMap<String, u32>,
) -> Result<(), ContextDirError> {
    visit(root, "", &mut |rel, _, m| {
        let ft = m.file_type();
        modes.insert(rel.clone(), m.mode() & 0o7777);
        let seen = if ft.is_symlink() {
            Seen::Symlink
        } else if ft.is_dir() {
            Seen::Dir
        } else if ft.is_file() {
            Seen::File(m)
        } else {
            Seen::Special
        };
        out.insert(rel, seen);
        Ok(())
    })
}

/// Reads a listed regular file of `expected` bytes without following
/// links (the opened handle must be the inode the no-follow lookup saw),
/// hashing it as it is read through a fixed buffer; never more than
/// `expected` bytes are kept (a file that grew is `Changed`). The bytes are
/// returned only when their SHA-256 is the manifest's `sha256`.
fn read_listed(
    path: &Path,
    rel: &str,
    seen: &fs::Metadata,
    expected: u64,
    sha256: &str,
) -> Result<Vec<u8>, ContextDirError> {
    use sha2::{Digest, Sha256};
    let mut f = File::open(path).map_err(io(path))?;
    let m = f.metadata().map_err(io(path))?;
    if !m.file_type().is_file() || m.ino() != seen.ino() || m.dev() != seen.dev() {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    // `expected` is the manifest's count, equal to the size the lookup saw
    // and at most the verifier's limit: never a size the file claims alone.
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf).map_err(io(path))?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        if bytes.len() as u64 + n as u64 > expected {
            return Err(ContextDirError::Changed(path.to_owned()));
        }
        hasher.update(chunk);
        bytes.extend_from_slice(chunk);
    }
    if (bytes.len() as u64) != expected {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    let after = fs::symlink_metadata(path).map_err(io(path))?;
    if after.ino() != seen.ino() || after.dev() != seen.dev() {
        return Err(ContextDirError::Changed(path.to_owned()));
    }
    let digest: [u8; 32] = hasher.finalize().into();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if hex != sha256 {
        return Err(VerifyError::Digest(rel.to_owned()).into());
    }
    Ok(bytes)
}

/// Reads and verifies a context directory against the retained digest,
/// the root index first: the tree is walked by metadata alone, links,
/// special files and (for `index.json`) the size limit are refused from
/// it, `index.json` is read (bounded) and checked against the retained
/// digest, and its manifest then refuses every file it does not list and
/// every listed file whose size differs from its `bytes` (or is over the
/// limit), all before any other file is opened. Each listed file is then
/// read once, hashed as it is read, under its manifest size; the full
/// verifier (C3) runs over exactly those bytes.
pub fn verify_dir(root: &Path, retained: &HexDigest) -> Result<VerifiedTree, ContextDirError> {
    let m = fs::symlink_metadata(root).map_err(io(root))?;
    if m.file_type().is_symlink() {
        return Err(ContextDirError::RootSymlink(root.to_owned()));
    }
    if !m.file_type().is_dir() {
        return Err(ContextDirError::RootNotDirectory(root.to_owned()));
    }
    let mut seen = std::collections::BTreeMap::new();
    let mut out = Observed::default();
    out.modes.insert(String::new(), m.mode() & 0o7777);
    scan(root, &mut seen, &mut out.modes)?;
    for (path, node) in &seen {
        match node {
            Seen::Symlink => return Err(VerifyError::Symlink(path.clone()).into()),
            Seen::Special => return Err(VerifyError::SpecialFile(path.clone()).into()),
            Seen::Dir | Seen::File(_) => {}
        }
    }
    let too_large = |path: &str, m: &fs::Metadata| VerifyError::TooLarge {
        path: path.to_owned(),
        size: m.len(),
        max: MAX_OBSERVED_FILE_BYTES,
    };
    let Some(Seen::File(index_meta)) = seen.get("index.json") else {
        return Err(VerifyError::MissingIndex.into());
    };
    if index_meta.len() > MAX_OBSERVED_FILE_BYTES {
        return Err(too_large("index.json", index_meta).into());
    }
    let index_path = root.join("index.json");
    let index_bytes = read_regular(&index_path, index_meta)?;
    let index = probity_ports::context::check_index(&index_bytes, retained)?;
    // The manifest, as the index schema guarantees it: path → (bytes,
    // sha256). A path listed twice is left to the verifier.
    let mut manifest = std::collections::BTreeMap::new();
    for e in index["files"].as_array().into_iter().flatten() {
        if let Some(p) = e["path"].as_str() {
            let bytes = e["bytes"].as_u64().unwrap_or(u64::MAX);
            let sha = e["sha256"].as_str().unwrap_or_default();
            manifest.entry(p.to_owned()).or_insert((bytes, sha));
        }
    }
    // Refusals from metadata alone, before any listed file is opened.
    for (path, node) in &seen {
        if let Seen::File(m) = node
            && path != "index.json"
        {
            let Some((expected, _)) = manifest.get(path) else {
                return Err(VerifyError::ExtraFile(path.clone()).into());
            };
            if m.len() > MAX_OBSERVED_FILE_BYTES {
                return Err(too_large(path, m).into());
            }
            if m.len() != *expected {
                return Err(VerifyError::Size {
                    path: path.clone(),
                    expected: *expected,
                    actual: m.len(),
                }
                .into());
            }
        }
    }
    for (path, node) in seen {
        let entry = match node {
            Seen::Dir => Node::Dir,
            Seen::File(_) if path == "index.json" => Node::File(index_bytes.clone()),
            Seen::File(m) => {
                let (expected, sha) = manifest.get(&path).copied().unwrap_or((0, ""));
                Node::File(read_listed(&root.join(&path), &path, &m, expected, sha)?)
            }
            // Refused above.
            Seen::Symlink => Node::Symlink,
            Seen::Special => Node::Special,
        };
        out.entries.insert(path, entry);
    }
    Ok(probity_ports::context::verify(&out, retained)?)
}

/// Writes the verified bytes to a new directory `dest`, makes it read-only
/// (0444 files, 0555 directories) and verifies the copy again.
pub fn copy_verified(tree: &VerifiedTree, dest: &Path) -> Result<(), ContextDirError> {
    write_files(dest, tree.files().iter(), |partial| {
        seal_read_only(tree, partial)
    })?;
    let again = verify_dir(dest, &tree.index_digest())?;
    if again.files() != tree.files() {
        return Err(ContextDirError::Changed(dest.to_owned()));
    }
    Ok(())
}

/// Checks that a sealed copy written by [`copy_verified`] is still what it
/// was: it verifies against the tree's digest, holds exactly the tree's
/// bytes, and every entry still carries its read-only mode (0444 files,
/// 0555 directories, the root included). `context run` calls it after the
/// agent ran, so a change the file modes did not prevent (an agent running
/// as root or as the copy's owner) is found, a mode changed back included.
pub fn check_sealed_copy(tree: &VerifiedTree, dest: &Path) -> Result<(), ContextDirError> {
    let again = verify_dir(dest, &tree.index_digest())?;
    if again.files() != tree.files() {
        return Err(ContextDirError::Changed(dest.to_owned()));
    }
    let mut dirs = std::collections::BTreeSet::new();
    for rel in tree.files().keys() {
        let path = checked_join(dest, rel)?;
        let mode = fs::symlink_metadata(&path).map_err(io(&path))?.mode() & 0o7777;
        if mode != RO_FILE_MODE {
            return Err(ContextDirError::Changed(path));
        }
        let mut d = rel.as_str();
        while let Some((parent, _)) = d.rsplit_once('/') {
            dirs.insert(parent.to_owned());
            d = parent;
        }
    }
    for path in dirs
        .iter()
        .map(|d| dest.join(d))
        .chain(std::iter::once(dest.to_path_buf()))
    {
        let mode = fs::symlink_metadata(&path).map_err(io(&path))?.mode() & 0o7777;
        if mode != RO_DIR_MODE {
            return Err(ContextDirError::Changed(path));
        }
    }
    Ok(())
}

/// Makes a written copy read-only: 0444 files, 0555 directories.
fn seal_read_only(tree: &VerifiedTree, dest: &Path) -> Result<(), ContextDirError> {
    let mut dirs = Vec::new();
    for rel in tree.files().keys() {
        let path = checked_join(dest, rel)?;
        fs::set_permissions(&path, Permissions::from_mode(RO_FILE_MODE)).map_err(io(&path))?;
        let mut d = rel.as_str();
        while let Some((parent, _)) = d.rsplit_once('/') {
            dirs.push(parent.to_owned());
            d = parent;
        }
    }
    dirs.sort();
    dirs.dedup();
    // Deepest first, the root last.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    for d in dirs {
        let path = dest.join(&d);
        fs::set_permissions(&path, Permissions::from_mode(RO_DIR_MODE)).map_err(io(&path))?;
    }
    fs::set_permissions(dest, Permissions::from_mode(RO_DIR_MODE)).map_err(io(dest))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_no_partial_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("context");
        // `a` is a file, so `a/b` cannot be written below it.
        let files: Vec<(String, Vec<u8>)> =
            vec![("a".into(), b"x".to_vec()), ("a/b".into(), b"y".to_vec())];
        let err = write_files(&root, files.iter().map(|(p, b)| (p, b)), |_| Ok(())).unwrap_err();
        assert!(matches!(err, ContextDirError::Changed(_)), "{err}");
        assert!(fs::symlink_metadata(&root).is_err());
        let bad: Vec<(String, Vec<u8>)> = vec![("../escape".into(), b"y".to_vec())];
        let err = write_files(&root, bad.iter().map(|(p, b)| (p, b)), |_| Ok(())).unwrap_err();
        assert!(matches!(err, ContextDirError::BadPath(_)), "{err}");
        assert!(fs::symlink_metadata(&root).is_err());
        assert!(fs::symlink_metadata(tmp.path().join("escape")).is_err());
        let left: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "no partial tree or owner lock is left");
    }

    #[test]
    fn a_tree_is_refused_inside_a_repository() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join(".git")).unwrap();
        fs::create_dir(tmp.path().join("sub")).unwrap();
        let root = tmp.path().join("sub/context");
        let files: Vec<(String, Vec<u8>)> = vec![("a".into(), b"x".to_vec())];
        let err = write_files(&root, files.iter().map(|(p, b)| (p, b)), |_| Ok(())).unwrap_err();
        assert!(
            matches!(err, ContextDirError::InsideRepository { .. }),
            "{err}"
        );
        assert!(fs::symlink_metadata(&root).is_err());
    }

    /// Regression (issue 13 audit): the path was walked as written, so a
    /// link to a directory of a worktree let a tree be written inside it,
    /// and a `..` leading out of one was refused.
    #[test]
    fn the_worktree_check_follows_links_and_resolves_dot_dot() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs::create_dir_all(repo.join("sub")).unwrap();
        probity_testkit::git_env::git(&repo, &["init", "-q"]).unwrap();
        let lnk = tmp.path().join("lnk");
        std::os::unix::fs::symlink(repo.join("sub"), &lnk).unwrap();
        let files: Vec<(String, Vec<u8>)> = vec![("a".into(), b"x".to_vec())];
        let write = |root: &Path| write_files(root, files.iter().map(|(p, b)| (p, b)), |_| Ok(()));

        let err = write(&lnk.join("context")).unwrap_err();
        assert!(
            matches!(&err, ContextDirError::InsideRepository { repository, .. }
                if *repository == fs::canonicalize(&repo).unwrap()),
            "{err}"
        );
        assert_eq!(fs::read_dir(repo.join("sub")).unwrap().count(), 0);
        // A link as the not-yet-existing tail's parent, two levels down.
        let err = write(&lnk.join("deeper/context")).unwrap_err();
        assert!(
            matches!(err, ContextDirError::InsideRepository { .. }),
            "{err}"
        );

        // `..` through existing directories: outside, written.
        write(&repo.join("sub/../../outside")).unwrap();
        assert_eq!(fs::read(tmp.path().join("outside/a")).unwrap(), b"x");
        // `..` after a directory that does not exist resolves to nothing.
        let err = write(&tmp.path().join("missing/../elsewhere")).unwrap_err();
        assert!(matches!(err, ContextDirError::Io { .. }), "{err}");
        assert!(fs::symlink_metadata(tmp.path().join("elsewhere")).is_err());
        // A dangling link on the path is refused, not followed.
        std::os::unix::fs::symlink(repo.join("gone"), tmp.path().join("dangling")).unwrap();
        let err = write(&tmp.path().join("dangling/context")).unwrap_err();
        assert!(matches!(err, ContextDirError::Io { .. }), "{err}");
        assert!(fs::symlink_metadata(repo.join("gone")).is_err());
    }

    #[test]
    fn a_killed_writers_partial_tree_is_scavenged_by_the_next_write() {
        let tmp = tempfile::tempdir().unwrap();
        // What a SIGKILLed writer leaves: a partial tree and its unheld lock.
        let partial = tmp.path().join(".probity-context-dead");
        fs::create_dir(&partial).unwrap();
        fs::write(partial.join("index.json"), b"half").unwrap();
        fs::write(tmp.path().join(".probity-context-dead.owner"), b"").unwrap();
        let files: Vec<(String, Vec<u8>)> = vec![("a".into(), b"x".to_vec())];
        let root = tmp.path().join("context");
        write_files(&root, files.iter().map(|(p, b)| (p, b)), |_| Ok(())).unwrap();
        let mut left: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, vec!["context".to_string()]);
        assert_eq!(fs::read(root.join("a")).unwrap(), b"x");
    }
}
