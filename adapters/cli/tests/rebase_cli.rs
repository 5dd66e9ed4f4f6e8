//! The rebase proof and the next slice after a commit (issue 8 §3–4, R8.6)
//! through the real `probity` binary, on real repositories: real commits,
//! `git pull --rebase` from a local bare remote onto upstream work, real
//! hooks.

mod support;

use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use serde_json::{Value, json};
use support::*;

const PARSER: &str = "// parser\nfn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\nfn h() {}\nfn i() {}\n";

/// A developer clone of a bare `origin` and a second clone (`up`) that
/// pushes upstream work to it.
struct Setup {
    f: Fixture,
    _dirs: tempfile::TempDir,
    up: PathBuf,
    inputs: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let f = Fixture::new().unwrap();
        f.write("src/parser.rs", PARSER).unwrap();
        f.write("README.md", "# demo\n").unwrap();
        f.write(".gitignore", "target/\n").unwrap();
        f.commit_all("base").unwrap();
        let dirs = tempfile::tempdir().unwrap();
        let remote = dirs.path().join("origin.git");
        let up = dirs.path().join("up");
        let r = remote.to_str().unwrap();
        f.git(&["init", "-q", "--bare", "-b", "main", r]).unwrap();
        f.git(&["remote", "add", "origin", r]).unwrap();
        f.git(&["push", "-q", "-u", "origin", "main"]).unwrap();
        f.git(&["clone", "-q", r, up.to_str().unwrap()]).unwrap();
        Self {
            f,
            _dirs: dirs,
            up,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    /// The reviewed change: an edit at the end of `src/parser.rs` and a
    /// new test file.
    fn change(&self) {
        self.f
            .write("src/parser.rs", format!("{PARSER}fn more() {{}}\n"))
            .unwrap();
        self.f
            .write("src/parser_test.rs", "#[test]\nfn t() {}\n")
            .unwrap();
    }

    /// Reviews the live candidate to `approved`; returns its lineage and
    /// base tree.
    fn approve(&self) -> (String, String) {
        let done = approve_live(self.f.root(), self.inputs.path());
        let lineage = string_at(&done, "lineage_id");
        let s = probity(self.f.root(), &["status", "--lineage", &lineage]);
        assert_eq!(s.json["state"], "approved", "{}", s.stdout);
        (lineage, self.tree("HEAD"))
    }

    /// A setup whose live candidate carries the reviewed change, reviewed
    /// to `approved`: the setup, the lineage and its base tree.
    fn approved() -> (Self, String, String) {
        let s = Setup::new();
        s.change();
        let (lineage, base) = s.approve();
        (s, lineage, base)
    }

    /// Commits the reviewed change, then rebases it onto upstream work
    /// elsewhere (`docs/guide.md`).
    fn commit_and_rebase_onto_upstream_docs(&self) {
        self.f.commit_all("the reviewed change").unwrap();
        self.upstream("docs/guide.md", "# guide\n");
        self.pull_rebase();
    }

    /// `git pull --rebase` of upstream's `main` into the developer clone.
    fn pull_rebase(&self) {
        self.f
            .git(&["pull", "-q", "--rebase", "origin", "main"])
            .unwrap();
    }

    /// Upstream work: `rel` written in the other clone, committed, pushed.
    fn upstream(&self, rel: &str, content: &str) {
        let p = self.up.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        let git = |args: &[&str]| self.f.git_in(&self.up, args).unwrap();
        git(&["add", "-A"]);
        git(&[
            "-c",
            "user.name=Upstream",
            "-c",
            "user.email=up@probity.invalid",
            "commit",
            "-q",
            "-m",
            "upstream work",
        ]);
        git(&["push", "-q", "origin", "main"]);
    }

    fn tree(&self, rev: &str) -> String {
        let out = self
            .f
            .git(&["rev-parse", &format!("{rev}^{{tree}}")])
            .unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    }

    fn gate(&self, args: &[&str]) -> Run {
        let mut all = vec!["validate", "--gate"];
        all.extend_from_slice(args);
        probity(self.f.root(), &all)
    }

    fn install_hooks(&self) {
        probity_ok(self.f.root(), &["hooks", "install"]);
    }
}

fn paths(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(String::from))
        .collect()
}

