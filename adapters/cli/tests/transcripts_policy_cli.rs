//! The policy's `transcripts` (issue 20 §2): at the tiers it names, every
//! lens result of an approved review that authorizes a delivery must come
//! from `probity review`, a model run bound to its kept transcript and to
//! the prompt the lineage froze, rather than from `lens submit` or
//! `finalize --result`. Read from the protected base like every rule of
//! the policy; vouched for by the tier's signing roles, which the policy
//! must name. On real repositories, with a bare remote and the server
//! hook.

mod support;

use std::path::{Path, PathBuf};

use serde_json::json;
use support::model_server::{Lens, role_server};
use support::*;

/// A medium or high review needs the CI principal's signature; with
/// `transcripts`, its lens results must also be model runs.
fn policy(transcripts: bool) -> String {
    let (v, t) = if transcripts {
        ("v2", r#","transcripts":["medium","high"]"#)
    } else {
        ("v1", "")
    };
    format!(
        r#"{{"schema":"probity-policy/{v}","allowed_signers":".probity/allowed_signers","roles":{{"ci":["{CI}"]}},"signatures":{{"medium":["ci"],"high":["ci"]}}{t}}}"#
    )
}

struct Keys {
    dir: tempfile::TempDir,
    ci: PathBuf,
    signers: String,
}

fn keys() -> Keys {
    let dir = tempfile::tempdir().unwrap();
    let agent = keygen(dir.path(), "agent");
    let ci = keygen(dir.path(), "ci");
    let signers = format!("{AGENT} {}\n{CI} {}\n", public(&agent), public(&ci));
    Keys { dir, ci, signers }
}

fn said(r: &Run) -> String {
    format!("{}{}", r.stdout, r.stderr)
}

/// `probity review --lineage L` against the scripted model at `url`, with
/// a passing check.
fn model_review(cwd: &Path, url: &str, lineage: &str) -> Run {
    probity_env(
        cwd,
        &[
            "review",
            "--lineage",
            lineage,
            "--evidence-cmd",
            "--",
            "grep",
            "-q",
            "fn",
            "src/parser.rs",
        ],
        &[
            ("PROBITY_MODEL_BASE_URL", url),
            ("PROBITY_MODEL", "scripted"),
        ],
    )
}

/// A repository whose protected base holds the policy (with or without
/// `transcripts`) and the allowed signers, served by a bare remote with
/// the server hook; the keys, the repository, the remote and a directory
/// for inputs.
fn team(
    transcripts: bool,
) -> (
    Keys,
    probity_git::fixture::Fixture,
    (tempfile::TempDir, std::path::PathBuf),
    tempfile::TempDir,
) {
    let k = keys();
    let f = parser_base();
    f.write(".probity/allowed_signers", &k.signers).unwrap();
    f.write(".probity/policy.json", policy(transcripts))
        .unwrap();
    f.commit_all("the team's policy").unwrap();
    let origin = gated_origin(&f);
    (k, f, origin, tempfile::tempdir().unwrap())
}

fn lineage_of(st: &Run) -> String {
    assert_eq!(st.code, 0, "{}{}", st.stdout, st.stderr);
    st.json["lineage_id"].as_str().unwrap().to_string()
}

#[test]
fn hand_written_lens_results_are_refused_where_the_base_asks_for_transcripts() {
    let (k, f, (_dir, server), inputs) = team(true);
    write_medium_change(&f);
    let st = probity(f.root(), &["start"]);
    let lineage = lineage_of(&st);
    assert_eq!(st.json["risk_level"], "medium", "{}", st.stdout);
    // The agent's own lens result, handed in through the MCP authority
    // tools or to finalize: refused before anything is kept or written,
    // naming the lens and the way on.
    let before = store_snapshot(&f);
    let mut mcp = support::mcp::Session::start(f.root());
    let (err, ctx) = mcp.call(
        "lens_context",
        json!({"lineage": lineage, "lens": "reliability"}),
    );
    assert!(!err, "{ctx}");
    let (err, refused) = mcp.call(
        "lens_submit",
        json!({"lineage": lineage, "lens": "reliability", "binding": ctx["token"],
               "result": {"findings": [], "evidence": ["read the frozen diff"]}}),
    );
    assert!(err, "{refused}");
    assert_eq!(refused["error"]["code"], "transcripts_unmet", "{refused}");
    drop(mcp);
    assert_eq!(store_snapshot(&f), before, "nothing kept");
    let evidence = input(inputs.path(), "ev.txt", "tests passed\n");
    let r = finalize_started_with(
        f.root(),
        inputs.path(),
        &st.json,
        &["--evidence", &evidence],
    );
    assert_ne!(r.code, 0, "{}", said(&r));
    assert_eq!(r.json["error"]["code"], "transcripts_unmet", "{}", said(&r));
    assert!(r.error_message().contains("reliability"), "{}", said(&r));
    assert!(
        r.json["error"]["next_action"]
            .as_str()
            .unwrap()
            .contains("probity review --lineage"),
        "{}",
        said(&r)
    );
    assert_eq!(store_snapshot(&f), before, "nothing written");
    // The way it names works: the model reviews the frozen lineage, the CI
    // principal signs, and the change lands.
    let model = role_server(Lens::Clean);
    let r = model_review(f.root(), &model.base_url, &lineage);
    assert_eq!(r.code, 0, "{}", said(&r));
    assert_eq!(r.json["state"], "approved", "{}", r.stdout);
    sign_with(f.root(), &k.ci, k.dir.path(), &lineage);
    let c = commit_all(&f, "more parsing");
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}", said(&p));
    assert_eq!(rev(&f, &server, "main"), Some(c));
}

