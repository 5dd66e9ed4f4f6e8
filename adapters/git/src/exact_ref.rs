//! Reading one ref by its full name, exactly (issue 24).
//!
//! `git rev-parse refs/notes/probity` and `cat-file`'s `info
//! refs/notes/probity` apply git's lookup rules: when the notes ref does not
//! exist, a branch named `refs/heads/refs/notes/probity` (or a tag, or a
//! remote-tracking ref spelled so) is taken for it. Authority must come from
//! the notes ref itself, so it is read here by its name and nothing else:
//! from its loose file under the common directory, else from
//! `packed-refs`, as git's files backend stores them. Anything else (a
//! reftable repository, a symbolic ref, a file this reader does not
//! understand) is asked of `git show-ref --verify`, which matches the full
//! name only. No process is started in the common case.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use probity_core::review::{CommitId, names_conflict};

use crate::cmd::GitError;
use crate::repo::Repo;

/// What the loose file of a ref says.
enum Loose {
    /// An object id.
    Oid(String),
    /// No such file: the ref is packed or absent.
    Absent,
    /// A symbolic ref, an unexpected content or an unreadable file.
    AskGit,
}

/// A loose ref file holds at most an id and a newline; anything longer is
/// not one this reader understands.
const LOOSE_CAP: u64 = 256;

fn is_oid(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What a small file this reader may read holds: `Ok(None)` when there is
/// none (or a directory stands there), `Err(())` when a symbolic link does
/// (git's to follow) or it cannot be read, else its first `LOOSE_CAP`
/// bytes. A FIFO, socket or device is refused before ([`refuse_special`]).
fn small_regular_file(path: &Path) -> Result<Option<String>, ()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => return Ok(None),
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(()),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(_) => return Err(()),
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(LOOSE_CAP).read_to_string(&mut text))
        .map_err(|_| ())?;
    Ok(Some(text))
}

/// A FIFO, socket or device where git keeps a ref or `packed-refs`: an
/// error, never read (opening a FIFO blocks, and git itself would wait on
/// it forever).
fn refuse_special(path: &Path) -> Result<(), GitError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !(m.is_file() || m.is_dir() || m.file_type().is_symlink()) => {
            Err(GitError::Parse {
                args: "read ref".into(),
                detail: format!(
                    "{} is neither a file nor a directory (a FIFO, socket or device); remove it",
                    path.display()
                ),
            })
        }
        _ => Ok(()),
    }
}

fn loose(common: &Path, name: &str) -> Loose {
    // A directory at the name (`refs/notes/probity/`: refs below it exist,
    // so this one cannot, git refusing the D/F conflict) is no loose ref;
    // the ref may be packed from before.
    match small_regular_file(&common.join(name)) {
        Ok(None) => Loose::Absent,
        Ok(Some(text)) => {
            let id = text.strip_suffix('\n').unwrap_or(&text);
            if is_oid(id) {
                Loose::Oid(id.to_owned())
            } else {
                Loose::AskGit
            }
        }
        Err(()) => Loose::AskGit,
    }
}

/// Refs git keeps per worktree (`refs/bisect/`, `refs/worktree/`,
/// `refs/rewritten/`): not under the common directory, so asked of git.
fn per_worktree(name: &str) -> bool {
    ["refs/bisect/", "refs/worktree/", "refs/rewritten/"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The id `packed-refs` records for `name`: `Ok(Some(Some(id)))`,
/// `Ok(Some(None))` when the file has no such line (or there is no file),
/// `Ok(None)` when a line is not one this reader understands.
fn packed(common: &Path, name: &str) -> Result<Option<Option<String>>, std::io::Error> {
    let path = common.join("packed-refs");
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {}
        // A FIFO would block the open: git's to read.
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(None)),
        Err(e) => return Err(e),
    }
    let file = std::fs::File::open(path)?;
    for line in BufReader::new(file).split(b'\n') {
        let line = line?;
        let Ok(line) = std::str::from_utf8(&line) else {
            // Ref names may hold bytes that are not UTF-8; not this one.
            continue;
        };
        if line.starts_with('#') || line.starts_with('^') || line.is_empty() {
            continue;
        }
        let Some((id, refname)) = line.split_once(' ') else {
            return Ok(None);
        };
        if !is_oid(id) {
            return Ok(None);
        }
        if refname == name {
            return Ok(Some(Some(id.to_owned())));
        }
    }
    Ok(Some(None))
}