#[test]
fn a_rebase_onto_upstream_work_elsewhere_is_allowed_with_its_proof() {
    let (s, lineage, receipt_base) = Setup::approved();
    s.commit_and_rebase_onto_upstream_docs();
    let live_base = s.tree("HEAD~1");
    assert_ne!(live_base, receipt_base, "the rebase moved the base");

    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["decision"], "allow");
    assert_eq!(d.json["reason_code"], "receipt_valid");
    assert_eq!(d.json["lineage_id"], lineage.as_str());
    assert_eq!(
        d.json["proof"],
        json!({"kind": "rebased_onto", "receipt_base": receipt_base, "live_base": live_base})
    );
    assert_eq!(d.json["deliveries"][0]["proof"]["kind"], "rebased_onto");
    // CI's form judges the same commit the same way.
    s.f.git(&["fetch", "-q", "origin"]).unwrap();
    let ci = s.gate(&["pre-push", "--range", "origin/main..HEAD"]);
    assert_eq!(ci.json["proof"]["kind"], "rebased_onto", "{}", ci.stdout);
    // So do the pre-PR gate (its base is the upstream tip the commit sits
    // on) and the release gate.
    let pr = s.gate(&["pre-pr", "--base", "refs/remotes/origin/main"]);
    assert_eq!(pr.code, 0, "{}{}", pr.stdout, pr.stderr);
    assert_eq!(pr.json["proof"], d.json["proof"]);
    let rel = s.gate(&["release", "--revision", "HEAD"]);
    assert_eq!(rel.json["reason_code"], "receipt_valid", "{}", rel.stdout);
    assert_eq!(rel.json["proof"], d.json["proof"]);
    // A gate only reads.
    assert!(store_snapshot(&s.f) == before, "the store changed");

    // Through the real hook, the push lands.
    s.install_hooks();
    s.f.git(&["push", "-q", "origin", "main"]).unwrap();
    let local = s.f.git(&["rev-parse", "HEAD"]).unwrap();
    let remote = s.f.git(&["rev-parse", "origin/main"]).unwrap();
    assert_eq!(local, remote);
}

#[test]
fn upstream_work_on_a_reviewed_path_is_denied_with_the_paths_that_differ() {
    let (s, lineage, _) = Setup::approved();
    s.f.commit_all("the reviewed change").unwrap();
    // Upstream edits the first line of a reviewed file: the rebase applies
    // cleanly, and the result on src/parser.rs was never reviewed.
    s.upstream(
        "src/parser.rs",
        &PARSER.replace("// parser", "// the parser"),
    );
    s.pull_rebase();
    let merged = std::fs::read_to_string(s.f.root().join("src/parser.rs")).unwrap();
    assert!(merged.starts_with("// the parser") && merged.ends_with("fn more() {}\n"));

    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["decision"], "deny");
    assert_eq!(d.json["reason_code"], "receipt_scope_changed");
    assert_eq!(d.json["lineage_id"], lineage.as_str());
    assert_eq!(paths(&d.json["differing_paths"]), vec!["src/parser.rs"]);
    // Committed work: reviewed as committed.
    assert_eq!(d.json["next_action"], "start_commit_review");
    assert!(d.json.get("proof").is_none(), "{}", d.stdout);
    assert!(store_snapshot(&s.f) == before, "the store changed");

    // The real hook refuses the push; the remote keeps upstream's tip.
    s.install_hooks();
    let before = store_snapshot(&s.f);
    let upstream_tip = s.f.git(&["rev-parse", "origin/main"]).unwrap();
    assert!(s.f.git(&["push", "-q", "origin", "main"]).is_err());
    s.f.git(&["fetch", "-q", "origin"]).unwrap();
    assert_eq!(
        s.f.git(&["rev-parse", "origin/main"]).unwrap(),
        upstream_tip
    );
    assert!(store_snapshot(&s.f) == before, "the store changed");
}

#[test]
fn a_rebased_commit_that_also_changes_another_path_is_denied() {
    let (s, lineage, _) = Setup::approved();
    // Something nobody reviewed rides along in the commit.
    s.f.write("README.md", "# demo\nunreviewed\n").unwrap();
    s.f.commit_all("the reviewed change and more").unwrap();
    s.upstream("docs/guide.md", "# guide\n");
    s.pull_rebase();
    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "receipt_scope_changed");
    assert_eq!(d.json["lineage_id"], lineage.as_str());
    assert_eq!(paths(&d.json["differing_paths"]), vec!["README.md"]);
    assert!(store_snapshot(&s.f) == before, "the store changed");
}

