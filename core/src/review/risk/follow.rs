//! What an auto-run configuration runs indirectly (risk policy v11,
//! D-R170; red team rounds 14's 06 and 17's 02): a task's words read
//! from its `options.cwd`, a `cd`, a directory option (`-C`, `--prefix`,
//! `-w`) and a variable's assigned value as well as from the root; the
//! file a tool reads by default (`make`'s `Makefile`, `npm run`'s
//! `package.json`, `just`'s `justfile`, `task`'s `Taskfile.yml`, `rake`'s
//! `Rakefile`, `tox`'s `tox.ini`, `deno task`'s `deno.json`, `python -m`'s
//! module, pytest's `conftest.py` anywhere); and, read in turn, what a
//! file so named runs, up to [`FollowRule::reads`] times.
//!
//! The files to read are an output ([`follow`]'s second answer): the
//! ports layer reads them from both trees and passes them back among
//! [`super::TreeInputs::configs`], and the next step names what they run.
//! The classification recomputes every step from those bytes, so it needs
//! nothing but the files themselves. Conservative, as v5's references
//! are: a word is a name wherever the format may run it; a path after a
//! variable (`${D}/env`) names that tail in every directory; and more new
//! files to read at one step than the rule allows, or a file the trees
//! hold one step beyond the last read, is "not read whole": every changed
//! file may be one they run. Under v12, modules a file read imports are
//! read in turn past the reads, up to [`FollowRule::last_step`], while
//! every file the trees hold there is one.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RunConfig;
use super::refs::{self, References};
use crate::review::snapshot::CandidateContent;

mod find;
mod pytest_keys;
mod runners;
mod sink;
pub(super) mod stdlib;
mod structural;
mod tables;
mod words;

use words::{Piece, Vars, Words, bases_of, file_words};

pub(super) use sink::Reach;
use sink::{Sink, joined};
use tables::{name_imports, v12_tables};

/// How far a policy follows what its auto-run configurations run (v11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowRule {
    /// How many times the files the configurations name are read in turn
    /// (3: a task's `Makefile`, the script its recipe runs, what that
    /// script sources). A file the trees hold that the last read names is
    /// read only to know it is there: then every changed file may be one
    /// the chain runs.
    pub reads: u8,
    /// At most this many new files to read at one step: more, and every
    /// changed file may be one they name. Under v12's
    /// [`FollowRule::structural`], the files the trees hold.
    pub files_per_read: u16,
    /// v12 (D-R174, red team round 18): every name is also a directory
    /// and a stem, globs and variables inside a component match, and
    /// more kinds of file are read in turn (`structural.rs`). Absent
    /// before v12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structural: Option<StructuralRule>,
}

/// v12's structural following: how many names one step may ask of the
/// trees (each a lookup; the ones the trees hold count against
/// [`FollowRule::files_per_read`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuralRule {
    /// At most this many names asked at one step: more, and every changed
    /// file may be one they name.
    pub names_per_read: u16,
}

/// How many steps past [`FollowRule::reads`] v12 reads modules in turn
/// while every file there is one a file read imports.
const MODULE_STEPS: u8 = 16;
/// How many imported modules v12 reads over every step (they do not count
/// against [`FollowRule::files_per_read`]); more, and every changed file
/// may be one they run.
const MODULE_FILES: usize = 1024;

impl FollowRule {
    /// The last step the ports read, and the classification follows to:
    /// the reads, and under v12 up to [`MODULE_STEPS`] steps of modules
    /// past them (round 23).
    pub(super) fn last_step(&self) -> u8 {
        match self.structural {
            Some(_) => self.reads.saturating_add(MODULE_STEPS),
            None => self.reads,
        }
    }

    /// How many names one step may ask of the trees: v12's
    /// `names_per_read`, else `files_per_read` (v11 counts names).
    pub(super) fn names_bound(&self) -> usize {
        match &self.structural {
            Some(s) => usize::from(s.names_per_read),
            None => usize::from(self.files_per_read),
        }
    }
}

