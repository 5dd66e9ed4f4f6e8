//! Benchmark of `start` and `validate --gate pre-commit` on generated
//! repositories, beside `git status` and `git add -A && git write-tree`
//! (temporary index) on the same repository, and `validate` with 1 vs 1,000
//! lineages in the store. Not a test: figures go to docs/perf.md.
//!
//! cargo run --release -p probity-cli --example bench_review -- [FILES[:DIRS]...]
//!
//! `FILES` files spread over about 5,000 directories, or over `DIRS` leaf
//! directories when given (`20000:40`). A second table breaks the
//! pre-commit gate's derivation into the git steps it runs.

use std::ffi::OsStr;
use std::path::Path;
use std::time::{Duration, Instant};

use probity_core::review::fixtures;
use probity_core::review::ids::{Nonce, Timestamp, TreeId};
use probity_core::review::lens::Lens;
use probity_git::fixture::Fixture;
use probity_ports::review::{self as drivers, Clock, ReviewStore};
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

fn main() {
    let layouts: Vec<(usize, Option<usize>)> = std::env::args()
        .skip(1)
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
    println!(
        "| files | dirs | git status | git add -A && write-tree (temp index) | probity start (resume) | + diff anchor (new start) | probity validate (1 lineage) | validate / git status | validate (1,001 lineages) | validate, in a hook (staged index) | pre-push (the committed candidate) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut breakdown = Vec::new();
    for (n, dirs) in layouts {
        let f = generate(n, dirs);
        let root = f.root().to_path_buf();
        let repo = f.repo().expect("repo");
        let store = FileStore::for_common_dir(repo.common_dir());
        let clock = FixedClock(std::cell::Cell::new(0));

        let status = time(runs, || git(&root, &["status", "--porcelain"], &[]));
        let tmp_index = root.join(".git").join("bench-index");
        let add_write = time(runs, || {
            std::fs::copy(root.join(".git").join("index"), &tmp_index).expect("copy index");
            let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", tmp_index.as_os_str())];
            git(&root, &["add", "-A"], &env);
            git(&root, &["write-tree"], &env);
        });
        // The pre-commit derivation step by step: one process start (what
        // `rev-parse` costs), the index copy, `git add -A` and `git
        // write-tree` on the copy (the gate's own flags).
        let rev_parse = time(runs, || git(&root, &["rev-parse", "HEAD^{tree}"], &[]));
        let copy = time(runs, || {
            std::fs::copy(root.join(".git").join("index"), &tmp_index).expect("copy index");
        });
        let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", tmp_index.as_os_str())];
        let add = time(runs, || {
            std::fs::copy(root.join(".git").join("index"), &tmp_index).expect("copy index");
            git(&root, &["-c", "index.skipHash=true", "add", "-A"], &env);
        });
        let write_tree = time(runs, || git(&root, &["write-tree"], &env));
        let _ = std::fs::remove_file(&tmp_index);
        breakdown.push((
            n,
            dirs,
            status,
            rev_parse,
            copy,
            add.saturating_sub(copy),
            write_tree,
        ));

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
                probity_core::review::export::MAX_DIFF_BYTES,
            )
            .expect("diff")
            .expect("within the budget");
        });
        let validate_one = time(runs, || {
            drivers::validate_pre_commit(&repo, &store, &drivers::Delivery::Worktree)
                .expect("validate");
        });
        // 1,000 more lineages with other targets.
        let mut obs = fixtures::parser_observation();
        for i in 0..1000u32 {
            obs.candidate_tree = TreeId::parse(format!("{:040x}", i + 1)).expect("tree id");
            let r = fixtures::start(&obs, Lens::Reliability)
                .expect("state")
                .record()
                .expect("record");
            store.create(&r).expect("create");
        }
        let validate_many = time(runs, || {
            drivers::validate_pre_commit(&repo, &store, &drivers::Delivery::Worktree)
                .expect("validate");
        });
        // In a hook the gate compares the index being committed: stage the
        // change and measure that path too.
        git(&root, &["add", "-A"], &[]);
        let index = drivers::Delivery::Index(root.join(".git").join("index"));
        let validate_staged = time(runs, || {
            drivers::validate_pre_commit(&repo, &store, &index).expect("validate");
        });
        // Commit the approved candidate... it is approved only once
        // finalized; the gate's cost is the same either way (derivation and
        // one lookup), so measure the derivation of the delivered commit.
        git(&root, &["commit", "-q", "-m", "candidate"], &[]);
        let range = drivers::PushBoundary::Range {
            base: "HEAD~1".into(),
            tip: "HEAD".into(),
        };
        let pre_push = time(runs, || {
            drivers::validate_pre_push(&repo, &store, &range).expect("validate");
        });
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {:.2}× | {} | {} | {} |",
            dirs_label(dirs),
            ms(status),
            ms(add_write),
            ms(start),
            ms(anchor),
            ms(validate_one),
            validate_one.as_secs_f64() / status.as_secs_f64(),
            ms(validate_many),
            ms(validate_staged),
            ms(pre_push)
        );
    }
    println!();
    println!(
        "| files | dirs | git status | one git process (rev-parse) | index copy | git add -A (copy) | git write-tree |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for (n, dirs, status, rev_parse, copy, add, write_tree) in breakdown {
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} |",
            dirs_label(dirs),
            ms(status),
            ms(rev_parse),
            ms(copy),
            ms(add),
            ms(write_tree)
        );
    }
}

fn dirs_label(dirs: Option<usize>) -> String {
    dirs.map_or_else(|| "5,141".to_string(), |d| d.to_string())
}
