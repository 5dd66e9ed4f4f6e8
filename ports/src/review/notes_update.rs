//! The notes ref's own rules at the server (R11, D-R121): the update
//! only fast-forwards, keeps every line of every note the server holds,
//! and adds only notes at canonical paths within their bounds; the notes
//! commit authority is then read from.

use probity_core::review::{
    CommitId, MAX_NOTE_BYTES, NOTES_REF, ReceiveUpdate, check_added_notes, check_left_to_notes,
    check_note_growth, check_notes_history, check_notes_history_listing, check_notes_update,
};

use super::*;

/// The tips a notes update's stored bytes are measured against (the
/// port's [`NotesHolds`], owned).
pub(super) enum Holds {
    /// Every ref here, and these tips (a CI form).
    EveryRef(Vec<CommitId>),
    /// These tips alone (the hook, D-R147).
    Only(Vec<CommitId>),
}

impl Holds {
    fn as_port(&self) -> NotesHolds<'_> {
        match self {
            Holds::EveryRef(t) => NotesHolds::EveryRef(t),
            Holds::Only(t) => NotesHolds::Only(t),
        }
    }
}

/// A notes-ref update refused for the note on `commit` (`detail` after
/// its name, when there is one).
fn note_denial(
    d: probity_core::review::NotesRefDenial,
    commit: &CommitId,
    detail: &str,
) -> ReceiveDenial {
    let sep = if detail.is_empty() { "" } else { " " };
    ReceiveDenial {
        reason_code: d.code().into(),
        refname: NOTES_REF.into(),
        commit: Some(commit.clone()),
        message: format!("{d}: the note on {commit}{sep}{detail}"),
        next_action: "repair",
    }
}

/// The notes commit authority is read from after the push: the pushed one
/// when the push updates the notes ref (after the append-only rule), else
/// the ref as it is. What the update stores is measured against `holds`,
/// asked only when the push updates the notes ref.
pub(super) fn notes_after<G: RangeGit + NotesGit>(
    git: &G,
    updates: &[ReceiveUpdate],
    holds: impl FnOnce() -> Result<Holds, TransportError>,
) -> Result<Result<Option<CommitId>, ReceiveDenial>, TransportError> {
    let Some(u) = updates.iter().find(|u| u.refname == NOTES_REF) else {
        return Ok(Ok(git.notes_tip()?));
    };
    let fast_forward = match (&u.old, &u.new) {
        (Some(o), Some(n)) => git.is_ancestor(o, n)?,
        _ => false,
    };
    if let Err(d) = check_notes_update(u, fast_forward) {
        return Ok(Err(ReceiveDenial {
            reason_code: d.code().into(),
            refname: NOTES_REF.into(),
            commit: None,
            message: d.to_string(),
            next_action: "repair",
        }));
    }
    // What the push adds to the notes tree is stored for good (the ref only
    // grows): notes at canonical paths, one per commit, each and all within
    // their bounds (red team rounds 2 to 4); only sizes are read. So is the
    // history it brings: notes commits (and Probity's anchors) within the
    // same bounds (red team round 4).
    let holds = holds()?;
    // The history's listing is bounded (D-R138) and asked first: an update
    // over its bounds is refused before its added files are read one by
    // one (D-R144).
    let checked = match &u.new {
        Some(new) => {
            let history = git.notes_history(u.old.as_ref(), new, holds.as_port())?;
            match check_notes_history_listing(&history) {
                Ok(()) => {
                    match check_added_notes(&match git.added_note_files(u.old.as_ref(), new) {
                        Ok(added) => added,
                        Err(e) => return malformed_notes(e).map(Err),
                    }) {
                        Ok(()) => check_notes_history(&history),
                        refused => refused,
                    }
                }
                refused => refused,
            }
        }
        None => Ok(()),
    };
    if let Err((d, path)) = checked {
        let at = path.map(|p| format!(": {p}")).unwrap_or_default();
        return Ok(Err(ReceiveDenial {
            reason_code: d.code().into(),
            refname: NOTES_REF.into(),
            commit: None,
            message: format!("{d}{at}"),
            next_action: "repair",
        }));
    }
    // A fast-forward keeps every line of every note the server holds: only
    // the notes whose blob changed are read.
    if let (Some(old), Some(new)) = (&u.old, &u.new) {
        let changed = match git.changed_notes(old, new) {
            Ok(changed) => changed,
            Err(e) => return malformed_notes(e).map(Err),
        };
        for c in changed {
            let before = git.read_note(old, &c, MAX_NOTE_BYTES)?.unwrap_or_default();
            let after = git.read_note(new, &c, MAX_NOTE_BYTES)?;
            if let Err(d) = check_note_growth(&before, after.as_deref()) {
                return Ok(Err(note_denial(d, &c, "")));
            }
        }
    }
    Ok(Ok(u.new.clone()))
}

/// A notes tree git never writes (D-R160, D-R163) refuses the notes
/// update, with the notes ref named and a notes repair as the next step
/// (not a fault of the server's); any other error is the port's.
fn malformed_notes(e: AdapterError) -> Result<ReceiveDenial, TransportError> {
    match super::error::tree_malformed(e.as_ref()) {
        Some(m) => Ok(ReceiveDenial {
            reason_code: "tree_malformed".into(),
            refname: NOTES_REF.into(),
            commit: None,
            message: format!("the pushed notes: {m}"),
            next_action: "repair",
        }),
        None => Err(e.into()),
    }
}

/// What a push's ref updates leave only the notes holding (D-R136, red
/// team round 5): a deletion or a rewind of a ref (its old tip no longer
/// reached from its new one, each asked of git; a tip that is no commit
/// counts as taken away) can take away the last hold besides the notes
/// on objects the notes reach, which the notes then keep alone for good.
/// Core bounds it as it bounds what a notes update adds; `notes` is the
/// notes commit after the push. Nothing is asked of git for a push that
/// only creates refs or fast-forwards them.
pub(super) fn left_to_notes<G: RangeGit + NotesGit>(
    git: &G,
    updates: &[ReceiveUpdate],
    notes: Option<&CommitId>,
) -> Result<Option<ReceiveDenial>, TransportError> {
    let Some(notes) = notes else {
        return Ok(None);
    };
    let mut dropped = Vec::new();
    let mut names = Vec::new();
    for u in updates.iter().filter(|u| u.refname != NOTES_REF) {
        let Some(old) = &u.old else { continue };
        let kept = match &u.new {
            Some(new) => match (git.peel_commit(old)?, git.peel_commit(new)?) {
                (Some(o), Some(n)) => git.is_ancestor(&o, &n)?,
                _ => false,
            },
            None => false,
        };
        if !kept {
            dropped.push(old.clone());
            names.push(u.refname.as_str());
        }
    }
    let Some(first) = names.first() else {
        return Ok(None);
    };
    let updated: Vec<(&str, Option<&CommitId>)> = updates
        .iter()
        .map(|u| (u.refname.as_str(), u.new.as_ref()))
        .collect();
    let left = git.left_to_notes(notes, &dropped, &updated)?;
    Ok(check_left_to_notes(left).err().map(|d| ReceiveDenial {
        reason_code: d.code().into(),
        refname: (*first).to_string(),
        commit: None,
        message: format!(
            "{d}: the update of {} leaves {left} bytes that only the notes reach; keep the ref (or push another ref that holds its history) before you delete or rewind it",
            names.join(", ")
        ),
        next_action: "keep_ref",
    }))
}