#[test]
fn a_review_without_transcripts_is_refused_at_the_server_once_the_base_asks_for_them() {
    let (k, f, (_dir, server), inputs) = team(false);
    // The agent reviews by hand while the base asks for no transcript, and
    // even holds a CI signature.
    write_medium_change(&f);
    let st = probity(f.root(), &["start"]);
    let lineage = lineage_of(&st);
    approve_started(f.root(), inputs.path(), &st.json);
    sign_with(f.root(), &k.ci, k.dir.path(), &lineage);
    commit_all(&f, "more parsing");
    // Meanwhile the team turns `transcripts` on, from another clone (a
    // policy change: high, reviewed by the model and signed by CI).
    let (_d, other) = clone_as(&f, &server, "maintainer");
    std::fs::write(other.join(".probity/policy.json"), policy(true)).unwrap();
    let st = probity(&other, &["start"]);
    let policy_lineage = lineage_of(&st);
    assert_eq!(st.json["risk_level"], "high", "{}", st.stdout);
    let model = role_server(Lens::Clean);
    let r = model_review(&other, &model.base_url, &policy_lineage);
    assert_eq!(r.json["state"], "approved", "{}", said(&r));
    sign_with(&other, &k.ci, k.dir.path(), &policy_lineage);
    f.git_in(&other, &["add", "-A"]).unwrap();
    f.git_in(
        &other,
        &["commit", "-q", "--no-verify", "-m", "transcripts"],
    )
    .unwrap();
    let p = probity(&other, &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}", said(&p));
    // The agent rebases onto it: its old review rides the rebase proof,
    // and the gates judge it under the policy now in the base.
    f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    let before = rev(&f, &server, "main");
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}", said(&p));
    assert!(said(&p).contains("transcripts_unmet"), "{}", said(&p));
    let err = push_past_client(&f).unwrap_err();
    assert!(err.contains("transcripts_unmet"), "the server said: {err}");
    assert_eq!(rev(&f, &server, "main"), before);
    // The next step: the model reviews the rebased commit, CI signs, and
    // it lands.
    let head = rev(&f, f.root(), "HEAD").unwrap();
    let st = probity(f.root(), &["start", "--commit", &head]);
    let lineage = lineage_of(&st);
    let r = model_review(f.root(), &model.base_url, &lineage);
    assert_eq!(r.json["state"], "approved", "{}", said(&r));
    sign_with(f.root(), &k.ci, k.dir.path(), &lineage);
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}", said(&p));
    assert_eq!(rev(&f, &server, "main"), Some(head));
}

#[test]
fn a_policy_asking_for_transcripts_no_role_vouches_for_is_refused() {
    let f = parser_base();
    let dir = tempfile::tempdir().unwrap();
    let file = input(
        dir.path(),
        "policy.json",
        r#"{"schema":"probity-policy/v2","transcripts":["high"]}"#,
    );
    let r = probity(f.root(), &["policy", "check", &file]);
    assert_ne!(r.code, 0, "{}", said(&r));
    assert_eq!(r.json["error"]["code"], "policy_invalid", "{}", said(&r));
    assert!(
        r.error_message().contains("signatures.high"),
        "{}",
        said(&r)
    );
}
