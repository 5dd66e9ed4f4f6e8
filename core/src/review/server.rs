//! The server-side gate's own rules (R11): git's `pre-receive` input,
//! which refs are protected, and the append-only rule of the notes ref that
//! carries review bundles. Delivery judgment itself is the pre-push gate's
//! ([`crate::review::gate`]), run against authority imported from the
//! pushed notes.

use serde::Serialize;

use crate::review::bundle::{MAX_NOTE_BYTES, note_lines};
use crate::review::gate::RefUpdate;
use crate::review::ids::CommitId;

/// The ref that carries review bundles as Git notes.
pub const NOTES_REF: &str = "refs/notes/probity";

/// What `probity.protectedRefs` defaults to when unset.
pub const DEFAULT_PROTECTED: &str = "refs/heads/*";

/// The most lines a `pre-receive` input may hold.
pub const MAX_RECEIVE_LINES: usize = 10_000;

/// The most bytes a `pre-receive` input may hold.
pub const MAX_RECEIVE_BYTES: usize = 4 * 1024 * 1024;

/// One line of git's `pre-receive` input: `<old> <new> <ref>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveUpdate {
    /// `None` when the ref is being created (git writes zeros).
    pub old: Option<CommitId>,
    /// `None` when the ref is being deleted.
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
    /// A line that is not exactly three space-separated fields, whose ref
    /// does not start `refs/` or contains `..`, or whose old and new ids
    /// are both zeros.
    #[error("line {line} of the pre-receive input is not `<old> <new> <ref>`")]
    Fields {
        /// The line's 1-based number.
        line: usize,
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
    if matches!(value.len(), 40 | 64) && value.bytes().all(|b| b == b'0') {
        return Ok(None);
    }
    CommitId::parse(value)
        .map(Some)
        .map_err(|_| ReceiveInputError::ObjectId {
            line,
            value: value.to_string(),
        })
}

