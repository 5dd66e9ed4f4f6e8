//! The Git note layout that carries bundles with the commits they deliver
//! (one canonical bundle per line), how a note is read line by line and
//! extended, and which of a note's bundles count at a notes gate
//! ([`NoteAuthority`], the import passes of [`import_rank`]).

use serde::Serialize;

use super::*;

/// Why note bytes are not a note Probity wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    /// The note is over [`MAX_NOTE_BYTES`]; refused before parsing
    /// (`input_too_large`).
    #[error("the note is {size} bytes; the limit is {limit}")]
    TooLarge {
        /// The bytes given.
        size: usize,
        /// The bound, [`MAX_NOTE_BYTES`].
        limit: usize,
    },
    /// The note is not LF-terminated lines, sorted bytewise and unique, at
    /// most [`MAX_NOTE_BUNDLES`], none empty (`note_invalid`).
    #[error("the note is not one canonical bundle per line, sorted and unique: {0}")]
    Layout(String),
    /// A line is not a bundle Probity accepts; the code is the bundle
    /// error's.
    #[error("line {line} of the note: {source}")]
    Bundle {
        /// The line's 1-based number.
        line: usize,
        /// Why the line's bundle was refused.
        #[source]
        source: BundleError,
    },
}

impl NoteError {
    /// The stable reason code.
    pub fn code(&self) -> &'static str {
        match self {
            NoteError::TooLarge { .. } => "input_too_large",
            NoteError::Layout(_) => "note_invalid",
            NoteError::Bundle { source, .. } => source.code(),
        }
    }
}

/// Parses a note: one canonical bundle per LF-terminated line, lines sorted
/// bytewise and unique. That is exactly what `git notes merge -s
/// cat_sort_uniq` produces from two such notes, so concurrent publications
/// from two clones merge without conflict and without changing a byte of
/// any bundle.
pub fn parse_note(bytes: &[u8]) -> Result<Vec<Bundle>, NoteError> {
    if bytes.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge {
            size: bytes.len(),
            limit: MAX_NOTE_BYTES,
        });
    }
    let Some(body) = bytes.strip_suffix(b"\n") else {
        return Err(NoteError::Layout(
            "the note does not end with a newline".into(),
        ));
    };
    let lines: Vec<&[u8]> = body.split(|b| *b == b'\n').collect();
    if lines.len() > MAX_NOTE_BUNDLES {
        return Err(NoteError::Layout(format!(
            "{} bundles; the limit is {MAX_NOTE_BUNDLES}",
            lines.len()
        )));
    }
    if lines.windows(2).any(|w| w[0] >= w[1]) {
        return Err(NoteError::Layout("lines are not sorted and unique".into()));
    }
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() {
            return Err(NoteError::Layout(format!("line {} is empty", i + 1)));
        }
        out.push(
            Bundle::from_bytes(line).map_err(|source| NoteError::Bundle {
                line: i + 1,
                source,
            })?,
        );
    }
    Ok(out)
}

/// The note holding `bundles` added to what `existing` holds: every line
/// once, sorted bytewise, each LF-terminated. Existing lines are kept as
/// they are (they were verified by [`parse_note`]).
pub fn note_with(existing: &[Bundle], added: &[Bundle]) -> Result<Vec<u8>, BundleError> {
    let mut lines = Vec::new();
    for b in existing.iter().chain(added) {
        lines.push(b.to_bytes()?);
    }
    Ok(sorted_lines(lines))
}

/// `lines` sorted bytewise, each once, each LF-terminated: a note's bytes.
fn sorted_lines(mut lines: Vec<Vec<u8>>) -> Vec<u8> {
    lines.sort();
    lines.dedup();
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(&l);
        out.push(b'\n');
    }
    out
}

/// The lines of a note as a gate reads authority from them: every
/// non-empty LF-separated line once, in the note's order. Only the note's
/// size is bounded ([`MAX_NOTE_BYTES`], `input_too_large`, refused before
/// splitting); its order, its line count and a missing final newline are
/// not refused here, so nothing appended to a note (the notes ref only
/// grows) can make the lines already in it unreadable. Whether a line is a
/// bundle is each line's own question ([`Bundle::from_bytes`]).
pub fn note_lines(bytes: &[u8]) -> Result<Vec<&[u8]>, NoteError> {
    if bytes.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge {
            size: bytes.len(),
            limit: MAX_NOTE_BYTES,
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    Ok(bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty() && seen.insert(*l))
        .collect())
}

