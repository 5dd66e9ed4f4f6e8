//! The server-side gate's own rules (R11): git's `pre-receive` input,
//! which refs are protected, and the append-only rule of the notes ref that
//! carries review bundles. Delivery judgment itself is the pre-push gate's
//! ([`crate::review::gate`]), run against authority imported from the
//! pushed notes.

use serde::Serialize;

use crate::review::bundle::{MAX_NOTE_BYTES, note_lines};
pub(crate) use crate::review::gate::REVIEW_OBJECTS_PREFIX;
use crate::review::gate::RefUpdate;
#[cfg(test)]
use crate::review::gate::glob_matches;
pub(crate) use crate::review::gate::{NOTES_REF, is_protected};
use crate::review::ids::CommitId;

/// The most lines a `pre-receive` input may hold.
pub const MAX_RECEIVE_LINES: usize = 10_000;

/// The most bytes a `pre-receive` input may hold.
pub const MAX_RECEIVE_BYTES: usize = 4 * 1024 * 1024;

/// What the repository's default branch (its own `HEAD`, read exactly)
/// offers a policy read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultBranch {
    /// `HEAD` names a commit whose tree holds the repository policy.
    Governed(CommitId),
    /// `HEAD` names no commit (an unborn `HEAD`: a bare repository made
    /// with git's default `master` while the team pushes `main`, or a
    /// default branch deleted where that is allowed), or a commit without a
    /// policy. The latter is what anyone with push access makes of the
    /// former: create `master` at a commit from before the policy (the
    /// creation delivers nothing) and `HEAD` names a commit without one
    /// (red team round 2).
    Ungoverned,
}

/// The repository's default branch at a server hook (D-R58, D-R177):
/// `HEAD`'s commit (`head`, with whether it holds the repository policy)
/// when `HEAD` names a protected ref (`target`); else ungoverned. An
/// unborn `HEAD`, one naming a branch `globs` do not protect (anyone
/// may move it, and put any policy there), or a commit without a
/// policy governs nothing (red team round 38's 38hw, 38hv, 38hu).
pub fn default_branch(
    head: Option<(CommitId, bool)>,
    target: Option<&str>,
    globs: &[String],
) -> DefaultBranch {
    match (head, target) {
        (Some((h, true)), Some(t)) if is_protected(globs, t) => DefaultBranch::Governed(h),
        _ => DefaultBranch::Ungoverned,
    }
}

/// The commits a protected ref's creation reads the repository policy
/// from (D-R58): the default branch's tip when it holds a policy; else
/// every protected ref's tip the repository holds (`tips`: ref name and
/// peeled commit), each of whose policies then applies, so a creation
/// escapes the policy only in a repository with no protected history
/// holding one.
pub fn new_ref_policy_bases(
    head: DefaultBranch,
    tips: &[(String, CommitId)],
    globs: &[String],
) -> Vec<CommitId> {
    if let DefaultBranch::Governed(h) = head {
        return vec![h];
    }
    let mut bases: Vec<CommitId> = Vec::new();
    for (name, c) in tips {
        if is_protected(globs, name) && !bases.contains(c) {
            bases.push(c.clone());
        }
    }
    bases
}

/// The commits an update of a protected ref reads the repository policy
/// from: the ref's own old tip (none for a creation), and always the
/// default branch's bases (`default_branch`, from
/// [`new_ref_policy_bases`]), each of whose policies applies. A protected
/// ref made at a commit from before the policy, or one whose policy was
/// weakened there, is still judged under the default branch's policy: a
/// ref's creation delivers nothing, so its tip alone must never decide the
/// rules of every push to it after (red team, finding 1).
pub fn protected_update_policy_bases(
    old: Option<&CommitId>,
    default_branch: &[CommitId],
) -> Vec<CommitId> {
    let mut bases: Vec<CommitId> = old.into_iter().cloned().collect();
    for b in default_branch {
        if !bases.contains(b) {
            bases.push(b.clone());
        }
    }
    bases
}

/// One line of git's `pre-receive` input: `<old> <new> <ref>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveUpdate {
    /// `None` when the ref is being created (git writes zeros).
    pub old: Option<CommitId>,
    /// `None` when the ref is being deleted (with `old` `None` too: a ref
    /// the repository did not have).
    pub new: Option<CommitId>,
    /// The full ref name, starting `refs/`, without `..`.
    pub refname: String,
}

