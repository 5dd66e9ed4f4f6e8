//! Risk policy v12's following (D-R174) over a tree the input writes: an
//! auto-run configuration and the files it may run, read as the ports
//! read them (`fixtures::ports_read`: the configurations, each step's
//! listings and reads until a step asks nothing), then classified.
//! Beyond not panicking and the steps ending: the tree only ever raises
//! the tier of a change (never lower than without it), a file taken as
//! cut short never lowers it, and the order the files are passed in does
//! not change it (`proptests/tests/follow.rs` holds the same properties
//! over generated words).
//!
//! Input: a byte choosing the configuration (a folder-open task's
//! command, a pre-commit hook's entry or an `.envrc`), a byte choosing
//! the changed path, a byte choosing the file taken as cut short, then
//! the command and the files' texts separated by `0xFF` (the first text
//! after the command at `FILES[0]`, and so on).
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use probity_core::review::fixtures;

const FILES: &[&str] = &[
    "tools/run",
    "tools/a.sh",
    "tools/hooks/h1",
    "lib/x.py",
    "pkg/__init__.py",
    "pkg/mod.py",
    "Makefile",
    "package.json",
    "tools/a.mk",
    // The listings by name (D-R175): pytest's configuration, npm's, a
    // test a discovery finds and the package it is imported as.
    "pytest.ini",
    ".npmrc",
    "tests/test_a.py",
    "tests/__init__.py",
    // pytest's configuration parsed as TOML (D-R176), a test only a
    // configured pattern finds, and one node's test runner finds.
    "pyproject.toml",
    "tests/check_a.py",
    "lib/a.test.js",
];

const CHANGED: &[&str] = &[
    "tools/a.sh",
    "tools/hooks/h1",
    "lib/x.py",
    "pkg/mod.py",
    "src/main.rs",
];


/// The configuration `kind` chooses, running `command` (bytes as they
/// are: a task's JSON string is written with its bytes escaped as JSON
/// needs, so any command reaches the word reading).
fn configuration(kind: u8, command: &[u8]) -> (String, Vec<u8>) {
    match kind % 3 {
        0 => {
            let text = String::from_utf8_lossy(command);
            let escaped = serde_json::to_string(&text).unwrap_or_default();
            let doc = format!(
                "{{\"version\":\"2.0.0\",\"tasks\":[{{\"label\":\"t\",\"command\":{escaped},\"runOptions\":{{\"runOn\":\"folderOpen\"}}}}]}}"
            );
            (".vscode/tasks.json".into(), doc.into_bytes())
        }
        1 => {
            let mut doc = b"repos:\n- repo: local\n  hooks:\n  - id: h\n    name: h\n    language: system\n    entry: ".to_vec();
            doc.extend(command.iter().map(|b| if *b == b'\n' { b' ' } else { *b }));
            doc.push(b'\n');
            (".pre-commit-config.yaml".into(), doc)
        }
        _ => (".envrc".into(), command.to_vec()),
    }
}

fuzz_target!(|data: &[u8]| {
    let [kind, change, cut, rest @ ..] = data else {
        return;
    };
    let mut parts = rest.split(|b| *b == 0xFF);
    let command = parts.next().unwrap_or_default();
    let mut tree: BTreeMap<String, Vec<u8>> = FILES
        .iter()
        .zip(parts)
        .map(|(p, text)| ((*p).to_string(), text.to_vec()))
        .collect();
    let (at, config) = configuration(*kind, command);
    tree.insert(at, config);
    let read = fixtures::ports_read(&tree).expect("the ports' steps end");
    let files = [fixtures::text_change(
        CHANGED[usize::from(*change) % CHANGED.len()],
        1,
        0,
        "x\n",
    )];

    if let Err(broken) = fixtures::following_holds(&files, &read, usize::from(*cut)) {
        panic!("{broken}");
    }
});
