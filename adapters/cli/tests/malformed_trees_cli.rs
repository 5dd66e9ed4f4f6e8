//! Trees git never writes (D-R160, red team round 11), on a real bare
//! remote with the server hook. A tree listing a blob `.probity` before
//! the policy's own directory diffs as one added file, while git's lookup
//! of `.probity/policy.json` meets the blob and answers that there is no
//! policy: with such a tree on `main`, the team's roles and floors were
//! gone and a change the policy rates high landed unsigned, rated low.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::Team;
use probity_core::review::{CommitId, RangeCommit, RiskAssessment, RiskLevel, RiskPolicy};
use probity_core::review::{RiskReason, TreeId};
use probity_git::fixture::Fixture;
use support::raw_tree::{entries_of, raw_tree};
use support::transport::set_note;
use support::*;

/// `tree` with a blob `.probity` listed just before the directory
/// `.probity`: git's lookup of `.probity/policy.json` then answers nothing.
fn hiding_policy(f: &Fixture, tree: &str) -> String {
    let blob = git_out(f.root(), &["hash-object", "-w", "--stdin"], b"x\n", &[]);
    let mut out = Vec::new();
    for e in entries_of(f, tree) {
        if e.1 == ".probity" {
            out.push(("100644".into(), ".probity".into(), blob.trim().to_string()));
        }
        out.push(e);
    }
    raw_tree(f, &out)
}

fn commit_tree(f: &Fixture, tree: &str, parent: &str, message: &str) -> String {
    let out = git_out(
        f.root(),
        &["commit-tree", tree, "-p", parent, "-m", message],
        b"",
        &[],
    );
    out.trim().to_string()
}

/// Both CI forms (the pre-receive range form and the pre-PR form over the
/// notes) over `base..c`, in `f`'s root.
fn ci_forms(f: &Fixture, base: &str, c: &str) -> Vec<Run> {
    let range = format!("{base}..{c}");
    [
        pre_receive_args(&range, "refs/heads/main").to_vec(),
        notes_pre_pr_args(base, &["--head", c]),
    ]
    .iter()
    .map(|args| probity(f.root(), args))
    .collect()
}

#[test]
fn start_refuses_a_commit_whose_tree_git_never_writes_and_writes_nothing() {
    let t = Team::new();
    let head = rev_parse(&t.f, "HEAD");
    let tree = hiding_policy(&t.f, &format!("{head}^{{tree}}"));
    let c = commit_tree(&t.f, &tree, &head, "a marker file");
    let before = store_snapshot(&t.f);
    let r = probity(t.f.root(), &["start", "--commit", &c]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["error"]["code"], "tree_malformed", "{}", r.stdout);
    let message = r.json["error"]["message"].as_str().unwrap();
    assert!(message.contains(&tree), "{message}");
    assert!(
        message.contains("two entries named `.probity`"),
        "{message}"
    );
    assert!(
        r.json["error"]["next_action"]
            .as_str()
            .unwrap()
            .contains("git add -A"),
        "{}",
        r.stdout
    );
    assert_eq!(store_snapshot(&t.f), before, "nothing written");
    // The next step, followed: the change made again on the parent with
    // git's own commands reviews as usual.
    t.f.git(&["checkout", "-q", &head]).unwrap();
    t.f.write("MARKER.md", "x\n").unwrap();
    let again = commit_all(&t.f, "a marker file");
    probity_ok(t.f.root(), &["start", "--commit", &again]);
}

/// A bundle rated low (docs only, built-in policy v1, no signature) of
/// the change `base_tree` to `candidate_tree`, observed on `twin`, a
/// well-formed commit on `twin_parent` adding the same files (as an agent
/// writes its records by hand).
fn forged_low(
    f: &Fixture,
    twin_parent: &str,
    twin: &str,
    base_tree: &str,
    candidate_tree: &str,
) -> Vec<u8> {
    let tree_of = |c: &str| TreeId::parse(rev_parse(f, &format!("{c}^{{tree}}"))).unwrap();
    let twin_commit = RangeCommit {
        commit: CommitId::parse(twin).unwrap(),
        tree: tree_of(twin),
        parents: vec![CommitId::parse(twin_parent).unwrap()],
    };
    let mut obs = f.repo().unwrap().observe_commit(&twin_commit).unwrap();
    obs.base_tree = TreeId::parse(base_tree).unwrap();
    obs.candidate_tree = TreeId::parse(candidate_tree).unwrap();
    support::forged::low_bundle_of(&obs, RiskPolicy::v1(), RiskPolicy::v1_hash(), |_, _| {
        RiskAssessment::new(RiskLevel::Low, vec![RiskReason::DocsOnly]).unwrap()
    })
}

