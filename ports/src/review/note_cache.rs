//! The notes one import has parsed (D-R139): each note's lines parsed
//! once, with what checking its bundles answered, shared by every commit
//! of the import whose note holds the same bytes.

use probity_core::review::with_note_attestations;
use probity_core::review::{Bundle, DerivationError, LineageId, note_lines};

use super::transport::{TransportError, check_repo};
use super::*;

/// One note's bytes, its lines parsed once, and what checking its bundles
/// answered (`check_repo` by line, the signature policy by lineage and
/// records): shared by every commit of one import whose note holds the
/// same bytes (red team round 5, attempt 21: one 7.9 MiB note on each of
/// a push's commits was parsed, checked against the repository and judged
/// again for each, about 50 ms a commit). Every answer kept is a function
/// of the line's bytes, the note's other lines and this repository's
/// objects, none of the scratch store: lines are still imported in the
/// order core ranks them, commit by commit.
pub(super) struct ParsedNote {
    pub(super) bytes: Vec<u8>,
    /// `note_lines`' refusal (code, text), or each line's bundle or the
    /// parse's refusal (code, text).
    pub(super) lines: Result<Vec<Result<Bundle, Refused>>, Refused>,
    /// What `check_repo` answered for the bundle of each line, by index.
    checked: std::cell::RefCell<std::collections::BTreeMap<usize, Checked>>,
    /// The signature policy's answers: every line of a lineage with the
    /// same records is judged with the same signatures (the note's, core's
    /// [`with_note_attestations`]), so once per note, however many lines
    /// repeat them (red team round 3: 400 lines of junk signatures).
    judged: std::cell::RefCell<Judged>,
}

