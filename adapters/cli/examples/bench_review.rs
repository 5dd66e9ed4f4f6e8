//! Benchmark of `start` and `validate --gate pre-commit` on generated
//! repositories, beside `git status` and `git add -A && git write-tree`
//! (temporary index) on the same repository, and `validate` with 1 vs 1,000
//! lineages in the store. Not a test: figures go to docs/perf.md.
//!
//! cargo run --release -p probity-cli --example bench_review -- [FILES...]

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

fn generate(files: usize) -> Fixture {
    let f = Fixture::new().expect("fixture");
    for i in 0..files {
        let rel = format!("src/d{:03}/m{:03}/f{i}.rs", i % 97, (i / 97) % 53);
        f.write(
            &rel,
            format!("// file {i}\npub fn f{i}() -> u32 {{ {i} }}\n"),
        )
        .expect("write");
    }
    f.write(".gitignore", "target/\n").expect("write");
    f.commit_all("base").expect("commit");
    // 50 changed tracked files and 20 intended untracked files.
    for i in (0..files).step_by(files / 50).take(50) {
        let rel = format!("src/d{:03}/m{:03}/f{i}.rs", i % 97, (i / 97) % 53);
        f.write(
            &rel,
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
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![20_000, 100_000]
    } else {
        sizes
    };
    let runs = 7;
    println!(
        "| files | git status | git add -A && write-tree (temp index) | probity start (resume) | + diff anchor (new start) | probity validate (1 lineage) | validate (1,001 lineages) | validate, in a hook (staged index) | pre-push (the committed candidate) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let f = generate(n);
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
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
            ms(status),
            ms(add_write),
            ms(start),
            ms(anchor),
            ms(validate_one),
            ms(validate_many),
            ms(validate_staged),
            ms(pre_push)
        );
    }
}
