//! Notes that only grow and never jam (issue 21 §2), through the real
//! `probity` binary, real `git push` and a real bare server with the
//! pre-receive hook installed: the notes ref keeps every line of every note
//! it held; a note's extra, stale, conflicting or forged bundles are
//! reported, never fatal, while one of its bundles proves the delivery;
//! concurrent reviews of one commit from two clones, merged with
//! `cat_sort_uniq`, pass every notes-based gate.

mod support;

use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use support::*;

struct Setup {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    inputs: tempfile::TempDir,
}

impl Setup {
    /// A clone whose `main` is on a bare server with the server hook
    /// installed, and the medium change in its worktree (not committed).
    fn new() -> Self {
        let (f, dir, server) = hooked_origin();
        let s = Self {
            f,
            _dir: dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        };
        write_medium_change(&s.f);
        s
    }

    fn rev(&self, cwd: &Path, r: &str) -> Option<String> {
        self.f
            .git_in(cwd, &["rev-parse", "-q", "--verify", r])
            .ok()
            .map(|b| String::from_utf8(b).unwrap().trim().to_string())
    }

    fn server_rev(&self, r: &str) -> Option<String> {
        self.rev(&self.server, r)
    }

    /// `git push --no-verify` from `cwd`: Ok, or Err(stderr).
    fn push_from(&self, cwd: &Path, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["push", "-q", "--no-verify"];
        all.extend_from_slice(args);
        self.f
            .git_in(cwd, &all)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn push(&self, args: &[&str]) -> Result<(), String> {
        self.push_from(self.f.root(), args)
    }

    /// Another clone of the server, with its own identity.
    fn clone_server(&self, name: &str) -> (tempfile::TempDir, PathBuf) {
        clone_as(&self.f, &self.server, name)
    }

    /// The raw note of `commit` in `cwd`'s refs/notes/probity.
    fn note(&self, cwd: &Path, commit: &str) -> Option<Vec<u8>> {
        support::transport::note(&self.f, cwd, commit)
    }

    /// Replaces a commit's note with `bytes`, as anyone with git can: a new
    /// notes commit on top of the current one (a fast-forward).
    fn set_note(&self, commit: &str, bytes: &[u8]) {
        support::transport::set_note(&self.f, self.f.root(), commit, bytes, self.inputs.path());
    }
}

/// The sorted, LF-terminated note holding `lines` (what `cat_sort_uniq`
/// makes).
fn note_of(lines: &[&[u8]]) -> Vec<u8> {
    let mut v: Vec<&[u8]> = lines
        .iter()
        .map(|l| l.strip_suffix(b"\n").unwrap_or(l))
        .collect();
    v.sort();
    v.dedup();
    let mut out = Vec::new();
    for l in v {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

/// A CI-like checkout: a fresh clone of the server with its notes fetched,
/// and no review store.
fn ci_clone(s: &Setup) -> (tempfile::TempDir, PathBuf) {
    let (d, ci) = s.clone_server("ci");
    fetch_notes(&s.f, &ci);
    (d, ci)
}

fn ci_range(ci: &Path, base: &str) -> Run {
    probity(
        ci,
        &pre_receive_args(&format!("{base}..HEAD"), "refs/heads/main"),
    )
}

fn ci_pre_pr(ci: &Path, base: &str) -> Run {
    probity(ci, &notes_pre_pr_args(base, &[]))
}

/// The `refused_bundles` of a notes gate's answer: (commit, reason code).
fn refused(r: &Run) -> Vec<(String, String)> {
    r.json["refused_bundles"]
        .as_array()
        .unwrap_or_else(|| panic!("no refused_bundles array: {}", r.stdout))
        .iter()
        .map(|b| {
            (
                b["commit"].as_str().unwrap_or_default().to_string(),
                b["reason_code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_notes_update_may_add_lines_but_never_drop_a_note_or_a_line() {
    let s = Setup::new();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev(s.f.root(), "HEAD").unwrap();
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    let published = s.server_rev("refs/notes/probity").unwrap();
    let good = s.note(s.f.root(), &tip).unwrap();

    // The note removed, in a notes commit on top: a fast-forward that
    // strips the published commit's authority.
    s.f.git(&["notes", "--ref=probity", "remove", &tip])
        .unwrap();
    let err = s.push(&["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_line_removed"), "{err}");
    assert!(err.contains(&tip), "the denial names the commit: {err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));

    // A line added to the note: allowed (the note only grows).
    s.f.git(&["update-ref", "refs/notes/probity", &published])
        .unwrap();
    let two = note_of(&[&good, b"a second line\n"]);
    s.set_note(&tip, &two);
    s.push(&["origin", "refs/notes/probity"]).unwrap();
    let grown = s.server_rev("refs/notes/probity").unwrap();
    assert_ne!(grown, published);
    assert_eq!(s.note(&s.server, &tip), Some(two.clone()));

    // One line of the two-line note dropped, either one: denied.
    for kept in [&good[..], b"a second line\n"] {
        s.set_note(&tip, &note_of(&[kept]));
        let err = s.push(&["origin", "refs/notes/probity"]).unwrap_err();
        assert!(err.contains("notes_line_removed"), "{err}");
        assert_eq!(s.server_rev("refs/notes/probity"), Some(grown.clone()));
        s.f.git(&["update-ref", "refs/notes/probity", &grown])
            .unwrap();
    }

    // A note on another commit beside the kept one: allowed.
    let base = s.rev(s.f.root(), "HEAD~1").unwrap();
    s.f.git(&["notes", "--ref=probity", "add", "-m", "more", &base])
        .unwrap();
    s.push(&["origin", "refs/notes/probity"]).unwrap();
    assert_eq!(s.note(&s.server, &tip), Some(two));
}

/// Red team round 2 (attempt 42): a note the push adds was never measured
/// (only a note it changes was), so a notes-only push stored a 20 MB note
/// on the server for good, which every CI job then downloads. A note the
/// push adds is held to the bound a changed one is: over it, the push is
/// refused `input_too_large`, whether the notes ref exists or is created.
#[test]
fn a_note_the_push_adds_is_held_to_the_note_bound() {
    let s = Setup::new();
    let over = vec![b'x'; probity_core::review::MAX_NOTE_BYTES + 1];
    let base = s.rev(s.f.root(), "HEAD").unwrap();
    // The notes ref created by this push, with one note over the bound.
    s.set_note(&base, &over);
    let err = s.push(&["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), None);
    // A reviewed delivery publishes its notes; then a new note over the
    // bound on another commit is refused, and one under it lands.
    s.f.git(&["update-ref", "-d", "refs/notes/probity"])
        .unwrap();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("reviewed").unwrap();
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    let published = s.server_rev("refs/notes/probity").unwrap();
    s.set_note(&base, &over);
    let err = s.push(&["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert!(err.contains(&base), "the denial names the commit: {err}");
    assert!(err.contains("next: the message names"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
    // The next step followed: the server's notes fetched over the local
    // ones, then a small note added on top lands.
    s.f.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/notes/probity:refs/notes/probity",
    ])
    .unwrap();
    s.set_note(&base, b"a small note\n");
    s.push(&["origin", "refs/notes/probity"]).unwrap();
    assert_eq!(s.note(&s.server, &base), Some(b"a small note\n".to_vec()));
    // Red team round 3 (attempts 80, 81): a file at a path that is no note
    // (`zz/junk.bin`), or a note spelled in upper case (which git reads as
    // the commit's note all the same, jamming a teammate's next push), is
    // refused: the notes tree holds notes at their canonical paths only.
    let published = s.server_rev("refs/notes/probity").unwrap();
    let git_in = |args: &[&str], input: &[u8]| -> String {
        let out = output_with_stdin(plain_git(s.f.root()).args(args), input);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    for (name, junk) in [("ZZ", "junk.bin"), (base.to_uppercase().as_str(), "")] {
        let blob = git_in(&["hash-object", "-w", "--stdin"], b"junk\n");
        let mut entries =
            String::from_utf8(s.f.git(&["ls-tree", "refs/notes/probity^{tree}"]).unwrap()).unwrap();
        if junk.is_empty() {
            entries.push_str(&format!("100644 blob {blob}\t{name}\n"));
        } else {
            let sub = git_in(
                &["mktree"],
                format!("100644 blob {blob}\t{junk}\n").as_bytes(),
            );
            entries.push_str(&format!("040000 tree {sub}\t{name}\n"));
        }
        let tree = git_in(&["mktree"], entries.as_bytes());
        let commit = git_in(&["commit-tree", &tree, "-p", &published, "-m", "junk"], b"");
        s.f.git(&["update-ref", "refs/notes/probity", &commit])
            .unwrap();
        let err = s.push(&["origin", "refs/notes/probity"]).unwrap_err();
        assert!(err.contains("note_path_invalid"), "{name}: {err}");
        assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));
    }
    // A gitlink at a note's path is no note either: refused by name, not
    // read as a server fault.
    let entries = String::from_utf8(
        s.f.git(&["ls-tree", &format!("{published}^{{tree}}")])
            .unwrap(),
    )
    .unwrap();
    let other = "ab".repeat(20);
    let gitlink = |entries: &str, name: &str| {
        let mut entries = entries.to_string();
        entries.push_str(&format!("160000 commit {base}\t{name}\n"));
        let tree = git_in(&["mktree"], entries.as_bytes());
        let commit = git_in(&["commit-tree", &tree, "-p", &published, "-m", "link"], b"");
        s.f.git(&["update-ref", "refs/notes/probity", &commit])
            .unwrap();
        s.push(&["origin", "refs/notes/probity"]).unwrap_err()
    };
    let err = gitlink(&entries, &other);
    assert!(err.contains("input_too_large"), "{err}");
    assert!(err.contains(&other), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));
    // Beside a held note of the same name (`mktree` writes both): a tree
    // git never writes, refused as a denial of the notes (D-R163).
    let held = s.rev(s.f.root(), "HEAD~1").unwrap();
    let err = gitlink(&entries, &held);
    assert!(err.contains("DENY: tree_malformed"), "{err}");
    assert!(
        err.contains(&format!("two entries named `{held}`")),
        "{err}"
    );
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
}

/// Commit `C` (the medium change on `main`'s tip) made in `s.f` and put on
/// the server under an unprotected tag; a second clone `b` that has it.
/// Each clone reviews `C` on its own (`start --commit`) and publishes it.
/// Returns (base, C, clone b).
fn reviewed_twice(s: &Setup) -> (String, String, tempfile::TempDir, PathBuf) {
    let base = s.rev(s.f.root(), "HEAD").unwrap();
    s.f.commit_all("one change, two reviewers").unwrap();
    let c = s.rev(s.f.root(), "HEAD").unwrap();
    s.push(&["origin", &format!("{c}:refs/tags/wip")]).unwrap();
    let (d, b) = s.clone_server("b");
    s.f.git_in(&b, &["checkout", "-q", "-B", "main", "wip"])
        .unwrap();
    for cwd in [s.f.root(), b.as_path()] {
        let st = probity_ok(cwd, &["start", "--commit", &c]);
        approve_started(cwd, s.inputs.path(), &st.json);
        let pb = probity_ok(cwd, &["publish", "--range", &format!("{base}..{c}")]);
        assert_eq!(pb.json["written"][0]["commit"], c.as_str(), "{}", pb.stdout);
    }
    assert_ne!(s.note(s.f.root(), &c), s.note(&b, &c), "two reviews");
    (base, c, d, b)
}

#[test]
fn two_clones_reviewing_one_commit_merge_their_notes_and_pass_every_gate() {
    let s = Setup::new();
    let (base, c, _d, b) = reviewed_twice(&s);
    // Clone A takes B's notes with git's own merge: one note, two lines.
    let b_url = b.to_str().unwrap();
    s.f.git(&[
        "fetch",
        "-q",
        b_url,
        "+refs/notes/probity:refs/notes/probity-b",
    ])
    .unwrap();
    merge_notes(&s.f, "refs/notes/probity-b");
    let merged = s.note(s.f.root(), &c).unwrap();
    let a_note = s.note(&b, &c).unwrap();
    assert_eq!(
        merged
            .split(|x| *x == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        2
    );
    assert!(
        merged
            .windows(a_note.len() - 1)
            .any(|w| w == &a_note[..a_note.len() - 1])
    );

    // The server hook allows the delivery with the merged notes.
    s.push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap();
    assert_eq!(s.server_rev("main"), Some(c.clone()));

    // CI, from a fresh clone with the notes fetched: both notes forms allow,
    // and report the second review's bundle (its candidate is already the
    // first's) instead of failing on it.
    let (_ci_dir, ci) = ci_clone(&s);
    let r = ci_range(&ci, &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["decision"], "allow");
    assert_eq!(
        refused(&r),
        vec![(c.clone(), "import_conflict".to_string())]
    );
    let pr = ci_pre_pr(&ci, &base);
    assert_eq!(pr.code, 0, "{}{}", pr.stdout, pr.stderr);
    assert_eq!(pr.json["decision"], "allow");
    assert_eq!(
        refused(&pr),
        vec![(c.clone(), "import_conflict".to_string())]
    );
    // The text answer warns, and still allows.
    let text = probity_in(&ci)
        .args(notes_pre_pr_args(&base, &[]))
        .output()
        .unwrap();
    // A gate's text goes to stderr (a hook's reaches the pusher as
    // `remote:` lines).
    let out = String::from_utf8_lossy(&text.stderr);
    assert!(text.status.success(), "{out}");
    assert!(
        out.contains("warning:") && out.contains("import_conflict"),
        "{out}"
    );
}

#[test]
fn a_bundle_left_by_a_failed_push_does_not_jam_later_pushes() {
    let s = Setup::new();
    let (_base, c, _d, b) = reviewed_twice(&s);
    // A's `probity push` fails (the server is unreachable for a moment):
    // A's bundle stays in A's note on C.
    let url = s.server.to_str().unwrap().to_string();
    s.f.git(&["remote", "set-url", "origin", "/nonexistent/server.git"])
        .unwrap();
    let failed = probity(s.f.root(), &["push", "origin", "main"]);
    assert_ne!(failed.code, 0, "{}{}", failed.stdout, failed.stderr);
    s.f.git(&["remote", "set-url", "origin", &url]).unwrap();
    assert!(s.note(s.f.root(), &c).is_some());
    // Meanwhile B pushes its notes with the commit under its tag.
    probity_ok(&b, &["push", "origin", "wip"]);
    // A pushes again: the server's notes are merged in (C's note now holds
    // A's stale bundle and B's), and the push is allowed.
    let again = probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(again.json["notes_merged_from_remote"], true);
    assert_eq!(s.server_rev("main"), Some(c.clone()));
    let on_server = s.note(&s.server, &c).unwrap();
    assert_eq!(
        on_server
            .split(|x| *x == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        2
    );
    // And once more, with nothing new: still allowed.
    probity_ok(s.f.root(), &["push", "origin", "main"]);
}

#[test]
fn a_forged_line_beside_a_genuine_bundle_is_reported_and_alone_is_denied() {
    let s = Setup::new();
    let base = s.rev(s.f.root(), "HEAD").unwrap();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev(s.f.root(), "HEAD").unwrap();
    probity_ok(s.f.root(), &["publish"]);
    let good = s.note(s.f.root(), &tip).unwrap();
    let forged = support::transport::forge(good.strip_suffix(b"\n").unwrap());

    // Only the forged bundle: denied with its own code, as before.
    s.set_note(&tip, &note_of(&[&forged]));
    let err = s
        .push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("bundle_record_invalid"), "{err}");
    assert_ne!(s.server_rev("main"), Some(tip.clone()));

    // The genuine bundle beside the forged one and a garbage line: the
    // genuine one proves the delivery; the others are reported.
    s.set_note(&tip, &note_of(&[&good, &forged, b"not a bundle at all"]));
    s.push(&["--atomic", "origin", "main", "refs/notes/probity"])
        .unwrap();
    assert_eq!(s.server_rev("main"), Some(tip.clone()));
    let (_ci_dir, ci) = ci_clone(&s);
    let r = ci_range(&ci, &base);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let mut codes: Vec<String> = refused(&r).into_iter().map(|(_, c)| c).collect();
    codes.sort();
    assert_eq!(codes, vec!["bundle_invalid", "bundle_record_invalid"]);
    // The forged bundle authorizes nothing: the note stripped of the
    // genuine line (in a CI clone, where the server's rule does not run)
    // is denied.
    s.f.git_in(
        &ci,
        &[
            "notes",
            "--ref=probity",
            "add",
            "-f",
            "-m",
            "not a bundle at all",
            &tip,
        ],
    )
    .unwrap();
    let r = ci_range(&ci, &base);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["reason_code"], "bundle_invalid");
}

/// A commit rebased onto reviewed upstream work is allowed by the rebase
/// proof (its review approves another (base, tree)). An unfinished review
/// of the same candidate, started in another clone and put first in the
/// note, authorizes nothing and cannot take the candidate from it.
#[test]
fn an_unfinished_review_put_first_cannot_jam_a_rebased_delivery() {
    let s = Setup::new();
    // Mallory's clone starts a review of the same candidate, never
    // finishes it, and exports it.
    let (_md, m) = s.clone_server("m");
    write_medium_change_in(&m);
    let st = probity_ok(&m, &["start"]);
    let unfinished = string_at(&st.json, "lineage_id");
    let out = probity_raw(&m, &["bundle", "export", "--lineage", &unfinished]);
    let mallory = out.strip_suffix(b"\n").unwrap().to_vec();
    // Here: the same candidate approved and committed.
    let lineage = string_at(&approve_live(s.f.root(), s.inputs.path()), "lineage_id");
    s.f.commit_all("reviewed here").unwrap();
    let orig = s.rev(s.f.root(), "HEAD").unwrap();
    // Another clone lands reviewed work on another path; rebase onto it.
    let (_bd, b) = s.clone_server("b");
    transport::land_reviewed_upstream(&s.f, &b, s.inputs.path());
    s.f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    s.f.git(&[
        "fetch",
        "-q",
        "origin",
        "refs/notes/probity:refs/notes/probity",
    ])
    .unwrap();
    let tip = s.rev(s.f.root(), "HEAD").unwrap();
    let p = probity(s.f.root(), &["publish"]);
    assert_eq!(p.json["written"][0]["commit"], tip.as_str(), "{}", p.stdout);
    // Mallory's line first in the note (a note is read in any order).
    let genuine = s.note(s.f.root(), &tip).unwrap();
    s.set_note(&tip, &[&mallory[..], b"\n", &genuine[..]].concat());
    // Pushed with plain git, with the trees the review froze.
    let tree = |r: &str| s.rev(s.f.root(), &format!("{r}^{{tree}}")).unwrap();
    let (base_tree, final_tree) = (tree(&format!("{orig}~1")), tree(&orig));
    let refs = [
        format!("{base_tree}:refs/probity/trees/{lineage}/base"),
        format!("{final_tree}:refs/probity/trees/{lineage}/candidate"),
        format!("{final_tree}:refs/probity/trees/{lineage}/final"),
    ];
    let mut args = vec!["--atomic", "origin", "main", "refs/notes/probity"];
    args.extend(refs.iter().map(String::as_str));
    s.push(&args).unwrap();
    assert_eq!(s.server_rev("main"), Some(tip.clone()));
    // CI reports the unfinished review and allows.
    let (_ci_dir, ci) = ci_clone(&s);
    let mut want = refused(&ci_range(&ci, &format!("{tip}~1")));
    want.sort();
    assert_eq!(want, vec![(tip, "import_conflict".to_string())]);
}

/// The medium change, written into another clone's worktree.
fn write_medium_change_in(root: &Path) {
    std::fs::write(
        root.join("src/parser.rs"),
        "// parser\nfn parse() {}\nfn more() {}\n",
    )
    .unwrap();
    std::fs::write(root.join("src/parser_test.rs"), "#[test]\nfn t() {}\n").unwrap();
}

/// `probity ARGS` in `cwd`, its raw stdout (no --json).
fn probity_raw(cwd: &Path, args: &[&str]) -> Vec<u8> {
    let out = output_ok(probity_in(cwd).args(args));
    out.stdout
}

/// In `cwd`, as anyone with git can: a notes commit on `refs/notes/probity`
/// whose tree is the current one with `files` (path, blob id) added, and
/// the ref moved to it (a fast-forward).
fn notes_with_files(cwd: &Path, files: &[(String, String)]) -> String {
    let index = tempfile::tempdir().unwrap();
    let env = [("GIT_INDEX_FILE", index.path().join("index"))];
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let parent = git_out(cwd, &["rev-parse", "refs/notes/probity"], b"", &[]);
    git_out(cwd, &["read-tree", &parent], b"", &env);
    for (path, blob) in files {
        let info = format!("100644,{blob},{path}");
        git_out(
            cwd,
            &["update-index", "--add", "--cacheinfo", &info],
            b"",
            &env,
        );
    }
    let tree = git_out(cwd, &["write-tree"], b"", &env);
    let commit = git_out(
        cwd,
        &["commit-tree", &tree, "-p", &parent, "-m", "n"],
        b"",
        &[],
    );
    git_out(
        cwd,
        &["update-ref", "refs/notes/probity", &commit],
        b"",
        &[],
    );
    commit
}

/// A reviewed commit of the medium change pushed with `probity push`, then
/// another clone of the server with its notes: (tip, the clone).
fn published_and_cloned(s: &Setup) -> (String, tempfile::TempDir, PathBuf) {
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("reviewed").unwrap();
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    let tip = s.rev(s.f.root(), "HEAD").unwrap();
    let (d, other) = s.clone_server("other");
    fetch_notes(&s.f, &other);
    (tip, d, other)
}

/// The teammate's everyday flow in `s.f`: one more reviewed commit, then
/// `probity push origin main`, which fetches and merges the server's notes
/// (`cat_sort_uniq`) and publishes: it lands.
fn next_reviewed_push_lands(s: &Setup, line: &str) {
    let parser = s.f.root().join("src/parser.rs");
    let mut text = std::fs::read_to_string(&parser).unwrap();
    text.push_str(line);
    std::fs::write(&parser, text).unwrap();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("next").unwrap();
    let r = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(s.server_rev("refs/heads/main"), s.rev(s.f.root(), "HEAD"));
}

/// Red team round 4 (finding 6): an agent's notes-only push adds one
/// 8 MiB blob at eight one-level fan-out paths (64 MiB, within the bound).
/// The teammate's git writes the merged notes tree flat, moving those
/// notes: a move adds nothing, so the teammate's push lands (it was
/// `input_too_large` for everyone after).
#[test]
fn a_note_git_moves_to_another_fan_out_path_adds_nothing() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let big = b"x".repeat(127).into_iter().chain([b'\n']).cycle();
    let big: Vec<u8> = big.take(probity_core::review::MAX_NOTE_BYTES).collect();
    let blob = git_out(&agent, &["hash-object", "-w", "--stdin"], &big, &[]);
    let files: Vec<(String, String)> = (1..=8u64)
        .map(|i| {
            let id = format!("{:040x}", 0x00fe_ed00_0000_u64 + i);
            (format!("{}/{}", &id[..2], &id[2..]), blob.clone())
        })
        .collect();
    notes_with_files(&agent, &files);
    s.push_from(&agent, &["origin", "refs/notes/probity"])
        .unwrap();
    next_reviewed_push_lands(&s, "fn again() {}\n");
    let flat =
        s.f.git(&["ls-tree", "--name-only", "refs/notes/probity"])
            .unwrap();
    let flat = String::from_utf8(flat).unwrap();
    assert!(
        flat.lines().any(|p| p.ends_with("feed000001")),
        "git moved them: {flat}"
    );
}

/// Red team round 4 (finding 7): a second path for a noted commit, at any
/// fan-out depth, is refused by name with both paths (it jammed the
/// teammate's next push, `notes_line_removed`); so is a path deeper than
/// the gates read. The teammate's next push lands.
#[test]
fn a_noted_commit_gets_no_second_note_path() {
    let s = Setup::new();
    let (tip, _d, agent) = published_and_cloned(&s);
    let held = String::from_utf8(
        s.f.git_in(
            &agent,
            &["ls-tree", "-r", "--name-only", "refs/notes/probity"],
        )
        .unwrap(),
    )
    .unwrap()
    .lines()
    .find(|p| p.replace('/', "") == tip)
    .unwrap()
    .to_string();
    let blob = git_out(&agent, &["hash-object", "-w", "--stdin"], b"junk\n", &[]);
    let published = s.server_rev("refs/notes/probity").unwrap();
    for depth in 1..=4usize {
        let mut path: String = (0..depth)
            .map(|i| format!("{}/", &tip[i * 2..i * 2 + 2]))
            .collect();
        path.push_str(&tip[depth * 2..]);
        if path == held {
            continue;
        }
        s.f.git_in(&agent, &["update-ref", "refs/notes/probity", &published])
            .unwrap();
        notes_with_files(&agent, &[(path.clone(), blob.clone())]);
        let err = s
            .push_from(&agent, &["origin", "refs/notes/probity"])
            .unwrap_err();
        assert!(err.contains("note_path_invalid"), "{depth}: {err}");
        assert!(err.contains(&path), "{depth}: {err}");
        if depth < 4 {
            assert!(err.contains(&format!("is at {held}")), "{depth}: {err}");
        }
        assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));
    }
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// Red team round 4 (finding 13): a notes fast-forward is a merge whose
/// other parent's tree holds files that are no notes, or, shaped as
/// Probity's anchor of review trees, more bytes than an update may add:
/// refused by name (each was stored for good and fetched by every clone).
/// The teammate's next push, whose notes merge and anchors are notes
/// history, lands.
#[test]
fn a_notes_update_brings_only_notes_history_within_the_bounds() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let published = s.server_rev("refs/notes/probity").unwrap();
    let git = |args: &[&str], stdin: &[u8]| git_out(&agent, args, stdin, &[]);
    let merge_with = |side_tree: &str| {
        let side = git(&["commit-tree", side_tree, "-m", "side"], b"");
        notes_merging(&agent, &published, &side);
        s.push_from(&agent, &["origin", "refs/notes/probity"])
            .unwrap_err()
    };
    let junk = git(&["hash-object", "-w", "--stdin"], b"junk\n");
    let tree = git(
        &["mktree"],
        format!("100644 blob {junk}\tjunk-a.bin\n").as_bytes(),
    );
    let err = merge_with(&tree);
    assert!(
        err.contains("note_path_invalid") && err.contains("junk-a.bin"),
        "{err}"
    );
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));
    // Incompressible bytes over the bound, in a tree named by its own id.
    let anchor = anchor_over_the_bound(&agent);
    let err = merge_with(&anchor);
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// In `cwd`: `refs/notes/probity` set to a merge of the notes commit
/// `published` (its tree kept) and `side`, as anyone with git can make
/// one. Returns the merge.
fn notes_merging(cwd: &Path, published: &str, side: &str) -> String {
    let git = |args: &[&str]| git_out(cwd, args, b"", &[]);
    let tree = format!("{published}^{{tree}}");
    let merged = git(&[
        "commit-tree",
        &tree,
        "-p",
        published,
        "-p",
        side,
        "-m",
        "merge",
    ]);
    git(&["update-ref", "refs/notes/probity", &merged]);
    merged
}

/// In `cwd`: a tree shaped as Probity's anchor of review trees (one tree
/// entry named by its own id) holding a blob of `len` incompressible bytes
/// (`seed` makes them). Returns its id.
fn anchor_of(cwd: &Path, len: usize, seed: u64) -> String {
    let git = |args: &[&str], stdin: &[u8]| git_out(cwd, args, stdin, &[]);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ seed;
    let random: Vec<u8> = (0..len / 8)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()
        })
        .collect();
    let blob = git(&["hash-object", "-w", "--stdin"], &random);
    drop(random);
    let kept = git(
        &["mktree"],
        format!("100644 blob {blob}\tdata\n").as_bytes(),
    );
    git(
        &["mktree"],
        format!("040000 tree {kept}\t{kept}\n").as_bytes(),
    )
}

/// [`anchor_of`] one MiB over what an update may add to the notes.
fn anchor_over_the_bound(cwd: &Path) -> String {
    anchor_of(
        cwd,
        probity_core::review::MAX_ADDED_NOTES_BYTES as usize + (1 << 20),
        0,
    )
}

/// Red team round 5 (attempts 02, 02b), as D-R147 leaves it: two
/// anchor-shaped commits, each within what one notes update may add, whose
/// bytes an unprotected ref holds, merged into the notes by two updates.
/// The last ref update that takes that hold away (a deletion, a rewind)
/// would leave the notes alone holding both, over the bound, for good, and
/// every clone fetching it: refused by name. Deleting one of two refs that
/// hold them, a tag the notes do not hold, and the teammate's next
/// reviewed push all land.
#[test]
fn a_ref_update_leaving_only_the_notes_holding_over_the_bound_is_refused() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let published = s.server_rev("refs/notes/probity").unwrap();
    let git = |args: &[&str], stdin: &[u8]| git_out(&agent, args, stdin, &[]);
    let half = probity_core::review::MAX_ADDED_NOTES_BYTES as usize / 2 + (1 << 20);
    let sides: Vec<String> = [1, 2]
        .map(|seed| {
            let anchor = anchor_of(&agent, half, seed);
            git(&["commit-tree", &anchor, "-m", "side"], b"")
        })
        .to_vec();
    let empty = git(&["mktree"], b"");
    let hold = git(
        &[
            "commit-tree",
            &empty,
            "-p",
            &sides[0],
            "-p",
            &sides[1],
            "-m",
            "hold",
        ],
        b"",
    );
    let tree = format!("{published}^{{tree}}");
    // Tags: unprotected by default (`probity.protectedRefs` is
    // `refs/heads/*`).
    let (parking, also) = ("refs/tags/parking", "refs/tags/parking-too");
    s.push_from(
        &agent,
        &[
            "origin",
            &format!("{hold}:{parking}"),
            &format!("{hold}:{also}"),
        ],
    )
    .unwrap();
    // Each notes update brings one side: within the bound.
    let mut notes = published.clone();
    for side in &sides {
        notes = notes_merging(&agent, &notes, side);
        s.push_from(&agent, &["origin", "refs/notes/probity"])
            .unwrap();
        assert_eq!(s.server_rev("refs/notes/probity"), Some(notes.clone()));
    }
    // One of the two holds goes: the other still holds the bytes.
    s.push_from(&agent, &["origin", &format!(":{also}")])
        .unwrap();
    // The last one, deleted or rewound: refused, naming the ref.
    let err = s
        .push_from(&agent, &["origin", &format!(":{parking}")])
        .unwrap_err();
    assert!(
        err.contains("input_too_large") && err.contains(parking),
        "{err}"
    );
    let other = git(&["commit-tree", &tree, "-m", "elsewhere"], b"");
    let err = s
        .push_from(&agent, &["origin", &format!("+{other}:{parking}")])
        .unwrap_err();
    assert!(
        err.contains("input_too_large") && err.contains(parking),
        "{err}"
    );
    assert_eq!(s.server_rev(parking), Some(hold));
    // A tag the notes do not hold goes as before.
    s.push_from(&agent, &["origin", &format!("{other}:refs/tags/topic")])
        .unwrap();
    s.push_from(&agent, &["origin", ":refs/tags/topic"])
        .unwrap();
    assert_eq!(s.server_rev("refs/tags/topic"), None);
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// An anchor-shaped tree over the bound and a commit of it.
struct Junk {
    anchor: String,
    side: String,
}

/// A published reviewed commit and another clone of the server, whose
/// `refs/notes/probity` merges [`Junk`] (one MiB over what an update may
/// add): (its directory, the clone, the server's notes, the junk).
fn notes_merging_junk(s: &Setup) -> (tempfile::TempDir, PathBuf, String, Junk) {
    let (_tip, d, agent) = published_and_cloned(s);
    let published = s.server_rev("refs/notes/probity").unwrap();
    let anchor = anchor_over_the_bound(&agent);
    let side = git_out(&agent, &["commit-tree", &anchor, "-m", "side"], b"", &[]);
    notes_merging(&agent, &published, &side);
    (d, agent, published, Junk { anchor, side })
}

/// Red team round 7 (finding 04, D-R147): at the hook, what a notes update
/// brings is measured against the protected history alone. An unprotected
/// tag at an anchor-shaped commit over the bound, pushed beside the notes
/// that merge it or before them, no longer keeps its bytes out of the
/// measure (and D-R136 would then refuse the tag's deletion for good):
/// both notes updates are refused `input_too_large`, the server's notes
/// unchanged; the tag alone lands and goes; the teammate's next reviewed
/// push lands.
#[test]
fn a_notes_update_reaching_over_the_bound_past_the_protected_history_is_refused() {
    let s = Setup::new();
    let (_d, agent, published, Junk { side, .. }) = notes_merging_junk(&s);
    let tag = "refs/tags/parking";
    let err = s
        .push_from(
            &agent,
            &["origin", &format!("{side}:{tag}"), "refs/notes/probity"],
        )
        .unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published.clone()));
    assert_eq!(s.server_rev(tag), None);
    // Before them: the tag lands on its own, the notes do not.
    s.push_from(&agent, &["origin", &format!("{side}:{tag}")])
        .unwrap();
    let err = s
        .push_from(&agent, &["origin", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
    s.push_from(&agent, &["origin", &format!(":{tag}")])
        .unwrap();
    assert_eq!(s.server_rev(tag), None);
    next_reviewed_push_lands(&s, "fn after() {}\n");
}

/// Red team round 5 (attempt 06): a notes history whose commits
/// alternate between two trees lists every file again for each commit (5
/// million files from under 1 MB: 62 s and 2.2 GB at the hook). More files
/// listed against first parents than `MAX_NOTES_HISTORY_FILES` are
/// refused by name, git's listing read no further; the teammate's next
/// reviewed push lands.
#[test]
fn a_notes_history_listing_too_many_files_is_refused() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let published = s.server_rev("refs/notes/probity").unwrap();
    let git = |args: &[&str], stdin: &[u8]| git_out(&agent, args, stdin, &[]);
    let held = git(&["ls-tree", &published], b"");
    let tree_of = |body: &[u8]| {
        let blob = git(&["hash-object", "-w", "--stdin"], body);
        let mut listing = held.clone();
        for i in 1..=1_000u32 {
            listing.push_str(&format!("\n100644 blob {blob}\t{i:040x}"));
        }
        listing.push('\n');
        git(&["mktree"], listing.as_bytes())
    };
    let (a, b) = (tree_of(b"a\n"), tree_of(b"b\n"));
    let per_commit = 1_000;
    let commits = probity_core::review::MAX_NOTES_HISTORY_FILES / per_commit + 1;
    let mut tip = published.clone();
    for i in 0..commits {
        let tree = if i % 2 == 0 { &a } else { &b };
        tip = git(&["commit-tree", tree, "-p", &tip, "-m", "flip"], b"");
    }
    git(&["update-ref", "refs/notes/probity", &tip], b"");
    let err = s
        .push_from(&agent, &["origin", "refs/notes/probity"])
        .unwrap_err();
    assert!(
        err.contains("input_too_large")
            && err.contains("files the trees they are listed against do not hold"),
        "{err}"
    );
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// A server whose notes tree holds a file from before D-R121 (pushed when
/// no hook measured it): a teammate's push whose notes merge the server's
/// (a `cat_sort_uniq` merge commit, which keeps notes only) lands; the
/// history it brings is notes history.
#[test]
fn a_notes_merge_that_brings_back_a_file_the_server_holds_lands() {
    let s = Setup::new();
    let (_tip, _d, other) = published_and_cloned(&s);
    // The teammate's next reviewed commit, its note published locally
    // first, so its push merges the server's notes (a merge commit).
    std::fs::write(
        s.f.root().join("src/parser.rs"),
        "// parser\nfn parse() {}\nfn b() {}\n",
    )
    .unwrap();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("next").unwrap();
    probity_ok(s.f.root(), &["publish"]);
    let hook = s.server.join("hooks/pre-receive");
    let off = s.server.join("hooks/pre-receive.off");
    std::fs::rename(&hook, &off).unwrap();
    let blob = git_out(&other, &["hash-object", "-w", "--stdin"], b"legacy\n", &[]);
    notes_with_files(&other, &[("zz/junk.bin".to_string(), blob)]);
    s.push_from(&other, &["origin", "refs/notes/probity"])
        .unwrap();
    std::fs::rename(&off, &hook).unwrap();
    let r = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let parents =
        s.f.git(&["rev-list", "--merges", "--count", "refs/notes/probity"])
            .unwrap();
    assert_ne!(
        String::from_utf8(parents).unwrap().trim(),
        "0",
        "the notes were merged"
    );
}

/// A note changed in place adds what it grew by to the update's bound:
/// nine held notes each grown to 8 MiB in one push (72 MiB) are refused,
/// as nine new notes of 8 MiB are (only new paths were counted).
#[test]
fn notes_grown_in_place_count_toward_the_update_bound() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let ids: Vec<String> = (1..=9u64)
        .map(|i| format!("{:040x}", 0x00be_ef00_0000_u64 + i))
        .collect();
    let small = git_out(&agent, &["hash-object", "-w", "--stdin"], b"small\n", &[]);
    let files: Vec<(String, String)> = ids.iter().map(|id| (id.clone(), small.clone())).collect();
    notes_with_files(&agent, &files);
    s.push_from(&agent, &["origin", "refs/notes/probity"])
        .unwrap();
    let held = s.server_rev("refs/notes/probity");
    let body = b"x".repeat(127).into_iter().chain([b'\n']).cycle();
    let body: Vec<u8> = body
        .take(probity_core::review::MAX_NOTE_BYTES - 6)
        .collect();
    let grown: Vec<(String, String)> = ids
        .iter()
        .map(|id| {
            let mut note = b"small\n".to_vec();
            note.extend_from_slice(&body);
            note[6] = id.as_bytes()[39];
            let blob = git_out(&agent, &["hash-object", "-w", "--stdin"], &note, &[]);
            (id.clone(), blob)
        })
        .collect();
    notes_with_files(&agent, &grown);
    let err = s
        .push_from(&agent, &["origin", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), held);
}

/// A notes commit on `cwd`'s refs/notes/probity whose tree is the current
/// notes tree plus `count` one-line notes on ids no commit has (`seed`
/// tells two floods apart), at `levels` fan-out levels (2 is git's own for
/// so many notes; at 1, as the red team wrote them, a teammate's
/// `cat_sort_uniq` merge moves every one), written by one `fast-import` on
/// refs/notes/flood. Returns the new commit.
fn flood_notes(cwd: &Path, count: usize, seed: u8, levels: usize) -> String {
    let tip = git_out(cwd, &["rev-parse", "refs/notes/probity"], b"", &[]);
    let mut script = String::from("blob\nmark :1\ndata 5\njunk\n");
    script.push_str("commit refs/notes/flood\ncommitter a <a@probity.invalid> 0 +0000\n");
    script.push_str(&format!("data 5\nflood\nfrom {tip}\n"));
    for i in 0..count as u64 {
        // Spread over the fan-out directories; unique by `i`.
        let spread = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let id = format!("{spread:016x}{seed:02x}{i:022x}");
        let path = match levels {
            1 => format!("{}/{}", &id[..2], &id[2..]),
            _ => format!("{}/{}/{}", &id[..2], &id[2..4], &id[4..]),
        };
        script.push_str(&format!("M 100644 :1 {path}\n"));
    }
    script.push('\n');
    git_out(
        cwd,
        &["fast-import", "--quiet", "--force"],
        script.as_bytes(),
        &[],
    );
    git_out(cwd, &["rev-parse", "refs/notes/flood"], b"", &[])
}

/// Red team round 6 (finding 4): a pusher adds as many tiny notes on ids
/// no commit has as one update may list (`MAX_NOTES_HISTORY_FILES`). A
/// teammate whose `probity push` then merges the server's notes into its
/// own (`cat_sort_uniq`, its own notes the merge's first parent) sent a
/// merge listed against that first parent: the server's notes counted
/// again, over the bound, and every teammate's reviewed push was refused
/// `input_too_large`. The merge is listed against the parent the server
/// holds, and the notes git's merge moved to two fan-out levels (the
/// flood is written one level deep, as the red team wrote it) are no
/// additions: the push lands. The flood itself is admitted through the
/// hook, its notes' paths looked up in trees read once (it cost 203 s).
#[test]
fn a_flood_of_notes_on_the_server_does_not_jam_a_teammates_merged_push() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let flood = flood_notes(&agent, probity_core::review::MAX_NOTES_HISTORY_FILES, 1, 1);
    s.push_from(&agent, &["origin", &format!("{flood}:refs/notes/probity")])
        .unwrap();
    assert_eq!(s.server_rev("refs/notes/probity"), Some(flood.clone()));
    // The teammate's next reviewed commit, its note published locally
    // first, so its push merges the server's notes (a merge commit whose
    // first parent is the teammate's notes).
    std::fs::write(
        s.f.root().join("src/parser.rs"),
        "// parser\nfn parse() {}\nfn b() {}\n",
    )
    .unwrap();
    approve_live(s.f.root(), s.inputs.path());
    s.f.commit_all("next").unwrap();
    probity_ok(s.f.root(), &["publish"]);
    let r = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(s.server_rev("refs/heads/main"), s.rev(s.f.root(), "HEAD"));
    let notes = s.server_rev("refs/notes/probity").unwrap();
    let parents = git_out(
        &s.server,
        &["rev-list", "--parents", "-n1", &notes],
        b"",
        &[],
    );
    assert!(
        parents.split(' ').count() == 3 && parents.contains(&flood),
        "the teammate's notes merged the server's: {parents}"
    );
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// What D-R144 keeps: a merge-shaped notes update is listed against the
/// parent the server holds, so one that adds more files than the listing
/// may hold is refused however its parents are arranged: the old tip as
/// its second parent with an empty fabricated root first (listed against
/// the old tip), or the old tip first and a fabricated root holding the
/// merge's own tree second (the root listed against the empty tree; the
/// merge against the old tip, never against the pusher's parent).
#[test]
fn a_merge_shaped_notes_update_adding_more_than_the_listing_bound_is_refused() {
    let s = Setup::new();
    let (_tip, _d, agent) = published_and_cloned(&s);
    let old = s.server_rev("refs/notes/probity").unwrap();
    let big = flood_notes(
        &agent,
        probity_core::review::MAX_NOTES_HISTORY_FILES + 1,
        2,
        2,
    );
    let git = |args: &[&str]| git_out(&agent, args, b"", &[]);
    let tree = git(&["rev-parse", &format!("{big}^{{tree}}")]);
    let empty = git_out(&agent, &["mktree"], b"", &[]);
    let root_empty = git(&["commit-tree", &empty, "-m", "root"]);
    let root_same = git(&["commit-tree", &tree, "-m", "root"]);
    let second = git(&[
        "commit-tree",
        &tree,
        "-p",
        &root_empty,
        "-p",
        &old,
        "-m",
        "m",
    ]);
    let first = git(&[
        "commit-tree",
        &tree,
        "-p",
        &old,
        "-p",
        &root_same,
        "-m",
        "m",
    ]);
    for merge in [second, first] {
        let err = s
            .push_from(&agent, &["origin", &format!("{merge}:refs/notes/probity")])
            .unwrap_err();
        assert!(
            err.contains("input_too_large")
                && err.contains("files the trees they are listed against do not hold"),
            "{err}"
        );
        assert_eq!(s.server_rev("refs/notes/probity"), Some(old.clone()));
    }
    next_reviewed_push_lands(&s, "fn again() {}\n");
}

/// Red team round 8: a judged protected tip holds only the commit it
/// peels to. A tag object at the junk tree, pushed to a protected branch
/// beside the notes that merge it, held the junk as a judged tip, and only
/// the judgment (`delivery_not_commit`) refused the push. The notes
/// measure refuses it now on its own (`input_too_large`), the server's
/// notes unchanged; the teammate's next push lands.
#[test]
fn a_tag_object_pushed_to_a_protected_branch_holds_nothing_for_the_notes() {
    let s = Setup::new();
    let (_d, agent, published, Junk { anchor, .. }) = notes_merging_junk(&s);
    let git = |args: &[&str], stdin: &[u8]| git_out(&agent, args, stdin, &[]);
    git(&["tag", "-a", "-m", "at a tree", "junk", &anchor], b"");
    let tag = git(&["rev-parse", "refs/tags/junk"], b"");
    let err = s
        .push_from(
            &agent,
            &[
                "origin",
                &format!("{tag}:refs/heads/junk"),
                "refs/notes/probity",
            ],
        )
        .unwrap_err();
    assert!(err.contains("input_too_large"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), Some(published));
    assert_eq!(s.server_rev("refs/heads/junk"), None);
    next_reviewed_push_lands(&s, "fn after_tag() {}\n");
}
