//! The sentences of the release gate's own decisions (`review/release.rs`,
//! R8.7): the artifacts against their checksums, the final recheck of the
//! revision and the evidence, and a revision too far from a change.

use super::Row;
use crate::review::gate::{GateStage, NextAction, ReasonCode};
use crate::review::ids::CommitId;

/// One outcome of the release gate's checks, with what its sentence names.
pub(crate) enum ReleaseSaid<'a> {
    /// Artifacts missing or differing from the checksums file; `parts`
    /// lists them (`missing: …; digest differs: …`).
    EvidenceMismatch { parts: String },
    /// Artifacts that read back differently at the final recheck.
    EvidenceChanged { changed: String },
    /// The evidence was judged but not read again, or the reverse.
    NotReadTwice,
    /// The revision now names another commit.
    RevisionMoved {
        revision: &'a str,
        judged: &'a CommitId,
        now: &'a CommitId,
    },
    /// The revision no longer resolves.
    RevisionGone {
        revision: &'a str,
        judged: &'a CommitId,
    },
    /// The tip and its last `max` ancestors change no bytes.
    UnchangedTooFar { tip: &'a CommitId, max: usize },
}

impl ReleaseSaid<'_> {
    /// The note an allow that stood the final recheck ends with.
    pub(crate) fn artifacts_matched(n: usize) -> String {
        format!("{n} release artifact(s) match their checksums")
    }

    /// The note before the answer for a revision `tip` that changes no
    /// bytes and so releases the bytes of its ancestor `ancestor`.
    pub(crate) fn releases_ancestor(tip: &CommitId, ancestor: &CommitId) -> String {
        format!("{tip} changes no bytes, so it releases the bytes of {ancestor}")
    }
}

impl Row for ReleaseSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::{Authority, Boundary};
        // Every release denial asks to check the range.
        let (reason, stage) = match self {
            ReleaseSaid::EvidenceMismatch { .. } => {
                (ReasonCode::ReleaseEvidenceMismatch, Authority)
            }
            ReleaseSaid::EvidenceChanged { .. } | ReleaseSaid::NotReadTwice => {
                (ReasonCode::ReleaseEvidenceChanged, Authority)
            }
            ReleaseSaid::RevisionMoved { .. } | ReleaseSaid::RevisionGone { .. } => {
                (ReasonCode::ReleaseRevisionMoved, Authority)
            }
            ReleaseSaid::UnchangedTooFar { .. } => (ReasonCode::DeliveryTooLarge, Boundary),
        };
        (reason, stage, NextAction::CheckRange)
    }

    fn sentence(&self) -> String {
        match self {
            ReleaseSaid::EvidenceMismatch { parts } => format!(
                "the release evidence does not match its checksums ({parts}); rebuild the artifacts from the released revision"
            ),
            ReleaseSaid::EvidenceChanged { changed } => format!(
                "release evidence changed while the gate decided ({changed}); run the gate again once nothing writes the artifacts"
            ),
            ReleaseSaid::NotReadTwice => {
                "the release evidence was not read twice; run the gate again".into()
            }
            ReleaseSaid::RevisionMoved {
                revision,
                judged,
                now,
            } => format!(
                "`{revision}` moved from {judged} to {now} while the gate decided; run the gate again on the revision you release"
            ),
            ReleaseSaid::RevisionGone { revision, judged } => format!(
                "`{revision}` named {judged} and no longer resolves: it was deleted while the gate decided; run the gate again on the revision you release"
            ),
            ReleaseSaid::UnchangedTooFar { tip, max } => format!(
                "{tip} and its last {max} ancestors change no bytes: release a revision whose own commit changes what is released"
            ),
        }
    }
}
