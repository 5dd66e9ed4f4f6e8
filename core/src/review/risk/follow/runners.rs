//! What test runners and package managers find by name (risk policy
//! v12, D-R175; red team rounds 27 to 29): pytest's configuration, read
//! for pytest's own keys, a discovery's patterns, the package a
//! discovered test is imported as, and npm's workspaces.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::pytest_keys::{Given, PytestConfig, shell_words, warning_module};
use super::words::{Piece, Vars};
use super::{EVERY_WORKSPACE, RunConfig, Sink, joined, module_files};
use crate::review::risk::refs;
use crate::review::snapshot::CandidateContent;

/// The files pytest reads its configuration from (pytest 9 reads
/// `pytest.toml` first: red team round 29's 29pt).
pub(super) const PYTEST_CONFIGS: &[&str] = &[
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
];

/// pytest's configuration at `path` (read because pytest runs, from its
/// directory's `bases`; `moved`: pytest may run elsewhere than its root
/// directory): what it discovers is listed by name, every module under
/// `--doctest-modules`, and a plugin's module is read in turn. Its other
/// words (other tools' sections of `pyproject.toml`, `setup.cfg`,
/// `tox.ini`) name nothing (red team round 29's 29la, 29lb, 29lc). A
/// configuration that does not parse names every file.
pub(super) fn read_pytest_config(
    path: &str,
    text: &str,
    bases: &[String],
    moved: bool,
    sink: &mut Sink<'_>,
) {
    let Some(config) = PytestConfig::of(path, text) else {
        sink.out.unread = true;
        return;
    };
    apply(&config, bases, moved, sink);
}

/// What `config` imports, from `bases`. The discovery's patterns are
/// listed below its `testpaths`; pytest uses them only when it runs in
/// its root directory and one of them exists, else it collects where it
/// runs (`Config._decide_args`): so the patterns are also listed below
/// `bases` when the root may be moved (`moved`), when no `testpaths` is
/// set, or when the listings below them found no test (red team round
/// 31's 31pta, 31pra). A dotted entry is also a module (`--pyargs`:
/// 31pya).
fn apply(config: &PytestConfig, bases: &[String], moved: bool, sink: &mut Sink<'_>) {
    let mut testpaths: Vec<String> = Vec::new();
    for t in &config.testpaths {
        // A glob pytest expands (`*/tests`: red team round 33's 33ptg):
        // every file below what it matches is named; the patterns are
        // listed from the bases (it is never found as written).
        if t.contains(['*', '?', '[']) {
            for at in joined(bases, t) {
                sink.out.add_glob(&format!("{at}/**"));
            }
            continue;
        }
        testpaths.extend(joined(bases, t));
        if t.contains('.') && !t.contains('/') {
            testpaths.extend(joined(bases, &t.replace('.', "/")));
            let files = module_files(t);
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            sink.each(bases, &files, true);
        }
    }
    let patterns = config.listed();
    sink.matching(&testpaths, &patterns);
    let found = testpaths
        .iter()
        .flat_map(|d| patterns.iter().filter_map(|p| refs::Matching::new(d, p)))
        .map(|m| sink.found(&m))
        .try_fold(false, |any, f| f.map(|f| any || f));
    // Not yet listed (`None`): asked again once the listings are there.
    let globbed = config.testpaths.iter().any(|t| t.contains(['*', '?', '[']));
    if moved || globbed || testpaths.is_empty() || found == Some(false) {
        sink.matching(bases, &patterns);
    }
    // Paths that may be collected (a word after an option this reading
    // does not know): listed with the patterns (round 32's 32lc).
    let mut args: Vec<String> = Vec::new();
    for a in config.args.iter().take(PYTEST_ARGS) {
        args.extend(joined(bases, a));
    }
    sink.matching(&args, &patterns);
    // pytest puts a test's root directory (the first above it that is no
    // package) first on `sys.path` (its default import mode): a module
    // there shadows the standard library (round 32's 32pgl), for a test
    // given whole too (round 34's 34tpf, 34aof).
    super::stdlib::shadows(&with_ancestors(testpaths.iter().chain(&args)), sink);
    for plugin in &config.plugins {
        let files = module_files(plugin);
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        sink.each(bases, &files, true);
    }
    let given: Vec<&str> = config.configs.iter().map(String::as_str).collect();
    sink.keys(bases, &given, true);
    // A directory on `sys.path` (`pythonpath`) or given as a path to
    // collect: any module there may be imported, by any name (round 30's
    // 30ppp, 30pao).
    sink.below = true;
    let literal = config
        .testpaths
        .iter()
        .filter(|t| !t.contains(['*', '?', '[']));
    for dir in config.pythonpath.iter().chain(literal) {
        for at in joined(bases, dir) {
            sink.add(at, false);
        }
    }
    sink.below = false;
}

/// The most paths on pytest's command line listed with its
/// configuration's patterns.
const PYTEST_ARGS: usize = 16;

