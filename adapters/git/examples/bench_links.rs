//! What following symbolic links costs (not a test; see docs/perf.md,
//! "Risk policy v4's links", D-R131), on a repository of 20,000 files in
//! 2,000 directories with 100 directory links, one file changed:
//!
//! - a start's observation (`observe_candidate`, which reads the
//!   candidate's links from its temporary index) and its links
//!   (`symlinks` of both trees, from what the start read: no process);
//! - a gate's listing of a tree it did not announce (`symlinks` on a
//!   fresh repository: one `diff-tree --stdin`, the targets through the
//!   object reader);
//! - a gate's announcement of a tree pair with and without the two trees'
//!   listings riding in its `diff-tree --stdin`.
//!
//! cargo run --release -p probity-git --features fixture --example bench_links [-- RUNS]

use std::time::Instant;

use probity_git::fixture::Fixture;
use probity_ports::review::ExportGit;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The median and fastest of `runs` timings of `f`, in ms.
fn time(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let xs: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    (median(xs), min)
}

#[allow(clippy::expect_used)]
fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    let f = Fixture::new().expect("a repository");
    // Packed once, below: no automatic gc running meanwhile.
    f.git(&["config", "gc.auto", "0"]).expect("configured");
    for i in 0..20_000 {
        f.write(
            &format!("src/d{}/s{}/f{i}.rs", i / 100, i / 10 % 10),
            format!("fn f{i}() {{}}\n"),
        )
        .expect("a file");
    }
    std::fs::create_dir_all(f.root().join("links")).expect("a directory");
    for i in 0..100 {
        std::os::unix::fs::symlink(format!("../src/d{i}"), f.root().join(format!("links/l{i}")))
            .expect("a link");
    }
    f.commit_all("base").expect("a commit");
    f.git(&["gc", "-q"]).expect("packed");
    f.write("src/d0/s0/f0.rs", "fn f0() { let _ = 1; }\n")
        .expect("a change");
    let obs = f
        .repo()
        .expect("a repo")
        .observe_candidate()
        .expect("observed");
    let trees = [&obs.base_tree, &obs.candidate_tree];
    let pair = [(obs.base_tree.clone(), obs.candidate_tree.clone())];
    let rows: Vec<(&str, (f64, f64))> = vec![
        (
            "start: observe_candidate (reads the candidate's links from its index)",
            time(runs, || {
                f.repo()
                    .expect("a repo")
                    .observe_candidate()
                    .expect("observed");
            }),
        ),
        (
            "start: observe_candidate, then symlinks of both trees",
            time(runs, || {
                let r = f.repo().expect("a repo");
                r.observe_candidate().expect("observed");
                assert_eq!(r.symlinks(&trees).expect("links")[0].len(), 100);
            }),
        ),
        (
            "gate: symlinks of one tree not announced (diff-tree --stdin)",
            time(runs, || {
                let r = f.repo().expect("a repo");
                r.symlinks(&trees[..1]).expect("links");
            }),
        ),
        (
            "gate: prefetch_diffs of the pair (before D-R131)",
            time(runs, || {
                let r = f.repo().expect("a repo");
                let pairs = [(pair[0].0.to_string(), pair[0].1.to_string())];
                r.prefetch_diffs(&pairs).expect("prefetched");
            }),
        ),
        (
            "gate: announce_diffs of the pair, the trees' listings with it",
            time(runs, || {
                let r = f.repo().expect("a repo");
                r.announce_diffs(&pair).expect("announced");
                r.symlinks(&trees).expect("links");
            }),
        ),
    ];
    println!("| what | median | fastest |");
    println!("|---|---:|---:|");
    for (what, (med, min)) in rows {
        println!("| {what} | {med:.1} ms | {min:.1} ms |");
    }
}
