//! The pre-push gate (R8.3) through the real `probity` binary, on real
//! repositories pushing to a real bare remote.

mod support;

use std::path::Path;

use probity_git::fixture::Fixture;
use support::*;

const ZERO: &str = "0000000000000000000000000000000000000000";

/// A clone-like setup: `main` pushed to a bare `origin`, then a reviewed,
/// approved change in the worktree (not committed, not pushed).
struct Setup(Origin);

impl std::ops::Deref for Setup {
    type Target = Origin;
    fn deref(&self) -> &Origin {
        &self.0
    }
}

impl Setup {
    fn new() -> Self {
        let s = Setup(Origin::with_medium_change());
        s.approve();
        s
    }

    /// Installs the managed pre-push hook (`probity hooks install`).
    fn install_hook(&self) {
        probity_ok(self.f.root(), &["hooks", "install", "--hook", "pre-push"]);
    }

    /// [`Setup::new`] with the reviewed change committed; returns its tip.
    fn committed() -> (Self, String) {
        let s = Self::new();
        s.f.commit_all("reviewed change").unwrap();
        let tip = s.rev("HEAD");
        (s, tip)
    }

    /// [`Setup::new`] with the reviewed change stashed, on a branch `wip`
    /// whose one commit adds a secret, pushed to `origin`.
    fn on_pushed_wip() -> Self {
        let s = Self::new();
        s.f.git(&["stash", "-q", "-u"]).unwrap();
        s.f.git(&["checkout", "-q", "-b", "wip"]).unwrap();
        s.f.write("secret.env", "TOKEN=abc\n").unwrap();
        s.f.commit_all("wip").unwrap();
        s.f.git(&["push", "-q", "origin", "wip"]).unwrap();
        s
    }

    /// `probity validate --gate pre-push EXTRA...`.
    fn pre_push(&self, extra: &[&str]) -> Run {
        let mut args = vec!["validate", "--gate", "pre-push"];
        args.extend_from_slice(extra);
        probity(self.f.root(), &args)
    }

    /// The hook's gate on `origin` given git's pre-push lines.
    fn updates(&self, lines: &str) -> Run {
        gate_with_stdin(self.f.root(), &["--remote", "origin"], lines)
    }

    /// [`Setup::updates`] of one line: `LOCAL_REF NEW REMOTE_REF OLD`.
    fn update(&self, local: &str, new: &str, remote: &str, old: &str) -> Run {
        self.updates(&format!("{local} {new} {remote} {old}\n"))
    }

    /// `git push` with the hook; Ok on success, Err(stderr) on refusal.
    fn push(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["push", "-q"];
        all.extend_from_slice(args);
        self.f.git(&all).map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Runs `probity --json --cwd <cwd> validate --gate pre-push ... ` with
/// `stdin` as git's pre-push lines.
fn gate_with_stdin(cwd: &Path, extra: &[&str], stdin: &str) -> Run {
    let mut args = vec!["validate", "--gate", "pre-push", "--stdin-updates"];
    args.extend_from_slice(extra);
    probity_stdin(cwd, &args, stdin.as_bytes())
}

#[test]
fn a_reviewed_commit_pushes_and_the_hook_allows_it() {
    let (s, tip) = Setup::committed();

    // Without stdin: HEAD minus what origin's tracking refs hold.
    let head = probity_ok(s.f.root(), &["validate", "--gate", "pre-push"]);
    assert_eq!(head.json["decision"], "allow");
    assert_eq!(head.json["reason_code"], "receipt_valid");
    assert_eq!(head.json["boundary"], "head");
    assert_eq!(head.json["deliveries"][0]["commits"], 1);
    assert_eq!(head.json["deliveries"][0]["tip"], tip.as_str());
    assert!(
        head.json["lineage_id"]
            .as_str()
            .unwrap()
            .starts_with("review-")
    );

    // For CI: an explicit range.
    let range = s.pre_push(&["--range", "origin/main..HEAD"]);
    assert_eq!(range.json["decision"], "allow", "{}", range.stdout);
    assert_eq!(range.json["boundary"], "range");

    // A real push through the hook.
    s.install_hook();
    s.push(&["origin", "main"]).unwrap();
    assert_eq!(s.remote_rev("main").as_deref(), Some(tip.as_str()));
}

#[test]
fn an_edit_after_review_is_denied_and_nothing_reaches_the_remote() {
    let s = Setup::new();
    s.f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { /* edited */ }\n",
    )
    .unwrap();
    s.f.commit_all("edited after review").unwrap();
    let before = s.remote_rev("main");
    s.install_hook();
    let store_before = store_snapshot(&s.f);

    let d = s.pre_push(&["--remote", "origin"]);
    assert_eq!(d.code, 1, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "receipt_scope_changed");
    assert_eq!(d.json["stage"], "scope");
    assert_eq!(
        d.json["differing_paths"],
        serde_json::json!(["src/parser.rs"])
    );

    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("failed to push"), "{err}");
    assert_eq!(s.remote_rev("main"), before);
    assert!(
        store_snapshot(&s.f) == store_before,
        "a gate writes nothing"
    );
}

