//! A push's ref transactions held to its judgment (D-R149).
//!
//! `pre-receive` judges a push whole, then git applies it: in one
//! transaction with `--atomic`, else each ref in a transaction of its own
//! (git 2.47), so a protected branch allowed with the notes the push brings
//! could land while those notes did not (their update lost a race to
//! another pusher, red team round 6 finding 2). An allowing `pre-receive`
//! records what it relied on ([`JudgedNotes`]); at each of the push's
//! transactions the `reference-transaction` hook asks
//! [`check_transaction`]: a judged update may land only with those notes in
//! place, or set in the same transaction.

use std::collections::BTreeSet;

use super::{MAX_RECEIVE_BYTES, NOTES_REF, ReceiveUpdate, is_protected};
use crate::review::ids::CommitId;

/// The first line of a [`JudgedNotes`] record.
pub const JUDGED_NOTES_HEADER: &str = "probity-judged-notes v1";

/// The most bytes of a [`JudgedNotes`] record read (what the largest
/// pre-receive input could record, with room for the header).
pub const MAX_JUDGED_NOTES_BYTES: usize = MAX_RECEIVE_BYTES + 1024;

/// The most bytes of a `reference-transaction` hook's stdin read while a
/// judged push is applied (its lines are the push's own updates).
pub const MAX_TRANSACTION_BYTES: usize = MAX_RECEIVE_BYTES;

/// The next step of [`NotesNotInPlace`].
pub const NOTES_NOT_IN_PLACE_NEXT: &str = "push the branch and refs/notes/probity in one atomic push: `probity push <remote> <branch>` (it merges the remote's notes first), or merge the remote's notes and `git push --atomic <remote> <branch> refs/notes/probity`";

/// What an allowing `pre-receive` records for its push's ref transactions:
/// the notes commit the push brings, and each protected update it judged
/// with them, by old and new value (the names a transaction shows may be
/// a symbolic ref's target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgedNotes {
    notes: CommitId,
    updates: BTreeSet<(Option<CommitId>, CommitId)>,
}

/// A [`JudgedNotes`] record that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the judged-notes record is not `{JUDGED_NOTES_HEADER}` with a notes commit and its updates ({0})"
)]
pub struct JudgedNotesError(&'static str);

impl JudgedNotes {
    /// What a push allowed with these `updates` (protected by `globs`, each
    /// named as the judgment named it) relied on: `None` when it brings no
    /// notes commit, or updates no protected ref to an object.
    pub fn of_push(updates: &[ReceiveUpdate], globs: &[String]) -> Option<Self> {
        let notes = updates
            .iter()
            .find(|u| u.refname == NOTES_REF)?
            .new
            .clone()?;
        let judged: BTreeSet<_> = updates
            .iter()
            .filter(|u| u.refname != NOTES_REF && is_protected(globs, &u.refname))
            .filter_map(|u| Some((u.old.clone(), u.new.clone()?)))
            .collect();
        (!judged.is_empty()).then_some(Self {
            notes,
            updates: judged,
        })
    }

    /// The notes commit the judged updates need in place.
    pub fn notes(&self) -> &CommitId {
        &self.notes
    }

    /// The record's bytes: the header, `notes <id>`, then one
    /// `<old> <new>` line per judged update (old zeros for a creation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let zeros = "0".repeat(self.notes.as_str().len());
        let mut out = format!("{JUDGED_NOTES_HEADER}\nnotes {}\n", self.notes.as_str());
        for (old, new) in &self.updates {
            let old = old.as_ref().map_or(zeros.as_str(), CommitId::as_str);
            out.push_str(&format!("{old} {}\n", new.as_str()));
        }
        out.into_bytes()
    }

    /// Reads a record [`Self::to_bytes`] wrote.
    pub fn parse(bytes: &[u8]) -> Result<Self, JudgedNotesError> {
        if bytes.len() > MAX_JUDGED_NOTES_BYTES {
            return Err(JudgedNotesError("over its bound"));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| JudgedNotesError("not UTF-8"))?;
        let mut lines = text.lines();
        if lines.next() != Some(JUDGED_NOTES_HEADER) {
            return Err(JudgedNotesError("no header"));
        }
        let notes = lines
            .next()
            .and_then(|l| l.strip_prefix("notes "))
            .and_then(|id| CommitId::parse(id).ok())
            .ok_or(JudgedNotesError("no notes commit"))?;
        let mut updates = BTreeSet::new();
        for line in lines {
            let (old, new) = line
                .split_once(' ')
                .ok_or(JudgedNotesError("an update is not `<old> <new>`"))?;
            match (oid(old), oid(new)) {
                (Ok(old), Ok(Some(new))) => updates.insert((old, new)),
                _ => return Err(JudgedNotesError("an update's value is not an object id")),
            };
        }
        if updates.is_empty() {
            return Err(JudgedNotesError("no update"));
        }
        Ok(Self { notes, updates })
    }

    fn covers(&self, line: &TransactionLine<'_>) -> bool {
        match (oid(line.old), oid(line.new)) {
            (Ok(old), Ok(Some(new))) => self.updates.contains(&(old, new)),
            _ => false,
        }
    }
}

