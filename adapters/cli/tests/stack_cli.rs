//! Committed work through the real binary on real repositories: `start
//! --commit`, `start --range`, stacks pushed at once through the managed
//! hooks to a bare remote, and commits that change no bytes (D-R25–D-R27).

mod support;

use probity_git::fixture::Fixture;
use support::*;

/// `main` (one commit) pushed to a bare `origin`, the managed hooks
/// installed.
struct Repo {
    f: Fixture,
    _dir: tempfile::TempDir,
    remote: std::path::PathBuf,
    inputs: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let f = parser_base();
        let (dir, remote) = bare_origin(&f, "origin.git");
        probity_ok(f.root(), &["hooks", "install"]);
        Self {
            f,
            _dir: dir,
            remote,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    /// Asserts the store holds what it held `before` (a refusal writes
    /// nothing).
    fn assert_unwritten(&self, before: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>) {
        assert!(
            store_snapshot(&self.f) == *before,
            "a refusal wrote to the store"
        );
    }

    /// `probity validate --gate <args…>`.
    fn gate(&self, args: &[&str]) -> Run {
        let mut all = vec!["validate", "--gate"];
        all.extend_from_slice(args);
        probity(self.f.root(), &all)
    }

    /// The gate `args`, asserting it denies with `reason`.
    fn gate_denies(&self, args: &[&str], reason: &str) -> Run {
        let d = self.gate(args);
        assert_eq!(d.code, 1, "{}", d.stdout);
        assert_eq!(d.json["reason_code"], reason);
        d
    }

    /// `probity <args…>`, asserting it is the refusal `error` with exit
    /// `code`.
    fn refuses(&self, args: &[&str], code: i32, error: &str) -> Run {
        let r = probity(self.f.root(), args);
        r.assert_refused(code, error);
        r
    }

    fn rev(&self, r: &str) -> String {
        rev_parse(&self.f, r)
    }

    fn remote_main(&self) -> String {
        rev_parse_in(&self.f, &self.remote, "main")
    }

    /// Writes `path` and commits it with a real `git commit` (through the
    /// managed pre-commit hook, bypassed: the work is reviewed afterwards).
    fn commit(&self, path: &str, text: &str, message: &str) -> String {
        self.f.write(path, text).unwrap();
        self.f.git(&["add", "-A"]).unwrap();
        self.f
            .git(&["commit", "-q", "--no-verify", "-m", message])
            .unwrap();
        self.rev("HEAD")
    }

    /// A stack of three commits on `main`, none reviewed.
    fn stack(&self) -> [String; 3] {
        [
            self.commit(
                "src/parser.rs",
                "// parser\nfn parse() {}\nfn a() {}\n",
                "a",
            ),
            self.commit("src/lexer.rs", "fn lex() {}\n", "b"),
            self.commit("docs/notes.md", "# notes\n", "c"),
        ]
    }

    /// `git push -q origin main` through the managed pre-push hook.
    fn push(&self) -> Result<(), String> {
        self.f
            .git(&["push", "-q", "origin", "main"])
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn approve(&self, started: &serde_json::Value) {
        approve_started(self.f.root(), self.inputs.path(), started);
    }
}

#[test]
fn a_committed_change_is_reviewed_as_committed_and_then_pushes() {
    let r = Repo::new();
    let c = r.commit(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\n",
        "reviewed later",
    );
    // Pushing it unreviewed is denied, naming the command that reviews it.
    let before = store_snapshot(&r.f);
    let published = r.remote_main();
    let d = r.gate_denies(&["pre-push"], "receipt_missing");
    assert_eq!(d.json["next_action"], "start_commit_review");
    let command = format!("probity start --commit {c}");
    assert!(
        d.json["message"].as_str().unwrap().contains(&command),
        "{}",
        d.stdout
    );
    assert!(r.push().is_err());
    assert_eq!(r.remote_main(), published);
    assert!(
        store_snapshot(&r.f) == before,
        "a denial wrote to the store"
    );

    // Following it: the commit is frozen as (parent tree, tree).
    let st = probity_ok(r.f.root(), &["start", "--commit", "HEAD"]);
    assert_eq!(st.json["commit"], c.as_str());
    assert_eq!(st.json["parent"], r.rev("HEAD~1").as_str());
    assert_eq!(st.json["base_tree"], r.rev("HEAD~1^{tree}").as_str());
    assert_eq!(st.json["candidate_tree"], r.rev("HEAD^{tree}").as_str());
    assert_eq!(st.json["intended_untracked"], serde_json::json!([]));
    assert_eq!(st.json["resumed"], false);
    // An exact retry resumes.
    let again = probity(r.f.root(), &["start", "--commit", &c]);
    assert_eq!(again.json["resumed"], true, "{}", again.stdout);
    assert_eq!(again.json["lineage_id"], st.json["lineage_id"]);

    r.approve(&st.json);
    r.push().unwrap();
    assert_eq!(r.remote_main(), c);
}

#[test]
fn a_root_commit_is_reviewed_against_the_empty_tree() {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn parse() {}\n").unwrap();
    f.commit_all("first").unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", "HEAD"]);
    assert_eq!(st.json["parent"], serde_json::Value::Null);
    let empty =
        String::from_utf8(f.git(&["hash-object", "-t", "tree", "/dev/null"]).unwrap()).unwrap();
    assert_eq!(st.json["base_tree"], empty.trim());
    let inputs = tempfile::tempdir().unwrap();
    approve_started(f.root(), inputs.path(), &st.json);
    let d = probity(
        f.root(),
        &["validate", "--gate", "release", "--revision", "HEAD"],
    );
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "receipt_valid");
}

#[test]
fn a_stack_of_three_commits_is_reviewed_and_pushed_at_once() {
    let r = Repo::new();
    let [a, b, c] = r.stack();
    let base = r.rev("origin/main");
    let range = format!("{base}..{c}");
    let st = probity_ok(r.f.root(), &["start", "--range", &range]);
    assert_eq!(st.json["range"], range.as_str());
    let lineages = st.json["lineages"].as_array().unwrap();
    let commits: Vec<&str> = lineages
        .iter()
        .map(|l| l["commit"].as_str().unwrap())
        .collect();
    assert_eq!(
        commits,
        [a.as_str(), b.as_str(), c.as_str()],
        "oldest first"
    );
    assert_eq!(lineages[0]["parent"], base.as_str());
    assert_eq!(lineages[1]["parent"], a.as_str());
    assert_eq!(
        lineages[1]["base_tree"],
        r.rev(&format!("{a}^{{tree}}")).as_str()
    );
    assert_eq!(
        lineages[1]["candidate_tree"],
        r.rev(&format!("{b}^{{tree}}")).as_str()
    );

    // An exact retry resumes each, writing nothing.
    let before = store_snapshot(&r.f);
    let again = probity(r.f.root(), &["start", "--range", &range]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    for (l, first) in again.json["lineages"]
        .as_array()
        .unwrap()
        .iter()
        .zip(lineages)
    {
        assert_eq!(l["resumed"], true);
        assert_eq!(l["lineage_id"], first["lineage_id"]);
    }
    assert!(store_snapshot(&r.f) == before, "a retry wrote to the store");

    for l in lineages {
        r.approve(l);
    }
    let d = r.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "receipt_valid");
    assert_eq!(d.json["deliveries"][0]["commits"], 3);
    let stack = d.json["deliveries"][0]["stack"].as_array().unwrap();
    assert_eq!(stack.len(), 3);
    for (entry, l) in stack.iter().zip(lineages) {
        assert_eq!(entry["decision"], "allow");
        assert_eq!(entry["lineage_id"], l["lineage_id"]);
    }
    // The pre-PR gate judges the same stack.
    let pr = r.gate(&["pre-pr", "--base", "origin/main"]);
    assert_eq!(pr.code, 0, "{}", pr.stdout);
    // Through the managed pre-push hook, all three at once.
    r.push().unwrap();
    assert_eq!(r.remote_main(), c);
}

#[test]
fn a_stack_with_one_unreviewed_commit_is_denied_naming_it() {
    let r = Repo::new();
    let [a, b, c] = r.stack();
    for commit in [&a, &c] {
        let st = probity(r.f.root(), &["start", "--commit", commit]);
        assert_eq!(st.code, 0, "{}", st.stdout);
        r.approve(&st.json);
    }
    let before = store_snapshot(&r.f);
    let published = r.remote_main();
    // The unreviewed commit is new work on top of an approved one: the next
    // slice (R8.6), reviewed as committed.
    let d = r.gate_denies(&["pre-push", "--remote", "origin"], "receipt_unrelated");
    assert_eq!(d.json["next_action"], "start_commit_review");
    let message = d.json["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("commit {b} (2 of 3)")),
        "{message}"
    );
    assert!(
        message.contains(&format!("probity start --commit {b}")),
        "{message}"
    );
    let stack = d.json["deliveries"][0]["stack"].as_array().unwrap();
    let decisions: Vec<&str> = stack
        .iter()
        .map(|e| e["decision"].as_str().unwrap())
        .collect();
    assert_eq!(decisions, ["allow", "deny", "allow"]);
    assert!(r.push().is_err());
    assert_eq!(r.remote_main(), published);
    assert!(
        store_snapshot(&r.f) == before,
        "a denial wrote to the store"
    );

    // Following the advice lets the whole stack through.
    let st = probity(r.f.root(), &["start", "--commit", &b]);
    r.approve(&st.json);
    r.push().unwrap();
    assert_eq!(r.remote_main(), c);
}

#[test]
fn commits_that_change_no_bytes_pass_every_gate_as_no_change() {
    let r = Repo::new();
    // A clean worktree at pre-commit is no denial.
    let clean = r.gate(&["pre-commit"]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    assert_eq!(clean.json["reason_code"], "no_change");
    assert_eq!(clean.json["next_action"], "none");

    // A reviewed commit, then an empty one through the managed pre-commit
    // hook.
    r.f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    approve_live(r.f.root(), r.inputs.path());
    r.f.git(&["add", "-A"]).unwrap();
    r.f.git(&["commit", "-q", "-m", "reviewed"]).unwrap();
    let reviewed = r.rev("HEAD");
    r.f.git(&["commit", "-q", "--allow-empty", "-m", "release notes only"])
        .unwrap();
    let empty = r.rev("HEAD");
    // A message-only amend of the empty commit changes no bytes either.
    r.f.git(&[
        "commit",
        "-q",
        "--amend",
        "--allow-empty",
        "-m",
        "release notes, reworded",
    ])
    .unwrap();
    assert_ne!(r.rev("HEAD"), empty);
    let d = r.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    let stack = d.json["deliveries"][0]["stack"].as_array().unwrap();
    assert_eq!(stack[0]["reason_code"], "receipt_valid");
    assert_eq!(stack[1]["reason_code"], "no_change");
    let release = r.gate(&["release", "--revision", "HEAD"]);
    // A release of the empty commit releases the reviewed bytes below it.
    assert_eq!(release.code, 0, "{}", release.stdout);
    assert_eq!(
        release.json["reason_code"], "receipt_valid",
        "{}",
        release.stdout
    );
    assert!(
        release.json["message"]
            .as_str()
            .unwrap()
            .contains(&reviewed),
        "{}",
        release.stdout
    );
    r.push().unwrap();
    assert_eq!(r.remote_main(), r.rev("HEAD"));

    // Only an empty commit on the remote's tip: no_change at pre-push too.
    r.f.git(&["commit", "-q", "--allow-empty", "-m", "empty"])
        .unwrap();
    let only = r.gate(&["pre-push", "--remote", "origin"]);
    assert_eq!(only.code, 0, "{}", only.stdout);
    assert_eq!(only.json["reason_code"], "no_change");
    // A message-only amend of the reviewed, pushed commit keeps its
    // identity: its (parent tree, tree) is what was approved.
    r.f.git(&["reset", "-q", "--hard", &reviewed]).unwrap();
    r.f.git(&["commit", "-q", "--amend", "-m", "reviewed, reworded"])
        .unwrap();
    let amended = r.gate(&["release", "--revision", "HEAD"]);
    assert_eq!(
        amended.json["reason_code"], "receipt_valid",
        "{}",
        amended.stdout
    );

    // An empty commit on an unreviewed one releases unreviewed bytes.
    let unreviewed = r.commit("src/lexer.rs", "fn lex() {}\n", "unreviewed");
    r.f.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "--no-verify",
        "-m",
        "release",
    ])
    .unwrap();
    // The change below the empty commit is new work on an approved one.
    let laundered = r.gate_denies(&["release", "--revision", "HEAD"], "receipt_unrelated");
    assert!(
        laundered.json["message"]
            .as_str()
            .unwrap()
            .contains(&format!("probity start --commit {unreviewed}")),
        "{}",
        laundered.stdout
    );

