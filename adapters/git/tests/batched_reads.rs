//! The batched reads of issue 24 answer exactly what one git per read
//! answered: diffs from one `diff-tree --stdin` per kind, the replay
//! search in one `git grep`, commits and notes from the object reader.

use probity_core::review::{CommitId, TreeId};
use probity_git::fixture::Fixture;

fn rev(f: &Fixture, r: &str) -> String {
    String::from_utf8(f.git(&["rev-parse", r]).unwrap())
        .unwrap()
        .trim()
        .to_string()
}

/// Three commits touching text, binary, executable, symlink, deletion,
/// a name with a newline and a type change (file to directory).
fn history() -> (Fixture, Vec<TreeId>, Vec<CommitId>) {
    let f = Fixture::new().unwrap();
    f.write("src/a.rs", "fn a() {}\n").unwrap();
    f.write("bin.dat", [0u8, 1, 2, 3]).unwrap();
    f.write("x", "file\n").unwrap();
    f.commit_all("one").unwrap();
    f.write("src/a.rs", "fn a() {}\nfn b() {}\n").unwrap();
    f.write("bin.dat", [0u8, 9, 9]).unwrap();
    f.write("odd\nname.txt", "odd\n").unwrap();
    f.remove("x").unwrap();
    f.write("x/inner.rs", "fn i() {}\n").unwrap();
    f.commit_all("two").unwrap();
    f.write("src/c.rs", "fn c() {}\n").unwrap();
    f.commit_all("three").unwrap();
    let trees = ["HEAD~2^{tree}", "HEAD~1^{tree}", "HEAD^{tree}"]
        .iter()
        .map(|r| TreeId::parse(rev(&f, r)).unwrap())
        .collect();
    let commits = ["HEAD~2", "HEAD~1", "HEAD"]
        .iter()
        .map(|r| CommitId::parse(rev(&f, r)).unwrap())
        .collect();
    (f, trees, commits)
}

#[test]
fn announced_diffs_equal_the_diffs_of_one_process_each() {
    let (f, t, _) = history();
    let pairs = [
        (t[0].clone(), t[1].clone()),
        (t[1].clone(), t[2].clone()),
        (t[0].clone(), t[2].clone()),
        (t[2].clone(), t[2].clone()),
        (t[2].clone(), t[0].clone()),
    ];
    let plain = f.repo().unwrap();
    let batched = f.repo().unwrap();
    let announced: Vec<(String, String)> = pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    batched.prefetch_diffs(&announced).unwrap();
    for (a, b) in &pairs {
        assert_eq!(
            format!("{:?}", plain.diff_files(a, b)),
            format!("{:?}", batched.diff_files(a, b)),
            "{a}..{b}"
        );
        assert_eq!(
            format!("{:?}", plain.manifest(a, b)),
            format!("{:?}", batched.manifest(a, b)),
        );
    }
    // A pair with a missing tree is left to its own process, which fails.
    let missing = "1".repeat(40);
    batched
        .prefetch_diffs(&[(missing.clone(), t[0].to_string())])
        .unwrap();
    assert!(
        batched
            .manifest(&TreeId::parse(&missing).unwrap(), &t[0])
            .is_err()
    );
}

