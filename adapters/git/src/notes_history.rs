//! What a push brings the notes ref besides its notes tree, measured for
//! the server's notes rules: the history a notes update brings (D-R126,
//! D-R138, D-R140) and what a push's ref updates leave only the notes
//! holding (D-R136).

use probity_core::review::{
    CommitId, MAX_NOTES_HISTORY_FILES, MAX_NOTES_UPDATE_COMMITS, NOTES_REF, NotesHistory,
    moved_notes, notes_listing_base,
};

use crate::cmd::GitError;
use crate::repo::Repo;

/// The most bytes of `diff-tree --raw` listing [`Repo::notes_history`]
/// reads: room for [`MAX_NOTES_HISTORY_FILES`] lines of a 40-hex note path
/// many times over; past it the listing is over its bound, unread.
const MAX_HISTORY_LISTING: usize = 64 * 1024 * 1024;

impl Repo {
    /// See [`NotesGit::notes_history`](probity_ports::review::NotesGit::notes_history): one `rev-list --parents` of the
    /// commits, one `diff-tree --stdin --root -r` of each against the
    /// parent core names ([`notes_listing_base`]: one the server holds, when
    /// there is one, else its first; a commit the listing does not bring is
    /// one `old` reaches) (a root against the empty tree; read up to
    /// 64 MiB, the files counted, D-R138), one
    /// `rev-list --objects --disk-usage` of what only they reach; a root
    /// commit's tree and the distinct blobs' sizes (one batch) from the
    /// object reader. Probity's anchor commit (a root whose
    /// tree lists trees each named by its own id,
    /// [`Repo::write_notes_anchored`]) adds no file: what it keeps is
    /// measured by the bytes stored.
    ///
    /// What is stored is measured against `holds` (each a commit; anything
    /// else, a tag object included, is skipped: the driver peels them), and every ref here too when `every_ref`
    /// (a CI form); at the hook the protected history alone (D-R147).
    pub fn notes_history(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
        every_ref: bool,
        holds: &[CommitId],
    ) -> Result<NotesHistory, GitError> {
        let mut listing: Vec<String> = vec!["rev-list".into(), "--parents".into()];
        listing.push(format!("--max-count={}", MAX_NOTES_UPDATE_COMMITS + 1));
        listing.push(new.to_string());
        listing.extend(old.map(|o| format!("^{o}")));
        let listed = self.run(&listing)?;
        let mut history = NotesHistory::default();
        // Each brought commit and its parents, in git's order.
        let mut commits: Vec<(&str, Vec<CommitId>)> = Vec::new();
        let listed = String::from_utf8_lossy(&listed);
        for line in listed.lines() {
            history.commits += 1;
            let mut ids = line.split(' ');
            let Some(commit) = ids.next() else {
                continue;
            };
            let parents = ids.filter_map(|p| CommitId::parse(p).ok()).collect();
            commits.push((commit, parents));
        }
        if history.commits > MAX_NOTES_UPDATE_COMMITS {
            return Ok(history);
        }
        let brought: std::collections::BTreeSet<CommitId> = commits
            .iter()
            .filter_map(|(c, _)| CommitId::parse(*c).ok())
            .collect();
        // `<commit> <parent>` lines (the parent core names: one the server
        // holds when there is one, D-R144), and root commits (against the
        // empty tree, `--root`), to diff in one process.
        let mut input = String::new();
        // Whether a root's tree is an anchor, asked once per tree: roots
        // may share one (red team round 5: 2,000 roots sharing one anchor
        // tree were each read and parsed again).
        let mut anchors: std::collections::BTreeMap<String, bool> =
            std::collections::BTreeMap::new();
        for (commit, parents) in &commits {
            if let Some(parent) = notes_listing_base(parents, old, &brought) {
                input.push_str(&format!("{commit} {parent}\n"));
                continue;
            }
            let anchor = match self.object_info(&format!("{commit}^{{tree}}"))? {
                Some(tree) => match anchors.get(&tree.oid) {
                    Some(known) => *known,
                    None => {
                        let known = self.is_anchor_tree(&tree.oid)?;
                        anchors.insert(tree.oid, known);
                        known
                    }
                },
                None => false,
            };
            if !anchor {
                input.push_str(&format!("{commit}\n"));
            }
        }
        if !input.is_empty() {
            let args = [
                "diff-tree",
                "--stdin",
                "--root",
                "-r",
                "--no-renames",
                "--raw",
                "--no-abbrev",
            ];
            // The listing an adversary can make long (an alternating
            // history lists every file again for each commit) is read up
            // to a byte bound and counted; the sizes of the distinct blobs
            // are asked in one batch of the object reader.
            let Some(out) = self.run_capped(&args, Some(input.as_bytes()), MAX_HISTORY_LISTING)?
            else {
                history.files_listed = usize::MAX;
                return Ok(history);
            };
            let mut listed: Vec<(CommitId, String, String)> = Vec::new();
            // One commit's diff at a time: the files it lists (path,
            // blob) and those it drops, so a note that only moved between
            // fan-out levels is not counted (D-R144, core's `moved_notes`).
            let mut commit: Option<CommitId> = None;
            let (mut added, mut removed) = (Vec::new(), Vec::new());
            let mut flush = |commit: &Option<CommitId>,
                             added: &mut Vec<(String, String)>,
                             removed: &mut Vec<(String, String)>,
                             history: &mut NotesHistory| {
                let moved = moved_notes(added, removed);
                removed.clear();
                for ((path, blob), moved) in added.drain(..).zip(moved) {
                    let Some(c) = commit.as_ref().filter(|_| !moved) else {
                        continue;
                    };
                    history.files_listed += 1;
                    if history.files_listed > MAX_NOTES_HISTORY_FILES {
                        return false;
                    }
                    listed.push((c.clone(), path, blob));
                }
                true
            };
            for line in String::from_utf8_lossy(&out).lines() {
                let Some(raw) = line.strip_prefix(':') else {
                    // The commit (and parent) a diff is of.
                    if !flush(&commit, &mut added, &mut removed, &mut history) {
                        return Ok(history);
                    }
                    commit = line.split(' ').next().and_then(|c| CommitId::parse(c).ok());
                    continue;
                };
                let Some((meta, path)) = raw.split_once('\t') else {
                    continue;
                };
                let fields: Vec<&str> = meta.split(' ').collect();
                let [_, _, before, after, _] = fields[..] else {
                    continue;
                };
                let zero = |id: &str| id.bytes().all(|b| b == b'0');
                if zero(after) {
                    if !zero(before) {
                        removed.push((path.to_owned(), before.to_owned()));
                    }
                    continue;
                }
                added.push((path.to_owned(), after.to_owned()));
            }
            if !flush(&commit, &mut added, &mut removed, &mut history) {
                return Ok(history);
            }
            let mut blobs: Vec<&str> = listed.iter().map(|(_, _, b)| b.as_str()).collect();
            blobs.sort_unstable();
            blobs.dedup();
            let sizes: std::collections::BTreeMap<&str, u64> = blobs
                .iter()
                .copied()
                .zip(self.objects_info(&blobs)?)
                .map(|(id, info)| match info {
                    Some(i) if i.kind == "blob" => (id, i.size),
                    _ => (id, u64::MAX),
                })
                .collect();
            for (c, path, after) in &listed {
                let size = sizes.get(after.as_str()).copied().unwrap_or(u64::MAX);
                history.files.push((c.clone(), path.clone(), size));
            }
        }
        // What only these commits reach: nothing the holds (and, in a CI
        // form, every ref here) already reach. The revisions go on stdin:
        // a server may have many protected refs.
        let mut usage: Vec<&str> = vec!["rev-list", "--objects", "--disk-usage"];
        if every_ref {
            // Negative: `--not` applies to the arguments after it, the
            // stdin lines are read on their own (`^` marks theirs).
            usage.extend(["--not", "--all"]);
        }
        usage.push("--stdin");
        let mut input = format!("{new}\n");
        input.extend(old.map(|o| format!("^{o}\n")));
        let ids: Vec<&str> = holds.iter().map(CommitId::as_str).collect();
        for (k, info) in holds.iter().zip(self.objects_info(&ids)?) {
            if info.is_some_and(|i| i.kind == "commit") {
                input.push_str(&format!("^{k}\n"));
            }
        }
        let bytes = self.run_with(&usage, &[], Some(input.as_bytes()))?;
        history.stored_bytes = String::from_utf8_lossy(&bytes)
            .trim()
            .parse()
            .unwrap_or(u64::MAX);
        Ok(history)
    }

