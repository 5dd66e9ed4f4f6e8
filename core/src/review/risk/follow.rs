//! What an auto-run configuration runs indirectly (risk policy v11,
//! D-R170; red team round 14's 06): a task's words read from its
//! `options.cwd` as well as from the root; the file a tool reads by
//! default (`make`'s `Makefile`, `npm run`'s `package.json`, `just`'s
//! `justfile`, `python -m`'s module); and, read in turn, what a
//! `Makefile`, a `package.json`, a shell script or a script with a `#!`
//! line so named runs, up to [`FollowRule::reads`] times.
//!
//! The files to read are an output ([`frontier`]): the ports layer reads
//! them from both trees and passes them back among
//! [`super::TreeInputs::configs`], and the next step names what they run.
//! The classification recomputes every step from those bytes, so it needs
//! nothing but the files themselves. Conservative, as v5's references
//! are: a word is a name wherever the format may run it, and more new
//! files to read at one step than the rule allows is "not read whole".

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RunConfig;
use super::refs::{self, References};
use crate::review::snapshot::CandidateContent;

/// How far a policy follows what its auto-run configurations run (v11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowRule {
    /// How many times the files the configurations name are read in turn
    /// (3: a task's `Makefile`, the script its recipe runs, what that
    /// script sources). The names the last read gives are rated, not read.
    pub reads: u8,
    /// At most this many new files to read at one step: more, and every
    /// changed file may be one they name.
    pub files_per_read: u16,
}

/// Commands that read a `Makefile` of their directory.
const MAKES: &[&str] = &["make", "gmake", "bmake", "mingw32-make"];
/// What `make` reads, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];
/// Commands that run a `package.json` script.
const NPMS: &[&str] = &["npm", "pnpm", "yarn", "bun"];
/// What `just` reads.
const JUSTFILES: &[&str] = &["justfile", "Justfile", ".justfile"];
/// Task runners VS Code detects, each with the files it loads (named, not
/// read: JavaScript is not followed).
const RUNNERS: &[(&str, &[&str])] = &[
    (
        "gulp",
        &[
            "gulpfile.js",
            "gulpfile.mjs",
            "gulpfile.cjs",
            "gulpfile.ts",
            "gulpfile.babel.js",
        ],
    ),
    (
        "grunt",
        &["Gruntfile.js", "Gruntfile.coffee", "gruntfile.js"],
    ),
    ("jake", &["Jakefile", "Jakefile.js", "jakefile.js"]),
];
/// Words after which the next one is a file the command runs or reads.
const RUNS_NEXT: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "source",
    ".",
    "-f",
    "--file",
    "--makefile",
    "--rcfile",
    "--init-file",
    "--justfile",
];
/// Options naming the directory a `make` or a package manager runs in.
const DIR_OPTIONS: &[&str] = &["-c", "--directory", "--prefix", "--cwd", "--dir"];
/// Extensions of files read as scripts when named.
const SCRIPT_EXTENSIONS: &[&str] = &["sh", "bash", "zsh", "ksh", "dash", "mk"];

/// A file named to be read, and whether it is surely a script (else it is
/// followed only when it starts with `#!`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Named {
    path: String,
    surely: bool,
}

/// Where a source's relative words are read from: the root, the
/// source's own directory (a read file's), the tasks' working
/// directories and the directories its `cd` names.
struct Bases(Vec<String>);

impl Bases {
    /// `piece` from each base, normalised (case kept).
    fn join(&self, piece: &str) -> Vec<String> {
        if piece.starts_with('/') {
            return refs::normalise_cased(piece).into_iter().collect();
        }
        self.0
            .iter()
            .filter_map(|b| refs::normalise_cased(&format!("{b}/{piece}")))
            .collect()
    }
}

/// One source's pieces in order, and its `cd` targets.
struct Words {
    pieces: Vec<String>,
    cds: Vec<String>,
}