impl ReceiveUpdate {
    /// The same update as a pre-push hook line (the server's ref is both
    /// the local and the remote ref), so the pre-push judgment applies.
    pub fn as_push(&self) -> RefUpdate {
        RefUpdate {
            local_ref: self.refname.clone(),
            local_oid: self.new.clone(),
            remote_ref: self.refname.clone(),
            remote_oid: self.old.clone(),
        }
    }
}

/// A malformed `pre-receive` input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiveInputError {
    /// The input is over [`MAX_RECEIVE_BYTES`] bytes or holds more than
    /// [`MAX_RECEIVE_LINES`] updates.
    #[error("the pre-receive input is over {limit} bytes or lines")]
    TooLarge {
        /// The bound that was passed: the byte or the line limit.
        limit: usize,
    },
    /// A line that is not exactly three space-separated fields, or whose
    /// ref does not start `refs/`, contains `..` or holds an ASCII control
    /// character. (Old and new both zeros
    /// is git's deletion of a ref the repository does not have: an update
    /// that withdraws nothing, issue 26 §4.)
    #[error("line {line} of the pre-receive input is not `<old> <new> <ref>`")]
    Fields {
        /// The line's 1-based number.
        line: usize,
    },
    /// A ref named by an earlier line too (red team round 10): git's own
    /// client never sends one, and git applies the two updates one after
    /// the other unless the push is atomic, so the second would escape
    /// what the first was judged by (the notes ref deleted after a
    /// delivery judged with it).
    #[error("line {line} updates {refname} again: a push may update each ref once")]
    RepeatedRef {
        /// The line's 1-based number.
        line: usize,
        /// The ref named twice.
        refname: String,
    },
    /// An old or new field that is neither all zeros nor a 40- or 64-hex
    /// object id.
    #[error("line {line}: `{value}` is not an object id")]
    ObjectId {
        /// The line's 1-based number.
        line: usize,
        /// The refused field.
        value: String,
    },
}

fn oid(line: usize, value: &str) -> Result<Option<CommitId>, ReceiveInputError> {
    crate::review::gate::hook_oid(value).map_err(|()| ReceiveInputError::ObjectId {
        line,
        value: value.to_string(),
    })
}

/// Parses git's `pre-receive` stdin (blank lines ignored). A ref name never
/// holds a space, so each line is exactly three fields; a ref named twice
/// is refused ([`ReceiveInputError::RepeatedRef`]).
pub fn parse_receive_updates(input: &str) -> Result<Vec<ReceiveUpdate>, ReceiveInputError> {
    if input.len() > MAX_RECEIVE_BYTES {
        return Err(ReceiveInputError::TooLarge {
            limit: MAX_RECEIVE_BYTES,
        });
    }
    let mut out = Vec::new();
    let mut named = std::collections::BTreeSet::new();
    for (line, raw) in crate::review::gate::hook_lines(input) {
        let fields: Vec<&str> = raw.split(' ').collect();
        let [old, new, refname] = fields[..] else {
            return Err(ReceiveInputError::Fields { line });
        };
        if !named.insert(refname) {
            return Err(ReceiveInputError::RepeatedRef {
                line,
                refname: refname.to_string(),
            });
        }
        // Git never writes a ref name holding an ASCII control character
        // (`git check-ref-format`); one that does would name a ref no
        // protected-ref glob matches.
        if !refname.starts_with("refs/")
            || refname.contains("..")
            || refname.bytes().any(|b| b.is_ascii_control())
        {
            return Err(ReceiveInputError::Fields { line });
        }
        let (old, new) = (oid(line, old)?, oid(line, new)?);
        out.push(ReceiveUpdate {
            old,
            new,
            refname: refname.to_string(),
        });
        if out.len() > MAX_RECEIVE_LINES {
            return Err(ReceiveInputError::TooLarge {
                limit: MAX_RECEIVE_LINES,
            });
        }
    }
    Ok(out)
}

