//! Red team round 36 (36rn, 36rp): work staged on a protected branch
//! before its authority was revoked does not reach a new protected ref
//! afterwards by the other branch's vouching. A new protected ref is
//! measured against the default branch, whose repository policy governs
//! every protected update: what that branch does not hold is judged under
//! today's policy and signers. On a real bare remote with the server
//! hook; beside it, the legitimate flows (a tag on the default branch, a
//! release branch made from work a current reviewer signed) land.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;
use support::*;

/// The team's server with tags protected beside every branch.
fn team_with_tags_protected() -> Team {
    team_protecting(&["refs/heads/*", "refs/tags/*"])
}

/// The team's server protecting `globs`.
fn team_protecting(globs: &[&str]) -> Team {
    let t = Team::new();
    for glob in globs {
        t.f.git_in(
            &t.server,
            &["config", "--add", "probity.protectedRefs", glob],
        )
        .unwrap();
    }
    t
}

/// The agent's staged work, then its revocation on `main`, then a new
/// protected tag at that work: refused as `roles_unmet`.
fn the_revoked_work_is_refused_a_new_tag(t: &Team) {
    let staged = staged_on(t, &t.agent, "feature", "src/staged.rs");
    revoke_the_agent(t);
    t.f.git(&["tag", "v9", &staged]).unwrap();
    let tag = push_no_verify(&t.f, &["origin", "refs/tags/v9"]).unwrap_err();
    assert!(tag.contains("DENY: roles_unmet"), "{tag}");
    assert_eq!(rev(&t.f, &t.server, "refs/tags/v9"), None);
}

/// `key` signs a medium change that lands on the protected branch
/// `branch` (with its notes); returns the commit.
fn staged_on(t: &Team, key: &std::path::Path, branch: &str, file: &str) -> String {
    t.f.git(&["checkout", "-q", "-B", branch, "main"]).unwrap();
    t.f.write(file, "pub fn staged() -> u32 { 1 }\n").unwrap();
    let (lineage, started, c) = t.review_commit("staged work");
    assert_eq!(started["risk_level"], "medium", "{started}");
    t.sign(key, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    let to = format!("HEAD:refs/heads/{branch}");
    push_no_verify(&t.f, &["--atomic", "origin", &to, "refs/notes/probity"]).unwrap();
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    c
}

/// ci and alice land on `main` a policy that drops the agent from the
/// reviewers and its key from the allowed signers.
fn revoke_the_agent(t: &Team) {
    let policy = policy_json().replace(&format!("\"{AGENT}\","), "");
    assert_ne!(policy, policy_json());
    t.f.write(".probity/policy.json", &policy).unwrap();
    let signers: String = std::fs::read_to_string(t.f.root().join(".probity/allowed_signers"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(AGENT))
        .map(|l| format!("{l}\n"))
        .collect();
    t.f.write(".probity/allowed_signers", &signers).unwrap();
    let (lineage, started, c) = t.review_commit("revoke the agent");
    assert_eq!(started["risk_level"], "high", "{started}");
    t.sign(&t.ci, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
}

/// 36rp: the agent's staged commit (signed when it was a reviewer) may
/// not become a new protected tag or branch once the policy on `main`
/// has revoked it.
#[test]
fn work_staged_before_a_revocation_does_not_reach_a_new_protected_ref() {
    let t = team_with_tags_protected();
    let staged = staged_on(&t, &t.agent, "feature", "src/staged.rs");
    revoke_the_agent(&t);
    let main = t.server_main();
    t.f.git(&["tag", "v9", &staged]).unwrap();
    let tag = push_no_verify(&t.f, &["origin", "refs/tags/v9"]).unwrap_err();
    assert!(tag.contains("DENY: roles_unmet"), "{tag}");
    assert_eq!(rev(&t.f, &t.server, "refs/tags/v9"), None);
    let to = format!("{staged}:refs/heads/release");
    let branch = push_no_verify(&t.f, &["origin", &to]).unwrap_err();
    assert!(branch.contains("DENY: roles_unmet"), "{branch}");
    assert_eq!(rev(&t.f, &t.server, "refs/heads/release"), None);
    assert_eq!(t.server_main(), main);
}

/// Beside it: a tag at a commit `main` holds lands as nothing delivered,
/// and a release branch made from work a current reviewer (ci) signed on
/// another protected branch lands, its commit judged again and allowed.
#[test]
fn new_protected_refs_over_current_authority_land() {
    let t = team_with_tags_protected();
    let by_ci = staged_on(&t, &t.ci, "feature", "src/by_ci.rs");
    revoke_the_agent(&t);
    let main = t.server_main().unwrap();
    t.f.git(&["tag", "v1", &main]).unwrap();
    push_no_verify(&t.f, &["origin", "refs/tags/v1"]).unwrap();
    assert_eq!(rev(&t.f, &t.server, "refs/tags/v1^{commit}"), Some(main));
    let to = format!("{by_ci}:refs/heads/release");
    push_no_verify(&t.f, &["origin", &to]).unwrap();
    assert_eq!(rev(&t.f, &t.server, "refs/heads/release"), Some(by_ci));
}

/// Red team round 38's 38hw: the server's `HEAD` is unborn (a bare
/// repository made with git's default `master` while the team pushes
/// `main`); nothing governs, and a new protected ref is measured against
/// what every protected ref holds: the revoked work is still refused.
#[test]
fn with_an_unborn_head_revoked_work_does_not_reach_a_new_protected_ref() {
    let t = team_with_tags_protected();
    t.f.git_in(&t.server, &["symbolic-ref", "HEAD", "refs/heads/master"])
        .unwrap();
    the_revoked_work_is_refused_a_new_tag(&t);
}

/// 38hv: `HEAD` names `master`, which no glob protects (anyone may move
/// it, and put any policy there): it governs nothing, and the revoked
/// work is refused. Beside it (round 38's L7), a tag on `main`'s reviewed
/// tip lands, as `HEAD` names a branch left at the first commit.
#[test]
fn with_head_on_an_unprotected_branch_revoked_work_does_not_reach_a_new_protected_ref() {
    let t = team_protecting(&["refs/heads/main", "refs/heads/feature", "refs/tags/*"]);
    let first = t.server_main().unwrap();
    push_no_verify(&t.f, &["origin", &format!("{first}:refs/heads/master")]).unwrap();
    t.f.git_in(&t.server, &["symbolic-ref", "HEAD", "refs/heads/master"])
        .unwrap();
    the_revoked_work_is_refused_a_new_tag(&t);
    let main = t.server_main().unwrap();
    t.f.git(&["tag", "v1", &main]).unwrap();
    push_no_verify(&t.f, &["origin", "refs/tags/v1"]).unwrap();
    assert_eq!(rev(&t.f, &t.server, "refs/tags/v1^{commit}"), Some(main));
}
