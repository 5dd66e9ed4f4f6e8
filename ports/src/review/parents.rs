//! What an allowing decision's approvals must also meet before a push is
//! let in: each carried by its delivering commit's own note (D-R146); and
//! a commit whose parent the push itself brings is judged under that
//! parent's repository policy too (D-R172; red team round 16's 03). The
//! policy a push's bases hold is the one in force for the first commit of
//! each stack, and a policy commit earlier in the same push (a revoked
//! reviewer, a new high path) is in force for the commits above it, as it
//! would be had it been pushed first.

use probity_core::review::{
    Bundle, CommitId, GateDecision, MAX_NOTE_BYTES, NoteAuthority, approved_deliveries,
    check_approvals_on_own_notes, over_pushed_parents, with_note_attestations,
};

use super::note_cache::NoteCache;
use super::{ExportGit, GitPort, ManifestGit, NotesGit, ReceiveDenial, TransportError};

/// What judges a note's bundle at the server gate and its CI forms: the
/// repository policy of the push's bases ([`BundlePolicy::judge`]) and,
/// for a commit whose parent the push itself brings, that parent's
/// ([`BundlePolicy::judge_under`]). Every `Fn(&Bundle) -> Result<(),
/// ReceiveDenial>` is one that knows no parent's policy (its
/// `judge_under` allows), so a consumer's closure keeps working.
///
/// ```
/// use probity_core::review::{Bundle, CommitId};
/// use probity_ports::review::{BundlePolicy, ReceiveDenial};
///
/// /// A team's own judge: every bundle passes under the bases, and none
/// /// under a parent whose rules it has not read.
/// struct Strict;
///
/// impl BundlePolicy for Strict {
///     fn judge(&self, _bundle: &Bundle) -> Result<(), ReceiveDenial> {
///         Ok(())
///     }
///     fn judge_under(&self, parent: &CommitId, b: &Bundle) -> Result<(), ReceiveDenial> {
///         Err(ReceiveDenial {
///             reason_code: "policy_unread".into(),
///             refname: "refs/heads/main".into(),
///             commit: Some(parent.clone()),
///             message: format!("the policy above {parent} is not read for {}", b.lineage_id),
///             next_action: "push_alone",
///         })
///     }
/// }
///
/// fn takes(_: &impl BundlePolicy) {}
/// takes(&Strict);
/// // A closure is one too: its `judge_under` allows.
/// takes(&|_: &Bundle| -> Result<(), ReceiveDenial> { Ok(()) });
/// ```
pub trait BundlePolicy {
    /// `bundle` (its signatures merged with its note's) under the policy
    /// of the push's bases: `Err` names why it gives no authority.
    fn judge(&self, bundle: &Bundle) -> Result<(), ReceiveDenial>;

    /// `bundle` under the policy `parent` holds, a commit the push brings
    /// whose child `bundle` approves. An implementation answers `Ok` when
    /// that policy is one [`BundlePolicy::judge`] already applies.
    fn judge_under(&self, parent: &CommitId, bundle: &Bundle) -> Result<(), ReceiveDenial> {
        let _ = (parent, bundle);
        Ok(())
    }
}

impl<F> BundlePolicy for F
where
    F: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    fn judge(&self, bundle: &Bundle) -> Result<(), ReceiveDenial> {
        self(bundle)
    }
}

/// The first approval of an allowing `decision` that no bundle of its
/// delivering commit's own note carries under the policy of that commit's
/// parent, where the push brings the parent (core's
/// [`over_pushed_parents`]); `None` when each is carried. Every line of
/// the note an import takes as authority (checked against the repository
/// and passed under the bases' rules) that carries the lineage is tried,
/// with the note's signatures, so one passing line is enough, as at the
/// import; a line the import refused counts for nothing here either.
pub(super) fn under_parents<G, P>(
    git: &G,
    notes: &CommitId,
    decision: &GateDecision,
    policy: &P,
    cache: &mut NoteCache,
) -> Result<Option<ReceiveDenial>, TransportError>
where
    G: GitPort + ExportGit + ManifestGit + NotesGit,
    P: BundlePolicy + ?Sized,
{
    for (parent, d) in over_pushed_parents(decision) {
        let Some(bytes) = git.read_note(notes, &d.commit, MAX_NOTE_BYTES)? else {
            continue;
        };
        let note = cache.parsed(bytes);
        let bundles = note.bundles();
        let passing = note.passing(git, &|b: &Bundle| policy.judge(b))?;
        for lineage in d.approvals() {
            let mut first = None;
            let carried = passing
                .iter()
                .filter(|b| b.records.iter().any(|r| r.state().lineage_id() == lineage))
                .any(|b| {
                    let input = with_note_attestations(b, &bundles);
                    match policy.judge_under(&parent, &input) {
                        Ok(()) => true,
                        Err(e) => {
                            first.get_or_insert(e);
                            false
                        }
                    }
                });
            if let (false, Some(mut denial)) = (carried, first) {
                denial.refname = d.refs.first().cloned().unwrap_or(denial.refname);
                denial.commit = Some(d.commit.clone());
                return Ok(Some(denial));
            }
        }
    }
    Ok(None)
}

/// Core's binding rule (D-R146) over an allowing decision: an approval
/// that no bundle imported from its delivering commit's own note carries
/// denies the push, so every delivery is named by the notes the replay
/// check searches.
pub(super) fn unbound_approval(
    decision: &GateDecision,
    read: &[NoteAuthority],
) -> Option<ReceiveDenial> {
    if !decision.allows() {
        return None;
    }
    let e = check_approvals_on_own_notes(&approved_deliveries(decision), read).err()?;
    Some(ReceiveDenial {
        reason_code: e.code().into(),
        refname: e.refname.clone(),
        commit: Some(e.commit.clone()),
        message: e.to_string(),
        next_action: "repair",
    })
}