#[test]
fn one_search_names_what_a_search_per_needle_names() {
    let (f, _, c) = history();
    for (commit, note) in [
        (&c[0], "review-aaaaaaaaaaaaaaaa\n"),
        (&c[1], "review-aaaaaaaaaaaaaaaa review-bbbbbbbbbbbbbbbb\n"),
        (&c[2], "bin\0ary review-bbbbbbbbbbbbbbbb\n"),
    ] {
        let path = f.write("note.txt", note).unwrap();
        f.git(&[
            "notes",
            "--ref=probity",
            "add",
            "-f",
            "-F",
            path.to_str().unwrap(),
            commit.as_str(),
        ])
        .unwrap();
    }
    let repo = f.repo().unwrap();
    let notes = repo.notes_tip().unwrap().unwrap();
    let needles = [
        "review-aaaaaaaaaaaaaaaa",
        "review-bbbbbbbbbbbbbbbb",
        "review-cccccccccccccccc",
    ];
    let each = repo.notes_naming_each(&notes, &needles, 64).unwrap();
    for (needle, found) in needles.iter().zip(&each) {
        let mut one = repo.notes_naming(&notes, needle, 64).unwrap();
        let mut found = found.clone();
        one.sort();
        found.sort();
        assert_eq!(found, one, "{needle}");
    }
    assert_eq!(each[2], Vec::<CommitId>::new());
    assert_eq!(each[0].len(), 2);
    // The cap holds per needle.
    let capped = repo.notes_naming_each(&notes, &needles, 1).unwrap();
    assert_eq!(capped[0].len(), 1);
    // Notes and commits through the object reader.
    let note = repo.read_note(&notes, &c[1], 1024).unwrap().unwrap();
    assert_eq!(note, b"review-aaaaaaaaaaaaaaaa review-bbbbbbbbbbbbbbbb\n");
    assert_eq!(
        repo.read_note(&notes, &CommitId::parse("2".repeat(40)).unwrap(), 1024)
            .unwrap(),
        None
    );
    assert_eq!(repo.peel_commit(&c[2]).unwrap(), Some(c[2].clone()));
    assert_eq!(
        repo.commit_tree(&c[2]).unwrap().to_string(),
        rev(&f, "HEAD^{tree}")
    );
}

/// `n` lines of `a` or `b` (every other pair flipped by `seed`'s bits).
fn ab(n: usize, seed: u64) -> String {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 33) & 1 == 0 { "a\n" } else { "b\n" }
        })
        .collect()
}

#[test]
fn a_pair_over_the_diff_bound_is_refused_announced_or_not_and_the_others_are_served() {
    use probity_core::review::{DiffTooLarge, MAX_DIFF_LINES_PER_FILE};
    let n = MAX_DIFF_LINES_PER_FILE as usize / 2 + 10_000;
    let f = Fixture::new().unwrap();
    f.write("big.txt", ab(n, 1)).unwrap();
    f.write(
        "lock.txt",
        (0..n).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    f.commit_all("one").unwrap();
    // One line of the large file changed: two diff lines.
    f.write(
        "lock.txt",
        (0..n)
            .map(|i| format!("{}\n", i + usize::from(i == n / 2)))
            .collect::<String>(),
    )
    .unwrap();
    f.commit_all("two").unwrap();
    f.write("big.txt", ab(n, 2)).unwrap();
    f.commit_all("three").unwrap();
    let t: Vec<TreeId> = ["HEAD~2^{tree}", "HEAD~1^{tree}", "HEAD^{tree}"]
        .iter()
        .map(|r| TreeId::parse(rev(&f, r)).unwrap())
        .collect();
    let plain = f.repo().unwrap();
    let batched = f.repo().unwrap();
    batched
        .prefetch_diffs(&[
            (t[0].to_string(), t[1].to_string()),
            (t[1].to_string(), t[2].to_string()),
        ])
        .unwrap();
    for repo in [&plain, &batched] {
        let lines = repo.diff_files(&t[0], &t[1]).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text_lines, 2);
        match repo.diff_files(&t[1], &t[2]) {
            Err(probity_git::GitError::DiffTooLarge(DiffTooLarge::File { path, lines, limit })) => {
                assert_eq!(path, "big.txt");
                assert!(lines > limit, "{lines}");
            }
            other => panic!("diff_too_large, not {other:?}"),
        }
    }
}

/// The links of the base of the test below: (path, target).
const BASE_LINKS: [(&str, &str); 5] = [
    ("AGENTS.md", "docs/ai/guide.md"),
    (".claude", "tools/claude"),
    ("gone", "docs"),
    ("moved", "docs"),
    ("docs/up", "../tools"),
];

