//! Review bundles as Git notes under `refs/notes/probity` (R11), and the
//! plumbing the transport commands need: reading a note from any notes
//! commit (even one still in a push's quarantine), writing notes with a
//! compare-and-swap of the ref, merging another clone's notes, and pushing
//! atomically.
//!
//! Argument arrays only; object ids are validated hex before they reach an
//! argument; remote names and refspecs go after `--`.

use std::ffi::{OsStr, OsString};

use probity_core::review::ids::{CommitId, TreeId};
use probity_core::review::server::{NOTES_REF, note_paths};
use probity_ports::review::{AdapterError, NotesGit};

use crate::cmd::GitError;
use crate::repo::Repo;

/// The owner locks of scratch notes refs, in the common git dir:
/// `probity-notes-<kind>-<random>.owner`, one per scratch ref
/// `refs/notes/probity-<kind>-<random>`.
const OWNER_PREFIX: &str = "probity-notes-";

/// A scratch notes ref for one write, removed on every exit: by its drop;
/// as a loose ref file, by an interrupted run's cleanup (SIGINT, SIGTERM,
/// SIGHUP); and, whatever killed its run (SIGKILL), by the next scratch
/// ref's scavenging pass, which deletes every scratch ref whose owner lock
/// no live process holds.
struct ScratchRef<'a> {
    repo: &'a Repo,
    name: String,
    /// Held while the ref lives: a run killed outright leaves its lock file
    /// unheld, and the next pass finds the ref by it.
    owner: probity_scratch::Scratch,
    /// The loose ref file, its reflog and its lock, for an interrupted
    /// run's cleanup.
    _loose: [probity_scratch::Registered; 3],
}

impl Drop for ScratchRef<'_> {
    fn drop(&mut self) {
        // Gone: the owner lock goes with the guard. Not gone (the ref store
        // was locked, say): the lock file stays, unheld once this run ends,
        // so the next pass deletes the ref.
        let gone = self
            .repo
            .run_sheltered(["update-ref", "-d", self.name.as_str()], None)
            .is_ok();
        self.owner.keep_lock_file(!gone);
    }
}

/// The scratch ref an owner lock's artifact name stands for.
fn ref_of_owner(artifact: &std::path::Path) -> Option<String> {
    let name = artifact.file_name()?.to_str()?;
    let rest = name.strip_prefix(OWNER_PREFIX)?;
    rest.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        .then(|| format!("refs/notes/probity-{rest}"))
}

impl Repo {
    /// A new scratch notes ref of `kind` (`write`, `incoming`), after
    /// deleting the scratch refs dead runs left.
    fn scratch_ref(&self, kind: &str) -> Result<ScratchRef<'_>, GitError> {
        let dir = self.common_dir();
        self.settle_scratch_notes();
        let prefix = format!("{OWNER_PREFIX}{kind}-");
        let mut owner = probity_scratch::Scratch::reserve_only(dir, &prefix)?;
        // With loose refs an interrupted run's cleanup removes the ref file
        // and then the lock; a reftable's refs are no files, so there the
        // lock is kept for the next pass to find the ref by.
        owner.keep_lock_file(dir.join("reftable").is_dir());
        let name = ref_of_owner(owner.path()).ok_or_else(|| GitError::Parse {
            args: "scratch notes ref".into(),
            detail: format!("{} names no scratch ref", owner.path().display()),
        })?;
        // Its lock too: an interrupted run removes artifacts only once its
        // children are gone, and a git killed after its grace (D-R66) may
        // leave the lock of this ref, which only this run ever takes.
        let loose = [
            probity_scratch::registry::artifact(&dir.join(&name)),
            probity_scratch::registry::artifact(&dir.join("logs").join(&name)),
            probity_scratch::registry::artifact(&dir.join(format!("{name}.lock"))),
        ];
        Ok(ScratchRef {
            repo: self,
            name,
            owner,
            _loose: loose,
        })
    }
}

impl Repo {
    /// Deletes the scratch notes refs (`refs/notes/probity-<kind>-*`) that
    /// dead runs left, each with its owner lock: only those whose owner
    /// lock no live process holds. `publish` and `push` run it first, so a
    /// run killed after its notes landed (nothing left for the next run to
    /// write, so no new scratch ref) leaves nothing behind the next run.
    pub fn settle_scratch_notes(&self) {
        let common = self.common_dir();
        probity_scratch::scavenge_with(common, OWNER_PREFIX, |artifact| {
            match ref_of_owner(artifact) {
                Some(name) => {
                    // The owner is gone, and so is every git it started
                    // (each inherited its lock): a lock on its private ref
                    // is one a killed git left (no one else updates it; a
                    // `git pack-refs` holding it for a moment is at worst
                    // left the ref, for the next pass).
                    let _ = std::fs::remove_file(common.join(format!("{name}.lock")));
                    self.run_sheltered(["update-ref", "-d", name.as_str()], None)
                        .is_ok()
                }
                None => true,
            }
        });
    }
}