/// Why an update of the notes ref is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum NotesRefDenial {
    /// The push deletes the notes ref (`notes_ref_deleted`).
    #[error("refs/notes/probity may not be deleted: review authority is append-only")]
    NotesRefDeleted,
    /// The push moves the notes ref to a commit that does not descend from
    /// its old tip (`notes_ref_rewritten`).
    #[error(
        "refs/notes/probity may only fast-forward: this update drops review authority the server holds"
    )]
    NotesRefRewritten,
    /// The push drops a note the server holds, or a line of one
    /// (`notes_line_removed`): the notes ref only grows, line by line.
    #[error(
        "refs/notes/probity may only grow: this update drops a note, or a line of a note, that the server holds"
    )]
    NotesLineRemoved,
    /// A note of the update, before or after it, is over
    /// [`MAX_NOTE_BYTES`] (`input_too_large`): no gate could read it, and
    /// what it keeps cannot be checked.
    #[error("a note of this update is over {MAX_NOTE_BYTES} bytes: no gate could read it")]
    NoteTooLarge,
    /// The notes this update adds are over [`MAX_ADDED_NOTES_BYTES`] in
    /// all (`input_too_large`): the notes ref only grows, so what a push
    /// adds is stored for good.
    #[error("the notes this update adds are over {MAX_ADDED_NOTES_BYTES} bytes in all")]
    NotesTooLarge,
    /// The update adds a file to the notes tree at a path that is not a
    /// note as Probity and git write one (`note_path_invalid`): lowercase
    /// hex of a commit id, in up to three two-character fan-out
    /// directories, and the only path of that commit's note. Another
    /// spelling (upper case) is read by git as a note all the same, a
    /// second path is read by git and the gates differently, and stored
    /// files that are no note are storage nobody checks.
    #[error(
        "the update adds a file to the notes tree at a path that is not a note (lowercase hex of a commit id, up to three two-character fan-out directories, one path per commit)"
    )]
    NotePathInvalid,
    /// The push's ref updates (a deletion, a rewind) take away the last
    /// hold besides the notes ref on more than [`MAX_ADDED_NOTES_BYTES`]
    /// of what the notes reach (`input_too_large`, D-R136): the notes ref
    /// only grows, so what it alone holds is stored for good and fetched
    /// by every clone. An anchor-shaped commit whose bytes a tag held when
    /// the notes merged it stored nothing of its own then (red team round
    /// 5).
    #[error(
        "this push would leave more than {MAX_ADDED_NOTES_BYTES} bytes that only refs/notes/probity holds: the notes ref only grows, so what it alone holds is stored for good"
    )]
    NotesLeftHolding,
}

/// The most bytes of notes one update of the notes ref may add.
pub const MAX_ADDED_NOTES_BYTES: u64 = 64 * 1024 * 1024;

/// The commit id a notes-tree path names, when it is a note as git and
/// Probity write one: lowercase hex of a 40- or 64-digit id, split into at
/// most three two-character fan-out directories before the last component
/// (the paths every gate reads, [`note_paths`]).
pub fn note_path_commit(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let (last, dirs) = parts.split_last()?;
    if dirs.len() > 3 || dirs.iter().any(|d| d.len() != 2) || last.is_empty() {
        return None;
    }
    let hex: String = parts.concat();
    (matches!(hex.len(), 40 | 64) && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then_some(hex)
}

/// A file a notes update puts in the notes tree that the old notes tree
/// does not hold as it is: at a path where the old tree held none (the
/// whole tree when the ref is new), or another blob at a path (a note
/// changed in place), as the adapter measures it for [`check_added_notes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedNoteFile {
    /// Its path in the new notes tree.
    pub path: String,
    /// Its size in bytes; `u64::MAX` when it is no blob (a gitlink, an
    /// object the push did not bring): no note, over every bound.
    pub size: u64,
    /// What it adds to the notes a gate reads, in bytes: its size, or, for
    /// a note the old tree held for the same commit (at this path or
    /// others), what the commit's note grew by (0 when only its fan-out
    /// path changed, as git's notes code writes a tree it re-fans: red
    /// team round 4).
    pub added_bytes: u64,
    /// The other paths of the new notes tree that hold a note of the same
    /// commit.
    pub other_paths: Vec<String>,
}

/// The rule for what an update adds to the notes tree (`added`, from the
/// adapter): every added file is a note at a canonical path
/// ([`note_path_commit`]) and its commit's only path in the new tree (a
/// second path for a noted commit is read by git and by the gates in
/// different ways, which jammed a teammate's next push: red team round 4),
/// none is over [`MAX_NOTE_BYTES`], and what they add together
/// ([`AddedNoteFile::added_bytes`]) is at most [`MAX_ADDED_NOTES_BYTES`].
/// The refusal names the path it is about, when one (and the other path of
/// its commit, when that is the fault).
pub fn check_added_notes(added: &[AddedNoteFile]) -> Result<(), (NotesRefDenial, Option<String>)> {
    let mut total: u64 = 0;
    for f in added {
        if note_path_commit(&f.path).is_none() {
            return Err((NotesRefDenial::NotePathInvalid, Some(f.path.clone())));
        }
        if let Some(other) = f.other_paths.first() {
            let both = format!("{} (the same commit's note is at {other})", f.path);
            return Err((NotesRefDenial::NotePathInvalid, Some(both)));
        }
        if f.size > MAX_NOTE_BYTES as u64 {
            return Err((NotesRefDenial::NoteTooLarge, Some(f.path.clone())));
        }
        total = total.saturating_add(f.added_bytes);
    }
    if total > MAX_ADDED_NOTES_BYTES {
        return Err((NotesRefDenial::NotesTooLarge, None));
    }
    Ok(())
}