/// An object id as a hook line writes it: zeros are `None`.
fn oid(value: &str) -> Result<Option<CommitId>, ()> {
    crate::review::gate::hook_oid(value)
}

/// One line of a `reference-transaction` hook's stdin, `<old> <new>
/// <ref>`, its values as git wrote them (an object id, zeros, or a newer
/// git's `ref:<target>` for a symbolic ref).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionLine<'a> {
    /// The value the transaction expects the ref to have.
    pub old: &'a str,
    /// The value it sets.
    pub new: &'a str,
    /// The ref.
    pub refname: &'a str,
}

/// A `reference-transaction` input line that is not three fields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} of the reference-transaction input is not `<old> <new> <ref>`")]
pub struct TransactionInputError {
    /// The line's 1-based number.
    pub line: usize,
}

/// Parses a `reference-transaction` hook's stdin (blank lines ignored).
pub fn parse_transaction(input: &str) -> Result<Vec<TransactionLine<'_>>, TransactionInputError> {
    crate::review::gate::hook_lines(input)
        .map(|(line, raw)| {
            let mut fields = raw.split(' ');
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(old), Some(new), Some(refname), None) => {
                    Ok(TransactionLine { old, new, refname })
                }
                _ => Err(TransactionInputError { line }),
            }
        })
        .collect()
}

/// A judged update refused at its own transaction: the notes it was
/// allowed with are neither in place nor set beside it
/// (`notes_not_in_place`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{refname} was allowed with the notes this push brings ({NOTES_REF} at {notes}), which are not in place ({NOTES_REF} {}): git applies each ref of a push without --atomic on its own, and this push's notes had not landed before it (they come later in the push, or another push moved the notes first)",
    found.as_ref().map_or_else(|| "does not exist".to_string(), |c| format!("is at {c}"))
)]
pub struct NotesNotInPlace {
    /// The judged ref the transaction updates.
    pub refname: String,
    /// The notes commit it was judged with.
    pub notes: CommitId,
    /// Where the notes ref is, or will be once this transaction commits.
    pub found: Option<CommitId>,
}

