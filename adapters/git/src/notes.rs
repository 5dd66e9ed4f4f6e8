//! Review bundles as Git notes under `refs/notes/probity` (R11), and the
//! plumbing the transport commands need: reading a note from any notes
//! commit (even one still in a push's quarantine), writing notes with a
//! compare-and-swap of the ref, merging another clone's notes, and
//! measuring what a notes update brings. The push itself is
//! [`crate::push`].
//!
//! Argument arrays only; object ids are validated hex before they reach an
//! argument; remote names and refspecs go after `--`.

use std::ffi::OsString;

use probity_core::review::{AddedNoteFile, NOTES_REF, NotesHistory, note_path_commit, note_paths};
use probity_core::review::{CommitId, TreeId};
use probity_ports::review::{AdapterError, NotesGit};

use crate::cmd::GitError;
use crate::note_trees::NoteTrees;
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
    ///
    /// The ref itself, read by its full name ([`Repo::exact_commit`], over
    /// [`Repo::exact_ref`]): not a branch or tag spelled
    /// `refs/notes/probity` that git's lookup rules would take for it when
    /// it does not exist, and without a `rev-parse` of its own (issue 24:
    /// `probity push` resolved it four times). Peeled by the object reader
    /// ([`crate::objects`]); a ref naming no commit is no tip.
    pub fn notes_tip(&self) -> Result<Option<CommitId>, GitError> {
        self.exact_commit(NOTES_REF)
    }

    /// The note of `commit` in the notes commit `notes`, as git reads it:
    /// the fan-out paths are asked of the object reader
    /// ([`crate::objects`], one batch),
    /// and every blob found is read, in path order, one after the other
    /// (a line break between), up to `cap + 1` bytes in all. A notes tree
    /// may hold one commit's note at two fan-out paths (`abcd…` and
    /// `ab/cd…`, built by hand): git concatenates them, and so does this, so
    /// a blob at one path never hides the lines of another from a gate.
    pub fn read_note(
        &self,
        notes: &CommitId,
        commit: &CommitId,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        let mut note: Option<Vec<u8>> = None;
        // Every fan-out path in one round trip of the reader.
        let specs: Vec<String> = note_paths(commit)
            .iter()
            .map(|p| format!("{notes}:{p}"))
            .collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        for info in self.objects_info(&specs)? {
            let Some(info) = info else {
                continue;
            };
            if info.kind != "blob" {
                continue;
            }
            let bytes = note.get_or_insert_with(Vec::new);
            if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            let room = (cap + 1).saturating_sub(bytes.len());
            if room == 0 {
                break;
            }
            if let Some((_, blob, _)) = self.object_head(&info.oid, room)? {
                bytes.extend_from_slice(&blob);
            }
        }
        Ok(note)
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
        let mut seen: Vec<std::collections::BTreeSet<CommitId>> =
            vec![std::collections::BTreeSet::new(); needles.len()];
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
                // Each commit once per needle, looked up in a set: a flood
                // of names is read in linear time, not quadratic.
                if n.as_bytes() == matched && found[i].len() < cap && seen[i].insert(c.clone()) {
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
        let names: Vec<&str> = trees.iter().map(TreeId::as_str).collect();
        let out = self.object_kinds(&names)?;
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
        Ok(self
            .settings()?
            .get_all("probity.protectedRefs")
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect())
    }

    /// Fetches `remote`'s `refs/notes/probity` and merges it into the local
    /// one with `cat_sort_uniq` (exact for the one-bundle-per-line layout).
    /// A remote without the ref leaves the local notes as they are.
    /// Returns whether anything was merged.
    ///
    /// `progress` asks git for its progress meter (`--progress`, shown even
    /// on a pipe), copied to `stderr` as it arrives, as
    /// [`Self::push_atomic`] does; the fetch stays `--quiet` otherwise (no
    /// ref-update lines, no scratch ref named), and git's `fatal:` lines
    /// are held back: a remote without notes is an ordinary answer, and any
    /// other failure is returned with git's text.
    pub fn merge_remote_notes(
        &self,
        remote: &str,
        progress: bool,
        stderr: &mut (dyn std::io::Write + Send),
    ) -> Result<bool, GitError> {
        let incoming = self.scratch_ref("incoming")?;
        let spec = format!("+{NOTES_REF}:{}", incoming.name);
        let mut args: Vec<OsString> = [
            "fetch",
            "--quiet",
            "--no-tags",
            // The user's FETCH_HEAD is theirs, and no maintenance may pack
            // refs (the scratch ref among them) behind this run.
            "--no-write-fetch-head",
            "--no-auto-maintenance",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        if progress {
            // With `--quiet`: the meter alone.
            args.push("--progress".into());
        }
        args.extend(["--", remote, spec.as_str()].iter().map(OsString::from));
        // Talks to the remote: with the user's transport settings.
        let out = if progress {
            let mut shown = HoldBackFatal::new(stderr);
            let out = self
                .transport_git()
                .output_streaming(self.root(), &args, &[], &mut shown)?;
            shown.finish();
            out
        } else {
            self.transport_git().output(self.root(), &args, &[], None)?
        };
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

    /// The annotated commits whose note may differ between the notes
    /// commits `old` and `new`, sorted: `git diff-tree -r` of the two lists
    /// only the paths that differ, a fan-out path is read as the commit it
    /// names (its slashes dropped), and a note that only moved between
    /// fan-out levels with the same blob is no change. A path added for a
    /// commit whose note `old` holds at another path, one that did not
    /// change, is a change: git reads every path's blob as the note
    /// ([`Repo::read_note`]), so the added blob changes the note as a
    /// reader sees it; only a note `old` holds at no path is new. Paths
    /// that name no commit (a notes tree may hold other files) are ignored.
    pub fn changed_notes(&self, old: &CommitId, new: &CommitId) -> Result<Vec<CommitId>, GitError> {
        use std::collections::BTreeMap;
        // commit -> (its blobs at the paths that differ in old, in new)
        let mut blobs: BTreeMap<CommitId, (Vec<String>, Vec<String>)> = BTreeMap::new();
        for (path, before, after, _) in self.note_tree_changes(old, new)? {
            // A path that names no commit is no note (the notes tree may
            // hold other files).
            let Ok(commit) = CommitId::parse(path.replace('/', "")) else {
                continue;
            };
            let e = blobs.entry(commit).or_default();
            e.0.extend(before);
            e.1.extend(after);
        }
        let mut changed = Vec::new();
        // Commits whose note only gained paths: changed when `old` holds a
        // blob at one of their paths that did not change, looked up in the
        // trees read once each (D-R144).
        let mut added = Vec::new();
        for (c, (mut before, mut after)) in blobs {
            before.sort();
            after.sort();
            if before == after {
                continue;
            }
            if before.is_empty() {
                added.push(c);
            } else {
                changed.push(c);
            }
        }
        if !added.is_empty() {
            let mut trees = NoteTrees::new(self);
            let mut held = Vec::new();
            for c in &added {
                held.push(trees.note_entries(old, c)?);
            }
            let kinds = self.blob_sizes(held.iter().flatten().map(|(_, oid)| oid.as_str()))?;
            for (c, entries) in added.into_iter().zip(&held) {
                if entries
                    .iter()
                    .any(|(_, oid)| kinds.get(oid.as_str()).is_some_and(|k| k.0))
                {
                    changed.push(c);
                }
            }
            changed.sort();
        }
        Ok(changed)
    }

    /// Whether each of `ids` is a blob, and its size, from one batch of
    /// the object reader: absent from the map when git holds no such
    /// object.
    fn blob_sizes<'a>(
        &self,
        ids: impl Iterator<Item = &'a str>,
    ) -> Result<std::collections::BTreeMap<String, (bool, u64)>, GitError> {
        let mut ids: Vec<&str> = ids.collect();
        ids.sort_unstable();
        ids.dedup();
        let infos = self.objects_info(&ids)?;
        Ok(ids
            .into_iter()
            .zip(infos)
            .filter_map(|(id, info)| info.map(|i| (id.to_owned(), (i.kind == "blob", i.size))))
            .collect())
    }

    /// See [`NotesGit::added_note_files`]: one `diff-tree -r` from `old`
    /// (one `ls-tree -r -l` of `new` when `None`: every file is added), the
    /// sizes and each added note's other fan-out paths (in `new`, and its
    /// blobs in `old`) from the object reader already running.
    pub fn added_note_files(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
    ) -> Result<Vec<AddedNoteFile>, GitError> {
        let mut out = Vec::new();
        match old {
            None => {
                let listed = self.run(["ls-tree", "-r", "-l", "--full-tree", new.as_str()])?;
                let mut files = Vec::new();
                for line in String::from_utf8_lossy(&listed).lines() {
                    // `<mode> <type> <oid> <size padded>\t<path>`
                    let Some((meta, path)) = line.split_once('\t') else {
                        continue;
                    };
                    // Anything but a blob (a gitlink, sized `-`) is no note,
                    // and over every bound, so the rule refuses it by name.
                    let fields: Vec<&str> = meta.split_ascii_whitespace().collect();
                    let size = match fields[..] {
                        [mode, "blob", _, size] if mode.starts_with("100") => {
                            size.parse::<u64>().unwrap_or(u64::MAX)
                        }
                        _ => u64::MAX,
                    };
                    files.push((path.to_owned(), size));
                }
                // Every file is new; a commit's other paths are in the list,
                // found through one map by commit (comparing every pair was
                // quadratic: 200,000 notes on a new notes ref, D-R144).
                let mut by_commit: std::collections::BTreeMap<String, Vec<&str>> =
                    std::collections::BTreeMap::new();
                for (path, _) in &files {
                    if let Some(c) = note_path_commit(path) {
                        by_commit.entry(c).or_default().push(path);
                    }
                }
                for (path, size) in &files {
                    let other_paths = note_path_commit(path)
                        .and_then(|c| by_commit.get(&c))
                        .map(|paths| {
                            paths
                                .iter()
                                .filter(|p| **p != path.as_str())
                                .map(|p| (*p).to_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    out.push(AddedNoteFile {
                        path: path.clone(),
                        size: *size,
                        added_bytes: *size,
                        other_paths,
                    });
                }
            }
            Some(old) => {
                let changes = self.note_tree_changes(old, new)?;
                // Every added note's paths in both trees, looked up in trees
                // read once each (D-R144: a push of 200,000 notes asked git
                // 2.6 million paths), then every blob's size in one batch.
                let mut trees = NoteTrees::new(self);
                let mut paths: Vec<NoteEntries> = Vec::new();
                for (path, before, after, _) in &changes {
                    if let (None, Some(_), Some(commit)) = (before, after, note_commit(path)) {
                        paths.push((
                            trees.note_entries(old, &commit)?,
                            trees.note_entries(new, &commit)?,
                        ));
                    }
                }
                let ids = changes
                    .iter()
                    .flat_map(|(_, b, a, _)| b.iter().chain(a))
                    .map(String::as_str)
                    .chain(
                        paths
                            .iter()
                            .flat_map(|(b, a)| b.iter().chain(a))
                            .map(|e| e.1.as_str()),
                    );
                let sizes = self.blob_sizes(ids)?;
                let size_of = |oid: &str| sizes.get(oid).map_or(u64::MAX, blob_size);
                let mut paths = paths.into_iter();
                for (path, before, after, odd) in changes {
                    if odd {
                        // No note as git reads one (a symbolic link, a
                        // gitlink): over every bound, refused by name.
                        out.push(AddedNoteFile {
                            path,
                            size: u64::MAX,
                            added_bytes: u64::MAX,
                            other_paths: Vec::new(),
                        });
                        continue;
                    }
                    let Some(after) = after else {
                        continue;
                    };
                    // Anything but a blob here (a gitlink's commit, an
                    // object the push did not bring) is no note: over
                    // every bound, so the rule refuses it by name.
                    let size = size_of(&after);
                    match before {
                        None => {
                            let at = match note_commit(&path) {
                                Some(_) => paths.next(),
                                None => None,
                            };
                            out.push(added_note(path, size, at, &sizes));
                        }
                        // A note changed in place adds what it grew by.
                        Some(before) => {
                            let held = sizes.get(before.as_str()).map_or(0, |k| k.1);
                            out.push(AddedNoteFile {
                                path,
                                size,
                                added_bytes: size.saturating_sub(held),
                                other_paths: Vec::new(),
                            });
                        }
                    }
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// A commit's note paths with their objects (path, id) in the old notes
/// tree and in the new.
type NoteEntries = (Vec<(String, String)>, Vec<(String, String)>);

/// A size as the notes' rules read it: anything but a blob is over every
/// bound.
fn blob_size(kind: &(bool, u64)) -> u64 {
    if kind.0 { kind.1 } else { u64::MAX }
}

/// The commit a note path names, when it names one.
fn note_commit(path: &str) -> Option<CommitId> {
    note_path_commit(path).and_then(|c| CommitId::parse(c).ok())
}

/// The file `path` (`size` bytes) a notes commit holds where the old one
/// holds none: what it adds to the note of the commit it names, and that
/// note's other paths in the new tree. `entries` are that commit's note
/// paths with their objects in the old tree and in the new (`None`: the
/// path names no commit); `sizes` says which objects are blobs git holds
/// and their sizes (an object git does not hold is at no path, as git's
/// own lookup answers). A note whose blobs the old tree held at other
/// paths only moved (git re-fans the trees it writes): it adds nothing.
/// Otherwise it adds what the note grew by.
fn added_note(
    path: String,
    size: u64,
    entries: Option<NoteEntries>,
    sizes: &std::collections::BTreeMap<String, (bool, u64)>,
) -> AddedNoteFile {
    let Some((old, new)) = entries else {
        return AddedNoteFile {
            path,
            size,
            added_bytes: size,
            other_paths: Vec::new(),
        };
    };
    // The commit's note blobs (id, size, path) in a notes tree.
    let blobs = |found: Vec<(String, String)>| -> Vec<(String, u64, String)> {
        let mut found: Vec<(String, u64, String)> = found
            .into_iter()
            .filter_map(|(p, oid)| sizes.get(oid.as_str()).map(|k| (oid, blob_size(k), p)))
            .collect();
        found.sort();
        found
    };
    let (before, after) = (blobs(old), blobs(new));
    let ids = |v: &[(String, u64, String)]| v.iter().map(|b| b.0.clone()).collect::<Vec<_>>();
    let total = |v: &[(String, u64, String)]| v.iter().fold(0u64, |t, b| t.saturating_add(b.1));
    let added_bytes = if ids(&before) == ids(&after) {
        0
    } else {
        total(&after).saturating_sub(total(&before))
    };
    let other_paths = after
        .into_iter()
        .map(|b| b.2)
        .filter(|p| *p != path)
        .collect();
    AddedNoteFile {
        path,
        size,
        added_bytes,
        other_paths,
    }
}

/// Copies git's stderr to a writer one segment at a time (a segment ends
/// at `\r`, which redraws a progress line, or at `\n`), except the
/// segments starting `fatal: `: those are git's failure, which the caller
/// reports itself (or, for a missing remote ref, is no failure at all).
struct HoldBackFatal<'a> {
    out: &'a mut (dyn std::io::Write + Send),
    pending: Vec<u8>,
}

impl<'a> HoldBackFatal<'a> {
    fn new(out: &'a mut (dyn std::io::Write + Send)) -> Self {
        Self {
            out,
            pending: Vec::new(),
        }
    }

    /// Shows one whole segment unless it is a `fatal:` line.
    fn segment(&mut self, seg: &[u8]) {
        if !seg.starts_with(b"fatal: ") {
            // The user's terminal going away does not stop the fetch.
            let _ = self.out.write_all(seg);
            let _ = self.out.flush();
        }
    }

    /// Shows what is left after git ended (a last unterminated segment).
    fn finish(mut self) {
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.segment(&rest);
        }
    }
}

impl std::io::Write for HoldBackFatal<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            self.pending.push(b);
            if b == b'\n' || b == b'\r' {
                let seg = std::mem::take(&mut self.pending);
                self.segment(&seg);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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

    fn added_note_files(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
    ) -> Result<Vec<AddedNoteFile>, AdapterError> {
        Ok(Repo::added_note_files(self, old, new)?)
    }

    fn notes_history(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
        holds: probity_ports::review::NotesHolds<'_>,
    ) -> Result<NotesHistory, AdapterError> {
        let (every_ref, tips) = match holds {
            probity_ports::review::NotesHolds::EveryRef(t) => (true, t),
            probity_ports::review::NotesHolds::Only(t) => (false, t),
        };
        Ok(Repo::notes_history(self, old, new, every_ref, tips)?)
    }

    fn own_tips(&self) -> Result<Vec<(String, CommitId)>, AdapterError> {
        Ok(Repo::own_tips(self)?)
    }

    fn left_to_notes(
        &self,
        notes: &CommitId,
        dropped: &[CommitId],
        updated: &[(&str, Option<&CommitId>)],
    ) -> Result<u64, AdapterError> {
        Ok(Repo::left_to_notes(self, notes, dropped, updated)?)
    }
}

#[cfg(test)]
#[path = "notes_tests.rs"]
mod tests;
