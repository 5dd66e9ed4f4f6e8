//! The next step each server-gate denial names, by its reason code (the
//! server hook's, the CI forms' and `probity push`'s own refusal), and
//! how a CI form's pusher follows it. Moved out of `pre_receive.rs` as it
//! was (moves only).

use std::borrow::Cow;

use super::pre_receive::{SERVER_MISCONFIGURED, ServerFaults};

/// What a pusher does next about a denial's reason code (the server
/// gate's, and `probity push`'s own refusal).
pub fn next_hint(code: &str) -> &'static str {
    match code {
        SERVER_MISCONFIGURED => ServerFaults::NEXT,
        "signature_missing" | "signature_invalid" | "signer_not_allowed" => {
            "sign the review with a key the server allows (`probity attest --lineage <id> --sign`, the lineage the message names), then `probity push` again"
        }
        "allowed_signers_missing"
        | "allowed_signers_not_found"
        | "unreadable_input"
        | "input_not_regular"
        | "signing_tool" => {
            "fix the signature settings: probity.allowedSignersFile must name a readable allowed-signers file, and ssh-keygen must run"
        }
        "receipt_missing" | "receipt_scope_changed" | "receipt_unrelated" => {
            "review the commit (`probity start` / `finalize`), then `probity push` (it publishes refs/notes/probity with the commits)"
        }
        "review_incomplete" => "finish the review (`probity finalize`), then `probity push`",
        "risk_raised_by_rebase" => {
            "review the rebased commit as it is (`probity start --commit <sha>`, the lenses, `probity finalize`), sign it with the roles its tier asks, then `probity push`"
        }
        "review_escalated" | "review_invalidated" | "receipt_superseded" => {
            "a person decides: recover the lineage (`probity recover`) and review again, then `probity push`"
        }
        "delivery_partial" => {
            "rebase the merge away as the reason says, review each commit (`probity start --range`), then `probity push`"
        }
        "delivery_empty" => "push a ref that brings in the reviewed commits",
        "history_not_reviewed" => {
            "squash the history into one root commit whose tree is the reviewed one, as the reason says, then `probity push`"
        }
        "delivery_too_large" => {
            "push the stack in parts as the reason says (each part's commits reviewed), with `probity push`"
        }
        "diff_too_large" => {
            "the reason names the file and the limit. Over the limit for one check: push fewer commits at a time, oldest first (`probity push <remote> <commit>:refs/heads/<branch>` for a commit part-way up the stack, then the rest); over the limit for one file: make that change in smaller commits, each reviewed (`probity start --commit <sha>`), or keep the file out of review with Git LFS"
        }
        "tree_malformed" => {
            "the reason names the tree, where it sits and what `git fsck` reports of it: git will not check such a tree out: make those commits again on their parent with git's own commands (`git checkout <parent>`, edit, `git add -A`, `git commit`: git writes every tree well formed), review them (`probity start --commit <sha>`), then `probity push`; pushed notes: start again from the server's (`git fetch origin +refs/notes/probity:refs/notes/probity`), then `probity publish` and push; a base on the server holding such a tree is repaired by an administrator on the server"
        }
        "delivery_not_fast_forward" => "fetch, rebase onto the server's tip, review, then push",
        "notes_line_removed" => {
            "keep every line of every note the server holds: `git fetch origin refs/notes/probity:refs/notes/probity-remote`, `git notes --ref=probity merge -s cat_sort_uniq refs/notes/probity-remote`, add lines only, then push it"
        }
        "notes_ref_deleted" | "notes_ref_rewritten" => {
            "never delete or force refs/notes/probity: `git fetch origin refs/notes/probity:refs/notes/probity-remote`, `git notes --ref=probity merge -s cat_sort_uniq refs/notes/probity-remote`, then push it"
        }
        "objects_missing" => "push the commits the note's review covers with it",
        "default_branch_unborn" => {
            "ask the server's administrator, in the server's repository, to point HEAD at the team's branch (`git symbolic-ref HEAD refs/heads/main`) or to create the branch HEAD names at the commit the team agrees on (`git update-ref refs/heads/<branch> <commit>`), then push again"
        }
        "base_advanced" => {
            "rebase the proposal onto the base's tip the reason names (`git rebase <tip>`), review the rebased commits as committed (`probity start --range <tip>..HEAD`, the lenses, `probity finalize`), then `probity push` the rebased branch"
        }
        "note_path_invalid" => {
            "push notes as Probity writes them: start again from the server's (`git fetch origin +refs/notes/probity:refs/notes/probity`), then `probity publish` and push"
        }
        "input_too_large" => {
            "the message names what is over its bound: a note over 8 MiB is read by no gate, so push notes without it (start again from the server's, `git fetch origin +refs/notes/probity:refs/notes/probity`, then `probity publish`, which writes bounded bundles, and push); an allowed-signers file over 1 MiB is the server's administrator's to fix"
        }
        "approval_not_on_commit" => {
            "publish the review on the commit it delivers (`probity publish` writes each approval on the note of the commit it delivers), then push that commit with refs/notes/probity (`probity push`)"
        }
        "approval_spent" => {
            "amend the change together with other bytes (the same bytes on the same base cannot be reviewed again yet), review that commit (`probity start --commit <sha>`), then `probity push`"
        }
        "roles_unmet" => {
            "each role holder the reason names imports the bundle (`probity bundle import`), signs it with their own key (`probity attest --sign` for the lineage the reason names) and publishes (`probity publish`); then `probity push` again"
        }
        "risk_raised_by_correction" => {
            "a person records a successor that re-freezes the delivered tree at its tier (`probity recover --predecessor-lineage <L> --expected-predecessor-revision <REV> --disposition scope_changed --reason ... --actor ...`, the lineage the reason names; `probity status --lineage <L>` prints its revision), the successor is reviewed (its lenses, `probity finalize`; under a policy that tier's roles sign), then `probity push`"
        }
        "policy_floor_unmet" => {
            "review the delivered commit again under the base's policy (`probity start --commit` on it, after rebasing onto the protected tip: it freezes the floor's tier), then `probity push`"
        }
        "checks_unmet" => {
            "review the change again and finalize it with the check the reason names (`probity finalize --evidence-cmd -- <its argv>`, on the reviewed tree), then `probity push`"
        }
        "transcripts_unmet" => {
            "review the delivered commit again with the model (`probity start --commit` on it, then `probity review --lineage <L>`), have the policy's roles sign it (`probity attest --sign`), then `probity push`"
        }
        "replace_ref_refused" => {
            "push without the replacement (`git push <remote> :refs/replace/<id>` deletes one already pushed): give the reviewed commits themselves, reviewed (`probity start --commit <sha>`), then `probity push`"
        }
        "notes_ref_blocked" => {
            "push that ref under another name (nothing may be named `refs/notes` or sit under `refs/notes/probity/`): review authority travels in refs/notes/probity alone"
        }
        "protected_ref_deleted" => {
            "keep the ref (a protected ref's history stays published); if it must go, the server's administrator allows it once with `git config probity.allowProtectedDeletion true`"
        }
        _ => {
            "republish the authority from the clone that holds the review (`probity publish`), then push refs/notes/probity again"
        }
    }
}