/// Commands that read a `Makefile` of their directory.
const MAKES: &[&str] = &["make", "gmake", "bmake", "mingw32-make"];
/// What `make` reads, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];
/// Commands that run a `package.json` script.
const NPMS: &[&str] = &["npm", "pnpm", "yarn", "bun"];
/// Options that run a package manager's scripts in every workspace
/// package: any `package.json` may be one.
const EVERY_WORKSPACE: &[&str] = &["--workspaces", "-ws", "--recursive", "-r"];
/// Commands whose default files are read in turn (their recipes and
/// scripts are commands too).
const READ_DEFAULTS: &[(&str, &[&str])] = &[
    ("just", &["justfile", "Justfile", ".justfile"]),
    (
        "task",
        &[
            "Taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yml",
            "taskfile.yaml",
            "Taskfile.dist.yml",
            "Taskfile.dist.yaml",
        ],
    ),
    (
        "rake",
        &["Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"],
    ),
    ("tox", &["tox.ini", "setup.cfg", "pyproject.toml"]),
    ("deno", &["deno.json", "deno.jsonc"]),
];
/// Task runners (VS Code detects the first three) with the files they
/// load: named, not read (their language is not followed).
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
    ("nox", &["noxfile.py"]),
    ("invoke", &["tasks.py", "invoke.yaml"]),
    ("inv", &["tasks.py", "invoke.yaml"]),
    (
        "pytest",
        &["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"],
    ),
];
/// Files a tool loads from any directory it reaches: named wherever they
/// are (`pytest` imports every `conftest.py` on its way to the tests).
const ANYWHERE: &[(&str, &str)] = &[("pytest", "conftest.py"), ("py.test", "conftest.py")];
/// Words after which the next word that is not an option is a file the
/// command runs or reads.
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
    "--taskfile",
    "--rakefile",
];
/// Options naming the directory a `make`, a package manager, `env` or a
/// task runner runs in (`-C DIR`, or glued, `-CDIR`; `--dir=DIR` is cut
/// at `=`), a workspace package's directory, or where `make` looks for
/// what it includes (`-I DIR`).
const DIR_OPTIONS: &[&str] = &[
    "-C",
    "--directory",
    "--prefix",
    "--cwd",
    "--dir",
    "-w",
    "--workspace",
    "--filter",
    "--chdir",
    "-I",
    "--include-dir",
];
/// Commands whose next word is the directory it runs the rest in.
const ENTERS: &[&str] = &["cd", "pushd"];
/// Extensions of files read in turn when named.
const SCRIPT_EXTENSIONS: &[&str] = &["sh", "bash", "zsh", "ksh", "dash", "mk", "json", "jsonc"];
/// Assignment operators of `make` and the shell written apart (`D := x`).
const ASSIGNS: &[&str] = &["=", ":=", "::=", "?=", "+=", "!="];

/// The references of `configs` under `rule` (the configurations at
/// `names` and, read in turn, the files they run), as v5's
/// [`References::of`] reads them plus what v11 follows; and the files
/// the step after the last read names: to read next, when fewer than
/// `reads` steps were read, or (at `reads == rule.reads`) to learn
/// whether the trees hold one.
pub(super) fn follow(
    configs: &[RunConfig],
    names: &[String],
    rule: &FollowRule,
    reads: u8,
    reach: Reach<'_>,
) -> (References, Vec<String>) {
    let f = follow_all(configs, names, rule, reads, reach);
    (f.refs.sorted(), f.next)
}

/// What [`follow_all`] answers: the references (not yet sorted: the
/// ports' steps never read them; [`follow`] sorts them), the files to read next,
/// and (v12) the directories a command walks that the ports have not
/// listed yet.
pub(super) struct Followed {
    pub(super) refs: References,
    pub(super) next: Vec<String>,
    pub(super) list: Vec<String>,
    /// Directories to list with every file below them (`find`, a
    /// wildcard in a middle component).
    pub(super) list_below: Vec<String>,
    /// Listings by name not yet done (`find . -name`, a discovery).
    pub(super) list_matching: Vec<refs::Matching>,
}

