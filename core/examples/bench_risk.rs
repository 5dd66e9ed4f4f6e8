//! Risk classification cost (not a test; see docs/perf.md, "Risk policy
//! v3's scan", "Risk policy v4's links" and "Risk policy v5's views"):
//! `classify` of one 1 MiB file as prose, as code, with comments and with
//! every word a quoted literal, and of a 5,000-file change of small files
//! (without links, then between trees holding 2,000 symbolic links, then
//! with three auto-run configurations naming 300 paths), under each
//! built-in policy: the median (and the fastest) of `RUNS` runs after a
//! warm-up.
//!
//! cargo run --release -p probity-core --features fixtures --example bench_risk [-- RUNS]
//!
//! The last line is a 64-bit FNV-1a digest of every tier and reason
//! produced: two builds that print the same digest classified alike.

use std::time::Instant;

use probity_core::review::fixtures;
use probity_core::review::{
    CandidateContent, ChangedFile, RepoPath, RiskPolicy, RunConfig, Symlink, TreeInputs,
};

// The filter benchmark's generator and digest (a fixed-seed LCG, FNV-1a).
#[path = "filter_bench.rs"]
#[allow(dead_code)]
mod filter_bench;

use filter_bench::Fnv;
use filter_bench::corpus::Lcg;

fn pick<'a>(g: &mut Lcg, xs: &[&'a str]) -> &'a str {
    xs[(g.step() as usize) % xs.len()]
}

const WORDS: &[&str] = &[
    "the",
    "review",
    "of",
    "a",
    "change",
    "holds",
    "findings",
    "each",
    "with",
    "its",
    "evidence",
    "and",
    "lens",
    "tier",
    "reader",
    "writer",
    "branch",
    "policy",
    "note",
    "record",
    "signature",
    "café",
    "naïve",
    "déjà",
    "vu",
    "über",
    "line",
    "word",
    "figure",
    "table",
    "(see",
    "below)",
];

/// About `size` bytes of prose: sentences in paragraphs; every
/// `comment_every`-th line (0: none) starts with `// `.
fn prose(size: usize, comment_every: usize, g: &mut Lcg) -> String {
    let mut out = String::with_capacity(size + 200);
    let mut line = 0usize;
    while out.len() < size {
        line += 1;
        if comment_every > 0 && line.is_multiple_of(comment_every) {
            out.push_str("// ");
        }
        for _ in 0..12 {
            out.push_str(pick(g, WORDS));
            out.push(' ');
        }
        out.push_str("end.\n");
        if line.is_multiple_of(6) {
            out.push('\n');
        }
    }
    out
}

fn file(path: &str, text: &str) -> ChangedFile {
    fixtures::text_change(path, 1, 0, text)
}