/// The note `existing` holds with `added` bundles added: every existing
/// line kept byte for byte, a line that is no bundle included (the notes
/// ref only grows: a publication never drops what it found), each added
/// bundle's canonical bytes once, all sorted bytewise and LF-terminated
/// (what `git notes merge -s cat_sort_uniq` keeps). A result over
/// [`MAX_NOTE_BYTES`] is refused (`input_too_large`): no gate could read it.
pub fn note_adding(existing: Option<&[u8]>, added: &[Bundle]) -> Result<Vec<u8>, NoteError> {
    let mut lines: Vec<Vec<u8>> = match existing {
        Some(bytes) => note_lines(bytes)?.into_iter().map(<[u8]>::to_vec).collect(),
        None => Vec::new(),
    };
    let kept = lines.len();
    for (i, b) in added.iter().enumerate() {
        lines.push(b.to_bytes().map_err(|source| NoteError::Bundle {
            line: kept + i + 1,
            source,
        })?);
    }
    let out = sorted_lines(lines);
    if out.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge {
            size: out.len(),
            limit: MAX_NOTE_BYTES,
        });
    }
    Ok(out)
}

/// How much a refusal says about its line, least first: the most specific
/// refusal of a note is the one a denial names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Refusal {
    /// The bundle verified but conflicts with authority already imported
    /// (another review of the same candidate, another revision).
    Conflict,
    /// The bundle verified, but the signature policy refuses it.
    Policy,
    /// The bundle does not fit the repository's objects (missing trees,
    /// other paths).
    Repository,
    /// The line is no bundle: not one, edited, forged, or the whole note is
    /// unreadable.
    Bytes,
}

/// One line of a note that gave no authority, as the notes gates report
/// it (a warning while another bundle proves the delivery; the denial's
/// reason when none does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedBundle {
    /// The commit the note annotates.
    pub commit: CommitId,
    /// The line's 1-based number in the note; 0 when the whole note is
    /// refused (over its size bound).
    pub line: usize,
    /// The stable reason code (a note, bundle, scope, signature or import
    /// code).
    pub reason_code: String,
    /// What is wrong, for people.
    pub message: String,
    /// What to do next (`repair`, `sign`).
    pub next_action: &'static str,
    #[serde(skip)]
    kind: Refusal,
}

/// What the lines of one commit's note gave a notes gate: how many of its
/// bundles were imported as authority, and every line refused, with why.
/// A bundle counts on its own: a line that is no bundle, a forged one, one
/// the signature policy refuses, or one that conflicts with authority
/// already imported never blocks another line of the note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteAuthority {
    commit: CommitId,
    imported: usize,
    /// Every lineage of every bundle imported from the note (each record
    /// of its chain), sorted: what the note carries as authority (D-R146).
    carried: Vec<LineageId>,
    refused: Vec<RefusedBundle>,
}

impl NoteAuthority {
    /// Nothing read yet from the note of `commit`.
    pub fn new(commit: CommitId) -> Self {
        Self {
            commit,
            imported: 0,
            carried: Vec::new(),
            refused: Vec::new(),
        }
    }

    fn refuse(
        &mut self,
        kind: Refusal,
        line: usize,
        code: &str,
        message: String,
        next: &'static str,
    ) {
        self.refused.push(RefusedBundle {
            commit: self.commit.clone(),
            line,
            reason_code: code.to_string(),
            message,
            next_action: next,
            kind,
        });
    }

    /// A bundle of the note was verified and imported: `bundle`, whose
    /// lineages the note now carries.
    pub fn imported(&mut self, bundle: &Bundle) {
        self.imported += 1;
        for r in &bundle.records {
            let l = r.state().lineage_id();
            if let Err(at) = self.carried.binary_search(l) {
                self.carried.insert(at, l.clone());
            }
        }
    }

    /// Whether a bundle imported from the note carries `lineage` (a record
    /// of its chain): the note gives that approval as authority (D-R146).
    pub fn carries(&self, lineage: &LineageId) -> bool {
        self.carried.binary_search(lineage).is_ok()
    }

    /// The whole note is unreadable (over its size bound).
    pub fn note_refused(&mut self, code: &str, message: String) {
        self.refuse(Refusal::Bytes, 0, code, message, "repair");
    }

    /// Line `line` is no bundle Probity accepts (its bytes, digest, records
    /// or chain).
    pub fn bytes_refused(&mut self, line: usize, code: &str, message: String) {
        self.refuse(Refusal::Bytes, line, code, message, "repair");
    }

    /// Line `line` verifies but does not fit the repository's objects.
    pub fn repository_refused(&mut self, line: usize, code: &str, message: String) {
        self.repository_refused_with(line, code, message, "repair");
    }