/// A directory a command walks (v12): `run-parts tools/hooks`, `python3
/// tools`, or the directory of a glob's last component (`include
/// tools/*.mk`); its files (those the glob matches) are read in turn.
/// The ports list it ([`super::RiskPolicy::reference_step`]) and read its
/// files into the configurations; a configuration at the directory's own
/// path marks it listed (not read whole: more files than the bound).
struct Walk {
    dir: String,
    /// Matched against a file's whole path (lowercased).
    glob: Option<crate::snapshot_tools::Glob>,
    /// Every file below (`find`, a wildcard in a middle component), not
    /// only the directory's own (`run-parts`).
    recursive: bool,
    /// Listed by name: only the files `glob` matches, below `dir` (the
    /// root when empty), marked at the listing's pattern.
    matching: Option<refs::Matching>,
}

/// [`follow`], with the directories to list.
pub(super) fn follow_all(
    configs: &[RunConfig],
    names: &[String],
    rule: &FollowRule,
    reads: u8,
    reach: Reach<'_>,
) -> Followed {
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
    let v12 = rule.structural.is_some();
    let bound = rule.names_bound();
    let mut carried: Vec<String> = Vec::new();
    let mut entered: Vec<String> = Vec::new();
    let mut walks: Vec<Walk> = Vec::new();
    // Each with whether every file below it is asked for.
    let mut unlisted: BTreeSet<(String, bool)> = BTreeSet::new();
    // Listings by name not done, by pattern.
    let mut unmatched: BTreeMap<String, refs::Matching> = BTreeMap::new();
    // The files read because a walked directory holds them: bounded per
    // directory by the listing, not by the step (round 20's 04a).
    let mut walked: BTreeSet<String> = BTreeSet::new();
    // The files named only as a module a file read in turn imports.
    let mut imported: BTreeSet<String> = BTreeSet::new();
    // The files read for a tool's own keys only (pytest's
    // configuration: red team round 29), and those of them to read now.
    let mut keyed: BTreeSet<String> = BTreeSet::new();
    let mut moved: BTreeSet<String> = BTreeSet::new();
    let mut keyed_level: Vec<&RunConfig> = Vec::new();
    let done = |out: References,
                next: BTreeSet<String>,
                unlisted: BTreeSet<(String, bool)>,
                unmatched: BTreeMap<String, refs::Matching>| {
        let below: Vec<String> = unlisted
            .iter()
            .filter(|(_, b)| *b)
            .map(|(d, _)| d.clone())
            .collect();
        let list = unlisted
            .into_iter()
            .filter(|(d, b)| !*b && !below.contains(d))
            .map(|(d, _)| d)
            .collect();
        Followed {
            refs: out,
            next: next.into_iter().collect(),
            list,
            list_below: below,
            list_matching: unmatched.into_values().collect(),
        }
    };
    // v12: a file the ports read because a step asked for it, but could
    // not read whole, may run anything and assign any variable: every
    // file is named, whatever the steps now reach (found by the
    // `risk_follow` fuzz target and the property test: a file read whole
    // that made a variable unknown, cut short, left it one literal value,
    // and the other way round, and the tier fell). A listing's marker (no
    // bytes) is no file.
    if v12
        && configs.iter().any(|c| {
            matches!(&c.content, CandidateContent::Bytes { bytes, complete: false } if !bytes.is_empty())
        })
    {
        out.unread = true;
        return done(out, BTreeSet::new(), BTreeSet::new(), BTreeMap::new());
    }
    // What the files followed assign each variable: the values of every
    // command's environment (round 22's 22d, round 23's 23c).
    let vars = if v12 {
        Vars::of(configs)
    } else {
        Vars::default()
    };
    // Whether a file followed may move pytest's root directory (red team
    // round 31's 31pra).
    let pytest_moved = v12 && runners::pytest_may_move(configs);
    let mut modules_read = 0usize;
    let mut step = 0u8;
    loop {
        let mut next: BTreeSet<String> = BTreeSet::new();
        let keys_only = keyed_level.iter().map(|c| (*c, false, true));
        let words_too = level.iter().map(|(c, config)| (*c, *config, false));
        for (c, config, keys_only) in keys_only.chain(words_too) {
            let Some(text) = whole(c, &mut out) else {
                continue;
            };
            let path = c.path.as_str();
            let bases = bases_of(path, config, &[&cwds, &carried]);
            // A file read through a link imports from where it resolves
            // too (v12: Python's script directory, Node's main module);
            // a shell reads its words from where it runs (round 35's
            // 35lf), Node's `__dirname` from the real directory.
            let mut real_paths = Vec::new();
            let mut real_bases = bases.clone();
            if v12 && !config {
                match reach.links.real_paths(path, reach.hops) {
                    Some(paths) => {
                        for p in paths.into_iter().skip(1) {
                            let dir = p.rsplit_once('/').map_or("", |(d, _)| d);
                            if !real_bases.iter().any(|b| b == dir) {
                                real_bases.push(dir.to_string());
                            }
                            real_paths.push(p);
                        }
                    }
                    None => out.unread = true,
                }
            }
            let word_bases = if structural::is_javascript(path) {
                &real_bases
            } else {
                &bases
            };
            let as_keys = keyed.contains(path);
            let mut sink = Sink {
                out: &mut out,
                next: &mut next,
                walks: &mut walks,
                v12,
                below: false,
                vars: &vars,
                keyed: &mut keyed,
                moved: &mut moved,
                configs,
                reach,
            };
            // Read for a tool's keys (and, when asked for its words too,
            // those as well).
            if as_keys {
                let moved = pytest_moved || sink.moved.contains(path);
                runners::read_pytest_config(path, &text, &bases, moved, &mut sink);
            }
            if keys_only {
                continue;
            }
            let words = file_words(path, &text, config, v12);
            entered.extend(name_all(word_bases, &words, &mut sink));
            // What an `.envrc` puts on `PATH` (`PATH_add tools/bin`) is
            // walked: a task's command by name may be a file there (round
            // 22's 22d2).
            if v12 && path.ends_with(".envrc") {
                for d in refs::envrc_words(&text).1 {
                    for dir in joined(&bases, &d) {
                        sink.walks.push(Walk {
                            dir,
                            glob: None,
                            recursive: false,
                            matching: None,
                        });
                    }
                }
            }
            // An `.npmrc` that turns workspaces on (`workspaces=true`,
            // `workspace=packages`): npm runs in every workspace below
            // it (red team round 28's 28na4).
            if v12 && path.ends_with(".npmrc") && runners::npmrc_workspaces(&text) {
                sink.matching(&bases, &["package.json"]);
            }
            // An entry point's module (`[pytest11]` / `ev = tools.ev`):
            // loaded by the tool that reads the group (red team round
            // 33's 33pei).
            if v12 && path.ends_with("entry_points.txt") {
                for m in runners::entry_point_modules(&text) {
                    let files = module_files(&m);
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    sink.each(&bases, &files, true);
                }
            }
            if v12 && !config {
                // What the imports add beyond what the step named already
                // (collected apart: no copy of the step's names per file).
                let mut own = BTreeSet::new();
                std::mem::swap(sink.next, &mut own);
                name_imports(path, &text, &real_bases, &mut sink);
                for real in &real_paths {
                    name_imports(real, &text, &real_bases, &mut sink);
                }
                std::mem::swap(sink.next, &mut own);
                // A file the imports name is a module, whether or not the
                // words named it too (`from common.util import helper`
                // names `common/util.py` both ways: round 23's 23la).
                for p in own {
                    sink.next.insert(p.clone());
                    imported.insert(p);
                }
            }
        }
        // What the step's commands walk: the files the ports listed there
        // are read in turn; a directory listed as over the bound names
        // every file.
        for w in walks.drain(..) {
            // A walk behind a link whose target is absolute (below).
            if v12 && reach.links.meets_absolute(&w.dir, reach.hops) {
                out.unread = true;
            }
            // Listed when the marker of a listing that walk needs is
            // there: a file below read by its name is not one (round
            // 22), and a recursive walk needs every file below listed
            // (22b: not only the directory's own).
            let mut listed = false;
            let marker = w.matching.as_ref().map_or(w.dir.as_str(), |m| m.pattern());
            for c in configs {
                let path = c.path.as_str();
                if path == marker {
                    match c.content {
                        CandidateContent::Bytes {
                            complete: false, ..
                        } => {
                            out.unread = true;
                            listed = true;
                        }
                        CandidateContent::Bytes { .. } => listed = true,
                        CandidateContent::Absent => listed |= !w.recursive && w.matching.is_none(),
                    }
                } else if let Some(below) = if w.dir.is_empty() {
                    Some(path)
                } else {
                    path.strip_prefix(w.dir.as_str())
                        .and_then(|rest| rest.strip_prefix('/'))
                } {
                    let lower = path.to_ascii_lowercase();
                    // What a walker runs is read whatever its name (round
                    // 20's 01g: `a.tcl` with a `#!` line).
                    let kept = match &w.matching {
                        Some(m) => m.keeps(path),
                        None => {
                            (w.recursive || !below.contains('/'))
                                && w.glob.as_ref().is_none_or(|g| g.matches(lower.as_bytes()))
                        }
                    };
                    if kept {
                        next.insert(path.to_string());
                        walked.insert(path.to_string());
                    }
                    // A discovered test is imported as a module of its
                    // package: each `__init__.py` on the way runs first
                    // (red team round 28's 28pi, 28ui).
                    if kept && w.matching.is_some() && lower.ends_with(".py") {
                        for init in runners::package_inits(path) {
                            out.paths.push(init.to_ascii_lowercase());
                            walked.insert(init.clone());
                            next.insert(init);
                        }
                        // pytest puts a test's root directory (the first
                        // above it that is no package) first on
                        // `sys.path`: a module in any directory above it
                        // may shadow the standard library (red team round
                        // 33's 33ptd).
                        out.shadowing.extend(
                            lower
                                .match_indices('/')
                                .map(|(i, _)| lower[..i].to_string()),
                        );
                        out.shadowing.push(String::new());
                    }
                }
            }
            match w.matching {
                _ if listed => {}
                Some(m) => {
                    unmatched.insert(m.pattern().to_string(), m);
                }
                None => {
                    unlisted.insert((w.dir, w.recursive));
                }
            }
        }
        // A file to read, or a directory to walk, behind a link whose
        // target is absolute cannot be read from the trees (the ports do
        // not follow it; `/proc/self/cwd/scripts` is the checkout's own
        // directory wherever it is): what it runs is not known (round
        // 35's 35abs, as v10 takes a configuration there).
        if v12
            && next
                .iter()
                .chain(keyed.iter())
                .any(|p| reach.links.meets_absolute(p, reach.hops))
        {
            out.unread = true;
        }
        // What a step's commands entered (`cd`, `-C`, `-I`, an assigned
        // value) is where the files they run read their words from too
        // (`make -I tools` and a `Makefile` that includes `rules.mk`).
        carried.append(&mut entered);
        carried.sort();
        carried.dedup();
        next.retain(|n| !asked.contains(n));
        // What is read for its keys only, asked now.
        let keyed_next: BTreeSet<String> = keyed
            .iter()
            .filter(|k| !asked.contains(*k) && !next.contains(*k))
            .cloned()
            .collect();
        let to_read = |next: BTreeSet<String>| -> BTreeSet<String> {
            next.into_iter().chain(keyed_next.iter().cloned()).collect()
        };
        // The call that classifies (or the ports' last) reads as far as
        // the configurations go.
        let last = reads >= rule.last_step();
        if step >= rule.reads {
            // Past the reads: a file the trees hold there runs what no read
            // followed (red team round 17, 02f2): every file is named. But
            // (v12) while every such file is a module a file read imports,
            // the modules are read in turn, up to `last_step` (a package's
            // modules import each other five deep, and a shared package:
            // round 21's 03b, 03c, round 23's 23la), and whatever else
            // they run or import is judged as here (round 22's 22a, round
            // 23's 23a, 23b2).
            let beyond: Vec<&str> = configs
                .iter()
                .filter(|c| matches!(c.content, CandidateContent::Bytes { .. }))
                .map(|c| c.path.as_str())
                .filter(|p| next.contains(*p) || keyed_next.contains(*p))
                .collect();
            let modules = v12 && beyond.iter().all(|p| imported.contains(*p));
            if next.len() > bound || (!beyond.is_empty() && (!modules || step >= rule.last_step()))
            {
                out.unread = true;
                return done(out, BTreeSet::new(), BTreeSet::new(), BTreeMap::new());
            }
            if step >= reads || beyond.is_empty() {
                // A walked directory the ports did not list may hold
                // anything.
                if last && !(unlisted.is_empty() && unmatched.is_empty()) {
                    out.unread = true;
                }
                return done(out, to_read(next), unlisted, unmatched);
            }
        } else if step >= reads {
            return done(out, to_read(next), unlisted, unmatched);
        }
        if next.len() > bound {
            out.unread = true;
            return done(out, BTreeSet::new(), BTreeSet::new(), BTreeMap::new());
        }
        step += 1;
        asked.extend(next.iter().cloned());
        asked.extend(keyed_next.iter().cloned());
        level = configs
            .iter()
            .filter(|c| next.contains(c.path.as_str()))
            .map(|c| (c, false))
            .collect();
        keyed_level = configs
            .iter()
            .filter(|c| keyed_next.contains(c.path.as_str()))
            .collect();
        // v12 bounds the files the trees hold, not the names asked (red
        // team round 18's 02c: a `package.json`'s dependencies).
        // Modules a file read imports are bounded apart, over every step
        // (round 24's 24la2: a router importing 300 handlers).
        if v12 {
            let others = held(&level, &walked, &imported);
            modules_read += held(&level, &walked, &BTreeSet::new()) - others;
            if others > usize::from(rule.files_per_read) || modules_read > MODULE_FILES {
                out.unread = true;
                return done(out, BTreeSet::new(), BTreeSet::new(), BTreeMap::new());
            }
        }
        if level.is_empty() && next.is_empty() && keyed_level.is_empty() && keyed_next.is_empty() {
            if last && !(unlisted.is_empty() && unmatched.is_empty()) {
                out.unread = true;
            }
            return done(out, BTreeSet::new(), unlisted, unmatched);
        }
    }
}