/// Parses git's `pre-receive` stdin (blank lines ignored). A ref name never
/// holds a space, so each line is exactly three fields.
pub fn parse_receive_updates(input: &str) -> Result<Vec<ReceiveUpdate>, ReceiveInputError> {
    if input.len() > MAX_RECEIVE_BYTES {
        return Err(ReceiveInputError::TooLarge {
            limit: MAX_RECEIVE_BYTES,
        });
    }
    let mut out = Vec::new();
    for (i, raw) in input.split('\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = raw.split(' ').collect();
        let [old, new, refname] = fields[..] else {
            return Err(ReceiveInputError::Fields { line });
        };
        if !refname.starts_with("refs/") || refname.contains("..") {
            return Err(ReceiveInputError::Fields { line });
        }
        let (old, new) = (oid(line, old)?, oid(line, new)?);
        if old.is_none() && new.is_none() {
            return Err(ReceiveInputError::Fields { line });
        }
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

/// Whether `refname` matches a `probity.protectedRefs` glob: `*` matches
/// any run of characters (slashes included, so `refs/heads/*` covers
/// `refs/heads/team/x`), `?` one character; anything else is literal.
pub fn glob_matches(glob: &str, refname: &str) -> bool {
    fn go(g: &[u8], s: &[u8]) -> bool {
        // Iterative wildcard matching with one backtrack point.
        let (mut gi, mut si) = (0, 0);
        let (mut star, mut mark) = (None, 0);
        while si < s.len() {
            if gi < g.len() && (g[gi] == b'?' || g[gi] == s[si]) {
                gi += 1;
                si += 1;
            } else if gi < g.len() && g[gi] == b'*' {
                star = Some(gi);
                mark = si;
                gi += 1;
            } else if let Some(st) = star {
                gi = st + 1;
                mark += 1;
                si = mark;
            } else {
                return false;
            }
        }
        g[gi..].iter().all(|c| *c == b'*')
    }
    go(glob.as_bytes(), refname.as_bytes())
}

/// Whether a ref is protected by any of `globs` (the configured values; an
/// empty list means the default, `refs/heads/*`). The notes ref itself is
/// never judged as a delivery: it has its own append-only rule.
pub fn is_protected(globs: &[String], refname: &str) -> bool {
    if refname == NOTES_REF || refname.starts_with(REVIEW_OBJECTS_PREFIX) {
        return false;
    }
    if globs.is_empty() {
        return glob_matches(DEFAULT_PROTECTED, refname);
    }
    globs.iter().any(|g| glob_matches(g, refname))
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
}

impl NotesRefDenial {
    /// The stable reason code: `notes_ref_deleted`, `notes_ref_rewritten`,
    /// `notes_line_removed` or `input_too_large`.
    pub fn code(self) -> &'static str {
        match self {
            NotesRefDenial::NotesRefDeleted => "notes_ref_deleted",
            NotesRefDenial::NotesRefRewritten => "notes_ref_rewritten",
            NotesRefDenial::NotesLineRemoved => "notes_line_removed",
            NotesRefDenial::NoteTooLarge => "input_too_large",
        }
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
        (_, None) => Err(NotesRefDenial::NotesRefDeleted),
        (None, Some(_)) => Ok(()),
        (Some(_), Some(_)) if fast_forward => Ok(()),
        (Some(_), Some(_)) => Err(NotesRefDenial::NotesRefRewritten),
    }
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

/// Refs under this prefix hold review objects, never a delivery: the trees
/// a review froze (`refs/probity/trees/<lineage>/{base,final}`, pushed by
/// `probity push` so a server can check a rebased delivery against them)
/// and the keep-alive refs of R10.6.
pub const REVIEW_OBJECTS_PREFIX: &str = "refs/probity/";

/// Where `probity push` puts a lineage's frozen tree on the remote.
pub fn review_tree_ref(lineage: &crate::review::ids::LineageId, which: &str) -> String {
    format!("{REVIEW_OBJECTS_PREFIX}trees/{lineage}/{which}")
}

/// Splits a pre-push hook's updates into the deliveries and whether the
/// push carries `refs/notes/probity`. The notes ref carries authority and
/// `refs/probity/*` review objects, not deliveries: the client gate never
/// judges them as one (the server keeps the notes ref append-only).
pub fn split_notes_updates(updates: Vec<RefUpdate>) -> (Vec<RefUpdate>, bool) {
    let notes = updates.iter().any(|u| u.remote_ref == NOTES_REF);
    let deliveries = updates
        .into_iter()
        .filter(|u| u.remote_ref != NOTES_REF && !u.remote_ref.starts_with(REVIEW_OBJECTS_PREFIX))
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
    let Ok(text) = std::str::from_utf8(current) else {
        return ServerHookOwner::Foreign;
    };
    if !text.lines().any(|l| l == SERVER_MARKER) {
        return ServerHookOwner::Foreign;
    }
    let installed = text
        .lines()
        .find_map(|l| l.strip_prefix("exec "))
        .and_then(|l| l.strip_suffix(" validate --gate pre-receive"))
        .and_then(sh_unquote);
    match installed {
        Some(path) if pre_receive_script(&path) == text => ServerHookOwner::Probity,
        _ => ServerHookOwner::EditedByUser,
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
        "#!/bin/sh\n{SERVER_MARKER}\n# Installed by `probity hooks install --server`: every commit a push makes\n# reachable from a protected ref must be a reviewed delivery whose bundle is\n# in refs/notes/probity (pushed with it); the notes ref is append-only.\nexec {} validate --gate pre-receive\n",
        sh_quote(probity)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_probitys_unedited_server_hook_is_its_own() {
        for path in ["/usr/local/bin/probity", "/opt/it's here/probity"] {
            let script = pre_receive_script(path);
            assert_eq!(
                server_hook_owner(script.as_bytes()),
                ServerHookOwner::Probity
            );
            let edited = script.replace("exec ", "echo hi\nexec ");
            assert_eq!(
                server_hook_owner(edited.as_bytes()),
                ServerHookOwner::EditedByUser
            );
        }
        assert_eq!(
            server_hook_owner(b"#!/bin/sh\nexit 0\n"),
            ServerHookOwner::Foreign
        );
        assert_eq!(server_hook_owner(&[0xff, 0xfe]), ServerHookOwner::Foreign);
    }

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn receive_lines_parse_creations_updates_and_deletions() {
        let input =
            format!("{Z} {A} refs/heads/main\n{A} {B} refs/heads/x\n{B} {Z} refs/tags/t\n\n");
        let u = parse_receive_updates(&input).unwrap();
        assert_eq!(u.len(), 3);
        assert_eq!(u[0].old, None);
        assert_eq!(u[0].new.as_ref().map(|c| c.as_str()), Some(A));
        assert_eq!(u[2].new, None);
        let push = u[1].as_push();
        assert_eq!(push.remote_ref, "refs/heads/x");
        assert_eq!(push.remote_oid.as_ref().map(|c| c.as_str()), Some(A));
    }

    #[test]
    fn malformed_receive_lines_are_typed() {
        assert_eq!(
            parse_receive_updates(&format!("{A} {B}\n")),
            Err(ReceiveInputError::Fields { line: 1 })
        );
        assert!(matches!(
            parse_receive_updates(&format!("{A} xyz refs/heads/m\n")),
            Err(ReceiveInputError::ObjectId { line: 1, .. })
        ));
        assert_eq!(
            parse_receive_updates(&format!("{Z} {Z} refs/heads/m\n")),
            Err(ReceiveInputError::Fields { line: 1 })
        );
        assert_eq!(
            parse_receive_updates(&format!("{A} {B} main\n")),
            Err(ReceiveInputError::Fields { line: 1 })
        );
        let big = "x".repeat(MAX_RECEIVE_BYTES + 1);
        assert!(matches!(
            parse_receive_updates(&big),
            Err(ReceiveInputError::TooLarge { .. })
        ));
    }

    #[test]
    fn globs_cover_nested_refs_and_default_to_branches() {
        assert!(glob_matches("refs/heads/*", "refs/heads/main"));
        assert!(glob_matches("refs/heads/*", "refs/heads/team/x"));
        assert!(!glob_matches("refs/heads/*", "refs/tags/v1"));
        assert!(glob_matches("refs/heads/release-?", "refs/heads/release-1"));
        assert!(!glob_matches(
            "refs/heads/release-?",
            "refs/heads/release-10"
        ));
        assert!(glob_matches("refs/heads/main", "refs/heads/main"));
        assert!(!glob_matches("refs/heads/main", "refs/heads/mainx"));
        assert!(glob_matches("refs/*/v*", "refs/tags/v1.0"));
        assert!(is_protected(&[], "refs/heads/main"));
        assert!(!is_protected(&[], "refs/tags/v1"));
        assert!(!is_protected(&[], NOTES_REF));
        let g = vec!["refs/heads/main".to_string(), "refs/tags/*".to_string()];
        assert!(is_protected(&g, "refs/tags/v1"));
        assert!(!is_protected(&g, "refs/heads/feature"));
        assert!(!is_protected(&["refs/*".to_string()], NOTES_REF));
        // Review objects are never a delivery, whatever the globs.
        assert!(!is_protected(
            &["refs/*".to_string()],
            "refs/probity/trees/review-0123456789abcdef/final"
        ));
    }

    #[test]
    fn the_notes_ref_is_append_only() {
        let upd = |old: Option<&str>, new: Option<&str>| ReceiveUpdate {
            old: old.map(|s| CommitId::parse(s).unwrap()),
            new: new.map(|s| CommitId::parse(s).unwrap()),
            refname: NOTES_REF.into(),
        };
        assert_eq!(check_notes_update(&upd(None, Some(A)), false), Ok(()));
        assert_eq!(check_notes_update(&upd(Some(A), Some(B)), true), Ok(()));
        assert_eq!(
            check_notes_update(&upd(Some(A), Some(B)), false),
            Err(NotesRefDenial::NotesRefRewritten)
        );
        assert_eq!(
            check_notes_update(&upd(Some(A), None), true),
            Err(NotesRefDenial::NotesRefDeleted)
        );
        assert_eq!(NotesRefDenial::NotesRefDeleted.code(), "notes_ref_deleted");
    }

    #[test]
    fn a_note_may_only_gain_lines() {
        let old = b"{\"a\":1}\n{\"b\":2}\n";
        // Kept, in any order, with lines added, or without a final LF.
        assert_eq!(check_note_growth(old, Some(old)), Ok(()));
        assert_eq!(
            check_note_growth(old, Some(b"0 garbage\n{\"a\":1}\n{\"b\":2}\n")),
            Ok(())
        );
        assert_eq!(
            check_note_growth(old, Some(b"{\"b\":2}\n{\"a\":1}")),
            Ok(())
        );
        // A line dropped, or the whole note: denied.
        assert_eq!(
            check_note_growth(old, Some(b"{\"a\":1}\n")),
            Err(NotesRefDenial::NotesLineRemoved)
        );
        assert_eq!(
            check_note_growth(old, Some(b"{\"a\":1}\n{\"b\":3}\n")),
            Err(NotesRefDenial::NotesLineRemoved)
        );
        assert_eq!(
            check_note_growth(old, None),
            Err(NotesRefDenial::NotesLineRemoved)
        );
        assert_eq!(
            NotesRefDenial::NotesLineRemoved.code(),
            "notes_line_removed"
        );
        // A note over the bound cannot be checked nor read: denied.
        let big = vec![b'x'; MAX_NOTE_BYTES + 1];
        assert_eq!(
            check_note_growth(old, Some(&big)),
            Err(NotesRefDenial::NoteTooLarge)
        );
        assert_eq!(
            check_note_growth(&big, Some(old)),
            Err(NotesRefDenial::NoteTooLarge)
        );
        assert_eq!(NotesRefDenial::NoteTooLarge.code(), "input_too_large");
    }

    #[test]
    fn the_server_hook_execs_the_gate_with_a_quoted_path() {
        let s = pre_receive_script("/opt/it's/probity");
        assert!(s.starts_with(&format!("#!/bin/sh\n{SERVER_MARKER}\n")));
        assert!(s.ends_with("exec '/opt/it'\\''s/probity' validate --gate pre-receive\n"));
    }

    #[test]
    fn the_notes_ref_is_not_a_delivery_at_pre_push() {
        let u = |r: &str| RefUpdate {
            local_ref: r.into(),
            local_oid: Some(CommitId::parse(A).unwrap()),
            remote_ref: r.into(),
            remote_oid: None,
        };
        let (d, notes) = split_notes_updates(vec![
            u("refs/heads/main"),
            u(NOTES_REF),
            u("refs/probity/trees/review-0123456789abcdef/base"),
        ]);
        assert_eq!(d, vec![u("refs/heads/main")]);
        assert!(notes);
        let (d, notes) = split_notes_updates(vec![u("refs/heads/main")]);
        assert_eq!(d.len(), 1);
        assert!(!notes);
    }

    #[test]
    fn note_paths_cover_git_fanout() {
        let c = CommitId::parse(A).unwrap();
        let p = note_paths(&c);
        assert_eq!(p[0], A);
        assert_eq!(p[1], format!("11/{}", &A[2..]));
        assert_eq!(p[2], format!("11/11/{}", &A[4..]));
        assert_eq!(p.len(), 4);
    }
}