/// The references of `configs` under `rule` (the configurations at
/// `names` and, read in turn, the files they run), as v5's
/// [`References::of`] reads them plus what v11 follows; and the files
/// the step after the last read names (to read next, when fewer than
/// `reads` steps were read).
pub(super) fn follow(
    configs: &[RunConfig],
    names: &[String],
    rule: &FollowRule,
    reads: u8,
) -> (References, Vec<String>) {
    let mut out = References::of(configs, names);
    let mut asked: BTreeSet<String> = names.iter().cloned().collect();
    // The tasks' working directories, from the root.
    let mut cwds: Vec<String> = Vec::new();
    let mut level: Vec<(&RunConfig, bool)> = Vec::new();
    for c in configs {
        if !names.iter().any(|n| n == c.path.as_str()) {
            continue;
        }
        if let Some(text) = whole(c, &mut out)
            && c.path.as_str().ends_with(".json")
        {
            cwds.extend(task_cwds(&text));
        }
        level.push((c, true));
    }
    cwds.sort();
    cwds.dedup();
    let mut step = 0u8;
    loop {
        let mut next: BTreeSet<Named> = BTreeSet::new();
        for (c, config) in &level {
            let Some(text) = whole(c, &mut out) else {
                continue;
            };
            let path = c.path.as_str();
            let json = (*config && path.ends_with(".json")) || base_name(path) == "package.json";
            let words = if json {
                Words {
                    pieces: pieces(refs::json_strings(&text)),
                    cds: Vec::new(),
                }
            } else if *config && !path.ends_with(".envrc") {
                // A pre-commit configuration: v5's values.
                Words {
                    pieces: pieces(refs::yaml_values(&text, &["entry", "args"])),
                    cds: Vec::new(),
                }
            } else {
                script_words(&text)
            };
            let own = if *config {
                None
            } else {
                path.rsplit_once('/').map(|(d, _)| d.to_string())
            };
            let mut bases = vec![String::new()];
            bases.extend(own.clone());
            bases.extend(cwds.iter().cloned());
            for cd in &words.cds {
                bases.push(cd.clone());
                if let Some(o) = &own {
                    bases.push(format!("{o}/{cd}"));
                }
            }
            let mut sink = Sink {
                out: &mut out,
                next: &mut next,
            };
            name_all(&Bases(bases), &words.pieces, &mut sink);
        }
        next.retain(|n| !asked.contains(&n.path));
        if step >= reads {
            return (sorted(out), next.into_iter().map(|n| n.path).collect());
        }
        if next.len() > usize::from(rule.files_per_read) {
            out.unread = true;
            return (sorted(out), Vec::new());
        }
        step += 1;
        let maybe: BTreeSet<&str> = next
            .iter()
            .filter(|n| !n.surely)
            .map(|n| n.path.as_str())
            .collect();
        asked.extend(next.iter().map(|n| n.path.clone()));
        let wanted: BTreeSet<&str> = next.iter().map(|n| n.path.as_str()).collect();
        level = configs
            .iter()
            .filter(|c| wanted.contains(c.path.as_str()))
            .filter(|c| !maybe.contains(c.path.as_str()) || starts_with_shebang(c))
            .map(|c| (c, false))
            .collect();
        if level.is_empty() && next.is_empty() {
            return (sorted(out), Vec::new());
        }
    }
}

/// `c`'s text when it was read whole; else `out` is marked unread.
fn whole(c: &RunConfig, out: &mut References) -> Option<String> {
    match &c.content {
        CandidateContent::Bytes {
            bytes,
            complete: true,
        } => Some(String::from_utf8_lossy(bytes).into_owned()),
        CandidateContent::Bytes { .. } => {
            out.unread = true;
            None
        }
        CandidateContent::Absent => None,
    }
}