#[test]
fn pre_commit_after_stash_pull_pop_is_allowed_with_its_proof() {
    let (s, lineage, receipt_base) = Setup::approved();
    s.upstream("docs/guide.md", "# guide\n");
    s.f.git(&["stash", "-q", "-u"]).unwrap();
    s.pull_rebase();
    s.f.git(&["stash", "pop", "-q"]).unwrap();
    let live_base = s.tree("HEAD");
    assert_ne!(live_base, receipt_base);

    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-commit"]);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "receipt_valid");
    assert_eq!(
        d.json["proof"],
        json!({"kind": "rebased_onto", "receipt_base": receipt_base, "live_base": live_base})
    );
    // status agrees with the gate.
    let st = probity(s.f.root(), &["status"]);
    assert_eq!(st.json["lineage_id"], lineage.as_str());
    assert_eq!(st.json["applicability"], "rebased", "{}", st.stdout);
    assert_eq!(st.json["proof"], d.json["proof"]);
    assert!(store_snapshot(&s.f) == before, "the store changed");

    // The real pre-commit hook lets the commit through.
    s.install_hooks();
    s.f.commit_all("the reviewed change, on the new base")
        .unwrap();

    // An edit after the pull is not the approved change.
    let (s, _, _) = Setup::approved();
    s.upstream("docs/guide.md", "# guide\n");
    s.f.git(&["stash", "-q", "-u"]).unwrap();
    s.pull_rebase();
    s.f.git(&["stash", "pop", "-q"]).unwrap();
    s.f.write("src/parser_test.rs", "#[test]\nfn t() { edited() }\n")
        .unwrap();
    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-commit"]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "receipt_scope_changed");
    assert_eq!(
        paths(&d.json["differing_paths"]),
        vec!["src/parser_test.rs"]
    );
    let st = probity(s.f.root(), &["status"]);
    assert_eq!(st.json["applicability"], "scope_changed");
    assert_eq!(st.json["differing_paths"], d.json["differing_paths"]);
    assert!(store_snapshot(&s.f) == before, "the store changed");
}

/// The applicability `status` reports for a gate's reason code.
fn applicability_of(reason: &str) -> &'static str {
    match reason {
        "receipt_valid" => "current",
        "receipt_unrelated" => "unrelated",
        "receipt_scope_changed" => "scope_changed",
        _ => "none",
    }
}

#[test]
fn the_gate_and_status_agree_on_the_next_slice() {
    // (committed?, the new work, expected reason, expected next action)
    let cases: [(bool, (&str, &str), &str, &str); 4] = [
        (
            true,
            ("docs/notes.md", "# notes\n"),
            "receipt_unrelated",
            "start_review",
        ),
        (
            true,
            ("src/parser_test.rs", "#[test]\nfn t() { more() }\n"),
            "receipt_scope_changed",
            "start_review",
        ),
        (
            false,
            ("docs/notes.md", "# notes\n"),
            "receipt_unrelated",
            "commit_approved",
        ),
        (
            false,
            ("src/parser_test.rs", "#[test]\nfn t() { more() }\n"),
            "receipt_scope_changed",
            "start_review",
        ),
    ];
    for (committed, (rel, content), reason, next) in cases {
        let (s, lineage, _) = Setup::approved();
        if committed {
            s.f.commit_all("the approved slice").unwrap();
        }
        s.f.write(rel, content).unwrap();
        let before = store_snapshot(&s.f);
        let d = s.gate(&["pre-commit"]);
        let st = probity(s.f.root(), &["status"]);
        let case = format!("committed={committed} {rel}: {}\n{}", d.stdout, st.stdout);
        assert_eq!(d.code, 1, "{case}");
        assert_eq!(d.json["reason_code"], reason, "{case}");
        assert_eq!(d.json["next_action"], next, "{case}");
        assert_eq!(d.json["lineage_id"], lineage.as_str(), "{case}");
        assert_eq!(st.json["lineage_id"], lineage.as_str(), "{case}");
        assert_eq!(st.json["applicability"], applicability_of(reason), "{case}");
        assert_eq!(
            st.json["differing_paths"], d.json["differing_paths"],
            "{case}"
        );
        assert_eq!(paths(&d.json["differing_paths"]), vec![rel], "{case}");
        assert!(store_snapshot(&s.f) == before, "the store changed: {case}");
    }
}