/// The most commits one update of the notes ref may bring (those its new
/// tip reaches and its old tip does not): each is read, so their number is
/// bounded as the notes' bytes are.
pub const MAX_NOTES_UPDATE_COMMITS: usize = 10_000;

/// What the commits a notes update brings hold besides its new notes tree,
/// as the adapter measures it for [`check_notes_history`] (red team round
/// 4: a notes fast-forward whose merge parent held 100 MB of other files
/// was stored for good, and every clone fetched it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotesHistory {
    /// How many commits the update brings (at most one more than
    /// [`MAX_NOTES_UPDATE_COMMITS`] are read).
    pub commits: usize,
    /// Each file a brought commit's tree holds where the tree it is listed
    /// against ([`notes_listing_base`]: a parent the server already holds,
    /// else its first parent; a root commit: the empty tree) holds no such
    /// blob, except in Probity's anchor commits (a root whose tree lists
    /// review trees by their own ids): the commit, the file's path and its
    /// size (`u64::MAX`: no blob).
    pub files: Vec<(CommitId, String, u64)>,
    /// How many such files the brought commits list in all, each commit's
    /// counted again (`files` may stop past [`MAX_NOTES_HISTORY_FILES`];
    /// `usize::MAX`: git's listing was over its byte bound and was not
    /// read to its end).
    pub files_listed: usize,
    /// The bytes git stores for the objects only the brought commits reach
    /// (none the server's refs or the push's other new tips reach).
    pub stored_bytes: u64,
}

/// The most files the commits one notes update brings may list against
/// the trees [`notes_listing_base`] names, each commit's counted again (red
/// team round 5: an alternating notes history of under 1 MB listed 5
/// million files, 62 s and 2.2 GB at the hook). A merge of the server's
/// notes into a teammate's lists only the teammate's notes (D-R144); this
/// is many times what an honest update lists.
pub const MAX_NOTES_HISTORY_FILES: usize = 200_000;

/// The commit whose tree the files of a commit a notes update brings are
/// listed against (D-R138, D-R144), given its `parents` in order, the
/// update's old tip `old` and the commits the update brings (`brought`:
/// those its new tip reaches and `old` does not). A parent not brought is
/// one the server already holds (`old` or a commit it reaches), whose files
/// the server holds already: what the commit adds is what that tree lacks.
/// `old` itself is preferred among such parents, then the first held one
/// in order. A commit whose parents are all brought is listed against its
/// first parent, whose own files are listed in turn, so every file a
/// brought commit holds is listed once somewhere or is already held, and
/// a parent the pusher made (brought, whatever its tree) never lowers the
/// count. `None`: a root commit (listed against the empty tree).
pub fn notes_listing_base<'a>(
    parents: &'a [CommitId],
    old: Option<&CommitId>,
    brought: &std::collections::BTreeSet<CommitId>,
) -> Option<&'a CommitId> {
    parents
        .iter()
        .find(|p| Some(*p) == old)
        .or_else(|| parents.iter().find(|p| !brought.contains(*p)))
        .or_else(|| parents.first())
}

/// Which of the files one brought notes commit lists against its base
/// (`added`: each one's path and blob, where the base holds no such blob at
/// that path) only moved: a note whose blob the base holds for the same
/// commit at a path this commit no longer holds (`removed`: the base's
/// files this commit dropped, with their blobs), each removed path paired
/// once. git re-fans the notes trees it writes (a teammate's
/// `cat_sort_uniq` merge over a flood the pusher wrote one level deep moved
/// all 200,000 of its notes), and a move adds nothing (D-R126 (1)), so the
/// history's listing does not count it either (D-R144). What moves cost to
/// list stays bounded by the listing's bytes.
pub fn moved_notes(added: &[(String, String)], removed: &[(String, String)]) -> Vec<bool> {
    let mut dropped: std::collections::BTreeMap<(String, &str), usize> =
        std::collections::BTreeMap::new();
    for (path, blob) in removed {
        if let Some(commit) = note_path_commit(path) {
            *dropped.entry((commit, blob.as_str())).or_default() += 1;
        }
    }
    added
        .iter()
        .map(|(path, blob)| {
            let Some(commit) = note_path_commit(path) else {
                return false;
            };
            match dropped.get_mut(&(commit, blob.as_str())) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            }
        })
        .collect()
}

