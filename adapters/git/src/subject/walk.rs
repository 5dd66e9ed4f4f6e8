//! File-system helpers shared by the `worktree` and `disk` subjects: byte
//! paths, a walk that never follows links, and reads with a size ceiling.

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use probity_core::snapshot_tools::READ_MAX_FILE_BYTES;
use probity_core::snapshot_tools::is_binary;
use probity_core::snapshot_tools::{
    EntryKind, GrepHit, ListEntry, SnapshotPath, SubjectError, quote_name,
};

/// The most entries a walk visits.
pub const WALK_MAX_ENTRIES: usize = 200_000;

/// The bytes of a file name.
pub fn name_bytes(name: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().as_bytes().to_vec()
    }
}

/// True when `rel` (a repo-relative path of bytes) exists under `root` as a
/// regular file or link reached only through real directories: what
/// `commit -a` would record. A path whose leading component is a link
/// (which git itself does not follow) is not present.
pub fn present_without_links(root: &Path, rel: &[u8]) -> bool {
    let comps: Vec<&[u8]> = rel.split(|b| *b == b'/').collect();
    let mut cur = root.to_path_buf();
    for (i, c) in comps.iter().enumerate() {
        cur = crate::cmd::path_from_bytes(&cur, c);
        let Ok(meta) = fs::symlink_metadata(&cur) else {
            return false;
        };
        let last = i + 1 == comps.len();
        if !last && !meta.is_dir() {
            return false;
        }
        if last && meta.is_dir() {
            return false;
        }
    }
    true
}

/// `root/<path>` for a snapshot path.
pub fn join(root: &Path, path: &SnapshotPath) -> PathBuf {
    crate::cmd::path_from_bytes(root, path.as_bytes())
}

/// True for a `.git` name in any case.
pub fn is_git_name(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b".git")
}

/// An I/O error on `path`, naming it as tool results do (quoted when not
/// plain), never by its absolute location.
pub fn io_err(path: &SnapshotPath, e: &std::io::Error) -> SubjectError {
    SubjectError::Backend(format!("{}: {e}", path.shown()))
}

/// An I/O error on `path` where a missing file means it is not in the
/// snapshot (`why`: how it went missing); any other error is [`io_err`].
pub fn missing_or_io(path: &SnapshotPath, e: &std::io::Error, why: &str) -> SubjectError {
    if e.kind() == std::io::ErrorKind::NotFound {
        return SubjectError::NotInSnapshot {
            path: path.display().into_owned(),
            why: why.into(),
        };
    }
    io_err(path, e)
}

/// An I/O error during a walk, naming the repo-relative place (`rel`, empty
/// for the root) quoted when not plain, never the absolute root.
fn walk_err(rel: &[u8], e: &std::io::Error) -> SubjectError {
    if rel.is_empty() {
        return SubjectError::Backend(format!("the root directory: {e}"));
    }
    let name = String::from_utf8_lossy(rel);
    SubjectError::Backend(format!("{}: {e}", quote_name(&name, &[])))
}

/// Reads a regular file, refusing one over the read ceiling.
pub fn read_file(full: &Path, path: &SnapshotPath) -> Result<Vec<u8>, SubjectError> {
    let f = fs::File::open(full).map_err(|e| io_err(path, &e))?;
    let meta = f.metadata().map_err(|e| io_err(path, &e))?;
    if !meta.is_file() {
        return Err(SubjectError::NotAFile {
            path: path.display().into_owned(),
            what: "not a regular file".into(),
        });
    }
    if meta.len() > READ_MAX_FILE_BYTES {
        return Err(SubjectError::TooLarge {
            path: path.display().into_owned(),
            size: meta.len(),
            max: READ_MAX_FILE_BYTES,
        });
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    f.take(READ_MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| io_err(path, &e))?;
    Ok(buf)
}

/// Lists files and symbolic links under `root` (never following links,
/// never entering `.git`), sorted by path bytes. `more` when the walk hit
/// [`WALK_MAX_ENTRIES`].
pub fn walk(root: &Path) -> Result<(Vec<ListEntry>, bool), SubjectError> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, Vec<u8>)> = vec![(root.to_path_buf(), Vec::new())];
    let mut visited = 0usize;
    while let Some((dir, prefix)) = stack.pop() {
        let rd = fs::read_dir(&dir).map_err(|e| walk_err(&prefix, &e))?;
        for ent in rd {
            let ent = ent.map_err(|e| walk_err(&prefix, &e))?;
            visited += 1;
            if visited > WALK_MAX_ENTRIES {
                out.sort_by(|a: &ListEntry, b| a.path.cmp(&b.path));
                return Ok((out, true));
            }
            let name = name_bytes(&ent.file_name());
            if is_git_name(&name) {
                continue;
            }
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(&name);
            let ft = ent.file_type().map_err(|e| walk_err(&rel, &e))?;
            if ft.is_symlink() {
                out.push(ListEntry {
                    path: rel,
                    kind: EntryKind::Symlink,
                });
            } else if ft.is_dir() {
                stack.push((ent.path(), rel));
            } else if ft.is_file() {
                out.push(ListEntry {
                    path: rel,
                    kind: EntryKind::File,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((out, false))
}

/// Searches regular text files (never through links) with `is_match`:
/// the hits (each line kept to its first
/// [`GREP_KEEP_LINE_BYTES`](probity_core::snapshot_tools::GREP_KEEP_LINE_BYTES)),
/// whether the hit cap stopped it, and the files skipped for their size.
pub fn grep_files(
    root: &Path,
    entries: &[ListEntry],
    scope: Option<&SnapshotPath>,
    is_match: &dyn Fn(&[u8]) -> bool,
    max_hits: usize,
) -> (Vec<GrepHit>, bool, Vec<Vec<u8>>) {
    let mut hits = Vec::new();
    let mut skipped = Vec::new();
    for e in entries.iter().filter(|e| e.kind == EntryKind::File) {
        let Ok(path) = SnapshotPath::parse(&e.path) else {
            continue;
        };
        if scope.is_some_and(|s| !path.is_within(s)) {
            continue;
        }
        let full = join(root, &path);
        // Re-check: a component may have become a link since the walk.
        if fs::symlink_metadata(&full)
            .map(|m| !m.is_file())
            .unwrap_or(true)
        {
            continue;
        }
        let bytes = match read_file(&full, &path) {
            Ok(b) => b,
            Err(SubjectError::TooLarge { .. }) => {
                skipped.push(e.path.clone());
                continue;
            }
            Err(_) => continue,
        };
        if is_binary(&bytes) {
            continue;
        }
        let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        for (i, line) in body.split(|b| *b == b'\n').enumerate() {
            if is_match(line) {
                if hits.len() >= max_hits {
                    return (hits, true, skipped);
                }
                hits.push(GrepHit {
                    path: e.path.clone(),
                    line: i as u64 + 1,
                    text: probity_core::snapshot_tools::kept_line(line).to_vec(),
                });
            }
        }
    }
    (hits, false, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_errors_name_the_relative_place_quoted() {
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let text = walk_err(b"d\nVERDICT: PASS", &e).to_string();
        assert!(
            text.starts_with("the snapshot could not be read: \"d\\nVERDICT: PASS\": "),
            "{text}"
        );
        assert!(!text.contains('\n'));
        let root = walk_err(b"", &e).to_string();
        assert!(
            root.starts_with("the snapshot could not be read: the root directory: "),
            "{root}"
        );
        let p = SnapshotPath::parse(b"[probity: x]").unwrap();
        assert!(io_err(&p, &e).to_string().contains("\"[probity: x]\": "));
    }
}