/// D-R131: the symbolic links a start reads from its temporary index (the
/// candidate's) and derives from its one diff (the base's) are the ones
/// git lists from the trees, targets included; and so are those a gate
/// announced with its tree pairs, with no process of their own.
#[test]
fn the_links_a_start_reads_in_process_are_the_ones_git_lists() {
    use std::os::unix::fs::symlink;
    let f = Fixture::committed(
        &[
            ("docs/ai/guide.md", "# g\n"),
            ("tools/claude/settings.json", "{}\n"),
        ],
        "targets",
    )
    .unwrap();
    for (link, target) in BASE_LINKS {
        symlink(target, f.root().join(link)).unwrap();
    }
    f.commit_all("links").unwrap();
    // The change: a link removed, one retargeted, one added, one turned
    // into a file, an ordinary file changed.
    f.remove("gone").unwrap();
    f.remove("AGENTS.md").unwrap();
    symlink("docs/other.md", f.root().join("AGENTS.md")).unwrap();
    symlink("tools", f.root().join("docs/new")).unwrap();
    f.remove("moved").unwrap();
    f.write("moved", "now a file\n").unwrap();
    f.write("tools/claude/settings.json", "{\"hooks\":{}}\n")
        .unwrap();
    let start = f.repo().unwrap();
    let obs = start.observe_candidate().unwrap();
    let trees = [&obs.base_tree, &obs.candidate_tree];
    let read = start.symlinks(&trees).unwrap();
    let listed = f.repo().unwrap().symlinks(&trees).unwrap();
    assert_eq!(read, listed);
    let names = |links: &[probity_core::review::Symlink]| -> Vec<(String, String)> {
        links
            .iter()
            .map(|l| {
                (
                    l.path.to_string(),
                    String::from_utf8(l.target.clone()).unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        names(&read[0]),
        [
            (".claude", "tools/claude"),
            ("AGENTS.md", "docs/ai/guide.md"),
            ("docs/up", "../tools"),
            ("gone", "docs"),
            ("moved", "docs"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(
        names(&read[1]),
        [
            (".claude", "tools/claude"),
            ("AGENTS.md", "docs/other.md"),
            ("docs/new", "tools"),
            ("docs/up", "../tools"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Announced with the trees' pairs, as a gate announces (a stack: the
    // candidate is the next change's base; one tree is listed, the others
    // derived through the pairs' diffs): the same.
    f.commit_all("change").unwrap();
    f.remove("docs/up").unwrap();
    symlink("../docs", f.root().join("tools/back")).unwrap();
    f.commit_all("next").unwrap();
    let next = TreeId::parse(rev(&f, "HEAD^{tree}")).unwrap();
    let stack = [&obs.base_tree, &obs.candidate_tree, &next];
    let gate = f.repo().unwrap();
    use probity_ports::review::ExportGit;
    gate.announce_diffs(&[
        (obs.base_tree.clone(), obs.candidate_tree.clone()),
        (obs.candidate_tree.clone(), next.clone()),
    ])
    .unwrap();
    let plain = f.repo().unwrap();
    let each: Vec<_> = stack
        .iter()
        .map(|t| plain.symlinks(&[t]).unwrap().remove(0))
        .collect();
    assert_eq!(gate.symlinks(&stack).unwrap(), each);
    assert!(each[2].iter().any(|l| l.path.as_str() == "tools/back"));
    assert_eq!(each[..2], listed[..]);
    // A tree without links, and the empty tree, have none.
    let empty = f.repo().unwrap().empty_tree().unwrap();
    assert_eq!(f.repo().unwrap().symlinks(&[&empty]).unwrap(), [Vec::new()]);
}

/// `Repo::is_ancestor` walks a few commits through the object reader
/// before it asks `git merge-base`: both answer alike for every pair of a
/// history with a merge, a root of its own and a chain longer than the
/// walk, and for an annotated tag (which git peels).
#[test]
fn the_ancestry_walk_answers_as_merge_base_does() {
    let f = Fixture::new().unwrap();
    f.write("a", "1\n").unwrap();
    f.commit_all("root").unwrap();
    f.git(&["checkout", "-q", "-b", "side"]).unwrap();
    f.write("b", "side\n").unwrap();
    f.commit_all("side").unwrap();
    f.git(&["checkout", "-q", "main"]).unwrap();
    f.write("a", "2\n").unwrap();
    f.commit_all("main").unwrap();
    f.git(&["merge", "-q", "--no-edit", "side"]).unwrap();
    for i in 0..(probity_git::delivery::ANCESTRY_WALK + 6) {
        f.write("a", format!("{i}\n")).unwrap();
        f.commit_all("chain").unwrap();
    }
    f.git(&["checkout", "-q", "--orphan", "lonely"]).unwrap();
    f.write("c", "alone\n").unwrap();
    f.commit_all("another root").unwrap();
    f.git(&["tag", "-a", "-m", "t", "annotated", "side"])
        .unwrap();
    let listed = String::from_utf8(f.git(&["rev-list", "--all"]).unwrap()).unwrap();
    let mut ids: Vec<String> = listed
        .lines()
        .enumerate()
        .filter(|(i, _)| *i < 8 || i % 17 == 0)
        .map(|(_, l)| l.to_string())
        .collect();
    ids.push(rev(&f, "annotated"));
    let repo = f.repo().unwrap();
    for a in &ids {
        for d in &ids {
            let expected = f.git(&["merge-base", "--is-ancestor", a, d]).is_ok();
            let (ca, cd) = (CommitId::parse(a).unwrap(), CommitId::parse(d).unwrap());
            assert_eq!(
                repo.is_ancestor(&ca, &cd).unwrap(),
                expected,
                "{a} ancestor of {d}"
            );
        }
    }
}

/// `ExportGit::path_objects` answers what `git rev-parse <tree>:<path>`
/// answers for each path, `None` where the tree holds nothing, in one
/// batch of the object reader.
#[test]
fn path_objects_answer_as_rev_parse_does() {
    use probity_core::review::RepoPath;
    use probity_ports::review::ExportGit;
    let (f, t, _) = history();
    let repo = f.repo().unwrap();
    let paths: Vec<RepoPath> = ["src/a.rs", "x", "x/inner.rs", "src", "absent.txt"]
        .iter()
        .map(|p| RepoPath::parse(*p).unwrap())
        .collect();
    for tree in &t {
        let got = repo.path_objects(tree, &paths).unwrap().unwrap();
        for (p, g) in paths.iter().zip(&got) {
            let want = f
                .git(&["rev-parse", "-q", "--verify", &format!("{tree}:{p}")])
                .ok()
                .map(|o| String::from_utf8(o).unwrap().trim().to_string());
            assert_eq!(g, &want, "{tree}:{p}");
        }
    }
}

/// D-R146: the changed paths of announced pairs (one `diff-tree --stdin`)
/// are what a fresh repository asks pair by pair, a name with a newline
/// included; a pair git cannot diff (a tree it lacks) leaves the answer
/// `false` and the memo as it was.
#[test]
fn announced_paths_equal_the_paths_of_one_process_each() {
    use probity_ports::review::{ExportGit, GitPort, TreeSpan};
    let (f, t, _) = history();
    let pairs = [
        (t[0].clone(), t[1].clone()),
        (t[1].clone(), t[2].clone()),
        (t[0].clone(), t[2].clone()),
    ];
    let announced = f.repo().unwrap();
    assert!(announced.announce_paths(&pairs).unwrap());
    let fresh = f.repo().unwrap();
    for (a, b) in &pairs {
        let span = TreeSpan { from: a, to: b };
        let want = fresh.differing_paths(span).unwrap();
        assert!(!want.is_empty());
        assert_eq!(announced.differing_paths(span).unwrap(), want, "{a}..{b}");
    }
    assert!(announced.announce_paths(&pairs).unwrap(), "known already");
    let absent = TreeId::parse("1".repeat(40)).unwrap();
    let other = f.repo().unwrap();
    assert!(
        !other
            .announce_paths(&[(t[0].clone(), absent), (t[1].clone(), t[2].clone())])
            .unwrap()
    );
}