#[test]
fn a_reviewed_candidate_split_over_two_commits_names_both_unreviewed_commits() {
    let s = Setup::new();
    s.f.git(&["add", "src/parser.rs"]).unwrap();
    s.f.git(&["commit", "-q", "-m", "half"]).unwrap();
    let half = s.rev("HEAD");
    s.f.commit_all("other half").unwrap();
    let d = s.pre_push(&[]);
    assert_eq!(d.code, 1);
    // Neither half is what the review approved: the first names both.
    assert_eq!(
        d.json["reason_code"], "receipt_scope_changed",
        "{}",
        d.stdout
    );
    assert_eq!(d.json["next_action"], "start_commit_review");
    assert_eq!(d.json["deliveries"][0]["commits"], 2);
    let stack = d.json["deliveries"][0]["stack"].as_array().unwrap();
    assert_eq!(stack.len(), 2);
    assert_eq!(stack[0]["commit"], half.as_str());
    assert_eq!(stack[1]["decision"], "deny");
    let message = d.json["message"].as_str().unwrap();
    let command = format!(
        "probity start --range {}..{}",
        s.rev("origin/main"),
        s.rev("HEAD")
    );
    assert!(message.contains(&command), "{message}");
    assert!(message.contains(&half), "{message}");

    // Squashed into one commit of the reviewed candidate, it passes.
    s.f.git(&["reset", "-q", "--soft", "origin/main"]).unwrap();
    s.f.git(&["commit", "-q", "-m", "reviewed change"]).unwrap();
    let ok = s.pre_push(&[]);
    assert_eq!(ok.json["decision"], "allow", "{}", ok.stdout);
}

#[test]
fn one_delivery_through_two_refs_is_judged_once() {
    let (s, tip) = Setup::committed();
    let base = s.rev("origin/main");
    let lines = format!(
        "refs/heads/main {tip} refs/heads/main {base}\nrefs/heads/main {tip} refs/heads/feature {ZERO}\n"
    );
    let d = s.updates(&lines);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["boundary"], "updates");
    let deliveries = d.json["deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 1, "{}", d.stdout);
    assert_eq!(
        deliveries[0]["refs"],
        serde_json::json!(["refs/heads/main", "refs/heads/feature"])
    );

    // And through the real hook.
    s.install_hook();
    s.push(&["origin", "main", "main:feature"]).unwrap();
    assert_eq!(s.remote_rev("feature").as_deref(), Some(tip.as_str()));
}

#[test]
fn empty_ranges_and_merges_are_denied_and_deletions_allowed() {
    let s = Setup::new();
    // A new remote branch at a commit origin already has: no delivery.
    let published = s.rev("origin/main");
    let empty = s.update("refs/heads/x", &published, "refs/heads/x", ZERO);
    // It is judged as that commit, which no review approved.
    assert_eq!(empty.code, 1, "{}", empty.stdout);
    assert_eq!(empty.json["reason_code"], "receipt_missing");
    // A range with no commit at all delivers nothing to bind.
    let none = s.pre_push(&["--range", "HEAD..HEAD"]);
    assert_eq!(none.code, 1, "{}", none.stdout);
    assert_eq!(none.json["reason_code"], "delivery_empty");
    assert_eq!(none.json["next_action"], "check_range");

    // Only a deletion: nothing crosses the boundary.
    let del = s.update("(delete)", ZERO, "refs/heads/old", &published);
    assert_eq!(del.code, 0, "{}", del.stdout);
    assert_eq!(del.json["reason_code"], "nothing_delivered");

    // A merge commit is not one delivery commit.
    s.f.commit_all("reviewed change").unwrap();
    s.f.git(&["checkout", "-q", "-b", "side", "origin/main"])
        .unwrap();
    s.f.write("docs/side.md", "side\n").unwrap();
    s.f.commit_all("side").unwrap();
    s.f.git(&["checkout", "-q", "main"]).unwrap();
    s.f.git(&["merge", "-q", "--no-ff", "--no-edit", "side"])
        .unwrap();
    let merge = s.rev("HEAD");
    let m = s.update("refs/heads/main", &merge, "refs/heads/main", &published);
    assert_eq!(m.code, 1);
    assert_eq!(m.json["reason_code"], "delivery_partial");
}

