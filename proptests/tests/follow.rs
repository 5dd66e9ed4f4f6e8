//! Risk policy v12's following (D-R174) over generated trees, read as the
//! ports read them (`fixtures::ports_read`): the configurations, then each
//! step's listings and reads (`RiskPolicy::reference_step`) until nothing
//! is left, then the classification. The scripts are made of the shell's and the script
//! languages' words the red team rounds used (`cd`, `find`, `xargs`,
//! variables, quotes, brackets, `eval`, imports), cut anywhere and mixed
//! with characters of more than one byte, so the word reading meets
//! what it was not written for.
//!
//! Beyond not panicking and the ports' loop ending:
//! - a tree's configurations only ever raise the tier (a change is never
//!   rated lower with them than without them);
//! - a file the ports could not read whole is never safer than the file
//!   read (taking any read file as cut short never lowers the tier);
//! - the tier does not depend on the order the ports pass the files in.

use std::collections::BTreeMap;

use proptest::prelude::*;

use probity_core::review::fixtures;
use probity_core::review::{ChangedFile, Matching, RepoPath, RiskPolicy, Symlink, TreeInputs};

/// Words of commands, scripts and imports.
const WORDS: &[&str] = &[
    "cd",
    "tools",
    "tools/",
    "./",
    "lib",
    "hooks",
    "find",
    ".",
    "-name",
    "'*.sh'",
    "-type",
    "f",
    "-exec",
    "{}",
    "+",
    "\\;",
    "xargs",
    "-0",
    "-n1",
    "sh",
    "bash",
    "python3",
    "-m",
    "pkg.mod",
    "run-parts",
    "source",
    "make",
    "-C",
    "npm",
    "run",
    "D=tools",
    "D",
    "$D",
    "${D}",
    "${D:-lib}",
    "\"$@\"",
    "$(ls",
    ")",
    "for",
    "f",
    "in",
    "*",
    ";",
    "do",
    "\"$f\"",
    "done",
    "|",
    "&&",
    "eval",
    "printf",
    "-v",
    "\"$N\"",
    "import",
    "from",
    "require(",
    "'./x'",
    "[\"python3\",",
    "\"lib/x.py\"]",
    "os.listdir(",
    "subprocess.run(",
    "#",
    "'",
    "\"",
    "\\",
    "=",
    "+=",
    "`",
    "\u{e9}",
    "\u{200b}",
    "\u{1f600}",
    "tools/run",
    "tools/a.sh",
    "lib/x.py",
    "pkg/__init__.py",
    "..",
    "cd ..",
    "pushd",
    "-o",
    "!",
    "-regex",
    "-print0",
    "export",
    "PATH_add",
    "tools/bin",
    "${D:=tools}",
    "${D#x}",
    "-I",
    "-f",
    "--file=tools/a.mk",
    "include",
    "tools/*.mk",
    "tools/*/run.sh",
    "tools/many",
    "\"cwd\":",
    "entry:",
    "-\n",
    "@",
    "\t",
    // The listings by name (D-R175) and what rounds 28 to 30 found.
    "pytest",
    "unittest",
    "discover",
    "-p",
    "'*_check.py'",
    "--doctest-modules",
    "--workspaces",
    "--workspace=tools",
    "-execdir",
    ",",
    "python_files",
    "testpaths",
    "addopts",
    "pythonpath",
    "workspaces=true",
    "\"\"\"",
    "import_module(\"pkg.\"",
    // Round 31: pytest's configuration as TOML and INI, its options from
    // the command line and the environment, node's test runner.
    "[tool.pytest.ini_options]",
    "[pytest]",
    "python\\u005ffiles",
    "{",
    "}",
    "[\"check_*.py\"]",
    "python_files=check_*.py",
    "--override-ini",
    "PYTEST_ADDOPTS=--rootdir=tests",
    "PYTEST_PLUGINS=pkg.mod",
    "--pyargs",
    "pkg",
    "testing",
    "-c",
    "node",
    "--test",
];

/// Paths a generated tree holds files at (besides the configuration).
const FILES: &[&str] = &[
    "tools/run",
    "tools/a.sh",
    "tools/hooks/h1",
    "tools/hooks/h2",
    "lib/x.py",
    "pkg/__init__.py",
    "pkg/mod.py",
    "x.js",
    "Makefile",
    "tools/a.mk",
    "tools/x/run.sh",
    "tools/bin/go",
    "pytest.ini",
    ".npmrc",
    "tests/test_a.py",
    "tests/__init__.py",
    "package.json",
    "pyproject.toml",
    "tests/check_a.py",
    "lib/a.test.js",
    "test/helper.js",
];

/// Paths a change may touch.
const CHANGED: &[&str] = &[
    "tools/a.sh",
    "tools/hooks/h1",
    "lib/x.py",
    "pkg/mod.py",
    "src/main.rs",
    "docs/guide.md",
    "tests/__init__.py",
];

/// The auto-run configurations a tree may hold, each as its tool reads
/// the command (a task's, a pre-commit hook's entry, an `.envrc`'s line).
const CONFIGS: &[&str] = &[".vscode/tasks.json", ".pre-commit-config.yaml", ".envrc"];

/// A directory of more files than a listing holds (`files_per_read`).
const MANY: usize = 130;

/// A script: words joined by a space or a newline, or glued.
fn script() -> impl Strategy<Value = String> {
    prop::collection::vec((0..WORDS.len(), 0..3u8), 0..40).prop_map(|words| {
        let mut out = String::new();
        for (w, sep) in words {
            out.push_str(WORDS[w]);
            out.push(match sep {
                0 => ' ',
                1 => '\n',
                _ => '/',
            });
        }
        out
    })
}