/// The part of [`check_notes_history`] about how much the update's
/// history lists (at most [`MAX_NOTES_UPDATE_COMMITS`] commits and
/// [`MAX_NOTES_HISTORY_FILES`] files): asked before anything is read file
/// by file, so an update over these bounds costs no more than the listing
/// (D-R144).
pub fn check_notes_history_listing(
    h: &NotesHistory,
) -> Result<(), (NotesRefDenial, Option<String>)> {
    if h.commits > MAX_NOTES_UPDATE_COMMITS {
        let why = format!("{} commits (at most {MAX_NOTES_UPDATE_COMMITS})", h.commits);
        return Err((NotesRefDenial::NotesTooLarge, Some(why)));
    }
    if h.files_listed > MAX_NOTES_HISTORY_FILES {
        let why = if h.files_listed == usize::MAX {
            "the files its commits list are over the listing's byte bound".to_string()
        } else {
            format!(
                "its commits list {} files the trees they are listed against do not hold (at most {MAX_NOTES_HISTORY_FILES})",
                h.files_listed
            )
        };
        return Err((NotesRefDenial::NotesTooLarge, Some(why)));
    }
    Ok(())
}

/// The rule for the history a notes update brings: at most
/// [`MAX_NOTES_UPDATE_COMMITS`] commits; every file a commit adds to the
/// tree it is listed against ([`notes_listing_base`]) is a note at a canonical path
/// ([`note_path_commit`]) within [`MAX_NOTE_BYTES`], so every commit but
/// Probity's anchors is a notes commit (a `cat_sort_uniq` merge, whose
/// parents are notes commits, is one); and what only these commits store
/// is at most [`MAX_ADDED_NOTES_BYTES`], the bound on what an update adds
/// to the notes. The refusal names the path and its commit, when one.
pub fn check_notes_history(h: &NotesHistory) -> Result<(), (NotesRefDenial, Option<String>)> {
    check_notes_history_listing(h)?;
    for (commit, path, size) in &h.files {
        let at = || Some(format!("{path} in notes commit {commit}"));
        if note_path_commit(path).is_none() {
            return Err((NotesRefDenial::NotePathInvalid, at()));
        }
        if *size > MAX_NOTE_BYTES as u64 {
            return Err((NotesRefDenial::NoteTooLarge, at()));
        }
    }
    if h.stored_bytes > MAX_ADDED_NOTES_BYTES {
        let why = format!(
            "the notes commits it brings store {} bytes that the history they are measured against does not hold (at the hook: the protected refs'; a reviewed change not delivered yet is published with its delivery to a protected branch, `probity push <remote> <branch>`)",
            h.stored_bytes
        );
        return Err((NotesRefDenial::NotesTooLarge, Some(why)));
    }
    Ok(())
}

impl NotesRefDenial {
    /// The stable reason code: `notes_ref_deleted`, `notes_ref_rewritten`,
    /// `notes_line_removed` or `input_too_large`.
    pub fn code(self) -> &'static str {
        match self {
            NotesRefDenial::NotesRefDeleted => "notes_ref_deleted",
            NotesRefDenial::NotesRefRewritten => "notes_ref_rewritten",
            NotesRefDenial::NotesLineRemoved => "notes_line_removed",
            NotesRefDenial::NotesTooLarge => "input_too_large",
            NotesRefDenial::NotePathInvalid => "note_path_invalid",
            NotesRefDenial::NoteTooLarge => "input_too_large",
            NotesRefDenial::NotesLeftHolding => "input_too_large",
        }
    }
}

/// The bound on what one push's ref updates leave only the notes holding
/// (D-R136): `left_bytes`, the bytes git stores for what the notes reach
/// and the updated refs' old tips reached, that no ref reaches once the
/// push is applied, is at most [`MAX_ADDED_NOTES_BYTES`], as what a notes
/// update adds of its own is. So what the notes alone hold grows by at
/// most that bound per push, whichever way it came to them.
pub fn check_left_to_notes(left_bytes: u64) -> Result<(), NotesRefDenial> {
    if left_bytes > MAX_ADDED_NOTES_BYTES {
        Err(NotesRefDenial::NotesLeftHolding)
    } else {
        Ok(())
    }
}