/// How many files `level` holds with bytes (each path once: both trees
/// may hold it), but those a walked directory holds and those `apart`
/// (the modules imported).
fn held(
    level: &[(&RunConfig, bool)],
    walked: &BTreeSet<String>,
    apart: &BTreeSet<String>,
) -> usize {
    let mut paths: Vec<&str> = level
        .iter()
        .filter(|(c, _)| matches!(c.content, CandidateContent::Bytes { .. }))
        .filter(|(c, _)| !walked.contains(c.path.as_str()) && !apart.contains(c.path.as_str()))
        .map(|(c, _)| c.path.as_str())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths.len()
}

/// Whether a file named `name` is read in turn by its name alone: a tool's
/// default file, a `package.json`, a shell extension, `.mk` or `.json`,
/// (v12) an extension of [`structural::READ_EXTENSIONS`], or no extension
/// (a shell runs it as a script, `#!` line or not).
fn read_by_name(name: &str, v12: bool) -> bool {
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    is_default(name)
        || name.eq_ignore_ascii_case("package.json")
        || extension.as_deref().is_some_and(|e| {
            SCRIPT_EXTENSIONS.contains(&e) || (v12 && structural::READ_EXTENSIONS.contains(&e))
        })
        || (v12 && extension.is_none())
}