/// A tasks document whose folder-open task runs `command` (its quotes
/// and backslashes escaped as JSON needs them).
fn task(command: &str) -> String {
    let escaped: String = command
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            '\n' => vec!['\\', 'n'],
            c => vec![c],
        })
        .collect();
    format!(
        "{{\"version\":\"2.0.0\",\"tasks\":[{{\"label\":\"t\",\"type\":\"shell\",\"command\":\"{escaped}\",\"runOptions\":{{\"runOn\":\"folderOpen\"}}}}]}}"
    )
}

/// The configuration at `CONFIGS[kind]` running `command`.
fn configuration(kind: usize, command: &str) -> (String, String) {
    let path = CONFIGS[kind % CONFIGS.len()];
    let text = match path {
        ".vscode/tasks.json" => task(command),
        ".pre-commit-config.yaml" => format!(
            "repos:\n- repo: local\n  hooks:\n  - id: h\n    name: h\n    language: system\n    entry: {}\n",
            command.replace('\n', " ")
        ),
        _ => command.to_string(),
    };
    (path.to_string(), text)
}

/// Where the property's links are, and what they point at (relative,
/// a directory, a chain's next link, absolute, out of the tree).
const LINKS: &[&str] = &[
    "tools/run",
    "tools/a.sh",
    "tools/x",
    "lib",
    "scripts/run.sh",
    "l0",
];
const TARGETS: &[&str] = &[
    "../scripts/run.sh",
    "../lib",
    "../l0/run.sh",
    "tools",
    "/proc/self/cwd/tools/a.sh",
    "../../outside",
    "x.py",
];

/// A one-line change of `path`.
fn changed(path: &str) -> ChangedFile {
    fixtures::text_change(path, 1, 0, "x\n")
}

proptest! {
    #![proptest_config(ProptestConfig {
        // `PROPTEST_CASES` sets a longer run (`with_cases` would ignore it).
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    /// The ports' reading ends on any tree, and its tier follows the
    /// three properties of the module.
    #[test]
    fn following_ends_and_what_it_reads_only_raises_the_tier(
        (kind, command) in (0..CONFIGS.len(), script()),
        files in prop::collection::vec((0..FILES.len(), script()), 0..5),
        many in any::<bool>(),
        change in 0..CHANGED.len(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut tree: BTreeMap<String, String> = files
            .into_iter()
            .map(|(p, text)| (FILES[p].to_string(), text))
            .collect();
        if many {
            for i in 0..MANY {
                tree.insert(format!("tools/many/f{i}.sh"), "echo\n".into());
            }
        }
        let (path, text) = configuration(kind, &command);
        tree.insert(path, text);
        let tree: BTreeMap<String, Vec<u8>> =
            tree.into_iter().map(|(p, text)| (p, text.into_bytes())).collect();
        let read = fixtures::ports_read(&tree);
        prop_assert!(read.is_some(), "the steps never ended");
        let read = read.unwrap_or_default();
        let files = [changed(CHANGED[change])];

        let held = fixtures::following_holds(&files, &read, cut.index(read.len().max(1)));
        prop_assert!(held.is_ok(), "{}", held.err().unwrap_or_default());
    }

    /// The trees' links only raise the tier (red team rounds 33 and 35):
    /// a file read through a link is also read from where it resolves, a
    /// path behind an absolute target names every file, and the changed
    /// file is also rated at the paths links reach it from.
    #[test]
    fn the_trees_links_only_raise_the_tier(
        (kind, command) in (0..CONFIGS.len(), script()),
        files in prop::collection::vec((0..FILES.len(), script()), 0..5),
        links in prop::collection::vec((0..LINKS.len(), 0..TARGETS.len()), 0..4),
        change in 0..CHANGED.len(),
    ) {
        let mut tree: BTreeMap<String, Vec<u8>> = files
            .into_iter()
            .map(|(p, text)| (FILES[p].to_string(), text.into_bytes()))
            .collect();
        let (path, text) = configuration(kind, &command);
        tree.insert(path, text.into_bytes());
        let links: Vec<Symlink> = links
            .into_iter()
            .filter_map(|(l, t)| {
                Some(Symlink {
                    path: RepoPath::parse(LINKS[l]).ok()?,
                    target: TARGETS[t].as_bytes().to_vec(),
                })
            })
            .collect();
        let files = [changed(CHANGED[change])];
        let tier = |links: &[Symlink]| {
            let read = fixtures::ports_read_linked(&tree, links).unwrap_or_default();
            let trees = TreeInputs { links, configs: &read, attributes: &[] };
            RiskPolicy::newest().classify_in(&files, 1, trees).level()
        };
        let (without, with) = (tier(&[]), tier(&links));
        prop_assert!(with.rank() >= without.rank(), "{:?} -> {:?} with {:?}", without, with, links);
    }

    /// A listing by name keeps a file below its directory by the file's
    /// name alone exactly when its whole glob keeps the file's path: the
    /// git adapter's walk asks the name of every file it meets.
    #[test]
    fn a_listing_keeps_by_name_as_by_path(
        pattern in "[a-c_*?.\\[\\]!-]{1,7}",
        dir in prop::sample::select(vec!["", "tests", "a/B"]),
        mid in prop::sample::select(vec!["", "x/", "x/y/"]),
        name in "[a-cA-C_.*?-]{1,7}",
    ) {
        if let Some(m) = Matching::new(dir, &pattern) {
            let path = match dir {
                "" => format!("{mid}{name}"),
                d => format!("{d}/{mid}{name}"),
            };
            if let Some(kept) = m.keeps_name(name.to_ascii_lowercase().as_bytes()) {
                prop_assert_eq!(kept, m.keeps(&path), "{} {}", pattern, path);
            }
        }
    }
}