/// The all-zero id in the hash of `like` (git's "must not exist").
fn zero_like(like: Option<&CommitId>, sha256: bool) -> String {
    let n = match like {
        Some(c) => c.as_str().len(),
        None if sha256 => 64,
        None => 40,
    };
    "0".repeat(n)
}

impl Repo {
    /// `refs/notes/probity` as a commit here, if it exists.
    pub fn notes_tip(&self) -> Result<Option<CommitId>, GitError> {
        self.find_commit(NOTES_REF)
    }

    /// The note of `commit` in the notes commit `notes`: each fan-out path
    /// is asked of the object reader ([`crate::objects`]), and the first
    /// blob found is read up to `cap + 1` bytes.
    pub fn read_note(
        &self,
        notes: &CommitId,
        commit: &CommitId,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        for p in note_paths(commit) {
            let Some(info) = self.object_info(&format!("{notes}:{p}"))? else {
                continue;
            };
            if info.kind != "blob" {
                continue;
            }
            return Ok(self
                .object_head(&info.oid, cap + 1)?
                .map(|(_, bytes, _)| bytes));
        }
        Ok(None)
    }

    /// The commits whose note in the notes commit `notes` holds `needle`
    /// (a fixed string), at most `cap` of them: one `git grep` over the
    /// notes tree, the fan-out paths read back as commit ids.
    pub fn notes_naming(
        &self,
        notes: &CommitId,
        needle: &str,
        cap: usize,
    ) -> Result<Vec<CommitId>, GitError> {
        const ARGS: &str = "grep -l -F";
        let args: Vec<OsString> = [
            "grep",
            "-l",
            "-F",
            "--no-color",
            "--no-textconv",
            "-e",
            needle,
            notes.as_str(),
            "--",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {}
            // `grep` answers 1 when nothing matches.
            Some(1) => return Ok(Vec::new()),
            _ => {
                return Err(GitError::Failed {
                    args: ARGS.into(),
                    status: out.status.to_string(),
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                });
            }
        }
        let text = std::str::from_utf8(&out.stdout).map_err(|_| GitError::Parse {
            args: ARGS.into(),
            detail: "non-UTF-8 output".into(),
        })?;
        let prefix = format!("{notes}:");
        let mut found = Vec::new();
        for line in text.lines() {
            if found.len() >= cap {
                break;
            }
            // `<notes>:<fan-out path>`; a path that is no note's (another
            // file in the notes tree) is passed over.
            let Some(path) = line.strip_prefix(&prefix) else {
                continue;
            };
            let hex: String = path.chars().filter(|c| *c != '/').collect();
            if let Ok(c) = CommitId::parse(hex) {
                found.push(c);
            }
        }
        Ok(found)
    }

    /// [`Self::notes_naming`] for each of `needles` in one `git grep -o`
    /// over the notes tree (each match printed with the note it is in), at
    /// most `cap` commits per needle, in the notes tree's order.
    pub fn notes_naming_each(
        &self,
        notes: &CommitId,
        needles: &[&str],
        cap: usize,
    ) -> Result<Vec<Vec<CommitId>>, GitError> {
        const ARGS: &str = "grep -o -F";
        let mut found: Vec<Vec<CommitId>> = vec![Vec::new(); needles.len()];
        if needles.is_empty() {
            return Ok(found);
        }
        let mut args: Vec<OsString> = [
            "grep",
            "-o",
            "-z",
            "--text",
            "-F",
            "--no-color",
            "--no-textconv",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        for n in needles {
            args.push("-e".into());
            args.push(OsString::from(n));
        }
        args.push(notes.as_str().into());
        args.push("--".into());
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {}
            Some(1) => return Ok(found),
            _ => {
                return Err(GitError::Failed {
                    args: ARGS.into(),
                    status: out.status.to_string(),
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                });
            }
        }
        let prefix = format!("{notes}:");
        // `<notes>:<fan-out path>\0<match>\n` per match.
        for line in out.stdout.split(|b| *b == b'\n') {
            let Some(nul) = line.iter().position(|b| *b == 0) else {
                continue;
            };
            let (file, matched) = (&line[..nul], &line[nul + 1..]);
            let Some(path) = std::str::from_utf8(file)
                .ok()
                .and_then(|f| f.strip_prefix(&prefix))
            else {
                continue;
            };
            let hex: String = path.chars().filter(|c| *c != '/').collect();
            let Ok(c) = CommitId::parse(hex) else {
                continue;
            };
            for (i, n) in needles.iter().enumerate() {
                if n.as_bytes() == matched && found[i].len() < cap && !found[i].contains(&c) {
                    found[i].push(c.clone());
                }
            }
        }
        Ok(found)
    }

