//! The bound on diff work (D-R130, red team round 4 finding 10): a file
//! whose lines git's line diff must compare is over its limit, or a check
//! diffs more lines in all than its limit, and `start` or the server hook
//! refuses it `diff_too_large` before git diffs it; a large file with a
//! localized edit is taken.

mod support;

use probity_core::review::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount,
    MAX_DIFF_LINES_PER_CHECK, MAX_DIFF_LINES_PER_FILE, RepoPath, RiskAssessment, RiskLevel,
    RiskPolicy, RiskReason, TreeId,
};
use probity_git::fixture::Fixture;
use support::transport::set_note;
use support::*;

/// `n` lines, each `a` or `b` drawn from `seed`: two such files are git's
/// line diff's worst case.
fn ab_lines(n: usize, seed: u64) -> String {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = String::with_capacity(2 * n);
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(if (x >> 33) & 1 == 0 { "a\n" } else { "b\n" });
    }
    out
}

/// A lockfile of `n` distinct lines.
fn lockfile(n: usize) -> String {
    (0..n).map(|i| format!("pkg-{i:07} 1.0.0\n")).collect()
}

/// Lines per side past the per-file limit (both sides together).
const PATHOLOGICAL: usize = (MAX_DIFF_LINES_PER_FILE as usize) / 2 + 50_000;

#[test]
fn start_refuses_a_file_over_the_bound_and_writes_nothing() {
    let f = Fixture::new().unwrap();
    f.write("big.txt", ab_lines(PATHOLOGICAL, 1)).unwrap();
    f.commit_all("base").unwrap();
    f.write("big.txt", ab_lines(PATHOLOGICAL, 2)).unwrap();
    let before = store_snapshot(&f);
    let s = probity(f.root(), &["start"]);
    s.assert_refused(3, "diff_too_large");
    let msg = s.error_message();
    assert!(
        msg.contains("big.txt") && msg.contains(&MAX_DIFF_LINES_PER_FILE.to_string()),
        "{msg}"
    );
    let next = s.next_action();
    assert!(
        next.contains("Git LFS") && next.contains("start --commit"),
        "{next}"
    );
    assert_eq!(store_snapshot(&f), before);
}

/// A fixture whose base holds `path` with `content`, served by a bare
/// `origin` with the server hook (the base pushed before it was
/// installed).
fn served_with(path: &str, content: &str) -> (Fixture, tempfile::TempDir, std::path::PathBuf) {
    let f = parser_base();
    f.write(path, content).unwrap();
    f.commit_all("base with a large file").unwrap();
    let (dir, server) = gated_origin(&f);
    (f, dir, server)
}

#[test]
fn one_line_changed_in_a_large_file_starts_and_lands() {
    let (f, _dir, server) = served_with("deps.lock", &lockfile(300_000));
    let inputs = tempfile::tempdir().unwrap();
    let lock = lockfile(300_000).replacen("pkg-0150000 1.0.0\n", "pkg-0150000 1.0.1\n", 1);
    f.write("deps.lock", lock).unwrap();
    let c = deliver_reviewed(&f, inputs.path());
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(c.as_str()));
}