#[test]
fn a_reviewed_root_commit_pushes_to_an_empty_remote() {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\n")
        .unwrap();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    f.commit_all("first").unwrap();
    let tip = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    let remote = tempfile::tempdir().unwrap();
    let bare = remote.path().join("empty.git");
    f.git(&["init", "-q", "--bare", bare.to_str().unwrap()])
        .unwrap();
    let d = gate_with_stdin(
        f.root(),
        &["--remote", bare.to_str().unwrap()],
        &format!("refs/heads/main {} refs/heads/main {ZERO}\n", tip.trim()),
    );
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "receipt_valid");
}

#[test]
fn bad_inputs_are_typed_errors_and_change_nothing() {
    let (s, _) = Setup::committed();
    let before = store_snapshot(&s.f);

    let garbage = s.updates("refs/heads/main not-an-oid refs/heads/main x\n");
    garbage.assert_refused(3, "bad_push_input");

    let short = s.updates("refs/heads/main\n");
    // "0" is not git's all-zero id: no update is mistaken for a deletion.
    let zero = s.updates("a 0 b 0\n");
    zero.assert_error("bad_push_input");
    // The hook input needs the remote it is pushed to.
    let no_remote = gate_with_stdin(s.f.root(), &[], "");
    assert_eq!(no_remote.code, 2, "{}", no_remote.stdout);
    // A remote that does not exist is a repository error, never a verdict.
    let nope = s.pre_push(&["--remote", "nope"]);
    assert_eq!(nope.code, 5, "{}", nope.stdout);
    assert_eq!(short.code, 3);
    assert_eq!(short.json["error"]["code"], "bad_push_input");
    // Hook input is bounded like every input (it was read whole): 4 MiB of
    // lines is far past what a push of the gates' 1,000 commits sends.
    let line = format!(
        "refs/heads/a {} refs/heads/a {}\n",
        "1".repeat(40),
        "0".repeat(40)
    );
    let flood = line.repeat(4 * 1024 * 1024 / line.len() + 1);
    let big = s.updates(&flood);
    big.assert_refused(3, "input_too_large");

    for bad in ["HEAD", "a...b", "..HEAD", "HEAD.."] {
        let r = s.pre_push(&["--range", bad]);
        assert_eq!(r.code, 2, "{bad}: {}", r.stdout);
        assert_eq!(r.json["error"]["code"], "bad_range", "{bad}");
    }

    let unknown = s.pre_push(&["--range", "no-such-ref..HEAD"]);
    assert_ne!(unknown.code, 0);
    assert_ne!(
        unknown.code, 1,
        "an unknown revision is an error, not a denial"
    );
    assert!(unknown.stdout.contains("no-such-ref"), "{}", unknown.stdout);

    // An option-looking revision never becomes an option.
    let opt = s.pre_push(&["--range", "--output=x..HEAD"]);
    assert_ne!(opt.code, 0);
    assert!(!s.f.root().join("x").exists());

    let mixed = s.pre_push(&["--staged"]);
    assert_eq!(mixed.json["error"]["code"], "flag_not_for_gate");
    let mixed = probity(
        s.f.root(),
        &["validate", "--gate", "pre-commit", "--remote", "origin"],
    );
    assert_eq!(mixed.json["error"]["code"], "flag_not_for_gate");

    assert!(store_snapshot(&s.f) == before, "the store changed");
}

/// The gate denied the range at `commit`, committed work no review covers,
/// and names the command that reviews exactly that commit.
fn assert_names_unreviewed(d: &Run, commit: &str) {
    assert_eq!(d.code, 1, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["decision"], "deny");
    assert_eq!(d.json["next_action"], "start_commit_review", "{}", d.stdout);
    let message = d.json["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("probity start --commit {commit}")),
        "{message}"
    );
    let stack = d.json["deliveries"][0]["stack"].as_array().unwrap();
    let denied: Vec<&serde_json::Value> =
        stack.iter().filter(|c| c["decision"] == "deny").collect();
    assert_eq!(denied.len(), 1, "{}", d.stdout);

    assert_eq!(denied[0]["commit"], commit);
}