/// Runs one shell-free command line of the advice (`git add -- a b`).
fn run_git_words(f: &Fixture, cwd: &Path, line: &str) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"git"), "{line}");
    f.git_in(cwd, &words[1..]).unwrap();
}

#[test]
fn the_commit_first_advice_works_and_then_the_new_work_is_its_own_slice() {
    let (s, lineage, _) = Setup::approved();
    s.install_hooks();
    s.f.write("docs/notes.md", "# notes\n").unwrap();
    let d = s.gate(&["pre-commit"]);
    assert_eq!(d.json["next_action"], "commit_approved", "{}", d.stdout);
    let message = d.json["message"].as_str().unwrap();
    let command = "git add -- src/parser.rs src/parser_test.rs && git commit";
    assert!(message.contains(command), "{message}");
    // Following it: the pre-commit hook allows exactly the approved slice.
    for part in command.split(" && ") {
        if part == "git commit" {
            s.f.git(&["commit", "-q", "-m", "the approved slice"])
                .unwrap();
        } else {
            run_git_words(&s.f, s.f.root(), part);
        }
    }
    // The commit holds exactly the approved slice, and delivers it.
    let committed = s.f.git(&["diff", "--name-only", "HEAD~1", "HEAD"]).unwrap();
    assert_eq!(
        String::from_utf8(committed).unwrap(),
        "src/parser.rs\nsrc/parser_test.rs\n"
    );
    let delivered = s.gate(&["pre-push", "--range", "HEAD~1..HEAD"]);
    assert_eq!(
        delivered.json["reason_code"], "receipt_valid",
        "{}",
        delivered.stdout
    );
    assert_eq!(delivered.json["lineage_id"], lineage.as_str());
    // The new work is now judged against the committed slice.
    let d = s.gate(&["pre-commit"]);
    assert_eq!(d.json["reason_code"], "receipt_unrelated", "{}", d.stdout);
    assert_eq!(d.json["next_action"], "start_review");
    assert_eq!(d.json["lineage_id"], lineage.as_str());
    // And `probity start` reviews the new work alone.
    let st = probity_ok(s.f.root(), &["start"]);
    assert_eq!(st.json["changed_files"], 1, "{}", st.stdout);
    assert_ne!(st.json["lineage_id"], lineage.as_str());
}

#[test]
fn a_lineage_approved_before_the_indexes_is_indexed_by_a_finalize_retry() {
    let (s, lineage, _) = Setup::approved();
    s.commit_and_rebase_onto_upstream_docs();
    // As a store written before these indexes existed: none of them.
    let index = s.f.root().join(".git/probity/reviews/v1/index");
    for dir in ["delta", "entry", "final"] {
        std::fs::remove_dir_all(index.join(dir)).unwrap();
    }
    let d = s.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.json["reason_code"], "receipt_missing", "{}", d.stdout);
    // The exact retry of the final lineage writes its projections.
    let retry = probity_ok(s.f.root(), &["finalize", "--lineage", &lineage]);
    assert_eq!(retry.json["state"], "approved");
    let d = s.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.json["reason_code"], "receipt_valid", "{}", d.stdout);
    assert_eq!(d.json["proof"]["kind"], "rebased_onto");
}

#[test]
fn a_delta_index_entry_that_names_another_review_fails_closed() {
    let (s, _, _) = Setup::approved();
    s.f.commit_all("the reviewed change").unwrap();
    // A second approved review, of other work, on top.
    s.f.write("docs/notes.md", "# notes\n").unwrap();
    let other = approve_live(s.f.root(), s.inputs.path());
    let other = string_at(&other, "lineage_id");
    s.f.commit_all("notes").unwrap();
    s.upstream("docs/guide.md", "# guide\n");
    s.pull_rebase();
    // Point the first review's delta key at the second review.
    let delta = s.f.root().join(".git/probity/reviews/v1/index/delta");
    let mut tampered = 0;
    for e in std::fs::read_dir(&delta).unwrap() {
        let p = e.unwrap().path();
        if std::fs::read_to_string(&p).unwrap().trim() != other {
            std::fs::write(&p, format!("{other}\n")).unwrap();
            tampered += 1;
        }
    }
    assert_eq!(tampered, 1);
    let before = store_snapshot(&s.f);
    let d = s.gate(&["pre-push", "--range", "HEAD~2..HEAD~1"]);
    d.assert_refused(6, "index_mismatch");
    assert!(store_snapshot(&s.f) == before, "the store changed");
}