    /// Writes every `(commit, note)` into a scratch notes ref started at
    /// `expected`, then moves `refs/notes/probity` from `expected` to the
    /// result in one `update-ref` (compare-and-swap: a concurrent writer
    /// makes this fail, nothing is lost). The scratch ref is removed on
    /// every exit.
    pub fn write_notes(
        &self,
        expected: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
    ) -> Result<(), GitError> {
        self.write_notes_anchored(expected, notes, &[])
    }

    /// [`Repo::write_notes`], and every tree of `anchor` this repository
    /// holds made reachable from the new notes tip: the notes commit gets a
    /// merge child whose first parent is it, whose second parent is a
    /// root commit whose tree lists the trees (entries named by their ids),
    /// and whose tree is the notes tree, unchanged. So the review trees
    /// travel with `refs/notes/probity` (a push, a CI fetch) and stay out
    /// of `git gc`'s reach, with no ref per review. The root commit's
    /// message names the notes commit it anchors for, so two anchors never
    /// share it (a shared root could become a notes merge base).
    pub fn write_notes_anchored(
        &self,
        expected: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
        anchor: &[TreeId],
    ) -> Result<(), GitError> {
        if notes.is_empty() {
            return Ok(());
        }
        let scratch = self.scratch_ref("write")?;
        if let Some(old) = expected {
            self.run_sheltered(["update-ref", scratch.name.as_str(), old.as_str()], None)?;
        }
        let ref_arg = format!("--ref={}", scratch.name);
        for (commit, bytes) in notes {
            self.run_sheltered(
                [
                    "notes",
                    ref_arg.as_str(),
                    "add",
                    "-f",
                    "-F",
                    "-",
                    commit.as_str(),
                ],
                Some(bytes),
            )?;
        }
        let mut new = self.resolve_commit(&scratch.name)?;
        if let Some(anchored) = self.anchor_trees(&new, anchor)? {
            new = anchored;
        }
        let format = self.run(["rev-parse", "--show-object-format"])?;
        let old = match expected {
            Some(c) => c.to_string(),
            None => zero_like(None, format.trim_ascii() == b"sha256"),
        };
        self.run_sheltered(["update-ref", NOTES_REF, new.as_str(), old.as_str()], None)?;
        Ok(())
    }

    /// The anchor commit of [`Repo::write_notes_anchored`] over the notes
    /// commit `notes`, or `None` when no tree of `trees` is held here.
    fn anchor_trees(
        &self,
        notes: &CommitId,
        trees: &[TreeId],
    ) -> Result<Option<CommitId>, GitError> {
        if trees.is_empty() {
            return Ok(None);
        }
        let query: String = trees.iter().map(|t| format!("{t}\n")).collect();
        let out = self.run_with(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            &[],
            Some(query.as_bytes()),
        )?;
        let mut listing = String::new();
        for line in String::from_utf8_lossy(&out).lines() {
            if let Some(id) = line.strip_suffix(" tree")
                && id.bytes().all(|b| b.is_ascii_hexdigit())
            {
                listing.push_str(&format!("040000 tree {id}\t{id}\n"));
            }
        }
        if listing.is_empty() {
            return Ok(None);
        }
        let keep = self.run_with(["mktree"], &[], Some(listing.as_bytes()))?;
        let keep = String::from_utf8_lossy(&keep).trim().to_string();
        let message = format!("probity: review trees kept for notes commit {notes}\n");
        let root = self.run_with(
            ["commit-tree", keep.as_str(), "-F", "-"],
            &[],
            Some(message.as_bytes()),
        )?;
        let root = String::from_utf8_lossy(&root).trim().to_string();
        let tree = format!("{notes}^{{tree}}");
        let anchored = self.run_with(
            [
                "commit-tree",
                tree.as_str(),
                "-p",
                notes.as_str(),
                "-p",
                root.as_str(),
                "-F",
                "-",
            ],
            &[],
            Some(b"probity: anchor the review trees the new notes need\n"),
        )?;
        let anchored = String::from_utf8_lossy(&anchored).trim().to_string();
        CommitId::parse(&anchored)
            .map(Some)
            .map_err(|e| GitError::Parse {
                args: "commit-tree".into(),
                detail: e.to_string(),
            })
    }