    // start --commit on a commit that changes nothing: a typed refusal.
    r.f.git(&["commit", "-q", "--allow-empty", "-m", "empty again"])
        .unwrap();
    let before = store_snapshot(&r.f);
    r.refuses(&["start", "--commit", "HEAD"], 3, "no_change");
    r.assert_unwritten(&before);
}

#[test]
fn merges_are_refused_with_advice_and_nothing_is_written() {
    let r = Repo::new();
    r.commit(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn a() {}\n",
        "a",
    );
    r.f.git(&["checkout", "-q", "-b", "side", "origin/main"])
        .unwrap();
    r.commit("docs/side.md", "side\n", "side");
    r.f.git(&["checkout", "-q", "main"]).unwrap();
    r.f.git(&["merge", "-q", "--no-ff", "--no-edit", "--no-verify", "side"])
        .unwrap();
    let merge = r.rev("HEAD");
    let before = store_snapshot(&r.f);

    let one = r.refuses(&["start", "--commit", "HEAD"], 3, "merge_commit");
    assert!(one.error_message().contains(&merge));
    // The range holds a reviewable commit before the merge: still nothing
    // is written.
    r.refuses(
        &["start", "--range", "origin/main..HEAD"],
        3,
        "merge_commit",
    );
    r.assert_unwritten(&before);

    let d = r.gate_denies(&["pre-push", "--remote", "origin"], "delivery_partial");
    assert_eq!(d.json["next_action"], "squash");
    let message = d.json["message"].as_str().unwrap();
    assert!(message.contains(&merge), "{message}");
    assert!(message.contains("git rebase"), "{message}");

    // The advice works: rebased into a chain, the stack is reviewable.
    r.f.git(&["rebase", "-q", "origin/main"]).unwrap();
    let st = probity_ok(r.f.root(), &["start", "--range", "origin/main..HEAD"]);
    assert_eq!(st.json["lineages"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_start_arguments_are_typed_errors_and_change_nothing() {
    let r = Repo::new();
    r.stack();
    let before = store_snapshot(&r.f);
    r.refuses(&["start", "--range", "HEAD..HEAD"], 3, "empty_range");
    for bad in ["HEAD", "a...b", "..HEAD"] {
        let b = probity(r.f.root(), &["start", "--range", bad]);
        assert_eq!(b.code, 2, "{bad}: {}", b.stdout);
        assert_eq!(b.json["error"]["code"], "bad_range");
    }
    let unknown = probity(r.f.root(), &["start", "--commit", "no-such-rev"]);
    assert_eq!(unknown.code, 5, "{}", unknown.stdout);
    let both = probity(
        r.f.root(),
        &["start", "--commit", "HEAD", "--range", "HEAD~1..HEAD"],
    );
    assert_eq!(both.code, 2, "{}{}", both.stdout, both.stderr);
    r.assert_unwritten(&before);
}

#[test]
fn a_committed_review_is_finalized_only_while_its_commit_is_in_history() {
    let r = Repo::new();
    let c = r.commit("src/lexer.rs", "fn lex() {}\n", "lexer");
    let st = probity(r.f.root(), &["start", "--commit", &c]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    // The commit is dropped from HEAD's history and the worktree moves on:
    // nothing shows the frozen change any more.
    r.f.git(&["reset", "-q", "--hard", "HEAD~1"]).unwrap();
    let before = store_snapshot(&r.f);
    let lineage = st.json["lineage_id"].as_str().unwrap();
    let result = input(r.inputs.path(), "r.json", CLEAN_RESULT);
    let mut args = vec!["finalize", "--lineage", lineage];
    for _ in st.json["selected_lenses"].as_array().into_iter().flatten() {
        args.extend(["--result", result.as_str()]);
    }
    let f = probity(r.f.root(), &args);
    f.assert_refused(4, "candidate_changed");
    r.assert_unwritten(&before);
}

#[test]
fn start_on_committed_work_names_the_commit_and_the_advice_works() {
    let r = Repo::new();
    let c = r.commit("src/lexer.rs", "fn lex() {}\n", "committed first");
    let before = store_snapshot(&r.f);
    let nothing = r.refuses(&["start"], 3, "nothing_to_review");
    let next = nothing.next_action();
    let command = format!("probity start --commit {c}");
    assert!(next.contains(&command), "{next}");
    r.assert_unwritten(&before);
    let st = probity_ok(r.f.root(), &["start", "--commit", &c]);
    assert_eq!(st.json["commit"], c.as_str());
}

#[test]
fn a_range_over_the_bound_is_denied_and_never_started() {
    let r = Repo::new();
    // 1,001 commits on main, written at once by `git fast-import`.
    let mut stream = String::from("commit refs/heads/main\nmark :1\n");
    for i in 0..1001 {
        if i > 0 {
            stream.push_str("commit refs/heads/main\n");
        }
        stream.push_str(&format!(
            "committer F <f@probity.invalid> 1700000000 +0000\ndata 1\nc\n{}M 100644 inline notes.txt\ndata {}\n{i}\n\n",
            if i == 0 { "from refs/heads/main^0\n" } else { "" },
            format!("{i}\n").len()
        ));
    }
    let mut child = probity_testkit::git_env::git_command(r.f.root(), Some(r.f.home()))
        .args(["fast-import", "--quiet", "--force"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    r.f.git(&["reset", "-q", "--hard"]).unwrap();
    assert_eq!(
        String::from_utf8(
            r.f.git(&["rev-list", "--count", "origin/main..main"])
                .unwrap()
        )
        .unwrap()
        .trim(),
        "1001"
    );
    let before = store_snapshot(&r.f);
    let d = r.gate_denies(
        &["pre-push", "--range", "origin/main..main"],
        "delivery_too_large",
    );
    assert_eq!(d.json["stage"], "boundary");
    assert_eq!(d.json["deliveries"][0]["commits"], 1001);
    r.refuses(
        &["start", "--range", "origin/main..main"],
        3,
        "range_too_large",
    );
    r.assert_unwritten(&before);
}

#[test]
fn a_stacked_proposal_survives_a_base_advance_only_off_its_paths() {
    let r = Repo::new();
    r.stack();
    let range = format!("{}..HEAD", r.rev("origin/main"));
    let st = probity(r.f.root(), &["start", "--range", &range]);
    for l in st.json["lineages"].as_array().unwrap() {
        r.approve(l);
    }
    // The base moves on elsewhere: accepted with its proof.
    r.f.git(&["branch", "-q", "upstream", "origin/main"])
        .unwrap();
    r.f.git(&["checkout", "-q", "upstream"]).unwrap();
    r.commit("docs/changelog.md", "advanced\n", "base moves on");
    // And over a path the stack's middle commit adds.
    r.f.git(&["checkout", "-q", "-b", "upstream2", "origin/main"])
        .unwrap();
    r.commit("src/lexer.rs", "fn other() {}\n", "base takes the lexer");
    r.f.git(&["checkout", "-q", "main"]).unwrap();
    let before = store_snapshot(&r.f);
    let ok = r.gate(&["pre-pr", "--base", "upstream"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert_eq!(ok.json["deliveries"][0]["commits"], 3);
    assert_eq!(
        ok.json["base_advance"]["base_changed_paths"],
        serde_json::json!(["docs/changelog.md"])
    );
    let clash = r.gate_denies(&["pre-pr", "--base", "upstream2"], "base_advanced");
    assert_eq!(
        clash.json["differing_paths"],
        serde_json::json!(["src/lexer.rs"])
    );
    assert!(store_snapshot(&r.f) == before, "a gate wrote to the store");
}
