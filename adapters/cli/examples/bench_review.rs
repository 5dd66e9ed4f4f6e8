//! Benchmark of `start` and `validate --gate pre-commit` on generated
//! repositories, beside `git status` and `git add -A && git write-tree`
//! (temporary index) on the same repository, and `validate` with 1 vs 1,000
//! lineages in the store. Not a test: figures go to docs/perf.md.
//!
//! cargo run --release -p probity-cli --example bench_review -- [--cli PROBITY] [FILES[:DIRS]...]
//!
//! `FILES` files spread over about 5,000 directories, or over `DIRS` leaf
//! directories when given (`20000:40`). The gate is timed on an approved
//! candidate (the allow path a commit takes) and interleaved with `git
//! status --porcelain`, run for run in alternating order, so both see the
//! same machine: the ratio column is the median of the per-pair ratios.
//! With `--cli`, the same comparison for the `probity` binary given, end to
//! end (`probity --cwd <repo> validate --gate pre-commit` against `git
//! status --porcelain`, both as processes). A second table breaks the
//! pre-commit gate's derivation into the steps it runs.

use std::ffi::OsStr;
use std::path::Path;
use std::time::{Duration, Instant};

use probity_core::review::Decision;
use probity_core::review::Lens;
use probity_core::review::fixtures;
use probity_core::review::{Nonce, Timestamp, TreeId};
use probity_git::fixture::Fixture;
use probity_ports::review::{
    self as drivers, Clock, EvidenceInput, FinalizeInput, LensResultInput, NamedInput, RecordStore,
};
use probity_store::FileStore;