/// The team's base (`docs/**` high risk under its policy), then `main` on
/// the server moved (by its administrator, or before the hook was
/// installed) to a child whose tree hides the policy. The agent adds
/// `docs/keys.md` on top (docs-only, low under the built-in policy) with a
/// bundle rated low and no signature: before D-R160 it landed, the server
/// reading no policy (single-developer mode).
#[test]
fn a_base_whose_tree_hides_the_policy_fails_closed_at_the_server_and_in_ci() {
    let policy = policy_team::policy_json().replace(
        r#""paths":["crypto/**"]"#,
        r#""paths":["crypto/**","docs/**"]"#,
    );
    assert!(policy.contains("docs/**"));
    let t = Team::serve(&policy, &[], "the team's policy");
    let base = rev_parse(&t.f, "HEAD");
    let hidden = hiding_policy(&t.f, &format!("{base}^{{tree}}"));
    let b2 = commit_tree(&t.f, &hidden, &base, "a marker file");
    // The administrator's move, past every hook.
    t.f.git(&["branch", "legacy", &b2]).unwrap();
    let fetch = [
        "-c",
        "core.hooksPath=/dev/null",
        "fetch",
        "-q",
        t.f.root().to_str().unwrap(),
        "+refs/heads/legacy:refs/heads/main",
    ];
    t.f.git_in(&t.server, &fetch).unwrap();
    assert_eq!(t.server_main().as_deref(), Some(b2.as_str()));

    // The agent's change, and a twin of it on the well-formed base (what
    // the observation is made from: the same one added file).
    t.f.write("docs/keys.md", "# how the keys rotate\n")
        .unwrap();
    let twin = commit_all(&t.f, "key notes");
    let docs = rev_parse(&t.f, &format!("{twin}^{{tree}}:docs"));
    let mut top = entries_of(&t.f, &hidden);
    top.push(("40000".into(), "docs".into(), docs));
    top.sort_by_key(|(m, n, _)| format!("{n}{}", if m == "40000" { "/" } else { "" }));
    // Keep the blob `.probity` just before its directory.
    let c_tree = raw_tree(&t.f, &top);
    let c = commit_tree(&t.f, &c_tree, &b2, "key notes");
    t.f.git(&["update-ref", "refs/heads/main", &c]).unwrap();

    let bundle = forged_low(&t.f, &base, &twin, &hidden, &c_tree);
    set_note(&t.f, t.f.root(), &c, &bundle, t.inputs.path());
    let err = push_main_and_notes(&t.f).unwrap_err();
    // The policy's read fails closed: an error, not a reviewed denial.
    assert!(err.contains("error[tree_malformed]"), "{err}");
    assert!(err.contains("two entries named `.probity`"), "{err}");
    assert_eq!(t.server_main().as_deref(), Some(b2.as_str()));

    // Both CI forms, over the same notes, fail closed the same way.
    for r in ci_forms(&t.f, &b2, &c) {
        assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], "tree_malformed", "{}", r.stdout);
    }
}

/// The first step of the attack: a tree that hides the policy delivered
/// onto the team's well-formed base is refused as it arrives, whatever its
/// bundle says, and so are the CI forms over it.
#[test]
fn a_delivered_tree_git_never_writes_is_refused_at_the_server() {
    let t = Team::new();
    let base = rev_parse(&t.f, "HEAD");
    let base_tree = rev_parse(&t.f, "HEAD^{tree}");
    let hidden = hiding_policy(&t.f, &base_tree);
    let c = commit_tree(&t.f, &hidden, &base, "a marker file");
    // The twin: the base without the policy's directory, then the blob
    // `.probity` added by git's own commands (the one file git's diff of
    // the base and `hidden` lists).
    let bare: Vec<(String, String, String)> = entries_of(&t.f, &base_tree)
        .into_iter()
        .filter(|(_, n, _)| n != ".probity")
        .collect();
    let twin_parent = commit_tree(&t.f, &raw_tree(&t.f, &bare), &base, "no policy");
    t.f.git(&["checkout", "-q", &twin_parent]).unwrap();
    t.f.write(".probity", "x\n").unwrap();
    let twin = commit_all(&t.f, "marker");
    // git will not check such a tree out: the ref alone moves.
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    t.f.git(&["update-ref", "refs/heads/main", &c]).unwrap();
    let bundle = forged_low(&t.f, &twin_parent, &twin, &base_tree, &hidden);
    set_note(&t.f, t.f.root(), &c, &bundle, t.inputs.path());
    let err = push_main_and_notes(&t.f).unwrap_err();
    assert!(err.contains("DENY: tree_malformed"), "{err}");
    assert_eq!(t.server_main(), t.before);
    for r in ci_forms(&t.f, &base, &c) {
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        assert_eq!(r.json["reason_code"], "tree_malformed", "{}", r.stdout);
    }
}