/// Whether `name` could be a ref at all by git's rules
/// (`git check-ref-format`): one that could not (a `..`, an empty or
/// dot-led component, a `.lock` end, `@{`, a space, a control character
/// or one of `~^:?*[\`) names none, and is never joined onto a path to be read.
pub(crate) fn possible_ref(name: &str) -> bool {
    !name.is_empty()
        && !name.ends_with('/')
        && !name.contains("..")
        && !name.contains("@{")
        && name != "@"
        && !name.bytes().any(|b| {
            b < 0x20
                || b == 0x7f
                || matches!(b, b' ' | b'~' | b'^' | b':' | b'?' | b'*' | b'[' | b'\\')
        })
        && name
            .split('/')
            .all(|c| !c.is_empty() && !c.starts_with('.') && !c.ends_with(".lock"))
}

/// The object id the ref `name` (a full name) holds in the repository
/// whose common directory is `common`, read from its files alone, as
/// [`Repo::exact_ref`] reads them first: `Ok(Some(None))` when it does not
/// exist (or could not), `Ok(None)` when git must be asked (a reftable
/// repository, a symbolic ref, a per-worktree ref, a file this reader does
/// not understand), an error for a FIFO, socket or device where the ref or
/// `packed-refs` is kept (never opened). For a hook that knows its git
/// directory before any git runs.
pub fn read_ref_files(common: &Path, name: &str) -> Result<Option<Option<String>>, GitError> {
    if !possible_ref(name) {
        return Ok(Some(None));
    }
    refuse_special(&common.join(name))?;
    refuse_special(&common.join("packed-refs"))?;
    if per_worktree(name) || common.join("reftable").is_dir() {
        return Ok(None);
    }
    Ok(match loose(common, name) {
        Loose::Oid(id) => Some(Some(id)),
        // A `packed-refs` line this reader does not understand, or one it
        // cannot read: git's to answer.
        Loose::Absent => packed(common, name).ok().flatten(),
        Loose::AskGit => None,
    })
}

/// The most entries [`ref_blocked_files`] walks under a name before it
/// leaves the question to git.
const BLOCKED_WALK: usize = 4096;

/// [`Repo::ref_blocked`] from the repository's files alone (loose refs and
/// `packed-refs`, as git's files backend keeps them): `None` when git must
/// be asked (a reftable repository, a file or a directory tree this reader
/// does not read whole).
pub fn ref_blocked_files(common: &Path, name: &str) -> Option<bool> {
    if !possible_ref(name) || common.join("reftable").is_dir() {
        return None;
    }
    // A loose ref named as a directory above the name.
    let parts: Vec<&str> = name.split('/').collect();
    for i in 2..parts.len() {
        match std::fs::symlink_metadata(common.join(parts[..i].join("/"))) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Some(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(_) => return None,
        }
    }
    // A loose ref beneath it: any file in the directory tree at its name
    // (git removes the empty directories a deleted ref leaves, and steps
    // over those it finds).
    let mut stack = vec![common.join(name)];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                continue;
            }
            Err(_) => return None,
        };
        for e in entries {
            seen += 1;
            if seen > BLOCKED_WALK {
                return None;
            }
            let e = e.ok()?;
            if e.file_type().ok()?.is_dir() {
                stack.push(e.path());
            } else {
                return Some(true);
            }
        }
    }
    // A packed one.
    let path = common.join("packed-refs");
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(false),
        Err(_) => return None,
    }
    let file = std::fs::File::open(path).ok()?;
    for line in BufReader::new(file).split(b'\n') {
        let line = line.ok()?;
        let Some(refname) = line.splitn(2, |b| *b == b' ').nth(1) else {
            continue;
        };
        let refname = String::from_utf8_lossy(refname);
        if names_conflict(name, &refname) {
            return Some(true);
        }
    }
    Some(false)
}