/// The most words after `pytest` read as its options: where its command
/// ends is not known, so an option of a later command may be taken as
/// pytest's (which only names more).
const PYTEST_WORDS: usize = 256;

/// pytest run at piece `i` (`pieces` as written): the options on its
/// command line are read as `addopts` is (`-o python_files=...`, `-p
/// MODULE`, `-c FILE`), from `dirs`, and its configuration is read for
/// its keys: the usual names, and a `-c FILE` (a `-c` may be a later
/// command's: the usual names are read all the same).
pub(super) fn pytest_command(pieces: &[Piece], i: usize, dirs: &[String], sink: &mut Sink<'_>) {
    let words: Vec<String> = pieces[i + 1..pieces.len().min(i + 1 + PYTEST_WORDS)]
        .iter()
        .map(|p| p.text.clone())
        .collect();
    let mut config = PytestConfig::default();
    config.options(&words, Given::Pieces);
    let args = std::mem::take(&mut config.args);
    apply(&config, dirs, false, sink);
    config.args = args;
    sink.keys(dirs, PYTEST_CONFIGS, false);
    super::stdlib::shadows(dirs, sink);
    // pytest looks for its configuration from the paths it is given,
    // upward (round 34's 34suf, 34sud), and imports a test given whole
    // from its directory (34pca).
    let mut given: Vec<String> = Vec::new();
    for a in config.args.iter().take(PYTEST_ARGS) {
        given.extend(joined(dirs, a));
    }
    let searched = with_ancestors(&given);
    sink.keys(&searched, PYTEST_CONFIGS, false);
    super::stdlib::shadows(&searched, sink);
    // The plugins pytest loads by entry point (`[pytest11]`), from the
    // package metadata of its `sys.path` (round 33's 33pei): every
    // `entry_points.txt`, listed by name in the discovery's own walk.
    sink.matching(dirs, &["entry_points.txt"]);
    // The paths it is given are collected with its configuration's
    // patterns: those of the configurations the ports have read already
    // (each reading starts again with all of them).
    let mut args: Vec<String> = Vec::new();
    for a in config.args.iter().take(PYTEST_ARGS) {
        args.extend(joined(dirs, a));
    }
    if args.is_empty() {
        return;
    }
    let mut listed: Vec<String> = Vec::new();
    for d in dirs.iter().chain(&searched) {
        for name in PYTEST_CONFIGS {
            let Some(path) = refs::normalise_cased(&format!("{d}/{name}")) else {
                continue;
            };
            for text in sink.texts(&path) {
                if let Some(c) = PytestConfig::of(&path, &text) {
                    listed.extend(c.listed().into_iter().map(str::to_string));
                }
            }
        }
    }
    let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
    sink.matching(&args, &listed);
}

/// pytest's environment as a word of a file followed gives it
/// (`PYTEST_ADDOPTS=...` in a task's `options.env` or a script, and
/// `PYTEST_PLUGINS=a,b`): read as `addopts` is, from `dirs`, its paths
/// left to the words that name them (red team round 31's 31pra).
pub(super) fn pytest_environment(word: &str, dirs: &[String], sink: &mut Sink<'_>) {
    let mut config = PytestConfig::default();
    let given = ["PYTEST_ADDOPTS=", "PYTEST_PLUGINS=", "PYTHONWARNINGS="]
        .into_iter()
        .flat_map(|name| word.match_indices(name))
        .filter(|(at, _)| {
            word[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
        })
        .map(|(at, name)| (name, at + name.len()));
    for (name, at) in given {
        // The value as a shell gives it, then as pytest splits it.
        let words: Vec<String> = shell_words(&word[at..])
            .iter()
            .flat_map(|w| shell_words(w))
            .collect();
        if name == "PYTEST_PLUGINS=" {
            for w in &words {
                config.plugins_of(w);
            }
        } else if name == "PYTHONWARNINGS=" {
            // Filters, comma-separated: each category's module is
            // imported at Python's start (round 32).
            for w in words.iter().flat_map(|w| w.split(',')) {
                config.plugins.extend(warning_module(w));
            }
        } else {
            config.options(&words, Given::Environment);
        }
    }
    // Its paths are where pytest looks for its configuration from
    // (pytest reads them before it has one: round 34's 34suf).
    let mut given: Vec<String> = Vec::new();
    for a in config.args.iter().take(PYTEST_ARGS) {
        given.extend(joined(dirs, a));
    }
    sink.keys(&with_ancestors(&given), PYTEST_CONFIGS, false);
    if config != PytestConfig::default() {
        apply(&config, dirs, true, sink);
    }
}

/// Each of `paths` (a file or a directory, from the root) and every
/// directory above it, the root too (`""`), each once.
fn with_ancestors<'a>(paths: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        out.push(p.clone());
        out.extend(p.match_indices('/').map(|(i, _)| p[..i].to_string()));
        out.push(String::new());
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a file followed may run pytest elsewhere than its root
/// directory: it names `--rootdir`, `--config-file` or `--inifile`, or
/// gives `PYTEST_ADDOPTS` a value (the name followed by `=` or `:`, an
/// assignment, a JSON or YAML key; not `passenv = PYTEST_ADDOPTS`: red
/// team round 32's 32la) that may move it: one computed at run time
/// (`$`, a backquote) or holding `-c` (round 33's 33lc:
/// `PYTEST_ADDOPTS = --color=yes` moves nothing). Then pytest's
/// configuration is also listed from where it runs (round 31's 31pra).
pub(super) fn pytest_may_move(configs: &[RunConfig]) -> bool {
    static MOVES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::new(["--rootdir", "--config-file", "--inifile", "PYTEST_ADDOPTS"]).ok()
    });
    let Some(moves) = MOVES.as_ref() else {
        return true;
    };
    configs.iter().any(|c| match &c.content {
        CandidateContent::Bytes { bytes, .. } => moves.find_iter(bytes.as_slice()).any(|m| {
            if m.pattern().as_usize() < 3 {
                return true;
            }
            let rest = &bytes[m.end()..];
            let Some(at) = rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'"' | b'\''))
                .filter(|at| matches!(rest[*at], b'=' | b':'))
            else {
                return false;
            };
            let line = rest[at + 1..]
                .split(|b| *b == b'\n')
                .next()
                .unwrap_or_default();
            let value = String::from_utf8_lossy(line);
            let mut config = PytestConfig::default();
            config.options(&shell_words(&value), Given::Environment);
            value.contains(['$', '`']) || !config.configs.is_empty()
        }),
        CandidateContent::Absent => false,
    })
}