/// A row: its name, the changed files, the trees' links and
/// configurations.
type Case = (&'static str, Vec<ChangedFile>, Vec<Symlink>, Vec<RunConfig>);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let mut g = Lcg(42);
    let mib = 1 << 20;
    let plain = prose(mib, 0, &mut g);
    let commented = prose(mib, 4, &mut g);
    // Every word a string literal, as a data file or a test table: each
    // quote goes through v5's joining stage.
    let quoted: String = plain
        .split(' ')
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let small: Vec<ChangedFile> = (0..5000)
        .map(|i| {
            let text = prose(2048, if i % 2 == 0 { 0 } else { 4 }, &mut g);
            let path = match i % 4 {
                0 => format!("src/m{i}/lib.rs"),
                1 => format!("docs/p{i}/guide.md"),
                2 => format!("web/c{i}/index.ts"),
                _ => format!("crates/k{i}/tests/t.rs"),
            };
            file(&path, &text)
        })
        .collect();
    // Links of the trees: 2,000, each with its own target; 1,500 reach a
    // changed file (a file link to a guide, directory links to a module
    // and to a web component), 500 point elsewhere.
    let links: Vec<Symlink> = (0..2000)
        .map(|i| {
            let (path, target) = match i % 4 {
                0 => (
                    format!("alias/a{i}.md"),
                    format!("../docs/p{}/guide.md", i / 4 * 4 + 1),
                ),
                1 => (format!("alias/d{i}"), format!("../src/m{}", i / 4 * 4)),
                2 => (format!("vendor/v{i}/lib"), format!("../../lib/l{i}")),
                _ => (format!("ext/e{i}"), format!("../web/c{}", i / 4 * 4 + 2)),
            };
            Symlink {
                path: RepoPath::parse(path).expect("a path"),
                target: target.into_bytes(),
            }
        })
        .collect();
    // Auto-run configurations naming 300 paths (100 each), none of them
    // changed: what v5 reads at each start.
    let config = |path: &str, text: String| RunConfig {
        path: RepoPath::parse(path).expect("a path"),
        content: CandidateContent::Bytes {
            bytes: text.into_bytes(),
            complete: true,
        },
    };
    let tasks: Vec<String> = (0..100)
        .map(|i| format!("{{\"label\": \"t{i}\", \"command\": \"./scripts/t{i}.sh\"}}"))
        .collect();
    let configs = vec![
        config(
            ".vscode/tasks.json",
            format!(
                "{{\"version\": \"2.0.0\", \"tasks\": [{}]}}",
                tasks.join(",")
            ),
        ),
        config(
            ".pre-commit-config.yaml",
            (0..100)
                .map(|i| format!("  - id: h{i}\n    entry: hooks/h{i}.py\n"))
                .collect(),
        ),
        config(
            ".envrc",
            (0..100)
                .map(|i| format!("source_env env/e{i}.sh\n"))
                .collect(),
        ),
    ];
    let cases: Vec<Case> = vec![
        (
            "1 MiB prose, docs/big.md",
            vec![file("docs/big.md", &plain)],
            Vec::new(),
            Vec::new(),
        ),
        (
            "1 MiB prose, src/big.rs",
            vec![file("src/big.rs", &plain)],
            Vec::new(),
            Vec::new(),
        ),
        (
            "1 MiB prose with // every 4th line, docs/big.md",
            vec![file("docs/big.md", &commented)],
            Vec::new(),
            Vec::new(),
        ),
        (
            "1 MiB prose with // every 4th line, src/big.rs",
            vec![file("src/big.rs", &commented)],
            Vec::new(),
            Vec::new(),
        ),
        (
            "1 MiB of quoted words, src/big.py",
            vec![file("src/big.py", &quoted)],
            Vec::new(),
            Vec::new(),
        ),
        (
            "5,000 files of 2 KiB (10 MiB)",
            small.clone(),
            Vec::new(),
            Vec::new(),
        ),
        (
            "the same, trees holding 2,000 links",
            small.clone(),
            links,
            Vec::new(),
        ),
        (
            "the same, no links, 3 configurations naming 300 paths",
            small,
            Vec::new(),
            configs,
        ),
    ];
    let policies = [
        ("v1", RiskPolicy::v1()),
        ("v2", RiskPolicy::v2()),
        ("v3", RiskPolicy::v3()),
        ("v4", RiskPolicy::v4()),
        ("v5", RiskPolicy::v5()),
        ("v6", RiskPolicy::v6()),
        ("v7", RiskPolicy::v7()),
        ("v8", RiskPolicy::v8()),
        ("v9", RiskPolicy::v9()),
        ("v10", RiskPolicy::v10()),
        ("v11", RiskPolicy::v11()),
        ("v12", RiskPolicy::v12()),
    ];
    let mut digest = Fnv::default();
    println!("| content | v1 | v2 | v3 | v4 | v5 | v6 | v7 | v8 | v9 | v10 | v11 |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, files, links, configs) in &cases {
        let mut row = format!("| {name} |");
        let trees = TreeInputs {
            links,
            configs,
            attributes: &[],
        };
        for (_, p) in &policies {
            let a = p.classify_in(files, 1, trees);
            digest.update(a.level().name().as_bytes());
            for r in a.reasons() {
                digest.update(r.to_string().as_bytes());
            }
            let times: Vec<f64> = (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(p.classify_in(std::hint::black_box(files), 1, trees));
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            let min = times.iter().copied().fold(f64::INFINITY, f64::min);
            row.push_str(&format!(" {:.2} ({min:.2}) ms |", median(times)));
        }
        println!("{row}");
    }
    println!("digest {:016x}", digest.0);
}