/// Whether `name` is a tool's default file (`Makefile`, `justfile`).
fn is_default(name: &str) -> bool {
    MAKEFILES.iter().any(|m| m.eq_ignore_ascii_case(name))
        || READ_DEFAULTS
            .iter()
            .flat_map(|(_, files)| files.iter())
            .any(|f| f.eq_ignore_ascii_case(name))
}

/// Whether `path` is a Windows script (`.cmd`, `.bat`, `.ps1`, `.psm1`),
/// whose `\\` separates a path.
fn is_windows_script(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        ["cmd", "bat", "ps1", "psm1"].contains(&ext.to_ascii_lowercase().as_str())
    })
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

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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

/// Every name `words` give from `bases`, and the files to read; answers
/// the directories its commands enter, beyond `bases`.
fn name_all(bases: &[String], words: &Words, sink: &mut Sink<'_>) -> Vec<String> {
    let pieces = &words.pieces;
    let lower: Vec<String> = pieces.iter().map(|p| p.text.to_ascii_lowercase()).collect();
    // The directories the commands may run in: the bases, and what a
    // directory option, a `cd` or an assignment names from them.
    let mut dirs: Vec<String> = bases.to_vec();
    let mut entered: Vec<&str> = words.values.iter().map(String::as_str).collect();
    for (i, p) in pieces.iter().enumerate() {
        // The directory after the command or option: past options (`cd
        // --`) and a variable's name (`cd ${workspaceFolder}/tools` is
        // `tools`, from the root; red team round 18).
        let next = pieces[i + 1..]
            .iter()
            .find(|n| !n.text.starts_with('-') && (!n.after_variable || n.text.starts_with('/')))
            .map(|n| n.text.as_str());
        if let Some(glued) = ["-C", "-I"]
            .iter()
            .find_map(|o| p.text.strip_prefix(o).filter(|g| !g.is_empty()))
        {
            entered.push(glued);
        } else if (DIR_OPTIONS.contains(&p.text.as_str()) || ENTERS.contains(&lower[i].as_str()))
            && let Some(n) = next
        {
            entered.push(n.trim_start_matches('/'));
        }
    }
    let mut beyond = Vec::new();
    for e in entered {
        beyond.extend(joined(bases, e));
    }
    beyond.sort();
    beyond.dedup();
    dirs.extend(beyond.iter().cloned());
    dirs.sort();
    dirs.dedup();
    let mut pending = false;
    let v12 = sink.v12;
    if v12 {
        tables::walk_listed(pieces, &lower, &dirs, sink);
        for word in &words.pytest_env {
            runners::pytest_environment(word, &dirs, sink);
        }
    }
    // What a word names from `dirs` depends on the word and on how it is
    // read alone: a word met again so adds nothing new (a script repeats
    // most of its words), and is named once.
    let mut named: BTreeSet<(&str, bool, bool, bool)> = BTreeSet::new();
    for (i, (p, l)) in pieces.iter().zip(&lower).enumerate() {
        let name = base_name(l);
        if v12 {
            // `cd tools/hooks && for f in *; do sh "./$f"` runs `./*`
            // there (round 24's 24ga3).
            if structural::is_glob(&p.text) || (p.text.starts_with("./") && p.text.contains('*')) {
                sink.below = true;
                let after_variable = p.after_variable && p.text.starts_with('/');
                sink.glob(&dirs, &p.text, after_variable);
                if after_variable {
                    glob_after_variable(pieces.get(i.wrapping_sub(1)), &p.text, &dirs, sink);
                }
                sink.below = false;
                continue;
            }
            v12_tables(pieces, &lower, i, &dirs, sink);
        }
        if MAKES.contains(&name) {
            sink.each(&dirs, MAKEFILES, true);
        }
        if NPMS.contains(&name) {
            sink.each(&dirs, &["package.json"], true);
            if v12 {
                // npm's own configuration, read in turn (`workspaces=true`:
                // red team round 28's 28na4).
                sink.each(&dirs, &[".npmrc"], true);
                // A script's command is looked up in `node_modules/.bin`
                // first (round 33's 33nbin).
                sink.below = true;
                for d in &dirs {
                    if let Some(p) = refs::normalise_cased(&format!("{d}/node_modules/.bin")) {
                        sink.add(p, false);
                    }
                }
                sink.below = false;
            }
            if runners::every_workspace(&lower, sink.vars) {
                sink.anywhere("package.json");
                if v12 {
                    sink.matching(&dirs, &["package.json"]);
                }
            }
            if v12 {
                // A workspace given by its directory: every workspace
                // below it (`--workspace=packages`, round 28's 28na2).
                for (k, w) in lower.iter().enumerate() {
                    if matches!(w.as_str(), "-w" | "--workspace")
                        && let Some(d) = pieces.get(k + 1)
                    {
                        let below = joined(&dirs, &d.text);
                        sink.matching(&below, &["package.json"]);
                    }
                }
            }
        }
        for (tool, files) in READ_DEFAULTS {
            if name == *tool {
                sink.each(&dirs, files, true);
            }
        }
        for (runner, files) in RUNNERS {
            if name == *runner {
                sink.each(&dirs, files, false);
            }
        }
        for (tool, tail) in ANYWHERE {
            if name == *tool {
                sink.anywhere(tail);
            }
        }
        if l == "-m"
            && let Some(module) = pieces.get(i + 1)
        {
            let files = module_files(&module.text);
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            // v12: the module's files the tree holds are read in turn, a
            // one-word module too (red team round 27's 27pa: `python3 -m
            // devtools` importing what the agent edits).
            let v12 = sink.v12;
            sink.each(&dirs, &files, v12);
            for (tool, tail) in ANYWHERE {
                if module.text.eq_ignore_ascii_case(tool) {
                    sink.anywhere(tail);
                }
            }
        }
        // A shell or `source` runs the first word after it that is not an
        // option (`bash -e tools/run`), `#!` line or not.
        let runs = pending && !p.text.starts_with('-');
        pending = if RUNS_NEXT.contains(&l.as_str())
            || (v12 && structural::SOURCES.contains(&l.as_str()))
        {
            true
        } else {
            pending && p.text.starts_with('-')
        };
        // `-ffile`: make's file, glued.
        let text = match p.text.strip_prefix("-f").filter(|g| !g.is_empty()) {
            Some(glued) => glued,
            None => p.text.as_str(),
        };
        let glued = text.len() != p.text.len();
        let name = base_name(text);
        // v11's reading by name (and v12's extensions); a path without an
        // extension (`./bin/dev`, `tools/gen`): a shell runs it as a
        // script, `#!` line or not.
        let read = runs
            || glued
            || (read_by_name(name, v12) && (name.contains('.') || is_default(name)))
            || ((text.starts_with("./") || text.trim_start_matches('/').contains('/'))
                && !name.contains('.'));
        let below = v12 && !p.file_only;
        let after_variable = p.after_variable && text.starts_with('/');
        if !named.insert((text, read, below, after_variable)) {
            continue;
        }
        sink.below = below;
        if after_variable {
            // `${D}/env`: under whatever `D` is.
            sink.anywhere(text.trim_start_matches('/'));
            if sink.below {
                sink.anywhere_globs(&[text.trim_start_matches('/')]);
            }
            for path in joined(&dirs, text.trim_start_matches('/')) {
                sink.add(path, read);
            }
        }
        for path in joined(&dirs, text) {
            sink.add(path, read);
        }
        sink.below = false;
        // v12: `pkg.cli` (a `pyproject.toml` script, an import) names its
        // module's files, read in turn.
        if v12 && structural::is_dotted_module(text) {
            let files = module_files(text);
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            sink.each(&dirs, &files, true);
        }
    }
    beyond
}

/// A glob after a variable (`"$HOOKS"/*.sh`, `var` the piece before
/// `tail`) walks from each literal value the files followed give it (red
/// team round 27's 27va, 27va3); a script's argument (`"$1"/*.sh`) or a
/// variable given a value computed at run time may be any directory, so
/// every file is named (27va2). A name no file assigns (the workspace,
/// the environment: `${workspaceFolder}`, `$HOME`) is read from the root
/// only, as [`Sink::glob`] reads it.
fn glob_after_variable(
    var: Option<&words::Piece>,
    tail: &str,
    dirs: &[String],
    sink: &mut Sink<'_>,
) {
    let Some(var) = var.filter(|v| v.variable) else {
        return;
    };
    if tables::is_argument(&var.text) || sink.vars.computed(&var.text) {
        sink.out.unread = true;
        return;
    }
    for value in sink.vars.literal(&var.text).unwrap_or_default() {
        sink.glob(dirs, &format!("{value}{tail}"), false);
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
mod tests;