/// A refusal's stable code and its text.
type Refused = (&'static str, String);

/// The policy's answers by (lineage, the canonical bytes of the bundle it
/// judged, the note's signatures merged in).
type Judged = std::collections::BTreeMap<(LineageId, Vec<u8>), Result<(), ReceiveDenial>>;

/// What `check_repo` answered for one line's bundle.
#[derive(Debug, Clone)]
pub(super) enum Checked {
    Passed,
    /// Refused: its code, its text, and which refusal it is.
    Refused(String, String, CheckRefusal),
}

#[derive(Debug, Clone, Copy)]
pub(super) enum CheckRefusal {
    /// The review is genuine but covers a lower tier than it delivers: a
    /// successor re-freezes it (D-R127).
    RiskRaised,
    /// Over the bound on diff work (D-R130).
    DiffWork,
    Repository,
}

impl ParsedNote {
    fn of(bytes: Vec<u8>) -> Self {
        let lines = match note_lines(&bytes) {
            Ok(lines) => Ok(lines
                .iter()
                .map(|l| Bundle::from_bytes(l).map_err(|e| (e.code(), e.to_string())))
                .collect()),
            Err(e) => Err((e.code(), e.to_string())),
        };
        Self {
            bytes,
            lines,
            checked: std::cell::RefCell::default(),
            judged: std::cell::RefCell::default(),
        }
    }

    /// The bundles of its lines, in line order.
    pub(super) fn bundles(&self) -> Vec<&Bundle> {
        match &self.lines {
            Ok(lines) => lines.iter().filter_map(|l| l.as_ref().ok()).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The bundles of its lines an import takes as authority, in line
    /// order: parsed, checked against this repository ([`Self::check`])
    /// and passed by `policy` ([`Self::judge`]), each answer the cached
    /// one.
    pub(super) fn passing<G, P>(&self, git: &G, policy: &P) -> Result<Vec<&Bundle>, TransportError>
    where
        G: GitPort + ExportGit + ManifestGit,
        P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
    {
        let Ok(lines) = &self.lines else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Ok(b) = line else { continue };
            if matches!(self.check(git, i, b)?, Checked::Passed) && self.judge(b, policy).is_ok() {
                out.push(b);
            }
        }
        Ok(out)
    }

    /// The bundle of line `i` (0-based), when it parsed.
    pub(super) fn bundle(&self, i: usize) -> Option<&Bundle> {
        self.lines.as_ref().ok()?.get(i)?.as_ref().ok()
    }

    /// `check_repo` over line `i`'s bundle `b`, asked once.
    pub(super) fn check<G: GitPort + ExportGit + ManifestGit>(
        &self,
        git: &G,
        i: usize,
        b: &Bundle,
    ) -> Result<Checked, TransportError> {
        if let Some(c) = self.checked.borrow().get(&i) {
            return Ok(c.clone());
        }
        let checked = match check_repo(git, b) {
            Ok(()) => Checked::Passed,
            Err(e) => {
                let code = e.code().unwrap_or("authority_invalid");
                let kind = match e {
                    TransportError::Derivation(DerivationError::RiskRaisedByCorrection {
                        ..
                    }) => CheckRefusal::RiskRaised,
                    _ if code == "diff_too_large" => CheckRefusal::DiffWork,
                    _ => CheckRefusal::Repository,
                };
                Checked::Refused(code.to_string(), e.to_string(), kind)
            }
        };
        self.checked.borrow_mut().insert(i, checked.clone());
        Ok(checked)
    }

    /// `policy` over `b` with the note's signatures for its lineage.
    pub(super) fn judge<P: Fn(&Bundle) -> Result<(), ReceiveDenial>>(
        &self,
        b: &Bundle,
        policy: &P,
    ) -> Result<(), ReceiveDenial> {
        let siblings = self.bundles();
        let input = with_note_attestations(b, &siblings);
        // Keyed by the policy's whole input, a cache, never a digest
        // anything else reads: lines that differ only in their signatures
        // are one input (the note's signatures are merged), and lines that
        // differ in anything the policy may read (the required checks read
        // the evidence) are judged each on its own (review of D-R151: keyed
        // by the records alone, a twin without evidence judged first
        // answered for one with it).
        let Ok(bytes) = probity_core::canonical::canonical_bytes(&input) else {
            return policy(&input);
        };
        let key = (b.lineage_id.clone(), bytes);
        if let Some(answer) = self.judged.borrow().get(&key) {
            return answer.clone();
        }
        let answer = policy(&input);
        self.judged.borrow_mut().insert(key, answer.clone());
        answer
    }
}

/// The notes one import has parsed, by their bytes, while they hold at
/// most [`NOTE_CACHE_BYTES`] in all; a note past that is parsed on its own
/// each time it is read, as before.
#[derive(Default)]
pub(super) struct NoteCache {
    /// By the note's whole bytes (an ordered map: a lookup compares them
    /// with a logarithmic number of kept notes, never all of them, and no
    /// note an adversary writes stands for another).
    notes: std::collections::BTreeMap<Vec<u8>, std::rc::Rc<ParsedNote>>,
    held: usize,
}

/// The most note bytes one import keeps parsed.
const NOTE_CACHE_BYTES: usize = 32 * 1024 * 1024;

impl NoteCache {
    /// The note holding `bytes`, parsed once.
    pub(super) fn parsed(&mut self, bytes: Vec<u8>) -> std::rc::Rc<ParsedNote> {
        if let Some(p) = self.notes.get(&bytes) {
            return p.clone();
        }
        let p = std::rc::Rc::new(ParsedNote::of(bytes));
        if self.held.saturating_add(p.bytes.len()) <= NOTE_CACHE_BYTES {
            self.held += p.bytes.len();
            self.notes.insert(p.bytes.clone(), p.clone());
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The approved bundle the goldens pin.
    fn bundle() -> Bundle {
        let snap = include_str!("../../../golden/tests/snapshots/review__bundle_approved.snap");
        let body = snap
            .splitn(3, "---\n")
            .nth(2)
            .unwrap_or_default()
            .trim_end();
        Bundle::from_bytes(body.as_bytes()).unwrap()
    }

    fn note(lines: Vec<Bundle>) -> ParsedNote {
        ParsedNote {
            bytes: Vec::new(),
            lines: Ok(lines.into_iter().map(Ok).collect()),
            checked: std::cell::RefCell::default(),
            judged: std::cell::RefCell::default(),
        }
    }

    /// Two lines of one lineage with the same records, one without what
    /// the policy reads: each judged on its own, whichever comes first;
    /// the same input is judged once.
    #[test]
    fn a_line_is_judged_on_its_whole_input_once() {
        let with = bundle();
        assert!(!with.receipts.is_empty());
        let mut without = with.clone();
        without.receipts.clear();
        let calls = std::cell::Cell::new(0);
        let policy = |b: &Bundle| {
            calls.set(calls.get() + 1);
            if b.receipts.is_empty() {
                Err(ReceiveDenial {
                    reason_code: "check_missing".into(),
                    refname: "refs/heads/main".into(),
                    commit: None,
                    message: "no receipt".into(),
                    next_action: "repair",
                })
            } else {
                Ok(())
            }
        };
        let n = note(vec![without.clone(), with.clone()]);
        assert!(n.judge(&without, &policy).is_err());
        assert!(n.judge(&with, &policy).is_ok());
        assert!(n.judge(&with, &policy).is_ok());
        assert!(n.judge(&without, &policy).is_err());
        assert_eq!(calls.get(), 2);
    }
}