/// The append-only rule of the notes ref: creating it is allowed, a
/// deletion is denied, and an update is allowed only when the new tip
/// descends from the old one (`fast_forward`, decided by Git).
pub fn check_notes_update(
    update: &ReceiveUpdate,
    fast_forward: bool,
) -> Result<(), NotesRefDenial> {
    match (&update.old, &update.new) {
        // A notes ref the repository did not have withdraws nothing.
        (None, None) | (None, Some(_)) => Ok(()),
        (Some(_), None) => Err(NotesRefDenial::NotesRefDeleted),
        (Some(_), Some(_)) if fast_forward => Ok(()),
        (Some(_), Some(_)) => Err(NotesRefDenial::NotesRefRewritten),
    }
}

/// A protected ref's deletion, refused (`protected_ref_deleted`): deleting
/// a protected ref withdraws published history, and re-creating it would
/// judge only what the remaining protected refs lack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{refname} is protected (probity.protectedRefs): deleting it is refused unless the server's administrator allows it (probity.allowProtectedDeletion)"
)]
pub struct ProtectedRefDeleted {
    /// The protected ref the push deletes.
    pub refname: String,
}

impl ProtectedRefDeleted {
    /// The stable reason code, `protected_ref_deleted`.
    pub fn code(&self) -> &'static str {
        "protected_ref_deleted"
    }
}

/// A push that creates the branch the repository's unborn `HEAD` names
/// while protected refs exist (red team round 3): that branch becomes the
/// default branch whose policy governs every protected push (D-R117), so a
/// pusher would choose it by choosing its first commit (a commit with an
/// older, weaker policy delivers nothing and was allowed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the repository's HEAD names {refname}, which does not exist, while it holds protected refs: the branch HEAD names is the default branch whose policy governs every protected push, and a push cannot create it"
)]
pub struct DefaultBranchUnborn {
    /// The branch `HEAD` names, which the push creates.
    pub refname: String,
}

impl DefaultBranchUnborn {
    /// The stable reason code, `default_branch_unborn`.
    pub fn code(&self) -> &'static str {
        "default_branch_unborn"
    }
}

/// The rule for an unborn `HEAD` (`head_names`: the branch it names, when
/// it names one and that branch does not exist): a push may create that
/// branch only in a repository with no protected ref yet (its first push);
/// otherwise the server's administrator points `HEAD` at the team's branch.
pub fn check_default_branch_creation(
    update: &ReceiveUpdate,
    head_names: Option<&str>,
    protected_refs_exist: bool,
) -> Result<(), DefaultBranchUnborn> {
    match head_names {
        Some(name)
            if protected_refs_exist
                && update.old.is_none()
                && update.new.is_some()
                && update.refname == name =>
        {
            Err(DefaultBranchUnborn {
                refname: name.to_owned(),
            })
        }
        _ => Ok(()),
    }
}

/// The server's rule for deletions: a protected ref (by `globs`, as
/// [`is_protected`] reads them) may be deleted only when the server allows
/// it (`allowed`: `probity.allowProtectedDeletion`); any other ref may.
pub fn check_deletion(
    update: &ReceiveUpdate,
    globs: &[String],
    allowed: bool,
) -> Result<(), ProtectedRefDeleted> {
    // A ref that did not exist (old and new both absent: git warns
    // "deleting a non-existent ref") withdraws nothing.
    if update.new.is_none()
        && update.old.is_some()
        && !allowed
        && is_protected(globs, &update.refname)
    {
        return Err(ProtectedRefDeleted {
            refname: update.refname.clone(),
        });
    }
    Ok(())
}

/// The notes-only-grow rule for one annotated commit whose note a
/// fast-forward of the notes ref changes: every line of `old` (the note the
/// server holds) must still be a line of `new` (the note after the update;
/// `None`: the note is removed), whatever their order. Lines are the
/// non-empty LF-separated ones ([`note_lines`]); neither note may be over
/// [`MAX_NOTE_BYTES`] (read up to one byte more). A note's authority is
/// thus never taken back: lines may only be added.
pub fn check_note_growth(old: &[u8], new: Option<&[u8]>) -> Result<(), NotesRefDenial> {
    let Some(new) = new else {
        return Err(NotesRefDenial::NotesLineRemoved);
    };
    let (Ok(old), Ok(new)) = (note_lines(old), note_lines(new)) else {
        return Err(NotesRefDenial::NoteTooLarge);
    };
    let kept: std::collections::BTreeSet<&[u8]> = new.into_iter().collect();
    if old.iter().all(|l| kept.contains(l)) {
        Ok(())
    } else {
        Err(NotesRefDenial::NotesLineRemoved)
    }
}