impl Repo {
    /// Whether a ref exists that git's rule against a ref beneath another
    /// sets against creating `name`: one named as a directory above it
    /// (`refs/notes` for `refs/notes/probity`), or one beneath it. One
    /// `git for-each-ref`, whose patterns match a name whole or up to a
    /// slash.
    pub fn ref_blocked(&self, name: &str) -> Result<bool, GitError> {
        let parts: Vec<&str> = name.split('/').collect();
        let mut args = vec![
            "for-each-ref".to_string(),
            "--format=%(refname)".to_string(),
        ];
        args.extend((2..parts.len()).map(|i| parts[..i].join("/")));
        args.push(format!("{name}/"));
        let out = self.run(&args)?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .any(|n| names_conflict(name, n)))
    }

    /// The object id the ref `name` (a full name, `refs/...`) holds: that
    /// ref and no other, whatever git's lookup rules would try after it.
    /// `None` when it does not exist, or could not (a name git refuses). See
    /// the module.
    pub fn exact_ref(&self, name: &str) -> Result<Option<String>, GitError> {
        match read_ref_files(self.common_dir(), name)? {
            Some(found) => Ok(found),
            None => self.show_ref_exact(name),
        }
    }

    /// The commit the ref `name` holds, peeled: `HEAD` (the repository's
    /// own, followed to the branch it names) or a full name such as
    /// `refs/remotes/origin/HEAD`, read by that name only, never by git's
    /// lookup rules (a tag or branch spelled `HEAD` is not `HEAD`, and
    /// makes `rev-parse HEAD` ambiguous). `None` when it does not exist (an
    /// unborn `HEAD`, a dangling symbolic ref) or names no commit.
    pub fn exact_commit(&self, name: &str) -> Result<Option<CommitId>, GitError> {
        let id = if name == "HEAD" {
            self.head_target()?
        } else {
            self.exact_ref(name)?
        };
        let Some(id) = id else {
            return Ok(None);
        };
        let id = CommitId::parse(&id).map_err(|_| GitError::Parse {
            args: "show-ref --verify".into(),
            detail: format!("`{id}` is not an object id"),
        })?;
        self.peel_commit(&id)
    }

    /// What this worktree's `HEAD` holds: read from `<git dir>/HEAD` (it is
    /// per worktree) when it is a plain file naming a branch (`ref:
    /// refs/heads/…`, then read as [`Repo::exact_ref`]) or a commit
    /// (detached); asked of `git show-ref --verify HEAD` otherwise (a
    /// reftable repository, a symbolic link, anything else). No process in
    /// the common case: every gate and `push` resolve `HEAD`.
    pub(crate) fn head_target(&self) -> Result<Option<String>, GitError> {
        refuse_special(&self.git_dir().join("HEAD"))?;
        if !self.common_dir().join("reftable").is_dir()
            && let Ok(Some(text)) = small_regular_file(&self.git_dir().join("HEAD"))
        {
            let line = text.strip_suffix('\n').unwrap_or(&text);
            if is_oid(line) {
                return Ok(Some(line.to_owned()));
            }
            if let Some(target) = line.strip_prefix("ref: ")
                && target.starts_with("refs/heads/")
                && possible_ref(target)
            {
                return self.exact_ref(target);
            }
        }
        self.show_ref_exact("HEAD")
    }

    /// The ref the symbolic ref `name` (a full name, `refs/...`) names (one
    /// level from a loose file, to the end when git is asked): `None` when `name` is no symbolic ref (it holds an id, or does
    /// not exist). A push to a symbolic ref moves the ref it names, so a
    /// server judges it as that ref. Read from the loose file in git's files
    /// backend (a symbolic ref is never packed); asked of `git symbolic-ref`
    /// otherwise (a reftable repository, a file this reader does not
    /// understand).
    pub fn symbolic_target(&self, name: &str) -> Result<Option<String>, GitError> {
        if !possible_ref(name) {
            return Ok(None);
        }
        let common = self.common_dir();
        refuse_special(&common.join(name))?;
        if !per_worktree(name) && !common.join("reftable").is_dir() {
            match small_regular_file(&common.join(name)) {
                Ok(None) => return Ok(None),
                Ok(Some(text)) => {
                    let line = text.strip_suffix('\n').unwrap_or(&text);
                    if is_oid(line) {
                        return Ok(None);
                    }
                    if let Some(target) = line.strip_prefix("ref: ")
                        && possible_ref(target)
                    {
                        return Ok(Some(target.to_owned()));
                    }
                }
                Err(()) => {}
            }
        }
        let args: Vec<OsString> =
            vec!["symbolic-ref".into(), "-q".into(), "--".into(), name.into()];
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {
                let target = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                if possible_ref(&target) {
                    Ok(Some(target))
                } else {
                    Err(GitError::Parse {
                        args: "symbolic-ref".into(),
                        detail: format!("`{target}` is not a ref name"),
                    })
                }
            }
            // `-q`: not a symbolic ref (or no such ref), quietly.
            Some(1) => Ok(None),
            _ => Err(GitError::Failed {
                args: "symbolic-ref -q".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// `git show-ref --verify --hash -- <name>`: exit 0 with the id; a ref
    /// that does not exist is exit 128 with `'<name>' - not a valid ref`
    /// (the environment pins `LC_ALL=C`).
    fn show_ref_exact(&self, name: &str) -> Result<Option<String>, GitError> {
        let args: Vec<OsString> = vec![
            "show-ref".into(),
            "--verify".into(),
            "--hash".into(),
            "--".into(),
            name.into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {
                let s = String::from_utf8_lossy(&out.stdout);
                let id = s.trim();
                if is_oid(id) {
                    Ok(Some(id.to_owned()))
                } else {
                    Err(GitError::Parse {
                        args: "show-ref --verify --hash".into(),
                        detail: format!("`{id}` is not an object id"),
                    })
                }
            }
            Some(128)
                if String::from_utf8_lossy(&out.stderr)
                    .trim_end()
                    .ends_with("- not a valid ref") =>
            {
                Ok(None)
            }
            _ => Err(GitError::Failed {
                args: "show-ref --verify --hash".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Fixture;

    fn head(f: &Fixture) -> String {
        String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap())
            .unwrap()
            .trim()
            .to_owned()
    }

    /// A fixture with one commit (`a` holding `a`), and its id.
    fn one_commit() -> (Fixture, String) {
        let f = Fixture::committed(&[("a", "a\n")], "a").unwrap();
        let one = head(&f);
        (f, one)
    }

    /// A fixture with two commits (`a` holding `a`, then `b`), and their ids.
    fn two_commits() -> (Fixture, String, String) {
        let (f, one) = one_commit();
        f.write("a", "b\n").unwrap();
        f.commit_all("b").unwrap();
        let two = head(&f);
        (f, one, two)
    }

    /// Read from the files alone: absent, loose, packed; a symbolic ref is
    /// left to git.
    #[test]
    fn a_ref_read_from_its_files_agrees_with_git_or_is_left_to_it() {
        let (f, _, two) = two_commits();
        let repo = f.repo().unwrap();
        let common = repo.common_dir();
        let name = "refs/notes/probity";
        assert_eq!(read_ref_files(common, name).unwrap(), Some(None));
        f.git(&["update-ref", name, &two]).unwrap();
        assert_eq!(
            read_ref_files(common, name).unwrap(),
            Some(Some(two.clone()))
        );
        f.git(&["pack-refs", "--all"]).unwrap();
        assert_eq!(read_ref_files(common, name).unwrap(), Some(Some(two)));
        f.git(&["update-ref", "-d", name]).unwrap();
        f.git(&["symbolic-ref", name, "refs/heads/main"]).unwrap();
        assert_eq!(read_ref_files(common, name).unwrap(), None);
        assert_eq!(
            read_ref_files(common, "refs/bad..name").unwrap(),
            Some(None)
        );
    }

    /// A ref below the name, or named as a directory above it, blocks its
    /// creation, as git's own refusal shows; a sibling does not.
    #[test]
    fn a_ref_above_or_below_a_name_blocks_its_creation() {
        let (f, one) = one_commit();
        let repo = f.repo().unwrap();
        let name = "refs/notes/probity";
        assert!(!repo.ref_blocked(name).unwrap());
        for sibling in ["refs/notes/commits", "refs/notes/probityx"] {
            f.git(&["update-ref", sibling, &one]).unwrap();
        }
        assert!(!repo.ref_blocked(name).unwrap());
        let common = repo.common_dir();
        assert_eq!(ref_blocked_files(common, name), Some(false));
        f.git(&["update-ref", "refs/notes/probity/x", &one])
            .unwrap();
        assert!(repo.ref_blocked(name).unwrap());
        assert_eq!(ref_blocked_files(common, name), Some(true));
        f.git(&["pack-refs", "--all"]).unwrap();
        assert_eq!(ref_blocked_files(common, name), Some(true), "packed");
        assert!(f.git(&["update-ref", name, &one]).is_err());
        f.git(&["update-ref", "-d", "refs/notes/probity/x"])
            .unwrap();
        assert!(!repo.ref_blocked(name).unwrap());
        assert_eq!(ref_blocked_files(common, name), Some(false));
        // An empty directory left at the name blocks nothing, for git
        // either.
        std::fs::create_dir_all(common.join("refs/notes/probity/empty")).unwrap();
        assert_eq!(ref_blocked_files(common, name), Some(false));
        let (g, one) = one_commit();
        g.git(&["update-ref", "refs/notes", &one]).unwrap();
        let blocked = g.repo().unwrap();
        assert!(blocked.ref_blocked(name).unwrap());
        assert_eq!(ref_blocked_files(blocked.common_dir(), name), Some(true));
        assert!(g.git(&["update-ref", name, &one]).is_err());
        f.git(&["update-ref", name, &one]).unwrap();
    }

    /// Loose, packed, packed and then loose again, deleted, and shadowed
    /// by names git's lookup rules would try: always the ref itself, and
    /// always what `git show-ref --verify` says.
    #[test]
    fn a_ref_is_read_by_its_full_name_only() {
        let (f, one, two) = two_commits();
        let repo = f.repo().unwrap();
        let name = "refs/notes/probity";
        let agree = |want: Option<&str>| {
            assert_eq!(repo.exact_ref(name).unwrap().as_deref(), want);
            assert_eq!(repo.show_ref_exact(name).unwrap().as_deref(), want);
        };
        agree(None);
        for shadow in [
            "refs/heads/refs/notes/probity",
            "refs/tags/refs/notes/probity",
            "refs/remotes/refs/notes/probity",
            "refs/refs/notes/probity",
        ] {
            f.git(&["update-ref", shadow, &one]).unwrap();
        }
        agree(None);
        f.git(&["update-ref", name, &two]).unwrap();
        agree(Some(&two));
        f.git(&["pack-refs", "--all"]).unwrap();
        assert!(!f.root().join(".git").join(name).exists(), "packed");
        agree(Some(&two));
        f.git(&["update-ref", name, &one]).unwrap();
        agree(Some(&one));
        f.git(&["pack-refs", "--all"]).unwrap();
        f.git(&["update-ref", "-d", name]).unwrap();
        agree(None);
        // Refs below the name: this one cannot exist.
        f.git(&["update-ref", "refs/notes/probity/x", &one])
            .unwrap();
        agree(None);
    }

    /// A symbolic ref is resolved by git, not by this reader.
    #[test]
    fn a_symbolic_ref_is_asked_of_git() {
        let (f, one) = one_commit();
        let repo = f.repo().unwrap();
        f.git(&["update-ref", "refs/notes/other", &one]).unwrap();
        f.git(&["symbolic-ref", "refs/notes/probity", "refs/notes/other"])
            .unwrap();
        assert_eq!(
            repo.exact_ref("refs/notes/probity").unwrap().as_deref(),
            Some(one.as_str())
        );
    }

    /// A reftable repository is asked of git.
    #[test]
    fn a_symbolic_ref_names_its_target_in_either_ref_backend() {
        let f = Fixture::new().unwrap();
        for format in ["files", "reftable"] {
            let r = f.root().join(format);
            let arg = format!("--ref-format={format}");
            if f.git(&["init", "-q", "-b", "main", &arg, r.to_str().unwrap()])
                .is_err()
            {
                // A git without reftable support: nothing more to check.
                continue;
            }
            let git = |args: &[&str]| f.git_in(&r, args).unwrap();
            git(&["commit", "-q", "--allow-empty", "-m", "a"]);
            git(&["symbolic-ref", "refs/tags/latest", "refs/heads/main"]);
            git(&["symbolic-ref", "refs/stable/latest", "refs/tags/latest"]);
            git(&["symbolic-ref", "refs/heads/gone", "refs/heads/nowhere"]);
            let repo = Repo::discover(f.repo().unwrap().git().clone(), &r).unwrap();
            let target = |name: &str| repo.symbolic_target(name).unwrap();
            assert_eq!(
                target("refs/tags/latest").as_deref(),
                Some("refs/heads/main")
            );
            // One level from a loose file; git, asked, follows to the end:
            // either way the caller's loop ends at the branch.
            let next = target("refs/stable/latest").unwrap();
            assert!(
                next == "refs/tags/latest" || next == "refs/heads/main",
                "{format}: {next}"
            );
            // A dangling symbolic ref still names its target.
            assert_eq!(
                target("refs/heads/gone").as_deref(),
                Some("refs/heads/nowhere")
            );
            // A ref holding an id, and no ref at all, are no symbolic refs.
            assert_eq!(target("refs/heads/main"), None, "{format}");
            assert_eq!(target("refs/heads/absent"), None, "{format}");
            assert_eq!(target("refs/heads/a..b"), None, "{format}");
        }
    }

    #[test]
    fn a_reftable_repository_is_asked_of_git() {
        let f = Fixture::new().unwrap();
        let r = f.root().join("r");
        let init = f.git(&["init", "-q", "--ref-format=reftable", r.to_str().unwrap()]);
        if init.is_err() {
            // A git without reftable support: nothing to check.
            return;
        }
        let git = |args: &[&str]| f.git_in(&r, args).unwrap();
        git(&["commit", "-q", "--allow-empty", "-m", "a"]);
        let one = String::from_utf8(git(&["rev-parse", "HEAD"])).unwrap();
        let one = one.trim();
        git(&["update-ref", "refs/heads/refs/notes/probity", one]);
        let repo = Repo::discover(f.repo().unwrap().git().clone(), &r).unwrap();
        assert!(repo.common_dir().join("reftable").is_dir());
        assert_eq!(repo.exact_ref("refs/notes/probity").unwrap(), None);
        git(&["update-ref", "refs/notes/probity", one]);
        assert_eq!(
            repo.exact_ref("refs/notes/probity").unwrap().as_deref(),
            Some(one)
        );
    }

    /// `HEAD` is `HEAD`: a tag and a branch spelled `HEAD` (which make
    /// `rev-parse HEAD` ambiguous, and stand in for an unborn `HEAD`) are
    /// not taken for it, nor for a remote's `HEAD`; a name git refuses is
    /// no ref, whatever file it would name.
    #[test]
    fn head_is_read_as_itself_never_as_a_ref_spelled_head() {
        let (f, one, two) = two_commits();
        let repo = f.repo().unwrap();
        for shadow in [
            "refs/tags/HEAD",
            "refs/heads/HEAD",
            "refs/tags/refs/remotes/origin/HEAD",
        ] {
            f.git(&["update-ref", shadow, &one]).unwrap();
        }
        assert!(f.git(&["rev-parse", "--verify", "HEAD"]).is_ok());
        let exact = |name: &str| repo.exact_commit(name).unwrap().map(|c| c.to_string());
        assert_eq!(exact("HEAD"), Some(two.clone()));
        assert_eq!(exact("refs/remotes/origin/HEAD"), None);
        f.git(&["update-ref", "refs/remotes/origin/main", &two])
            .unwrap();
        f.git(&[
            "symbolic-ref",
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
        ])
        .unwrap();
        assert_eq!(exact("refs/remotes/origin/HEAD"), Some(two.clone()));
        // `find_commit` reads `HEAD` and its ancestors so too, and a full id
        // as the object, never as a ref spelled with its digits.
        let found = |rev: &str| repo.find_commit(rev).unwrap().map(|c| c.to_string());
        assert_eq!(found("HEAD"), Some(two.clone()));
        assert_eq!(found("HEAD^"), Some(one.clone()));
        assert_eq!(found("HEAD~1"), Some(one.clone()));
        assert_eq!(found("HEAD~2"), None);
        f.git(&["update-ref", &format!("refs/tags/{two}"), &one])
            .unwrap();
        assert_eq!(found(&two), Some(two.clone()));
        // A full ref name is that ref, never a tag spelled like it.
        f.git(&["update-ref", "refs/tags/refs/remotes/origin/main", &one])
            .unwrap();
        assert_eq!(found("refs/remotes/origin/main"), Some(two.clone()));
        assert_eq!(found("refs/remotes/origin/gone"), None);
        // An unborn HEAD is no commit, whatever is spelled `HEAD`.
        f.git(&["symbolic-ref", "HEAD", "refs/heads/unborn"])
            .unwrap();
        assert_eq!(exact("HEAD"), None);
        // Names git refuses: nothing is read for them.
        for bad in [
            "refs/remotes/../HEAD",
            "refs/remotes//x/HEAD",
            "refs/x.lock",
            "refs/a b",
        ] {
            assert_eq!(repo.exact_ref(bad).unwrap(), None, "{bad}");
        }
    }

    /// `HEAD` is read from this worktree's own git directory, in a linked
    /// worktree, detached, and unborn, as `git rev-parse` reads it; a
    /// per-worktree ref (`refs/bisect/…`) is asked of git.
    #[test]
    fn head_and_per_worktree_refs_are_this_worktrees() {
        let (f, one, two) = two_commits();
        let wt = f.root().join("wt");
        f.git(&[
            "worktree",
            "add",
            "-q",
            "--detach",
            wt.to_str().unwrap(),
            &one,
        ])
        .unwrap();
        let main = f.repo().unwrap();
        let linked = Repo::discover(main.git().clone(), &wt).unwrap();
        let exact = |r: &Repo| r.exact_commit("HEAD").unwrap().map(|c| c.to_string());
        assert_eq!(exact(&main), Some(two.clone()));
        assert_eq!(exact(&linked), Some(one.clone()));
        f.git_in(&wt, &["update-ref", "refs/bisect/bad", &one])
            .unwrap();
        assert_eq!(
            linked.exact_ref("refs/bisect/bad").unwrap().as_deref(),
            Some(one.as_str())
        );
        assert_eq!(main.exact_ref("refs/bisect/bad").unwrap(), None);
        // Unborn: `HEAD` names a branch that does not exist.
        f.git_in(&wt, &["checkout", "-q", "--orphan", "fresh"])
            .unwrap();
        assert_eq!(exact(&linked), None);
        assert!(
            f.git_in(&wt, &["rev-parse", "--verify", "-q", "HEAD"])
                .is_err()
        );
    }

    /// A FIFO where git keeps a ref, `packed-refs` or `HEAD` is an error at
    /// once, never opened (opening it would block, git's own read too).
    #[test]
    fn a_fifo_where_a_ref_is_kept_is_refused_without_blocking() {
        let (f, _) = one_commit();
        let repo = f.repo().unwrap();
        let git_dir = repo.git_dir().to_path_buf();
        let mkfifo = |p: &std::path::Path| {
            let st = std::process::Command::new("mkfifo")
                .arg(p)
                .status()
                .unwrap();
            assert!(st.success());
        };
        std::fs::create_dir_all(git_dir.join("refs/notes")).unwrap();
        let notes = git_dir.join("refs/notes/probity");
        mkfifo(&notes);
        let err = repo.notes_tip().unwrap_err().to_string();
        assert!(err.contains("FIFO"), "{err}");
        std::fs::remove_file(&notes).unwrap();
        mkfifo(&git_dir.join("packed-refs"));
        assert!(repo.exact_ref("refs/notes/probity").is_err());
        std::fs::remove_file(git_dir.join("packed-refs")).unwrap();
        assert_eq!(repo.exact_ref("refs/notes/probity").unwrap(), None);
    }
}
