//! The risk scan over content and configurations a changed tree brings
//! (`RiskPolicy::classify_in`, v4 and v5: the one-pass automaton, Rust's
//! raw identifiers, joined string literals, and the references a root
//! `.vscode/tasks.json`, `.pre-commit-config.yaml` or `.envrc` makes,
//! D-R135; v6's directives in a document, D-R143). Beyond not panicking:
//! v5 never rates a change lower than v4, a configuration only ever
//! raises v5's rating, v6 never rates lower than v5, v7 never lower
//! than v6, v8 never lower than v7, v9 never lower than v8, v10 never
//! lower than v9, and v11 never lower than v10.
//!
//! Input: a byte choosing the changed file's path, a byte choosing the
//! configuration (none, or one of the three at the root), then the
//! configuration's bytes and the file's content separated by the first
//! `0xFF` (no `0xFF`: all content, an empty configuration).
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::{
    CandidateContent, ChangedFile, FileMode, LineCount, RepoPath, RiskLevel, RiskPolicy,
    RunConfig, TreeInputs,
};

const PATHS: &[&str] = &[
    "src/main.rs",
    "tools/gen.py",
    "web/app.js",
    "README.md",
    "scripts/setup.sh",
    "build/out.txt",
    "bin/git",
    ".env",
    "nix/flake.nix",
    "Cargo.toml",
    "package.json",
    "composer.json",
];

const CONFIGS: &[&str] = &[".vscode/tasks.json", ".pre-commit-config.yaml", ".envrc"];

fn rank(l: RiskLevel) -> u8 {
    match l {
        RiskLevel::Low => 0,
        RiskLevel::Medium => 1,
        RiskLevel::High => 2,
    }
}

fuzz_target!(|data: &[u8]| {
    let [p, c, rest @ ..] = data else {
        return;
    };
    let (config, content) = match rest.iter().position(|b| *b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&[][..], rest),
    };
    let Ok(path) = RepoPath::parse(PATHS[usize::from(*p) % PATHS.len()]) else {
        return;
    };
    let files = [ChangedFile {
        path,
        old_mode: Some(FileMode::Regular),
        new_mode: Some(FileMode::Regular),
        lines: LineCount::Text {
            added: 1,
            removed: 0,
        },
        text_lines: 1,
        base_content: CandidateContent::Absent,
        content: CandidateContent::Bytes {
            bytes: content.to_vec(),
            complete: true,
        },
    }];
    let configs: Vec<RunConfig> = CONFIGS
        .get(usize::from(*c) % (CONFIGS.len() + 1))
        .and_then(|at| RepoPath::parse(*at).ok())
        .map(|path| RunConfig {
            path,
            content: CandidateContent::Bytes {
                bytes: config.to_vec(),
                complete: true,
            },
        })
        .into_iter()
        .collect();
    let v4 = RiskPolicy::v4().classify_linked(&files, 1, &[]).level();
    let v5 = RiskPolicy::v5().classify_linked(&files, 1, &[]).level();
    let trees = TreeInputs {
        links: &[],
        configs: &configs,
        attributes: &[],
    };
    let read = RiskPolicy::v5().classify_in(&files, 1, trees).level();
    assert!(rank(v5) >= rank(v4), "v4 {v4:?}, v5 {v5:?}");
    assert!(
        rank(read) >= rank(v5),
        "v5 {v5:?}, with its configuration {read:?}"
    );
    let v6 = RiskPolicy::v6().classify_in(&files, 1, trees).level();
    assert!(rank(v6) >= rank(read), "v5 {read:?}, v6 {v6:?}");
    let v7 = RiskPolicy::v7().classify_in(&files, 1, trees).level();
    assert!(rank(v7) >= rank(v6), "v6 {v6:?}, v7 {v7:?}");
    let v8 = RiskPolicy::v8().classify_in(&files, 1, trees).level();
    assert!(rank(v8) >= rank(v7), "v7 {v7:?}, v8 {v8:?}");
    let v9 = RiskPolicy::v9().classify_in(&files, 1, trees).level();
    assert!(rank(v9) >= rank(v8), "v8 {v8:?}, v9 {v9:?}");
    let v10 = RiskPolicy::v10().classify_in(&files, 1, trees).level();
    assert!(rank(v10) >= rank(v9), "v9 {v9:?}, v10 {v10:?}");
    let v11 = RiskPolicy::v11().classify_in(&files, 1, trees).level();
    assert!(rank(v11) >= rank(v10), "v10 {v10:?}, v11 {v11:?}");
    // v12 runs too (a panic is a finding): it never names less, but it
    // bounds held files where v11 bounded names, so no order is asserted.
    let _ = RiskPolicy::v12().classify_in(&files, 1, trees).level();
});