    /// The `probity.protectedRefs` values, in configuration order.
    pub fn protected_refs(&self) -> Result<Vec<String>, GitError> {
        let args: Vec<OsString> = ["config", "--get-all", "probity.protectedRefs"]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => Ok(String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()),
            Some(1) => Ok(Vec::new()),
            _ => Err(GitError::Failed {
                args: "config --get-all probity.protectedRefs".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// Fetches `remote`'s `refs/notes/probity` and merges it into the local
    /// one with `cat_sort_uniq` (exact for the one-bundle-per-line layout).
    /// A remote without the ref leaves the local notes as they are.
    /// Returns whether anything was merged.
    pub fn merge_remote_notes(&self, remote: &str) -> Result<bool, GitError> {
        let incoming = self.scratch_ref("incoming")?;
        let spec = format!("+{NOTES_REF}:{}", incoming.name);
        let args: Vec<OsString> = [
            "fetch",
            "--quiet",
            "--no-tags",
            // The user's FETCH_HEAD is theirs, and no maintenance may pack
            // refs (the scratch ref among them) behind this run.
            "--no-write-fetch-head",
            "--no-auto-maintenance",
            "--",
            remote,
            spec.as_str(),
        ]
        .iter()
        .map(OsString::from)
        .collect();
        // Talks to the remote: with the user's transport settings.
        let out = self.transport_git().output(self.root(), &args, &[], None)?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.contains("couldn't find remote ref") {
                return Ok(false);
            }
            return Err(GitError::Failed {
                args: "fetch <remote> refs/notes/probity".into(),
                status: out.status.to_string(),
                stderr: stderr.trim().to_string(),
            });
        }
        let theirs = self.resolve_commit(&incoming.name)?;
        match self.notes_tip()? {
            None => {
                let zero = zero_like(Some(&theirs), false);
                self.run_sheltered(
                    ["update-ref", NOTES_REF, theirs.as_str(), zero.as_str()],
                    None,
                )?;
                Ok(true)
            }
            Some(ours) if self.is_ancestor(&theirs, &ours)? => Ok(false),
            Some(_) => {
                self.run_sheltered(
                    [
                        "notes",
                        "--ref=probity",
                        "merge",
                        "-q",
                        "-s",
                        "cat_sort_uniq",
                        incoming.name.as_str(),
                    ],
                    None,
                )?;
                Ok(true)
            }
        }
    }

    /// The annotated commits holding a note in the notes commit `old` whose
    /// note blob is not the same in `new` (changed or removed), sorted:
    /// `git diff-tree -r` of the two notes commits lists only the paths
    /// that differ, a fan-out path is read as the commit it names (its
    /// slashes dropped), and a note that moved between fan-out levels with
    /// the same blob is no change. Paths that name no commit (a notes tree
    /// may hold other files) are ignored.
    pub fn changed_notes(&self, old: &CommitId, new: &CommitId) -> Result<Vec<CommitId>, GitError> {
        use std::collections::BTreeMap;
        let out = self.run([
            "diff-tree",
            "-r",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            old.as_str(),
            new.as_str(),
        ])?;
        let text = String::from_utf8_lossy(&out);
        let absent = |oid: &str| oid.bytes().all(|b| b == b'0');
        // commit -> (blob in old, blob in new)
        let mut blobs: BTreeMap<CommitId, (Option<String>, Option<String>)> = BTreeMap::new();
        for line in text.lines() {
            let Some((meta, path)) = line.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = meta.split(' ').collect();
            let [_, _, before, after, _] = fields[..] else {
                continue;
            };
            let Ok(commit) = CommitId::parse(path.replace('/', "")) else {
                continue;
            };
            let e = blobs.entry(commit).or_default();
            if !absent(before) {
                e.0 = Some(before.to_string());
            }
            if !absent(after) {
                e.1 = Some(after.to_string());
            }
        }
        Ok(blobs
            .into_iter()
            .filter(|(_, (before, after))| before.is_some() && before != after)
            .map(|(c, _)| c)
            .collect())
    }

    /// `git push --atomic --porcelain -- <remote> <refspecs...>` in one
    /// connection, with the user's transport settings and `env` added (it
    /// reaches a local hook): git's stderr (its progress, what a local hook
    /// and the remote said) is copied to `stderr` as it arrives. `progress`
    /// asks git for its progress meter (it shows none on a pipe otherwise).
    pub fn push_atomic(
        &self,
        remote: &str,
        refspecs: &[String],
        progress: bool,
        env: &[(&str, &OsStr)],
        stderr: &mut (dyn std::io::Write + Send),
    ) -> Result<PushOutcome, GitError> {
        let mut args: Vec<OsString> = vec![
            "-c".into(),
            "core.abbrev=no".into(),
            "push".into(),
            "--atomic".into(),
            "--porcelain".into(),
        ];
        if progress {
            args.push("--progress".into());
        }
        args.push("--".into());
        args.push(remote.into());
        args.extend(refspecs.iter().map(OsString::from));
        let out = self
            .transport_git()
            .output_streaming(self.root(), &args, env, stderr)?;
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(PushOutcome {
            ok: out.status.success(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            updates: text.lines().filter_map(parse_porcelain).collect(),
        })
    }

    /// What `git push -- <remote> <refspecs...>` would update, asked of the
    /// remote without pushing anything (`--dry-run --porcelain`, no hook):
    /// one [`PlannedUpdate`] per ref git names, full object ids. A push git
    /// would refuse outright (no such remote, an unreachable server, a
    /// refspec matching nothing) is [`GitError::Failed`] with git's text.
    pub fn push_plan(
        &self,
        remote: &str,
        refspecs: &[String],
    ) -> Result<Vec<PlannedUpdate>, GitError> {
        let mut args: Vec<OsString> = [
            "-c",
            "core.abbrev=no",
            "push",
            "--dry-run",
            "--porcelain",
            "--no-verify",
            "--",
            remote,
        ]
        .iter()
        .map(OsString::from)
        .collect();
        args.extend(refspecs.iter().map(OsString::from));
        let out = self.transport_git().output(self.root(), &args, &[], None)?;
        let text = String::from_utf8_lossy(&out.stdout);
        let planned: Vec<PlannedUpdate> = text.lines().filter_map(parse_porcelain).collect();
        if !out.status.success() && planned.is_empty() {
            return Err(GitError::Failed {
                args: format!("push --dry-run {remote}"),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(planned)
    }
}

/// What [`Repo::push_atomic`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushOutcome {
    /// Whether git pushed (every ref: the push is atomic).
    pub ok: bool,
    /// Everything git wrote on stderr (already shown as it arrived).
    pub stderr: String,
    /// git's report, one entry per ref (`!` for a rejected one, with its
    /// reason in the summary).
    pub updates: Vec<PlannedUpdate>,
}

impl PushOutcome {
    /// Whether `refname` was refused for not fast-forwarding the remote's
    /// (`fetch first`, `non-fast-forward`): what a merge of the remote's
    /// side mends.
    pub fn refused_as_stale(&self, refname: &str) -> bool {
        self.updates.iter().any(|u| {
            u.to == refname
                && u.flag == '!'
                && (u.summary.contains("fetch first") || u.summary.contains("non-fast-forward"))
        })
    }
}

/// One ref update a push would make, as `git push --porcelain` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedUpdate {
    /// What the push sends, as the refspec named it (`refs/heads/main`,
    /// `HEAD`, an expression); empty for a deletion.
    pub from: String,
    /// The remote ref updated.
    pub to: String,
    /// The remote's tip now, when git reported it (`None`: a new ref).
    pub old: Option<String>,
    /// The tip pushed, when git reported it (`None`: a deletion, or a new
    /// ref, whose tip is `from`'s).
    pub new: Option<String>,
    /// git's flag: ` ` fast-forward, `+` forced, `-` deleted, `*` new,
    /// `=` up to date, `!` rejected.
    pub flag: char,
    /// git's summary (`old..new`, `[new branch]`, `[rejected] (reason)`).
    pub summary: String,
}

/// One `<flag>\t<from>:<to>\t<summary>` line of `git push --porcelain`.
fn parse_porcelain(line: &str) -> Option<PlannedUpdate> {
    let mut fields = line.splitn(3, '\t');
    let flag = fields.next()?;
    let refs = fields.next()?;
    let summary = fields.next().unwrap_or_default();
    let mut chars = flag.chars();
    let flag = chars.next()?;
    if chars.next().is_some() || !" +-*=!".contains(flag) {
        return None;
    }
    let (from, to) = refs.split_once(':')?;
    let word = summary.split(' ').next().unwrap_or_default();
    let (old, new) = match word.split_once("...").or_else(|| word.split_once("..")) {
        Some((a, b))
            if [a, b]
                .iter()
                .all(|h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit())) =>
        {
            (Some(a.to_string()), Some(b.to_string()))
        }
        _ => (None, None),
    };
    Some(PlannedUpdate {
        from: from.to_string(),
        to: to.to_string(),
        old,
        new,
        flag,
        summary: summary.to_string(),
    })
}

impl NotesGit for Repo {
    fn notes_tip(&self) -> Result<Option<CommitId>, AdapterError> {
        Ok(Repo::notes_tip(self)?)
    }

    fn read_note(
        &self,
        notes: &CommitId,
        commit: &CommitId,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        Ok(Repo::read_note(self, notes, commit, cap)?)
    }

    fn notes_naming(
        &self,
        notes: &CommitId,
        needle: &str,
        cap: usize,
    ) -> Result<Vec<CommitId>, AdapterError> {
        Ok(Repo::notes_naming(self, notes, needle, cap)?)
    }

    fn notes_naming_each(
        &self,
        notes: &CommitId,
        needles: &[&str],
        cap: usize,
    ) -> Result<Vec<Vec<CommitId>>, AdapterError> {
        Ok(Repo::notes_naming_each(self, notes, needles, cap)?)
    }

    fn write_notes(
        &self,
        expected: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
        anchor: &[TreeId],
    ) -> Result<(), AdapterError> {
        Ok(Repo::write_notes_anchored(self, expected, notes, anchor)?)
    }

    fn protected_refs(&self) -> Result<Vec<String>, AdapterError> {
        Ok(Repo::protected_refs(self)?)
    }

    fn allows_protected_deletion(&self) -> Result<bool, AdapterError> {
        Ok(Repo::allows_protected_deletion(self)?)
    }

    fn changed_notes(&self, old: &CommitId, new: &CommitId) -> Result<Vec<CommitId>, AdapterError> {
        Ok(Repo::changed_notes(self, old, new)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Fixture;

    #[test]
    fn a_scratch_ref_that_cannot_be_deleted_keeps_its_owner_lock_for_the_next_pass() {
        let (f, repo, head) = fixture();
        let common = repo.common_dir().to_path_buf();
        let owners = || -> Vec<String> {
            std::fs::read_dir(&common)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(OWNER_PREFIX))
                .collect()
        };
        let scratch = repo.scratch_ref("write").unwrap();
        repo.run(["update-ref", scratch.name.as_str(), head.as_str()])
            .unwrap();
        // Another writer holds the ref's lock: the delete fails.
        let lock = common.join(format!("{}.lock", scratch.name));
        std::fs::write(&lock, b"").unwrap();
        let name = scratch.name.clone();
        drop(scratch);
        assert!(
            repo.find_commit(&name).unwrap().is_some(),
            "the ref is still there"
        );
        assert_eq!(owners().len(), 1, "its owner lock was kept");
        // Once the lock is gone, the next scratch ref's pass deletes it.
        // The owner lock is inherited by git children by design, so a git
        // another test of this process spawns at that moment holds it for
        // as long as that git runs: a pass then (rightly) leaves the ref,
        // and a later one takes it. Bounded: at most 100 passes.
        std::fs::remove_file(&lock).unwrap();
        let mut gone = false;
        for _ in 0..100 {
            let next = repo.scratch_ref("write").unwrap();
            gone = repo.find_commit(&name).unwrap().is_none();
            drop(next);
            if gone {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(gone, "no pass deleted the scratch ref");
        assert!(owners().is_empty(), "{:?}", owners());
        drop(f);
    }

    /// A git of a run killed outright (its grace spent, D-R66) may leave
    /// the lock of the run's private scratch ref. No other process ever
    /// locks that ref, and the dead owner's lock, inherited by every git
    /// the run started, proves none of them lives: the next pass removes
    /// the stale lock with the ref, where `update-ref -d` alone fails.
    #[test]
    fn a_dead_runs_scratch_ref_lock_is_removed_with_its_ref() {
        let (f, repo, head) = fixture();
        let common = repo.common_dir().to_path_buf();
        // What a run killed while its git held the scratch ref's lock
        // leaves: the ref, its lock file and its (unheld) owner lock.
        let owner = common.join(format!("{OWNER_PREFIX}incoming-dead.owner"));
        std::fs::write(&owner, b"").unwrap();
        let name = "refs/notes/probity-incoming-dead";
        repo.run(["update-ref", name, head.as_str()]).unwrap();
        let lock = common.join(format!("{name}.lock"));
        std::fs::write(&lock, b"").unwrap();
        repo.settle_scratch_notes();
        assert!(!lock.exists(), "the stale lock is left");
        assert!(repo.find_commit(name).unwrap().is_none(), "the ref is left");
        assert!(!owner.exists(), "the owner lock is left");
        drop(f);
    }

    fn fixture() -> (Fixture, Repo, CommitId) {
        // The fixture is returned so its directory lives as long as the test.
        let f = Fixture::new().unwrap();
        f.write("a", "a\n").unwrap();
        f.commit_all("a").unwrap();
        let repo = f.repo().unwrap();
        let head = repo.resolve_commit("HEAD").unwrap();
        (f, repo, head)
    }

    #[test]
    fn anchored_notes_reach_the_trees_they_name_and_keep_their_tree() {
        let (f, repo, head) = fixture();
        // A tree no commit or ref reaches (what a rebase leaves behind).
        f.write("b", "b\n").unwrap();
        f.git(&["add", "b"]).unwrap();
        let loose = String::from_utf8(f.git(&["write-tree"]).unwrap()).unwrap();
        let loose = TreeId::parse(loose.trim()).unwrap();
        let absent = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
        repo.write_notes_anchored(
            None,
            &[(head.clone(), b"n\n".to_vec())],
            &[loose.clone(), absent],
        )
        .unwrap();
        let tip = repo.notes_tip().unwrap().unwrap();
        let text = |args: &[&str]| String::from_utf8(f.git(args).unwrap()).unwrap();
        // Two parents: the notes commit, and a root whose tree lists the
        // held tree (the absent one is left out).
        let parents = text(&["rev-list", "--parents", "-n", "1", tip.as_str()]);
        assert_eq!(parents.split_whitespace().count(), 3, "{parents}");
        let keep = text(&["ls-tree", &format!("{}^2", tip)]);
        assert_eq!(keep.trim(), format!("040000 tree {loose}\t{loose}"));
        assert_eq!(
            text(&["rev-parse", &format!("{tip}^{{tree}}")]),
            text(&["rev-parse", &format!("{tip}^1^{{tree}}")])
        );
        assert_eq!(
            repo.read_note(&tip, &head, 1024).unwrap().as_deref(),
            Some(&b"n\n"[..])
        );
        // Reachable from the notes ref: what a push sends and gc keeps.
        let reach = text(&["rev-list", "--objects", "refs/notes/probity"]);
        assert!(reach.contains(loose.as_str()), "{reach}");
        // Nothing held to anchor: a plain notes commit.
        let other = TreeId::parse("2222222222222222222222222222222222222222").unwrap();
        repo.write_notes_anchored(Some(&tip), &[(head.clone(), b"m\n".to_vec())], &[other])
            .unwrap();
        let next = repo.notes_tip().unwrap().unwrap();
        let parents = text(&["rev-list", "--parents", "-n", "1", next.as_str()]);
        assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
    }

    #[test]
    fn notes_are_written_by_compare_and_swap_and_read_back_exactly() {
        let (_f, repo, head) = fixture();
        assert_eq!(repo.notes_tip().unwrap(), None);
        repo.write_notes(None, &[(head.clone(), b"{\"x\":1}\n".to_vec())])
            .unwrap();
        let tip = repo.notes_tip().unwrap().unwrap();
        assert_eq!(
            repo.read_note(&tip, &head, 1024).unwrap().as_deref(),
            Some(&b"{\"x\":1}\n"[..])
        );
        // A writer that read before this write: refused, nothing lost.
        let stale = repo.write_notes(None, &[(head.clone(), b"{\"y\":2}\n".to_vec())]);
        assert!(stale.is_err());
        assert_eq!(repo.notes_tip().unwrap(), Some(tip.clone()));
        // No scratch ref is left behind.
        let refs = repo.run(["for-each-ref", "refs/notes/"]).unwrap();
        assert_eq!(String::from_utf8_lossy(&refs).lines().count(), 1);
        // The current writer succeeds; the read is capped.
        repo.write_notes(Some(&tip), &[(head.clone(), b"{\"y\":2}\n".to_vec())])
            .unwrap();
        let tip2 = repo.notes_tip().unwrap().unwrap();
        assert_eq!(repo.read_note(&tip2, &head, 3).unwrap().unwrap().len(), 4);
        assert_eq!(repo.protected_refs().unwrap(), Vec::<String>::new());
    }

    #[test]
    fn another_commit_has_no_note_and_protected_refs_are_multi_valued() {
        let (f, repo, head) = fixture();
        repo.write_notes(None, &[(head, b"n\n".to_vec())]).unwrap();
        f.write("b", "b\n").unwrap();
        f.commit_all("b").unwrap();
        let other = repo.resolve_commit("HEAD").unwrap();
        let tip = repo.notes_tip().unwrap().unwrap();
        assert_eq!(repo.read_note(&tip, &other, 10).unwrap(), None);
        f.git(&[
            "config",
            "--add",
            "probity.protectedRefs",
            "refs/heads/main",
        ])
        .unwrap();
        f.git(&["config", "--add", "probity.protectedRefs", "refs/tags/v*"])
            .unwrap();
        assert_eq!(
            repo.protected_refs().unwrap(),
            vec!["refs/heads/main".to_string(), "refs/tags/v*".to_string()]
        );
    }

    #[test]
    fn porcelain_push_lines_parse_with_full_ids_and_flags() {
        let a = "1".repeat(40);
        let b = "2".repeat(40);
        let ff = parse_porcelain(&format!(" \trefs/heads/main:refs/heads/main\t{a}..{b}")).unwrap();
        assert_eq!(
            (ff.flag, ff.old.as_deref(), ff.new.as_deref()),
            (' ', Some(a.as_str()), Some(b.as_str()))
        );
        let forced =
            parse_porcelain(&format!("+\tHEAD:refs/heads/x\t{a}...{b} (forced update)")).unwrap();
        assert_eq!(
            (forced.from.as_str(), forced.old.as_deref()),
            ("HEAD", Some(a.as_str()))
        );
        let new = parse_porcelain("*\tHEAD~1:refs/heads/new\t[new branch]").unwrap();
        assert_eq!(
            (new.to.as_str(), new.old, new.new),
            ("refs/heads/new", None, None)
        );
        let rejected =
            parse_porcelain("!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)")
                .unwrap();
        assert_eq!(rejected.flag, '!');
        assert_eq!(
            parse_porcelain("-\t:refs/heads/gone\t[deleted]")
                .unwrap()
                .from,
            ""
        );
        // Not ref lines: git's `To <url>` and `Done`.
        assert_eq!(parse_porcelain("To ../r.git"), None);
        assert_eq!(parse_porcelain("Done"), None);
    }

    #[test]
    fn changed_notes_lists_changed_and_removed_notes_only() {
        let (f, repo, head) = fixture();
        f.write("b", "b\n").unwrap();
        f.commit_all("b").unwrap();
        let other = repo.resolve_commit("HEAD").unwrap();
        repo.write_notes(
            None,
            &[
                (head.clone(), b"1\n".to_vec()),
                (other.clone(), b"2\n".to_vec()),
            ],
        )
        .unwrap();
        let first = repo.notes_tip().unwrap().unwrap();
        // A note added elsewhere is no change of a held note.
        f.write("c", "c\n").unwrap();
        f.commit_all("c").unwrap();
        let third = repo.resolve_commit("HEAD").unwrap();
        repo.write_notes(Some(&first), &[(third, b"3\n".to_vec())])
            .unwrap();
        let second = repo.notes_tip().unwrap().unwrap();
        assert_eq!(repo.changed_notes(&first, &second).unwrap(), vec![]);
        // One changed, one removed.
        repo.write_notes(Some(&second), &[(head.clone(), b"1\n1b\n".to_vec())])
            .unwrap();
        repo.run(["notes", "--ref=probity", "remove", other.as_str()])
            .unwrap();
        let last = repo.notes_tip().unwrap().unwrap();
        let mut want = vec![head.clone(), other.clone()];
        want.sort();
        assert_eq!(repo.changed_notes(&first, &last).unwrap(), want);
        // The same blob moved to a fanned-out path: no change.
        let run = |args: &[&str], stdin: Option<&[u8]>| {
            String::from_utf8(repo.run_with(args, &[], stdin).unwrap())
                .unwrap()
                .trim()
                .to_string()
        };
        let hex = head.as_str();
        let blob = run(&["hash-object", "-w", "--stdin"], Some(b"n\n"));
        let flat = run(
            &["mktree"],
            Some(format!("100644 blob {blob}\t{hex}\n").as_bytes()),
        );
        let inner = run(
            &["mktree"],
            Some(format!("100644 blob {blob}\t{}\n", &hex[2..]).as_bytes()),
        );
        let fanned = run(
            &["mktree"],
            Some(format!("040000 tree {inner}\t{}\n", &hex[..2]).as_bytes()),
        );
        let a = CommitId::parse(run(&["commit-tree", &flat, "-m", "a"], None)).unwrap();
        let b = CommitId::parse(run(
            &["commit-tree", &fanned, "-p", a.as_str(), "-m", "b"],
            None,
        ))
        .unwrap();
        assert_eq!(repo.changed_notes(&a, &b).unwrap(), vec![]);
        let empty = run(&["mktree"], Some(b""));
        let gone = CommitId::parse(run(
            &["commit-tree", &empty, "-p", b.as_str(), "-m", "c"],
            None,
        ))
        .unwrap();
        assert_eq!(repo.changed_notes(&b, &gone).unwrap(), vec![head]);
    }

    #[test]
    fn a_fanned_out_note_is_found() {
        let (f, repo, head) = fixture();
        let hex = head.as_str();
        let run = |args: &[&str], stdin: Option<&[u8]>| {
            String::from_utf8(repo.run_with(args, &[], stdin).unwrap())
                .unwrap()
                .trim()
                .to_string()
        };
        let blob = run(&["hash-object", "-w", "--stdin"], Some(b"fanned\n"));
        let inner = run(
            &["mktree"],
            Some(format!("100644 blob {blob}\t{}\n", &hex[2..]).as_bytes()),
        );
        let outer = run(
            &["mktree"],
            Some(format!("040000 tree {inner}\t{}\n", &hex[..2]).as_bytes()),
        );
        let commit = run(&["commit-tree", &outer, "-m", "notes"], None);
        let _keep = &f;
        let notes = CommitId::parse(commit).unwrap();
        assert_eq!(
            repo.read_note(&notes, &head, 100).unwrap().as_deref(),
            Some(&b"fanned\n"[..])
        );
    }
}