    /// [`Self::repository_refused`] with its own next action (`check_range`
    /// for a diff over the bound on diff work, D-R130).
    pub fn repository_refused_with(
        &mut self,
        line: usize,
        code: &str,
        message: String,
        next: &'static str,
    ) {
        self.refuse(Refusal::Repository, line, code, message, next);
    }

    /// Line `line` verifies, but the signature policy refuses it.
    pub fn policy_refused(&mut self, line: usize, code: &str, message: String, next: &'static str) {
        self.refuse(Refusal::Policy, line, code, message, next);
    }

    /// Line `line` verifies but conflicts with authority already imported.
    pub fn conflict_refused(&mut self, line: usize, code: &str, message: String) {
        self.refuse(Refusal::Conflict, line, code, message, "repair");
    }

    /// The commit the note annotates.
    pub fn commit(&self) -> &CommitId {
        &self.commit
    }

    /// Whether any bundle of the note was imported.
    pub fn counts(&self) -> bool {
        self.imported > 0
    }

    /// Every refused line, in the note's order.
    pub fn refused(&self) -> &[RefusedBundle] {
        &self.refused
    }

    /// When no bundle of the note was imported, its most specific refusal
    /// (no bundle at all before a misfit to the repository, before the
    /// signature policy, before a conflict; the first line among equals).
    pub fn denial(&self) -> Option<&RefusedBundle> {
        if self.counts() {
            return None;
        }
        let best = self.refused.iter().map(|r| r.kind).max()?;
        self.refused.iter().find(|r| r.kind == best)
    }
}

/// How many passes a notes gate imports in ([`import_rank`]).
pub const IMPORT_RANKS: usize = 3;

/// The pass, `0` first, in which a notes gate imports `bundle` (every
/// bundle of a pass, over all the push's notes, before any of the next):
/// `0` when it approves exactly what its commit delivers (`delivers`: the
/// commit's (base tree, tree); `None` for a merge), `1` when its leaf is
/// another approved review (what a rebase proof or a first publication's
/// history review needs), `2` for any other (an unfinished, escalated or
/// invalidated review: never authority). Taken first, an approval cannot
/// lose its candidate to a line that authorizes nothing (another clone's
/// unfinished review of the same candidate, a stale one, whatever order
/// the lines are in), so no such line appended to the notes can jam the
/// delivery it proves; two approvals of one candidate both prove it.
pub fn import_rank(bundle: &Bundle, delivers: Option<(&TreeId, &TreeId)>) -> usize {
    if delivers.is_some_and(|(base, tree)| bundle.approves(base, tree)) {
        0
    } else if bundle
        .leaf()
        .is_some_and(|r| matches!(r.state.stage, Stage::Approved { .. }))
    {
        1
    } else {
        2
    }
}

/// What a notes gate answers instead of its delivery judgment: nothing when
/// the judgment allows (it stood on verified, imported authority only, so
/// the refused lines are reported and never fatal); when it denies, the
/// most specific refusal of the first note that gave no authority, so the
/// denial names what is wrong with the authority that was meant to prove
/// the delivery (a forged bundle, a missing signature) rather than only
/// that no receipt was found.
pub fn notes_denial(judgment_allows: bool, notes: &[NoteAuthority]) -> Option<&RefusedBundle> {
    if judgment_allows {
        return None;
    }
    notes.iter().find_map(NoteAuthority::denial)
}