/// A bare repository in `dir`, for pushes to a second remote.
fn bare(dir: &Path, name: &str, f: &Fixture) -> String {
    let p = dir.join(name);
    f.git(&["init", "-q", "--bare", "-b", "main", p.to_str().unwrap()])
        .unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn unreviewed_history_never_rides_along_to_a_remote_that_lacks_it() {
    let (s, tip) = Setup::committed();
    s.install_hook();
    // The tracking refs still say origin has main, but the push goes to a
    // new, empty remote: all history is delivered, so it is not one commit.
    let dir = tempfile::tempdir().unwrap();
    let empty = bare(dir.path(), "new.git", &s.f);
    s.f.git(&["remote", "set-url", "origin", &empty]).unwrap();
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("failed to push"), "{err}");
    let d = s.update("refs/heads/main", &tip, "refs/heads/main", ZERO);
    // The root commit the remote lacks was never reviewed: it is named.
    let root = s.rev("HEAD~1");
    assert_names_unreviewed(&d, &root);
    assert_eq!(d.json["deliveries"][0]["commits"], 2);
}

#[test]
fn a_branch_deleted_on_the_remote_is_not_taken_as_published() {
    // `wip` adds a secret and is pushed; more work goes on top.
    let s = Setup::on_pushed_wip();
    // Someone deletes `wip` on the remote; this clone's origin/wip stays.
    s.f.git_in(&s.remote, &["update-ref", "-d", "refs/heads/wip"])
        .unwrap();
    s.f.write("secret.env", "").unwrap();
    s.f.commit_all("empty the secret").unwrap();
    let wip_tip = s.rev("HEAD");
    let d = s.update("refs/heads/wip", &wip_tip, "refs/heads/feature", ZERO);
    // Two commits the remote lacks now, whatever origin/wip says: the one
    // adding the secret is judged (and denied) first, and both are named.
    assert_eq!(d.json["deliveries"][0]["commits"], 2);
    assert_eq!(d.json["next_action"], "start_commit_review", "{}", d.stdout);
    let message = d.json["message"].as_str().unwrap();
    assert!(message.contains(&s.rev("HEAD~1")), "{message}");
    assert!(
        message.contains(&format!(
            "probity start --range {}..{wip_tip}",
            s.rev("HEAD~2")
        )),
        "{message}"
    );
}

#[test]
fn a_forced_push_that_drops_published_work_is_denied() {
    let (s, _) = Setup::committed();
    s.install_hook();
    s.push(&["origin", "main"]).unwrap();
    let published = s.rev("HEAD");
    // Replace the published commit with another reviewed commit on its
    // parent.
    s.f.git(&["reset", "-q", "--hard", "HEAD~1"]).unwrap();
    s.f.write("src/other.rs", "fn other() {}\n").unwrap();
    s.approve();
    s.f.commit_all("replacement").unwrap();
    let replacement = s.rev("HEAD");
    let d = s.update(
        "refs/heads/main",
        &replacement,
        "refs/heads/main",
        &published,
    );
    assert_eq!(
        d.json["reason_code"], "delivery_not_fast_forward",
        "{}",
        d.stdout
    );
    assert!(s.push(&["-f", "origin", "main"]).is_err());
    assert_eq!(s.remote_rev("main").as_deref(), Some(published.as_str()));

    // A remote tip this clone has never seen proves nothing either.
    let unknown = "1234567890123456789012345678901234567890";
    let d = s.update("refs/heads/main", &replacement, "refs/heads/main", unknown);
    assert_eq!(
        d.json["reason_code"], "delivery_not_fast_forward",
        "{}",
        d.stdout
    );
}

#[test]
fn a_tag_of_a_tree_is_not_a_delivery() {
    let s = Setup::new();
    let tree = s.rev("HEAD^{tree}");
    let d = s.update("refs/tags/t", &tree, "refs/tags/t", ZERO);
    assert_eq!(d.code, 1, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "delivery_not_commit");
}

#[test]
fn a_new_branch_on_published_history_is_one_delivery() {
    // `git push -u origin feature`: the reviewed commit sits on main, which
    // the remote advertises.
    let s = Setup::new();
    s.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    s.f.commit_all("reviewed change").unwrap();
    s.install_hook();
    s.push(&["-u", "origin", "feature"]).unwrap();
    assert_eq!(s.remote_rev("feature"), Some(s.rev("HEAD")));
}

/// The setup with `wip` (an unreviewed commit adding a secret) under the
/// reviewed change, committed on top of it; `wip` itself is on `origin`.
fn reviewed_on_wip() -> (Setup, String) {
    let s = Setup::on_pushed_wip();
    s.f.git(&["stash", "pop", "-q"]).unwrap();
    s.approve();
    s.f.commit_all("reviewed change").unwrap();
    let tip = s.rev("HEAD");
    (s, tip)
}