fn starts_with_shebang(c: &RunConfig) -> bool {
    c.content.bytes().is_some_and(|b| b.starts_with(b"#!"))
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn sorted(mut out: References) -> References {
    for list in [&mut out.paths, &mut out.dirs] {
        list.sort();
        list.dedup();
    }
    out
}

/// The values of every `cwd` key of a tasks document (`options.cwd`, of
/// a task or of them all), as paths from the root (`${workspaceFolder}`
/// and other variables cut out).
fn task_cwds(text: &str) -> Vec<String> {
    let tokens = refs::json_tokens(text);
    let mut out = Vec::new();
    for pair in tokens.windows(2) {
        if let [(key, true), (value, false)] = pair
            && key == "cwd"
        {
            out.extend(refs::normalise_cased(
                &without_variables(value).replace('\\', "/"),
            ));
        }
    }
    out
}

/// `text` with each `${...}` taken out (`${workspaceFolder}/tools` is
/// `/tools`, from the root).
fn without_variables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => rest = &rest[i + j + 1..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Words cut into pieces at v5's separators, in order.
fn pieces(words: Vec<String>) -> Vec<String> {
    words
        .iter()
        .flat_map(|w| w.split(refs::is_separator))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// A shell script's or a `Makefile`'s words (quotes and backslashes
/// removed, comments cut, a recipe's `@`, `-` and `+` taken off), and
/// the directories its `cd` and `pushd` enter.
fn script_words(text: &str) -> Words {
    let (words, _) = refs::envrc_words(text);
    let mut pieces = Vec::new();
    let mut cds = Vec::new();
    let mut after_cd = false;
    for w in words {
        let w = w.trim_start_matches(['@', '-', '+']);
        let trimmed = if w.is_empty() { "-" } else { w };
        for p in trimmed.split(refs::is_separator).filter(|p| !p.is_empty()) {
            if after_cd {
                cds.extend(refs::normalise_cased(p));
            }
            after_cd = matches!(p, "cd" | "pushd");
            pieces.push(p.to_string());
        }
    }
    Words { pieces, cds }
}

/// Where names go: `out`'s paths (lowercased, as v5's references are)
/// and, for a file to read, `next`.
struct Sink<'a> {
    out: &'a mut References,
    next: &'a mut BTreeSet<Named>,
}

impl Sink<'_> {
    fn add(&mut self, path: String, read: Option<bool>) {
        self.out.paths.push(path.to_ascii_lowercase());
        if let Some(surely) = read {
            self.next.insert(Named { path, surely });
        }
    }

    /// `files` in each of `dirs`.
    fn each(&mut self, dirs: &[String], files: &[&str], read: Option<bool>) {
        for d in dirs {
            for f in files {
                if let Some(p) = refs::normalise_cased(&format!("{d}/{f}")) {
                    self.add(p, read);
                }
            }
        }
    }
}

/// Every name `pieces` give from `bases`, and the files to read.
fn name_all(bases: &Bases, pieces: &[String], sink: &mut Sink<'_>) {
    let lower: Vec<String> = pieces.iter().map(|p| p.to_ascii_lowercase()).collect();
    // The directories the commands may run in: the bases and what a
    // directory option names.
    let mut dirs: Vec<String> = bases.0.clone();
    for (i, p) in lower.iter().enumerate() {
        if DIR_OPTIONS.contains(&p.as_str())
            && let Some(d) = pieces.get(i + 1)
        {
            dirs.extend(bases.join(d));
        }
    }
    for (i, (p, l)) in pieces.iter().zip(&lower).enumerate() {
        let name = base_name(l);
        if MAKES.contains(&name) {
            sink.each(&dirs, MAKEFILES, Some(true));
        }
        if NPMS.contains(&name) {
            sink.each(&dirs, &["package.json"], Some(true));
        }
        if name == "just" {
            sink.each(&dirs, JUSTFILES, Some(true));
        }
        for (runner, files) in RUNNERS {
            if name == *runner {
                sink.each(&dirs, files, None);
            }
        }
        if l == "-m"
            && let Some(module) = pieces.get(i + 1)
        {
            let files = module_files(module);
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            sink.each(&bases.0, &files, None);
        }
        let runs_next = i > 0 && RUNS_NEXT.contains(&lower[i - 1].as_str());
        let surely = runs_next
            || MAKEFILES
                .iter()
                .chain(JUSTFILES)
                .any(|m| m.eq_ignore_ascii_case(name))
            || name == "package.json"
            || name
                .rsplit_once('.')
                .is_some_and(|(_, ext)| SCRIPT_EXTENSIONS.contains(&ext));
        // A path (`./bin/dev`, `tools/gen`) without an extension may be
        // a script with a `#!` line.
        let maybe =
            (p.starts_with("./") || p.trim_start_matches('/').contains('/')) && !name.contains('.');
        let read = (surely || maybe).then_some(surely);
        for path in bases.join(p) {
            sink.add(path, read);
        }
    }
}

/// The files `python -m a.b` may run: `a/b.py`, `a/b/__main__.py` and the
/// packages' `__init__.py` it imports on the way.
fn module_files(module: &str) -> Vec<String> {
    let parts: Vec<&str> = module.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Vec::new();
    }
    let whole = parts.join("/");
    let mut out = vec![
        format!("{whole}.py"),
        format!("{whole}/__main__.py"),
        format!("{whole}/__init__.py"),
    ];
    for i in 1..parts.len() {
        out.push(format!("{}/__init__.py", parts[..i].join("/")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::run_config as config;

    fn rule() -> FollowRule {
        FollowRule {
            reads: 3,
            files_per_read: 64,
        }
    }

    fn names() -> Vec<String> {
        vec![
            ".vscode/tasks.json".into(),
            ".pre-commit-config.yaml".into(),
            ".envrc".into(),
        ]
    }

    const TASKS: &str = r#"{"version":"2.0.0","tasks":[
      {"label":"b","command":"python3 build.py","options":{"cwd":"${workspaceFolder}/tools"}},
      {"label":"m","command":"make","args":["-C","web","dev"]},
      {"label":"n","command":"npm","args":["run","dev"]},
      {"label":"p","command":"python3 -m pkg.cli"}
    ]}"#;

    #[test]
    fn a_task_names_from_its_cwd_and_what_its_tools_read() {
        let configs = [config(".vscode/tasks.json", TASKS)];
        let (r, next) = follow(&configs, &names(), &rule(), 0);
        for p in [
            "tools/build.py",
            "build.py",
            "web/makefile",
            "makefile",
            "package.json",
            "tools/package.json",
            "pkg/cli.py",
            "pkg/cli/__main__.py",
            "pkg/__init__.py",
        ] {
            assert!(r.names(p), "{p}");
        }
        assert!(!r.names("src/lib.rs"));
        assert!(!r.names("tools/other.py"));
        // The Makefiles and package.json files are read next; a Python
        // file is named, not read.
        for p in ["web/Makefile", "Makefile", "GNUmakefile", "package.json"] {
            assert!(next.iter().any(|n| n == p), "{p} in {next:?}");
        }
        assert!(!next.iter().any(|n| n.ends_with(".py")), "{next:?}");
    }

    #[test]
    fn what_a_read_file_runs_is_named_in_turn() {
        let configs = [
            config(".vscode/tasks.json", TASKS),
            config(
                "web/Makefile",
                "dev:\n\t@cd sub && ./run.sh\n\t-$(MAKE) -f extra.mk\n",
            ),
            config("package.json", r#"{"scripts":{"dev":"bash scripts/dev"}}"#),
            config("scripts/dev", "echo no shebang: not followed; x/y.sh\n"),
            config("web/sub/run.sh", "source ./env.sh\n"),
            config("web/extra.mk", "all:\n\tsh gen/go\n"),
        ];
        let (r, _) = follow(&configs, &names(), &rule(), 3);
        for p in [
            "web/sub/run.sh",
            "scripts/dev",
            "web/extra.mk",
            "web/sub/env.sh",
            "web/gen/go",
        ] {
            assert!(r.names(p), "{p}");
        }
        // `scripts/dev` was named by `bash`, so it is read as a script.
        assert!(r.names("x/y.sh"));
        // One read fewer: what the recipe's script sources is not named.
        let (short, next) = follow(&configs, &names(), &rule(), 1);
        assert!(short.names("web/sub/run.sh"));
        assert!(!short.names("web/sub/env.sh"));
        assert!(next.iter().any(|n| n == "web/sub/run.sh"), "{next:?}");
    }

    #[test]
    fn a_file_named_by_path_alone_is_followed_only_with_a_shebang() {
        let tasks = r#"{"tasks":[{"command":"./bin/dev"}]}"#;
        for (body, named) in [("#!/bin/sh\n./lib/x\n", true), ("./lib/x\n", false)] {
            let configs = [config(".vscode/tasks.json", tasks), config("bin/dev", body)];
            let (r, _) = follow(&configs, &names(), &rule(), 3);
            assert!(r.names("bin/dev"));
            assert_eq!(r.names("lib/x"), named, "{body}");
        }
    }

    #[test]
    fn too_many_files_to_read_at_one_step_name_everything() {
        let many: Vec<String> = (0..9).map(|i| format!("\"s{i}.sh\"")).collect();
        let tasks = format!(r#"{{"tasks":[{{"args":[{}]}}]}}"#, many.join(","));
        let configs = [config(".vscode/tasks.json", &tasks)];
        let at_most = |files_per_read| FollowRule {
            reads: 3,
            files_per_read,
        };
        let (r, _) = follow(&configs, &names(), &at_most(8), 3);
        assert!(r.names("src/anything.rs"));
        let (few, _) = follow(&configs, &names(), &at_most(9), 3);
        assert!(!few.names("src/anything.rs"));
    }

    #[test]
    fn a_read_file_longer_than_was_read_names_everything() {
        let mut long = config("Makefile", "dev:\n");
        long.content = CandidateContent::Bytes {
            bytes: b"dev:\n".to_vec(),
            complete: false,
        };
        let configs = [
            config(".vscode/tasks.json", r#"{"tasks":[{"command":"make"}]}"#),
            long,
        ];
        let (r, _) = follow(&configs, &names(), &rule(), 3);
        assert!(r.names("src/lib.rs"));
    }
}