#[test]
fn a_bundle_spanning_a_file_over_the_bound_is_denied_by_name() {
    let (f, _dir, server) = served_with("big.txt", &ab_lines(PATHOLOGICAL, 1));
    let tip = rev(&f, &server, "main").unwrap();
    let old = ab_lines(PATHOLOGICAL, 1).into_bytes();
    let new = ab_lines(PATHOLOGICAL, 2).into_bytes();
    f.write("big.txt", &new).unwrap();
    let commit = commit_all(&f, "pathological");
    // The agent's own record of it, written by hand with git's numstat
    // (what start would refuse to freeze).
    let numstat = f
        .git(&["diff-tree", "--numstat", "HEAD~1", "HEAD"])
        .unwrap();
    let numstat = String::from_utf8(numstat).unwrap();
    let mut fields = numstat.split_whitespace();
    let added: u64 = fields.next().unwrap().parse().unwrap();
    let removed: u64 = fields.next().unwrap().parse().unwrap();
    let content = |b: &[u8]| CandidateContent::Bytes {
        bytes: b[..b.len().min(1 << 20)].to_vec(),
        complete: b.len() <= 1 << 20,
    };
    let (base_content, new_content) = (content(&old), content(&new));
    let tree =
        |r: &str| TreeId::parse(rev(&f, f.root(), &format!("{r}^{{tree}}")).unwrap()).unwrap();
    let obs = CandidateObservation {
        base_tree: tree("HEAD~1"),
        candidate_tree: tree("HEAD"),
        unborn_head: false,
        changed: vec![ChangedFile {
            path: RepoPath::parse("big.txt").unwrap(),
            old_mode: Some(FileMode::Regular),
            new_mode: Some(FileMode::Regular),
            lines: LineCount::classify(added, removed, &base_content, &new_content),
            text_lines: added + removed,
            content: new_content,
            base_content,
        }],
        intended_untracked: Vec::new(),
    };
    let bundle =
        support::forged::low_bundle_of(&obs, RiskPolicy::v1(), RiskPolicy::v1_hash(), |_, _| {
            RiskAssessment::new(RiskLevel::Low, vec![RiskReason::DocsOnly]).unwrap()
        });
    let dir = tempfile::tempdir().unwrap();
    set_note(&f, f.root(), &commit, &bundle, dir.path());
    let err = push_main_and_notes(&f).unwrap_err();
    assert!(err.contains("DENY: diff_too_large"), "{err}");
    assert!(err.contains("big.txt"), "{err}");
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(tip.as_str()));
    // Both CI forms, over the same notes, deny it the same way.
    let range = format!("{tip}..{commit}");
    let ci = [
        pre_receive_args(&range, "refs/heads/main").to_vec(),
        notes_pre_pr_args(&tip, &["--head", &commit]),
    ];
    for args in ci {
        let r = probity(f.root(), &args);
        assert_eq!(r.code, 1, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["reason_code"], "diff_too_large", "{}", r.stdout);
        assert!(
            r.json["message"].as_str().unwrap().contains("big.txt"),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn a_push_over_the_total_is_denied_and_lands_in_steps() {
    // Each commit edits the first and last lines of a 150,000-line
    // lockfile: 300,000 diff lines (cheap for git, counted all the same),
    // so fourteen commits are past the check's limit.
    let n = 150_000;
    let per = 2 * n as u64;
    let commits = (MAX_DIFF_LINES_PER_CHECK / per + 1) as usize;
    assert!(per <= MAX_DIFF_LINES_PER_FILE);
    let (f, _dir, server) = served_with("deps.lock", &lockfile(n));
    let tip = rev(&f, &server, "main").unwrap();
    let inputs = tempfile::tempdir().unwrap();
    let mut made = Vec::new();
    for k in 0..commits {
        let mut lock = lockfile(n);
        lock.replace_range(..18, &format!("pkg-0000000 2.{k:03}\n"));
        let last = lock.len() - 18;
        lock.replace_range(last.., &format!("pkg-{:07} 2.{k:03}\n", n - 1));
        f.write("deps.lock", lock).unwrap();
        approve_live(f.root(), inputs.path());
        made.push(commit_all(&f, &format!("bump {k}")));
    }
    let r = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("diff_too_large"), "{}", r.stderr);
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(tip.as_str()));
    // The next step: fewer commits at a time.
    let half = &made[commits / 2];
    probity_ok(
        f.root(),
        &["push", "origin", &format!("{half}:refs/heads/main")],
    );
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(half.as_str()));
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(
        rev(&f, &server, "main").as_deref(),
        made.last().map(String::as_str)
    );
}

#[test]
fn lines_appended_to_a_note_cannot_spend_the_budget_of_its_delivery() {
    // An honest commit's note, with bundles anyone could append placed
    // before its own line: each spans another pair of trees the server
    // holds (under a tag, unprotected), together exactly the check's
    // limit. The commit's own delivery is charged first, so it lands.
    let n = 150_000;
    let (f, _dir, server) = served_with("deps.lock", &lockfile(n));
    let inputs = tempfile::tempdir().unwrap();
    f.git(&["checkout", "-q", "-b", "junk"]).unwrap();
    let mut lines: Vec<String> = lockfile(n).lines().map(|l| format!("{l}\n")).collect();
    let mut junk = Vec::new();
    let full = (MAX_DIFF_LINES_PER_CHECK / (2 * n as u64)) as usize;
    for k in 0..=full {
        // Both ends (300,000 diff lines), then one commit of the rest
        // (the first line and the 50,000th: 100,000).
        let last = if k < full { n - 1 } else { 49_999 };
        for i in [0, last] {
            lines[i] = format!("pkg-{i:07} 3.{k:03}\n");
        }
        f.write("deps.lock", lines.concat()).unwrap();
        junk.push(commit_all(&f, &format!("junk {k}")));
    }
    f.git(&["tag", "junk"]).unwrap();
    f.git(&["push", "-q", "--no-verify", "origin", "refs/tags/junk"])
        .unwrap();
    f.git(&["checkout", "-q", "main"]).unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    approve_live(f.root(), inputs.path());
    let honest = commit_all(&f, "honest");
    probity_ok(f.root(), &["publish"]);
    let mut note: Vec<u8> = Vec::new();
    for c in &junk {
        note.extend(support::forged::low_v1_bundle(&f, c, |_, _| {
            RiskAssessment::new(RiskLevel::Low, vec![RiskReason::DocsOnly]).unwrap()
        }));
    }
    note.extend(support::transport::note(&f, f.root(), &honest).unwrap());
    set_note(&f, f.root(), &honest, &note, inputs.path());
    push_main_and_notes(&f).unwrap();
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(honest.as_str()));
}