/// Whether a remote ref carries authority rather than a delivery: the notes
/// ref, and `refs/probity/*` review objects.
pub fn is_authority_ref(remote_ref: &str) -> bool {
    remote_ref == NOTES_REF || remote_ref.starts_with(REVIEW_OBJECTS_PREFIX)
}

/// Splits a pre-push hook's updates into the deliveries and whether the
/// push carries `refs/notes/probity`. The notes ref carries authority and
/// `refs/probity/*` review objects, not deliveries ([`is_authority_ref`]):
/// the client gate never judges them as one (the server keeps the notes
/// ref append-only).
pub fn split_notes_updates(updates: Vec<RefUpdate>) -> (Vec<RefUpdate>, bool) {
    let notes = updates.iter().any(|u| u.remote_ref == NOTES_REF);
    let deliveries = updates
        .into_iter()
        .filter(|u| !is_authority_ref(&u.remote_ref))
        .collect();
    (deliveries, notes)
}

/// The candidate paths of a commit's note inside a notes tree: git fans
/// notes out into 2-hex-digit directories as the tree grows, so the note of
/// `abcd…` is at `abcd…`, `ab/cd…`, `ab/cd/…`, ... (up to three levels).
pub fn note_paths(commit: &CommitId) -> Vec<String> {
    let hex = commit.as_str();
    let mut out = vec![hex.to_string()];
    for level in 1..=3usize {
        if hex.len() <= level * 2 {
            break;
        }
        let mut p = String::new();
        for i in 0..level {
            p.push_str(&hex[i * 2..i * 2 + 2]);
            p.push('/');
        }
        p.push_str(&hex[level * 2..]);
        out.push(p);
    }
    out
}

/// The first line after the shebang of the managed server hook: ownership
/// is by content, as for the client hooks.
pub const SERVER_MARKER: &str = "# probity-managed-server-hook v1: pre-receive";

/// Quotes a string for POSIX sh (single quotes; embedded quotes escaped).
use crate::review::hooks::sh_quote;

/// Whose the pre-receive hook a bare repository has is (`hooks uninstall
/// --server` removes only its own, unedited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerHookOwner {
    /// Exactly the script `hooks install --server` writes (for the path it
    /// names): Probity's, unedited.
    Probity,
    /// Probity's marker, but edited since: kept.
    EditedByUser,
    /// Not Probity's: kept.
    Foreign,
}

/// Judges a pre-receive hook's bytes.
pub fn server_hook_owner(current: &[u8]) -> ServerHookOwner {
    ServerHook::PreReceive.owner(current)
}

/// The first line after the shebang of the managed `reference-transaction`
/// hook (D-R149).
pub const REFERENCE_TRANSACTION_MARKER: &str =
    "# probity-managed-server-hook v1: reference-transaction";

/// A hook `hooks install --server` manages in a bare repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerHook {
    /// The gate: judges every push (`validate --gate pre-receive`).
    PreReceive,
    /// Holds each of an allowed push's ref transactions to the notes it
    /// was judged with (`validate reference-transaction`, D-R149).
    ReferenceTransaction,
}

impl ServerHook {
    /// Both, in the order they are installed.
    pub const ALL: [ServerHook; 2] = [ServerHook::PreReceive, ServerHook::ReferenceTransaction];

    /// The hook's file name in the hooks directory.
    pub fn name(self) -> &'static str {
        match self {
            ServerHook::PreReceive => "pre-receive",
            ServerHook::ReferenceTransaction => "reference-transaction",
        }
    }

    /// The line that marks the script as Probity's.
    pub fn marker(self) -> &'static str {
        match self {
            ServerHook::PreReceive => SERVER_MARKER,
            ServerHook::ReferenceTransaction => REFERENCE_TRANSACTION_MARKER,
        }
    }

    /// The script, running `probity`.
    pub fn script(self, probity: &str) -> String {
        match self {
            ServerHook::PreReceive => pre_receive_script(probity),
            ServerHook::ReferenceTransaction => reference_transaction_script(probity),
        }
    }

    /// The command its `exec` line runs after the binary.
    fn command(self) -> &'static str {
        match self {
            ServerHook::PreReceive => " validate --gate pre-receive",
            ServerHook::ReferenceTransaction => " validate reference-transaction \"$1\"",
        }
    }

    /// Whose the hook with these bytes is.
    pub fn owner(self, current: &[u8]) -> ServerHookOwner {
        let Ok(text) = std::str::from_utf8(current) else {
            return ServerHookOwner::Foreign;
        };
        if !text.lines().any(|l| l == self.marker()) {
            return ServerHookOwner::Foreign;
        }
        let installed = text
            .lines()
            .find_map(|l| l.strip_prefix("exec "))
            .and_then(|l| l.strip_suffix(self.command()))
            .and_then(sh_unquote);
        match installed {
            Some(path) if self.script(&path) == text => ServerHookOwner::Probity,
            _ => ServerHookOwner::EditedByUser,
        }
    }
}