struct FixedClock(std::cell::Cell<u64>);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(1_796_000_000)
    }
    fn nonce(&self) -> Nonce {
        let n = self.0.get() + 1;
        self.0.set(n);
        Nonce::parse(format!("{n:032x}")).expect("hex nonce")
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    f(); // warm the page cache and git's stat data
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// `a` and `b` timed run for run, in alternating order (a, b, b, a, ...),
/// after one warm-up of each: their medians and the median of the per-run
/// ratios `b / a`.
fn time_pair<A: FnMut(), B: FnMut()>(runs: usize, mut a: A, mut b: B) -> (Duration, Duration, f64) {
    a();
    b();
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let once = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    for i in 0..runs {
        let (x, y) = if i % 2 == 0 {
            let x = once(&mut a);
            (x, once(&mut b))
        } else {
            let y = once(&mut b);
            (once(&mut a), y)
        };
        ratios.push(y.as_secs_f64() / x.as_secs_f64());
        ta.push(x);
        tb.push(y);
    }
    ratios.sort_by(f64::total_cmp);
    (median(ta), median(tb), ratios[ratios.len() / 2])
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Where file `i` lives: 97 × 53 directories by default, or `dirs` leaf
/// directories.
fn rel_path(i: usize, dirs: Option<usize>) -> String {
    match dirs {
        Some(d) => format!("src/d{:03}/f{i}.rs", i % d.max(1)),
        None => format!("src/d{:03}/m{:03}/f{i}.rs", i % 97, (i / 97) % 53),
    }
}

fn generate(files: usize, dirs: Option<usize>) -> Fixture {
    let f = Fixture::new().expect("fixture");
    for i in 0..files {
        f.write(
            &rel_path(i, dirs),
            format!("// file {i}\npub fn f{i}() -> u32 {{ {i} }}\n"),
        )
        .expect("write");
    }
    f.write(".gitignore", "target/\n").expect("write");
    f.commit_all("base").expect("commit");
    // 50 changed tracked files and 20 intended untracked files.
    for i in (0..files).step_by(files / 50).take(50) {
        f.write(
            &rel_path(i, dirs),
            format!("// file {i} (changed)\npub fn f{i}() -> u32 {{ {i} + 1 }}\n"),
        )
        .expect("write");
    }
    for i in 0..20 {
        f.write(&format!("src/new/n{i}.rs"), format!("pub fn n{i}() {{}}\n"))
            .expect("write");
    }
    f.write("target/out.bin", "ignored").expect("write");
    f
}

fn git(root: &Path, args: &[&str], env: &[(&str, &OsStr)]) {
    probity_git::GitCli::default()
        .run_with(root, args, env, None)
        .expect("git");
}

/// `git status --porcelain` as a user runs it: the plain `git` process
/// (optional locks allowed), not Probity's hermetic invocation.
fn user_status(root: &Path) {
    let out = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(root)
        .output()
        .expect("git status");
    assert!(out.status.success());
}

/// The CLI gate, end to end: exit 0 (allow) is required.
fn cli_gate(probity: &Path, root: &Path) {
    let out = std::process::Command::new(probity)
        .arg("--cwd")
        .arg(root)
        .args(["validate", "--gate", "pre-commit"])
        .output()
        .expect("probity");
    assert!(
        out.status.success(),
        "the gate allows: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Approves the lineage `start` made: the one selected lens finds
/// nothing, and a passing check is the evidence.
fn approve(repo: &probity_git::Repo, store: &FileStore) {
    let named = |name: &str, bytes: &[u8]| NamedInput {
        name: name.into(),
        bytes: bytes.to_vec(),
    };
    drivers::finalize(
        repo,
        store,
        FinalizeInput {
            results: vec![LensResultInput::named(
                Lens::Reliability,
                named(
                    "reliability.json",
                    br#"{"findings":[],"evidence":["read the change"]}"#,
                ),
            )],
            evidence: Some(EvidenceInput::Bytes(named("evidence.txt", b"tests pass\n"))),
            ..Default::default()
        },
    )
    .expect("finalize");
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let cli = match args.iter().position(|a| a == "--cli") {
        Some(k) if k + 1 < args.len() => {
            let path = std::path::PathBuf::from(args.remove(k + 1));
            args.remove(k);
            Some(std::fs::canonicalize(&path).expect("the --cli binary exists"))
        }
        _ => None,
    };
    let layouts: Vec<(usize, Option<usize>)> = args
        .iter()
        .filter_map(|a| match a.split_once(':') {
            Some((n, d)) => Some((n.parse().ok()?, Some(d.parse().ok()?))),
            None => Some((a.parse().ok()?, None)),
        })
        .collect();
    let layouts = if layouts.is_empty() {
        vec![(20_000, None), (20_000, Some(40)), (100_000, None)]
    } else {
        layouts
    };
    let runs = 7;
    // The side-by-side pairs: more runs, the figure that is compared.
    let pairs = 21;
    let mut main_rows = Vec::new();
    let mut side_rows = Vec::new();
    let mut breakdown = Vec::new();
    for (n, dirs) in layouts {
        let f = generate(n, dirs);
        let root = f.root().to_path_buf();
        let repo = f.repo().expect("repo");
        let store = FileStore::for_common_dir(repo.common_dir());
        let clock = FixedClock(std::cell::Cell::new(0));

        let status = time(runs, || user_status(&root));
        let tmp_index = root.join(".git").join("bench-index");
        let add_write = time(runs, || {
            std::fs::copy(root.join(".git").join("index"), &tmp_index).expect("copy index");
            let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", tmp_index.as_os_str())];
            git(&root, &["add", "-A"], &env);
            git(&root, &["write-tree"], &env);
        });
        // The pre-commit derivation step by step, as the gate runs it: one
        // process start (what `rev-parse` costs), the index stand-in (a
        // hard link), `git add -A` on it, and `git write-tree` right after
        // (the cache-tree `add` invalidated is rebuilt and the index
        // rewritten), with the gate's own flags.
        let rev_parse = time(runs, || git(&root, &["rev-parse", "HEAD^{tree}"], &[]));
        let stand_in = || {
            let _ = std::fs::remove_file(&tmp_index);
            std::fs::hard_link(root.join(".git").join("index"), &tmp_index).expect("link index");
        };
        let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", tmp_index.as_os_str())];
        // Each run times the three steps in a row, as the gate runs them.
        let (mut links, mut adds, mut writes) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..=pairs {
            let t = Instant::now();
            stand_in();
            let linked = t.elapsed();
            let t = Instant::now();
            git(
                &root,
                &["-c", "index.skipHash=true", "add", "-A", "--", "."],
                &env,
            );
            let added = t.elapsed();
            let t = Instant::now();
            git(&root, &["-c", "index.skipHash=true", "write-tree"], &env);
            let written = t.elapsed();
            // The first round warms the page cache and git's stat data.
            if i > 0 {
                links.push(linked);
                adds.push(added);
                writes.push(written);
            }
        }
        let (link, add_only, write_tree) = (median(links), median(adds), median(writes));
        let _ = std::fs::remove_file(&tmp_index);

        // start: the first call creates the lineage; timed calls resume it
        // after the same full observation; a new start also derives the
        // candidate diff, timed on its own in the next column.
        let start = time(runs, || {
            drivers::start(&repo, &store, &clock, Lens::Reliability).expect("start");
        });
        // What only a new start adds: the candidate diff for the anchor and
        // the representability check (R10.4, R12.4).
        let live = repo.live_target().expect("live target");
        let anchor = time(runs, || {
            repo.frozen_diff(
                &live.base_tree,
                &live.candidate_tree,
                probity_core::review::MAX_DIFF_BYTES,
            )
            .expect("diff")
            .expect("within the budget");
        });
        // The review is not finalized yet: the gate denies
        // (review_incomplete) after the same derivation.
        let validate_one = time(runs, || {
            drivers::validate_pre_commit(&repo, &store, &drivers::Delivery::Worktree)
                .expect("validate");
        });
        // Approved: the allow path a commit takes, side by side with git
        // status.
        approve(&repo, &store);
        let gate = || {
            let d = drivers::validate_pre_commit(&repo, &store, &drivers::Delivery::Worktree)
                .expect("validate");
            assert_eq!(
                d.decision(),
                Decision::Allow,
                "the approved candidate is allowed"
            );
        };
        let (status_paired, allow, ratio) = time_pair(pairs, || user_status(&root), gate);
        let cli_pair = cli
            .as_ref()
            .map(|probity| time_pair(pairs, || user_status(&root), || cli_gate(probity, &root)));
        // 1,000 more lineages with other targets.
        let mut obs = fixtures::parser_observation();
        for i in 0..1000u32 {
            obs.candidate_tree = TreeId::parse(format!("{:040x}", i + 1)).expect("tree id");
            let r = fixtures::start(&obs, Lens::Reliability)
                .expect("state")
                .record()
                .expect("record");
            store
                .create(&probity_core::review::FirstRecord::check(r).expect("first"))
                .expect("create");
        }
        let validate_many = time(runs, gate);
        // In a hook the gate compares the index being committed: stage the
        // change and measure that path too.
        git(&root, &["add", "-A"], &[]);
        let index = drivers::Delivery::Index(root.join(".git").join("index"));
        let validate_staged = time(runs, || {
            drivers::validate_pre_commit(&repo, &store, &index).expect("validate");
        });
        // Commit the approved candidate and measure the derivation of the
        // delivered commit.
        git(&root, &["commit", "-q", "-m", "candidate"], &[]);
        let range = drivers::PushBoundary::Range {
            base: "HEAD~1".into(),
            tip: "HEAD".into(),
        };
        let pre_push = time(runs, || {
            drivers::validate_pre_push(&repo, &store, &range).expect("validate");
        });
        main_rows.push(format!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            dirs_label(dirs),
            ms(status),
            ms(add_write),
            ms(start),
            ms(anchor),
            ms(validate_one),
            ms(validate_many),
            ms(validate_staged),
            ms(pre_push)
        ));
        let cli_cells = cli_pair.map_or_else(
            || "| – | – | – |".to_string(),
            |(s, v, r)| format!("| {} | {} | {r:.2}× |", ms(s), ms(v)),
        );
        side_rows.push(format!(
            "| {n} | {} | {} | {} | {ratio:.2}× {cli_cells}",
            dirs_label(dirs),
            ms(status_paired),
            ms(allow),
        ));
        let rest = allow
            .saturating_sub(rev_parse)
            .saturating_sub(link)
            .saturating_sub(add_only)
            .saturating_sub(write_tree);
        breakdown.push(format!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
            dirs_label(dirs),
            ms(status_paired),
            ms(allow),
            ms(rev_parse),
            ms(link),
            ms(add_only),
            ms(write_tree),
            ms(rest)
        ));
    }
    println!(
        "| files | dirs | git status | git add -A && write-tree (temp index) | probity start (resume) | + diff anchor (new start) | probity validate (1 lineage, review incomplete) | validate, approved (1,001 lineages) | validate, in a hook (staged index) | pre-push (the committed candidate) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in main_rows {
        println!("{row}");
    }
    println!();
    println!(
        "Side by side, {pairs} pairs each, interleaved (medians; ratio: median of the per-pair ratios):"
    );
    println!();
    println!(
        "| files | dirs | git status | probity validate, approved (in-process) | validate / git status | git status (process) | probity validate (CLI) | CLI / git status |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in side_rows {
        println!("{row}");
    }
    println!();
    println!(
        "| files | dirs | git status | validate, approved | one git process (rev-parse) | index stand-in (unlink the last, link) | git add -A (stand-in) | git write-tree (after add) | rest: HEAD's tree (overlapped), scratch, store reads, decision |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in breakdown {
        println!("{row}");
    }
}

fn dirs_label(dirs: Option<usize>) -> String {
    dirs.map_or_else(|| "5,141".to_string(), |d| d.to_string())
}