    /// See [`NotesGit::left_to_notes`](probity_ports::review::NotesGit::left_to_notes): one `for-each-ref` for the refs
    /// the push leaves as they are, then two `rev-list --objects
    /// --disk-usage --stdin` of what `dropped` reach that no ref after the
    /// push reaches, without and with `notes` among the holds: the
    /// difference is what only the notes would hold.
    pub fn left_to_notes(
        &self,
        notes: &CommitId,
        dropped: &[CommitId],
        updated: &[(&str, Option<&CommitId>)],
    ) -> Result<u64, GitError> {
        if dropped.is_empty() {
            return Ok(0);
        }
        let listed = self.run(["for-each-ref", "--format=%(objectname) %(refname)"])?;
        let mut held: Vec<String> = String::from_utf8_lossy(&listed)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(_, name)| *name != NOTES_REF && !updated.iter().any(|(u, _)| u == name))
            .map(|(oid, _)| oid.to_owned())
            .collect();
        held.extend(
            updated
                .iter()
                .filter(|(name, _)| *name != NOTES_REF)
                .filter_map(|(_, new)| new.map(|c| c.to_string())),
        );
        let usage = |with_notes: bool| -> Result<u64, GitError> {
            let mut input = String::new();
            for d in dropped {
                input.push_str(&format!("{d}\n"));
            }
            for h in held
                .iter()
                .map(String::as_str)
                .chain(with_notes.then_some(notes.as_str()))
            {
                input.push_str(&format!("^{h}\n"));
            }
            let args = ["rev-list", "--objects", "--disk-usage", "--stdin"];
            let out = self.run_with(args, &[], Some(input.as_bytes()))?;
            Ok(String::from_utf8_lossy(&out)
                .trim()
                .parse()
                .unwrap_or(u64::MAX))
        };
        let unheld = usage(false)?;
        if unheld == 0 {
            return Ok(0);
        }
        Ok(unheld.saturating_sub(usage(true)?))
    }

    /// Whether `tree` is Probity's anchor's (a root commit's tree that
    /// lists only trees, each named by its own id).
    fn is_anchor_tree(&self, tree: &str) -> Result<bool, GitError> {
        const CAP: usize = 1 << 20;
        let Some((info, body, whole)) = self.object_head(tree, CAP)? else {
            return Ok(false);
        };
        if info.kind != "tree" || !whole || body.is_empty() {
            return Ok(false);
        }
        let id_len = (info.oid.len() / 2).max(20);
        let mut rest = body.as_slice();
        while !rest.is_empty() {
            let Some(nul) = rest.iter().position(|b| *b == 0) else {
                return Ok(false);
            };
            let (head, tail) = rest.split_at(nul);
            let Some(id) = tail.get(1..1 + id_len) else {
                return Ok(false);
            };
            // `40000 <the id in lowercase hex>`, compared without a copy.
            let Some(name) = head.strip_prefix(b"40000 ") else {
                return Ok(false);
            };
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let named = name.len() == id.len() * 2
                && id
                    .iter()
                    .zip(name.chunks(2))
                    .all(|(b, pair)| pair == [HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            if !named {
                return Ok(false);
            }
            rest = &tail[1 + id_len..];
        }
        Ok(true)
    }
}