/// The inverse of `sh_quote`: `'...'` with `'\''` for each quote.
fn sh_unquote(q: &str) -> Option<String> {
    let inner = q.strip_prefix('\'')?.strip_suffix('\'')?;
    let s = inner.replace(r"'\''", "'");
    (sh_quote(&s) == q).then_some(s)
}

/// The `pre-receive` hook of a bare repository: git runs it in the
/// repository with the ref updates on stdin and relays its output to the
/// pusher as `remote:` lines; the gate reads stdin itself, so the script
/// only execs it.
pub fn pre_receive_script(probity: &str) -> String {
    format!(
        "#!/bin/sh\n{SERVER_MARKER}\n# Installed by `probity hooks install --server`: every commit a push makes\n# reachable from a protected ref must be a reviewed delivery whose bundle is\n# in refs/notes/probity (pushed with it); the notes ref is append-only.\nexec {}{}\n",
        sh_quote(probity),
        ServerHook::PreReceive.command()
    )
}

/// The `reference-transaction` hook of a bare repository (git 2.28 and
/// later): git runs it at each state of every ref transaction, the updates
/// on stdin; only `prepared` can refuse, so only it runs Probity, which
/// refuses an update its push was allowed with notes that are not in place
/// (D-R149).
pub fn reference_transaction_script(probity: &str) -> String {
    format!(
        "#!/bin/sh\n{REFERENCE_TRANSACTION_MARKER}\n# Installed by `probity hooks install --server`: a protected ref a push was\n# allowed with the notes it brings lands only with those notes in place.\n[ \"$1\" = prepared ] || exit 0\nexec {}{}\n",
        sh_quote(probity),
        ServerHook::ReferenceTransaction.command()
    )
}

/// One component of a path as `stat` reports it: its owner, group and
/// permission bits (the low 12 bits of the mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathEntry {
    /// The owning user id.
    pub uid: u32,
    /// The owning group id.
    pub gid: u32,
    /// The permission bits (`0o755`, ...).
    pub mode: u32,
}

/// Someone a server runs git as, for the hook's sake: a user id (`None`:
/// any member of the group who is not the owner) and a group id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookRunner {
    /// The user id, when one is meant.
    pub uid: Option<u32>,
    /// The group id.
    pub gid: u32,
}

/// Who runs a bare repository's `pre-receive` hook, told from the
/// repository's own directory: its owner always (the account an ssh
/// server or a forge runs git as); any member of its group when the
/// directory is group-writable (a shared repository:
/// `core.sharedRepository`, or a web server's group); anyone when it is
/// world-writable.
pub fn hook_runners(repo_dir: &PathEntry) -> Vec<HookRunner> {
    let mut out = vec![HookRunner {
        uid: Some(repo_dir.uid),
        gid: repo_dir.gid,
    }];
    if repo_dir.mode & 0o020 != 0 {
        out.push(HookRunner {
            uid: None,
            gid: repo_dir.gid,
        });
    }
    if repo_dir.mode & 0o002 != 0 {
        out.push(HookRunner {
            uid: None,
            gid: u32::MAX,
        });
    }
    out
}

/// Whether `runner` may execute the file at the end of `path`: every
/// directory before it must let them search it and the file must let them
/// execute it, by the owner's, the group's or the others' bits as POSIX
/// chooses them (root searches any directory and executes a file any of
/// whose execute bits is set). Supplementary groups are not known here:
/// a runner is judged by the group it is given.
pub fn may_run(path: &[PathEntry], runner: &HookRunner) -> bool {
    let Some((file, dirs)) = path.split_last() else {
        return false;
    };
    let root = runner.uid == Some(0);
    let allows = |e: &PathEntry| {
        let class = if runner.uid == Some(e.uid) {
            6
        } else if runner.gid == e.gid {
            3
        } else {
            0
        };
        e.mode >> class & 0o1 != 0
    };
    let dirs_ok = root || dirs.iter().all(allows);
    let file_ok = if root {
        file.mode & 0o111 != 0
    } else {
        allows(file)
    };
    dirs_ok && file_ok
}

mod replay;
pub use replay::*;
mod transaction;
pub use transaction::*;

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