/// Where the judged commits are. The server hook and the pre-push gate
/// judge commits on their way; the CI forms judge commits the forge holds
/// already, which a plain `probity publish` skips (it publishes what no
/// remote holds), so their next step publishes by range.
#[derive(Debug, Clone, Copy)]
pub enum Judged<'a> {
    /// On their way to the remote (a hook, `validate pre-push`).
    Pushing,
    /// On the remote already: the CI range `OLD..NEW`, or a proposal's
    /// `BASE..HEAD`.
    OnRemote(&'a str),
}

impl Judged<'_> {
    /// `next`, the step for `code`, as this form's pusher follows it: when
    /// the commits are on the remote already and the fix is new authority
    /// for those same commits ([`fixed_by_publishing`]), it names the
    /// range to publish.
    pub(super) fn step(self, code: &str, next: &'static str) -> Cow<'static, str> {
        match self {
            Judged::OnRemote(range) if fixed_by_publishing(code) => Cow::Owned(format!(
                "{next}. The commits are on the remote already, where a plain `probity publish` or `probity push` does not reach them: publish their notes with `probity publish --range {range}` and push the notes with `git push <remote> refs/notes/probity`"
            )),
            _ => Cow::Borrowed(next),
        }
    }
}

/// Whether a denial with `code` is fixed by new authority for the commits
/// already pushed (a review, a signature, a check), published as their
/// notes; not when the fix makes new commits (a squash, a rebase, other
/// bytes) or repairs the notes ref itself.
fn fixed_by_publishing(code: &str) -> bool {
    !matches!(
        code,
        "approval_spent"
            | "base_advanced"
            | "delivery_partial"
            | "history_not_reviewed"
            | "delivery_too_large"
            | "diff_too_large"
            | "tree_malformed"
            | "delivery_not_fast_forward"
            | "delivery_empty"
            | "notes_line_removed"
            | "notes_ref_deleted"
            | "notes_ref_rewritten"
            | "note_path_invalid"
            | "input_too_large"
            | "protected_ref_deleted"
            | "notes_ref_blocked"
            | "replace_ref_refused"
            | "default_branch_unborn"
            | "objects_missing"
            | "allowed_signers_missing"
            | "allowed_signers_not_found"
            | "unreadable_input"
            | "input_not_regular"
            | "signing_tool"
            | "server_misconfigured"
    )
}

/// The next step of a server denial: a receipt missing from a push that
/// carries no `refs/notes/probity` may be a reviewed commit whose notes
/// stayed behind, so it says so first.
pub(super) fn denial_next(code: &str, notes_pushed: Option<bool>) -> &'static str {
    match (code, notes_pushed) {
        ("receipt_missing", Some(false)) => {
            "this push does not carry refs/notes/probity, so no review bundle came with it: if the commits are reviewed in your clone, push them with `probity push <remote> <ref>` (it publishes the notes with them); if not, review them first (`probity start`, `probity finalize`), then `probity push`"
        }
        _ => next_hint(code),
    }
}