#[test]
fn the_push_url_is_what_is_asked_not_the_fetch_url() {
    let (s, tip) = reviewed_on_wip();
    // Pushes go to a fork that never had `wip`; fetches still see origin.
    let dir = tempfile::tempdir().unwrap();
    let fork = bare(dir.path(), "fork.git", &s.f);
    s.f.git(&[
        "push",
        "-q",
        "--no-verify",
        &fork,
        "origin/main:refs/heads/main",
    ])
    .unwrap();
    s.f.git(&["remote", "set-url", "--push", "origin", &fork])
        .unwrap();
    s.install_hook();
    let err = s.push(&["origin", "HEAD:refs/heads/feature"]).unwrap_err();
    assert!(err.contains("failed to push"), "{err}");
    let d = gate_with_stdin(
        s.f.root(),
        &["--remote", &fork],
        &format!("refs/heads/wip {tip} refs/heads/feature {ZERO}\n"),
    );
    assert_names_unreviewed(&d, &s.rev("HEAD~1"));
}

#[test]
fn only_branches_and_tags_vouch_for_history_and_not_those_the_push_moves() {
    let (s, tip) = reviewed_on_wip();
    // Unreviewed history parked under refs/pull/* is not published history.
    let wip = s.rev("wip");
    s.f.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        &format!("{wip}:refs/pull/1/head"),
    ])
    .unwrap();
    s.f.git(&["push", "-q", "--no-verify", "origin", ":wip"])
        .unwrap();
    let d = s.update("refs/heads/wip", &tip, "refs/heads/release", ZERO);
    assert_names_unreviewed(&d, &s.rev("HEAD~1"));

    // A branch the same push deletes does not vouch for what it held.
    s.f.git(&["push", "-q", "--no-verify", "origin", "wip"])
        .unwrap();
    let d = s.updates(&format!(
        "(delete) {ZERO} refs/heads/wip {wip}\nrefs/heads/wip {tip} refs/heads/release {ZERO}\n"
    ));
    assert_names_unreviewed(&d, &s.rev("HEAD~1"));
}

#[test]
fn a_new_ref_at_a_published_reviewed_commit_is_that_commit() {
    let (s, _) = Setup::committed();
    s.install_hook();
    s.push(&["origin", "main"]).unwrap();
    // A release tag and a branch copy of the reviewed, published commit.
    s.f.git(&["tag", "-a", "-m", "release", "v1.0"]).unwrap();
    s.push(&["origin", "v1.0"]).unwrap();
    s.push(&["origin", "main:refs/heads/copy"]).unwrap();
    assert_eq!(s.remote_rev("copy"), Some(s.rev("HEAD")));
    // A tag of a published but unreviewed commit is still denied.
    s.f.git(&["tag", "base", "HEAD~1"]).unwrap();
    let d = s.updates(&format!(
        "refs/tags/base {} refs/tags/base {ZERO}\n",
        s.rev("HEAD~1")
    ));
    assert_eq!(d.json["reason_code"], "receipt_missing", "{}", d.stdout);
}

#[test]
fn a_remote_with_many_refs_is_measured_all_the_same() {
    let (s, tip) = Setup::committed();
    // 60,000 advertised branches: more exclusions than an argument list
    // holds, so they go to git on stdin.
    let published = s.rev("origin/main");
    let mut packed = String::from("# pack-refs with: peeled fully-peeled sorted \n");
    for i in 0..60_000 {
        packed.push_str(&format!("{published} refs/heads/b{i:05}\n"));
    }
    std::fs::write(s.remote.join("packed-refs"), packed).unwrap();
    let d = s.update("refs/heads/main", &tip, "refs/heads/feature", ZERO);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "receipt_valid");
}

#[test]
fn grafts_never_change_what_a_commit_descends_from() {
    let (s, tip) = reviewed_on_wip();
    s.f.git(&["push", "-q", "--no-verify", "origin", ":wip"])
        .unwrap();
    // A graft claims the reviewed commit sits straight on origin's main.
    let graft = format!("{tip} {}\n", s.rev("origin/main"));
    std::fs::write(s.f.root().join(".git/info/grafts"), graft).unwrap();
    let d = s.update("refs/heads/wip", &tip, "refs/heads/feature", ZERO);
    assert_names_unreviewed(&d, &s.rev("HEAD~1"));
}