/// Every refused line of `notes`, commit by commit, for the report.
pub fn refused_bundles(notes: &[NoteAuthority]) -> Vec<RefusedBundle> {
    notes
        .iter()
        .flat_map(|n| n.refused.iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{approved, bundle, envelope, pending_bundle};
    use super::*;

    #[test]
    fn notes_are_sorted_unique_lines_and_merge_by_concatenation() {
        let a = bundle();
        let b = Bundle::build(vec![approved().record().unwrap()], vec![envelope()]).unwrap();
        let one = note_with(&[], std::slice::from_ref(&a)).unwrap();
        let two = note_with(std::slice::from_ref(&b), &[a.clone(), b.clone()]).unwrap();
        assert_eq!(parse_note(&one).unwrap(), vec![a.clone()]);
        let parsed = parse_note(&two).unwrap();
        assert_eq!(parsed.len(), 2);
        // cat_sort_uniq of the two notes is the note of the union.
        let mut lines: Vec<&[u8]> = one
            .split_inclusive(|c| *c == b'\n')
            .chain(two.split_inclusive(|c| *c == b'\n'))
            .collect();
        lines.sort();
        lines.dedup();
        assert_eq!(lines.concat(), two);
        // Unsorted, duplicated, blank, unterminated: refused.
        let mut rev = two.split_inclusive(|c| *c == b'\n').collect::<Vec<_>>();
        rev.reverse();
        assert_eq!(
            parse_note(&rev.concat()).unwrap_err().code(),
            "note_invalid"
        );
        assert_eq!(
            parse_note(&[one.clone(), one.clone()].concat())
                .unwrap_err()
                .code(),
            "note_invalid"
        );
        assert_eq!(parse_note(b"\n").unwrap_err().code(), "note_invalid");
        assert_eq!(
            parse_note(&one[..one.len() - 1]).unwrap_err().code(),
            "note_invalid"
        );
        assert_eq!(parse_note(b"{}\n").unwrap_err().code(), "bundle_invalid");
    }

    #[test]
    fn note_lines_are_read_whatever_was_appended() {
        let a = bundle().to_bytes().unwrap();
        let mut note = b"zz garbage\n\n".to_vec();
        note.extend_from_slice(&a);
        note.extend_from_slice(b"\nzz garbage\n");
        note.extend_from_slice(b"no final newline");
        // Unsorted, duplicated, blank lines, no final LF: every line once.
        let lines = note_lines(&note).unwrap();
        assert_eq!(
            lines,
            vec![&b"zz garbage"[..], &a[..], &b"no final newline"[..]]
        );
        // Past 32 lines too: only the bytes are bounded.
        let many: Vec<u8> = (0..100)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        assert_eq!(note_lines(&many).unwrap().len(), 100);
        let big = vec![b'x'; MAX_NOTE_BYTES + 1];
        assert_eq!(note_lines(&big).unwrap_err().code(), "input_too_large");
    }

    #[test]
    fn a_publication_keeps_every_line_it_found() {
        let a = bundle();
        let b = Bundle::build(vec![approved().record().unwrap()], vec![envelope()]).unwrap();
        let existing = b"not a bundle\n".to_vec();
        let note = note_adding(Some(&existing), &[a.clone(), b.clone(), a.clone()]).unwrap();
        let lines = note_lines(&note).unwrap();
        assert_eq!(lines.len(), 3);
        assert!(lines.contains(&&b"not a bundle"[..]));
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert!(note.ends_with(b"\n"));
        // Idempotent, and what the strict parser reads when every line is a
        // bundle.
        assert_eq!(
            note_adding(Some(&note), std::slice::from_ref(&a)).unwrap(),
            note
        );
        let clean = note_adding(None, &[b.clone(), a.clone()]).unwrap();
        assert_eq!(parse_note(&clean).unwrap().len(), 2);
        assert_eq!(clean, note_with(&[], &[a, b]).unwrap());
    }

    /// A bundle of another lineage than [`bundle`]'s (its record's id
    /// changed: what the note carries is read from the records).
    fn other_bundle() -> Bundle {
        let mut o = pending_bundle();
        let id = LineageId::parse("review-0000000000000001").unwrap();
        for r in &mut o.records {
            r.state.lineage_id = id.clone();
        }
        o.lineage_id = id;
        o
    }

    fn commit(c: char) -> CommitId {
        CommitId::parse(c.to_string().repeat(40)).unwrap()
    }

    #[test]
    fn a_bundle_that_approves_its_commit_is_imported_first() {
        let b = bundle();
        let s = &b.records[0].state;
        let (base, tree) = (&s.snapshot.base_tree, &s.snapshot.candidate_tree);
        assert_eq!(import_rank(&b, Some((base, tree))), 0);
        // Another commit's approval: after every exact one.
        assert_eq!(import_rank(&b, Some((tree, base))), 1);
        assert_eq!(import_rank(&b, None), 1, "a merge delivers no review");
        // An unfinished review: last, whatever it names.
        let pending = pending_bundle();
        assert_eq!(import_rank(&pending, Some((base, tree))), 2);
        assert_eq!(IMPORT_RANKS, 3);
    }

    #[test]
    fn one_imported_bundle_makes_the_others_warnings() {
        let mut n = NoteAuthority::new(commit('a'));
        n.bytes_refused(1, "bundle_record_invalid", "forged".into());
        let b = bundle();
        n.imported(&b);
        assert!(n.carries(&b.lineage_id));
        assert!(!n.carries(&other_bundle().lineage_id));
        n.conflict_refused(3, "import_conflict", "another review".into());
        assert!(n.counts());
        assert_eq!(n.denial(), None);
        assert_eq!(n.refused().len(), 2);
        assert_eq!(notes_denial(true, std::slice::from_ref(&n)), None);
        // The judgment denies for another reason: the note that counted
        // names nothing.
        assert_eq!(notes_denial(false, std::slice::from_ref(&n)), None);
        let all = refused_bundles(std::slice::from_ref(&n));
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].commit, commit('a'));
        assert_eq!(all[0].line, 1);
        let json = serde_json::to_value(&all[1]).unwrap();
        assert_eq!(json["reason_code"], "import_conflict");
        assert_eq!(json["next_action"], "repair");
        assert!(json.get("kind").is_none());
    }

    /// D-R146: a delivery's approvals count only on its own commit's note;
    /// a squash needs every review it composes there.
    #[test]
    fn an_approval_counts_only_on_the_note_of_the_commit_it_delivers() {
        use crate::review::{ApprovedDelivery, check_approvals_on_own_notes};
        let (b, p) = (bundle(), other_bundle());
        let delivery = |c: char, composed_of: Vec<LineageId>| ApprovedDelivery {
            refs: vec!["refs/heads/main".into()],
            commit: commit(c),
            lineage: b.lineage_id.clone(),
            composed_of,
        };
        let mut own = NoteAuthority::new(commit('a'));
        own.imported(&b);
        let mut sibling = NoteAuthority::new(commit('f'));
        sibling.imported(&b);
        let notes = [own.clone(), sibling.clone()];
        assert_eq!(
            check_approvals_on_own_notes(&[delivery('a', vec![])], &notes),
            Ok(())
        );
        // On the empty sibling's note only (red team round 6's move).
        let e = check_approvals_on_own_notes(&[delivery('b', vec![])], &notes).unwrap_err();
        assert_eq!(
            (e.code(), &e.commit, &e.lineage),
            ("approval_not_on_commit", &commit('b'), &b.lineage_id)
        );
        assert_eq!(e.refname, "refs/heads/main");
        assert!(e.to_string().contains("probity publish"), "{e}");
        // A line of its own note that gave nothing carries nothing.
        let mut refused = NoteAuthority::new(commit('b'));
        refused.policy_refused(1, "signature_missing", "m".into(), "sign");
        assert!(
            check_approvals_on_own_notes(&[delivery('b', vec![])], &[refused, sibling]).is_err()
        );
        // A squash: each composed review on its own note.
        let squash = delivery('a', vec![p.lineage_id.clone(), b.lineage_id.clone()]);
        let e = check_approvals_on_own_notes(std::slice::from_ref(&squash), &notes).unwrap_err();
        assert_eq!(e.lineage, p.lineage_id);
        own.imported(&p);
        assert_eq!(check_approvals_on_own_notes(&[squash], &[own]), Ok(()));
        assert_eq!(check_approvals_on_own_notes(&[], &[]), Ok(()));
    }

    #[test]
    fn with_nothing_imported_the_most_specific_refusal_answers() {
        let mut n = NoteAuthority::new(commit('b'));
        n.conflict_refused(1, "import_conflict", "c".into());
        n.policy_refused(2, "signature_missing", "p".into(), "sign");
        n.repository_refused(3, "objects_missing", "r".into());
        assert_eq!(n.denial().unwrap().reason_code, "objects_missing");
        n.bytes_refused(4, "bundle_record_invalid", "forged".into());
        n.bytes_refused(5, "bundle_invalid", "garbage".into());
        // No bundle at all beats the rest; the first among equals.
        assert_eq!(n.denial().unwrap().reason_code, "bundle_record_invalid");
        let mut p = NoteAuthority::new(commit('c'));
        p.policy_refused(1, "signer_not_allowed", "m".into(), "sign");
        p.policy_refused(2, "signature_missing", "u".into(), "sign");
        p.conflict_refused(3, "import_conflict", "c".into());
        assert_eq!(p.denial().unwrap().reason_code, "signer_not_allowed");
        assert_eq!(p.denial().unwrap().next_action, "sign");
        let mut whole = NoteAuthority::new(commit('d'));
        whole.note_refused("input_too_large", "big".into());
        assert_eq!(whole.denial().unwrap().line, 0);
        // A judgment that allows stands on imported authority: no note
        // refusal overrules it. One that denies names the first note that
        // gave nothing.
        let counted = {
            let mut c = NoteAuthority::new(commit('e'));
            c.imported(&bundle());
            c
        };
        let notes = [counted, p.clone(), n.clone()];
        assert_eq!(notes_denial(true, &notes), None);
        assert_eq!(notes_denial(false, &notes).unwrap().commit, commit('c'));
        // An empty note (nothing refused, nothing imported) names nothing.
        assert_eq!(NoteAuthority::new(commit('f')).denial(), None);
    }
}
