//! Red team round 37's 37ei: a review whose chain holds an authorized
//! recovery of an escalation rests on that act wherever it sits in the
//! chain. The agent recovered its own escalation (`escalation_authorized`,
//! free text naming the maintainer), invalidated that successor and
//! recovered again (`invalidated`): the leaf's own link no longer said
//! `escalation_authorized`, and its reviewer signature alone landed. On a
//! real bare remote with the server hook; beside it, the maintainer's
//! signature on the same leaf lands.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;
use support::*;

#[test]
fn an_escalation_recovered_then_invalidated_still_needs_the_maintainer() {
    let t = Team::new();
    write_medium_change(&t.f);
    let root = t.f.root();
    let l2 = escalate_and_recover(root, t.inputs.path(), "flaky", "alice said ok");
    let gone = invalidate(&t.f, &l2, "start over");
    assert_eq!(gone.code, 0, "{}{}", gone.stdout, gone.stderr);
    let st = probity(root, &["status", "--lineage", &l2]);
    let rev = string_at(&st.json, "store_revision");
    let rec = probity_ok(
        root,
        &recover_args(&l2, &rev, "invalidated", "start over", "agent"),
    );
    let l3 = string_at(&rec.json, "lineage_id");
    let st3 = probity(root, &["status", "--lineage", &l3]);
    approve_started(root, t.inputs.path(), &st3.json);
    let c = commit_all(&t.f, "escalated, recovered twice");
    // The reviewer's signature covers the tier, not the act it rests on.
    t.signed_yet_unmet(&t.agent, &l3, &["maintainer"]);
    t.signed_lands(&t.alice, &l3, c);
}