/// Whether a transaction (its `lines`) of a push judged with `judged` may
/// commit: yes when it updates nothing judged, or when the notes ref, as
/// this transaction leaves it, is at the judged notes commit itself. A tip
/// that merely descends from it need not hold its notes (red team round
/// 9: a child of it with the server's old notes tree is a fast-forward of
/// the server's tip that keeps every line the server holds, so its own
/// push is allowed), and another pusher's notes landing in between are a
/// race the pusher retries.
///
/// A notes update in the same transaction counts only when it will apply:
/// git 2.51 and later apply a push without `--atomic` as one transaction in
/// which each update may fail on its own, and tell this hook every update,
/// a refused one too. So the notes ref must be at the update's old value
/// now (at `prepared` git holds it locked when the update applies; a lost
/// race leaves it elsewhere), and a creation must find no ref in its way
/// (git's rule against a ref beneath another: `refs/notes`, or one under
/// `refs/notes/probity/`).
///
/// `current` reads the notes ref; `blocked` tells whether a ref stands in
/// the way of creating it (asked only for a creation). An observation's
/// error is the caller's.
pub fn check_transaction<E>(
    judged: &JudgedNotes,
    lines: &[TransactionLine<'_>],
    current: impl FnOnce() -> Result<Option<CommitId>, E>,
    blocked: impl FnOnce() -> Result<bool, E>,
) -> Result<Result<(), NotesNotInPlace>, E> {
    let Some(first) = lines.iter().find(|l| judged.covers(l)) else {
        return Ok(Ok(()));
    };
    let refused = |found: Option<CommitId>| NotesNotInPlace {
        refname: first.refname.to_string(),
        notes: judged.notes.clone(),
        found,
    };
    let now = current()?;
    let after = match lines.iter().rev().find(|l| l.refname == NOTES_REF) {
        None => now,
        Some(l) => {
            let applies = match oid(l.old) {
                Ok(old) if old == now => old.is_some() || !blocked()?,
                _ => false,
            };
            if !applies {
                return Ok(Err(refused(now)));
            }
            // A value no object id (a symbolic ref's) leaves no notes
            // commit.
            oid(l.new).ok().flatten()
        }
    };
    Ok(if after.as_ref() == Some(&judged.notes) {
        Ok(())
    } else {
        Err(refused(after))
    })
}

/// Whether a ref named `refname` would stand in the way of the notes ref:
/// git refuses a ref where another ref's name continues below it, so a
/// ref named `refs/notes`, or one under `refs/notes/probity/`, keeps the
/// notes ref from being created (and, in a push git applies update by
/// update, lets a protected ref land while the notes update fails).
pub fn blocks_notes_ref(refname: &str) -> bool {
    names_conflict(refname, NOTES_REF)
}

/// Git's rule against a ref beneath another: two ref names conflict when
/// one continues the other past a `/` (`refs/notes` and
/// `refs/notes/probity`), so both cannot exist.
pub fn names_conflict(a: &str, b: &str) -> bool {
    let below = |a: &str, b: &str| a.strip_prefix(b).is_some_and(|rest| rest.starts_with('/'));
    below(a, b) || below(b, a)
}

/// A pushed ref that would block the notes ref, refused at the hook
/// (`notes_ref_blocked`, D-R149).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{refname} would block {NOTES_REF}: git refuses a ref where another ref's name continues below it, so the notes could not be created beside it; review authority travels in {NOTES_REF} alone"
)]
pub struct NotesRefBlocked {
    /// The ref the push creates or moves.
    pub refname: String,
}

impl NotesRefBlocked {
    /// The stable reason code, `notes_ref_blocked`.
    pub fn code(&self) -> &'static str {
        "notes_ref_blocked"
    }
}

/// Refuses an update that creates or moves a ref [`blocks_notes_ref`]
/// names; deleting one is allowed (it unblocks).
pub fn check_notes_ref_blocker(update: &ReceiveUpdate) -> Result<(), NotesRefBlocked> {
    if update.new.is_some() && blocks_notes_ref(&update.refname) {
        return Err(NotesRefBlocked {
            refname: update.refname.clone(),
        });
    }
    Ok(())
}

/// A pushed replacement (`refs/replace/*`), refused at the hook
/// (`replace_ref_refused`, D-R164): the gate reads every object as it is
/// (`GIT_NO_REPLACE_OBJECTS`), but every other reader of the server with
/// git's defaults (`git show`, `git archive`, a checkout on the server, a
/// clone that fetches the replacements) would read the replacement
/// instead of the reviewed bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{refname} is a replacement: git's readers other than the gate would read its object in place of the one it replaces, which is not what was reviewed; replacements are not accepted here"
)]
pub struct ReplaceRefRefused {
    /// The ref the push creates or moves.
    pub refname: String,
}

impl ReplaceRefRefused {
    /// The stable reason code, `replace_ref_refused`.
    pub fn code(&self) -> &'static str {
        "replace_ref_refused"
    }
}

/// Refuses an update that creates or moves a ref under `refs/replace/`,
/// in any letter case (on a case-insensitive file system `refs/Replace/x`
/// is stored where git reads replacements; red team round 13); deleting
/// one is allowed (it removes the replacement).
pub fn check_replace_ref(update: &ReceiveUpdate) -> Result<(), ReplaceRefRefused> {
    let replacement = update
        .refname
        .get(..13)
        .is_some_and(|p| p.eq_ignore_ascii_case("refs/replace/"));
    if update.new.is_some() && replacement {
        return Err(ReplaceRefRefused {
            refname: update.refname.clone(),
        });
    }
    Ok(())
}

#[cfg(test)]
#[path = "transaction_tests.rs"]
mod tests;