/// `--doctest-modules` on the command line (or a word of a file read in
/// turn) imports every module below each of `dirs` (red team round 28's
/// 28pa6).
pub(super) fn doctest_modules(lower: &[String], i: usize, dirs: &[String], sink: &mut Sink<'_>) {
    if lower[i] == "--doctest-modules" {
        sink.matching(dirs, &["*.py"]);
    }
}

/// The file-name patterns given to the discovery at `i` among its next
/// words (`-p GLOB`, `--pattern GLOB`, `--pattern=GLOB`).
pub(super) fn discovery_pattern(lower: &[String], i: usize) -> Vec<String> {
    let words = &lower[(i + 1).min(lower.len())..lower.len().min(i + 12)];
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        if let Some(g) = w.strip_prefix("--pattern=") {
            out.push(g.to_string());
        } else if matches!(w.as_str(), "-p" | "--pattern")
            && let Some(g) = words.get(k + 1)
        {
            out.push(g.clone());
        }
    }
    out
}

/// The `__init__.py` of each directory above `path` (the root's too):
/// a discovered test is imported as a module of its package, and each
/// runs first (red team round 28's 28pi, 28ui).
pub(super) fn package_inits(path: &str) -> Vec<String> {
    let mut out = vec!["__init__.py".to_string()];
    let mut at = 0;
    while let Some(i) = path[at..].find('/') {
        out.push(format!("{}/__init__.py", &path[..at + i]));
        at += i + 1;
    }
    out
}

/// Whether npm runs in every workspace: an option (`--workspaces`,
/// `-ws`, `-r`) among `lower`, or its configuration given by the
/// environment, here or in any file followed (`npm_config_workspaces=true`,
/// red team round 28's 28na3).
pub(super) fn every_workspace(lower: &[String], vars: &Vars) -> bool {
    lower
        .iter()
        .any(|w| EVERY_WORKSPACE.contains(&w.as_str()) || w.starts_with("npm_config_workspace"))
        || [
            "npm_config_workspaces",
            "npm_config_workspace",
            "NPM_CONFIG_WORKSPACES",
            "NPM_CONFIG_WORKSPACE",
        ]
        .iter()
        .any(|n| vars.assigns(n))
}

/// The modules an `entry_points.txt`'s entry points name (`name =
/// module.path:attr [extras]`, in any group).
pub(super) fn entry_point_modules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .filter_map(|(_, v)| {
            let module = v.trim().split([':', ' ', '[']).next()?.trim();
            (!module.is_empty()).then(|| module.to_string())
        })
        .collect()
}

/// Whether an `.npmrc`'s `text` turns workspaces on: `workspaces` set to
/// anything but `false`, or a `workspace` named (round 28's 28na4; not
/// `workspaces-update`, round 29's 29lg).
pub(super) fn npmrc_workspaces(text: &str) -> bool {
    refs::code_lines(text).any(|l| {
        let Some((key, value)) = l.split_once('=') else {
            return false;
        };
        match key.trim() {
            "workspaces" => value.trim() != "false",
            "workspace" | "workspace[]" => true,
            _ => false,
        }
    })
}
