//! `probity report` and `probity log` (issue 22 §4) through the real
//! binary on real repositories: a recovered, approved review as Markdown,
//! SARIF and a timeline; a range's reviews from the notes; bad input as a
//! typed error with nothing written.

mod support;

use std::path::Path;

use probity_git::fixture::Fixture;
use support::*;

/// A medium change escalated, recovered by alice with an authorization,
/// then approved by a passing `--evidence-cmd` check and committed.
/// Returns the fixture, its inputs dir and the two lineages.
fn recovered_and_approved() -> (Fixture, tempfile::TempDir, String, String) {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let l2 = escalate_and_recover(
        f.root(),
        tmp.path(),
        "the lens misread b",
        "OPS-7 by the lead",
    );
    let st = probity(f.root(), &["status", "--lineage", &l2]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    let l1 = string_at(&st.json["predecessor"], "lineage_id");
    let clean = input(tmp.path(), "r.json", CLEAN_RESULT);
    let mut args = finalize_args(&l2, st.json["selected_lenses"].as_array().unwrap(), &clean);
    args.extend(["--evidence-cmd", "--", "sh", "-c", "echo 3 passed"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = probity(f.root(), &args);
    assert_eq!(
        done.json["state"], "approved",
        "{}{}",
        done.stdout, done.stderr
    );
    commit_all(&f, "the reviewed change");
    (f, tmp, l1, l2)
}

/// `probity ARGS` without `--json`: the raw report.
fn plain(cwd: &Path, args: &[&str]) -> Run {
    let mut cmd = probity_in(cwd);
    cmd.args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE");
    run_of(&cmd.output().unwrap())
}

#[test]
fn the_markdown_report_names_verdict_findings_check_and_chain() {
    let (f, _tmp, l1, l2) = recovered_and_approved();
    let head = rev(&f, f.root(), "HEAD").unwrap();
    let r = plain(f.root(), &["report", "--lineage", &l2]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let md = &r.stdout;
    assert!(md.starts_with("## Probity review: ✅ approved\n"), "{md}");
    assert!(md.contains("**Risk:** medium"), "{md}");
    assert!(md.contains("`sh -c echo 3 passed` on tree"), "{md}");
    assert!(md.contains("exit status 0 (passed)"), "{md}");
    assert!(
        md.contains(&format!(
            "1. `{l1}` generation 1: escalated (`finding_escalated`)"
        )),
        "{md}"
    );
    assert!(
        md.contains("by alice, authorized: OPS-7 by the lead"),
        "{md}"
    );
    assert!(
        md.contains(&format!("delivered in commit `{head}`")),
        "{md}"
    );
    // The escalated generation: its finding with its route, superseded.
    let old = plain(f.root(), &["report", "--lineage", &l1]).stdout;
    assert!(old.contains("superseded"), "{old}");
    assert!(
        old.contains("| BLOCKER | `src/parser.rs:3` | escalation | b may break callers |"),
        "{old}"
    );
    // --json wraps the Markdown with the verdicts.
    let j = probity(f.root(), &["report", "--lineage", &l2]);
    assert_eq!(j.json["markdown"], r.stdout.as_str());
    assert_eq!(j.json["verdicts"][0]["verdict"], "approved");
}

#[test]
fn sarif_goes_to_a_file_and_log_shows_the_timeline() {
    let (f, tmp, l1, l2) = recovered_and_approved();
    let out = tmp.path().join("probity.sarif");
    let r = probity_ok(
        f.root(),
        &[
            "report",
            "--lineage",
            &l1,
            "--format",
            "sarif",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.json["format"], "sarif");
    let sarif: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(
        result["ruleId"],
        format!(
            "probity/{}",
            sarif["runs"][0]["tool"]["driver"]["rules"][0]["name"]
                .as_str()
                .unwrap()
        )
    );
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/parser.rs"
    );
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert_eq!(result["properties"]["route"], "escalation");

    let log = plain(f.root(), &["log", "--lineage", &l1]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let t = &log.stdout;
    let (a, b) = (
        t.find(&l1).unwrap(),
        t.find(&format!("{l2}  generation 2")).unwrap(),
    );
    assert!(a < b, "generation 1 first: {t}");
    assert!(t.contains("escalated: finding_escalated"), "{t}");
    assert!(
        t.contains("[by alice, authorized: OPS-7 by the lead]"),
        "{t}"
    );
    assert!(
        t.contains("approved: check `sh -c echo 3 passed` exit status 0"),
        "{t}"
    );
    assert!(t.contains("delivered: commit "), "{t}");
    let j = probity(f.root(), &["log", "--lineage", &l1]);
    assert_eq!(j.json["verdict"], "superseded");
    let events: Vec<&str> = j.json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "started",
            "judged",
            "escalated",
            "recovered",
            "started",
            "judged",
            "approved",
            "delivered"
        ]
    );
}

#[test]
fn a_range_report_reads_the_notes() {
    let (f, tmp, _l1, l2) = recovered_and_approved();
    let head = rev(&f, f.root(), "HEAD").unwrap();
    // Before any note: the commit is listed without a review.
    let none = plain(f.root(), &["report", "--range", "HEAD~1..HEAD"]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(
        none.stdout.contains("No review bundle in its note."),
        "{}",
        none.stdout
    );
    probity_ok(f.root(), &["publish", "--range", "HEAD~1..HEAD"]);
    let md = plain(f.root(), &["report", "--range", "HEAD~1..HEAD"]).stdout;
    assert!(
        md.starts_with("# Probity reviews of `HEAD~1..HEAD`"),
        "{md}"
    );
    assert!(md.contains(&format!("Commit `{head}`")), "{md}");
    assert!(md.contains(&format!("`{l2}`, generation 2")), "{md}");
    assert!(md.contains("### Probity review: ✅ approved"), "{md}");
    let out = tmp.path().join("range.sarif");
    let r = probity(
        f.root(),
        &[
            "report",
            "--range",
            "HEAD~1..HEAD",
            "--format",
            "sarif",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["verdicts"][0]["lineage_id"], l2.as_str());
    let sarif: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(sarif["runs"].as_array().unwrap().len(), 1);
}

#[test]
fn bad_input_is_a_typed_error_and_writes_nothing() {
    let (f, tmp, l1, _) = recovered_and_approved();
    let before = store_snapshot(&f);
    let out = tmp.path().join("never.md");
    let o = out.to_str().unwrap();
    for (args, code, error) in [
        (
            vec!["report", "--range", "nonsense", "--out", o],
            2,
            "bad_range",
        ),
        (
            vec!["report", "--range", "nope..HEAD", "--out", o],
            3,
            "unknown_revision",
        ),
        (
            vec!["report", "--lineage", "review-0000000000000000", "--out", o],
            3,
            "lineage_not_found",
        ),
        (
            vec!["report", "--lineage", "x", "--out", o],
            3,
            "bad_lineage",
        ),
        (
            vec!["log", "--lineage", "review-0000000000000000"],
            3,
            "lineage_not_found",
        ),
        (
            vec!["report", "--lineage", &l1, "--range", "a..b"],
            2,
            "usage",
        ),
    ] {
        let r = probity(f.root(), &args);
        assert_eq!(r.code, code, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], error, "{args:?}: {}", r.stdout);
        assert!(
            !r.json["error"]["next_action"]
                .as_str()
                .unwrap_or_default()
                .is_empty()
        );
    }
    assert!(!out.exists());
    assert_eq!(store_snapshot(&f), before);
    // Outside a repository: a repository error.
    let r = probity(tmp.path(), &["log"]);
    assert_eq!(r.json["error"]["code"], "repository_error", "{}", r.stdout);
}

/// A range report reads the check a review rests on from its note: a
/// `probity.review-bundle/v2` carries the command evidence (D-R69).
#[test]
fn a_range_report_names_the_check_the_note_carries() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start"]);
    approve_started_with(
        f.root(),
        tmp.path(),
        &st.json,
        &[
            "--evidence-cmd",
            "--",
            "sh",
            "-c",
            "grep -q more src/parser.rs",
        ],
    );
    commit_all(&f, "reviewed on a check");
    probity_ok(f.root(), &["publish", "--range", "HEAD~1..HEAD"]);
    let md = plain(f.root(), &["report", "--range", "HEAD~1..HEAD"]).stdout;
    let tree = rev(&f, f.root(), "HEAD^{tree}").unwrap();
    assert!(
        md.contains(&format!(
            "`sh -c grep -q more src/parser.rs` on tree `{tree}`: exit status 0"
        )),
        "{md}"
    );
}
