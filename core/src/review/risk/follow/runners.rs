//! What test runners and package managers find by name (risk policy
//! v12, D-R175; red team rounds 27 to 29): pytest's configuration, read
//! for pytest's own keys, a discovery's patterns, the package a
//! discovered test is imported as, and npm's workspaces.

use super::words::Vars;
use super::{EVERY_WORKSPACE, Sink, base_name, joined, module_files};
use crate::review::risk::refs;

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

/// What pytest's configuration says of what it imports (its own keys,
/// wherever they are: `[pytest]`, `[tool:pytest]`,
/// `[tool.pytest.ini_options]`, `[tool.pytest]`, a dotted or quoted
/// TOML key).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct PytestConfig {
    /// `python_files`: the discovery's patterns.
    pub(super) patterns: Vec<String>,
    /// `testpaths`, and the paths `addopts` gives (which pytest puts
    /// before the command's own: red team round 30's 30pao): where the
    /// discovery starts, from the file's directory.
    pub(super) testpaths: Vec<String>,
    /// `addopts` holds `--doctest-modules`: every module is imported.
    pub(super) doctest_modules: bool,
    /// `addopts`' `-p MODULE`: plugins imported.
    pub(super) plugins: Vec<String>,
    /// `pythonpath`: directories put on `sys.path` (round 30's 30ppp).
    pub(super) pythonpath: Vec<String>,
}

/// `addopts`' options whose value is the next word (not a path to
/// collect: red team round 31's 31lc).
const VALUED: &[&str] = &[
    "-p",
    "-o",
    "-k",
    "-m",
    "-c",
    "-W",
    "-n",
    "--override-ini",
    "--ignore",
    "--ignore-glob",
    "--deselect",
    "--rootdir",
    "--confcutdir",
    "--basetemp",
    "--junitxml",
    "--junit-xml",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--tb",
    "--durations",
    "--maxfail",
    "--capture",
    "--color",
    "--import-mode",
    "--log-level",
    "--log-file",
    "--log-cli-level",
    "--doctest-glob",
    "--dist",
    "--reruns",
    "--timeout",
];

impl PytestConfig {
    /// The keys of the configuration `text`: a key at a line's start
    /// (quotes and a dotted TOML prefix taken off), `=` or `:`, and its
    /// value, continued on indented lines, inside a TOML array left open
    /// or a multi-line string (round 28's 28pa, 28pa4; round 29's 29pdt;
    /// round 30's 30pml, 30pqk, 30pdk).
    pub(super) fn of(text: &str) -> Self {
        let mut out = PytestConfig::default();
        let mut key = String::new();
        let mut array = false;
        let mut string = false;
        for line in refs::code_lines(text) {
            let continued = array || string || line.starts_with([' ', '\t']);
            let value = match line.trim_start().split_once(['=', ':']) {
                Some((k, v)) if !continued && is_key(key_of(k)) => {
                    key = key_of(k).to_string();
                    v
                }
                _ if continued => line,
                _ => {
                    key.clear();
                    continue;
                }
            };
            array = (array || value.contains('[')) && !value.contains(']');
            string ^= value.matches("\"\"\"").count() % 2 == 1;
            string ^= value.matches("'''").count() % 2 == 1;
            let words = shell_words(value);
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            out.set(&key, &words);
        }
        out
    }

    /// The words of key `key`'s value.
    fn set(&mut self, key: &str, words: &[&str]) {
        match key {
            "python_files" => self.patterns.extend(
                words
                    .iter()
                    .filter(|v| v.contains(['.', '*']) && !v.contains('/'))
                    .map(|v| v.to_ascii_lowercase()),
            ),
            "testpaths" => self.testpaths.extend(words.iter().map(|w| w.to_string())),
            "pythonpath" => self.pythonpath.extend(words.iter().map(|w| w.to_string())),
            "addopts" => self.options(words),
            _ => {}
        }
    }

    /// `addopts`' words: `--doctest-modules`, `-p MODULE`, `-o KEY=VALUE`
    /// (round 30's 30poi), and the paths it gives.
    fn options(&mut self, words: &[&str]) {
        for (k, w) in words.iter().enumerate() {
            self.doctest_modules |= *w == "--doctest-modules";
            let value = |option: &str| match w.strip_prefix(option) {
                Some("") => words.get(k + 1).copied(),
                Some(glued) => Some(glued.trim_start_matches('=')),
                None => None,
            };
            if let Some(p) = value("-p").filter(|p| !p.contains(':')) {
                self.plugins.push(p.to_string());
            }
            if let Some((key, v)) = ["--override-ini", "-o"]
                .iter()
                .find_map(|o| value(o))
                .and_then(|kv| kv.split_once('='))
                && key != "addopts"
            {
                self.set(key_of(key), &[v]);
            }
            let valued = k > 0 && VALUED.contains(&words[k - 1]);
            if !w.starts_with('-') && !valued {
                self.testpaths.push(w.to_string());
            }
        }
    }
}

/// The words of a value as a shell and a TOML array both split them: at
/// blanks, commas and brackets outside quotes, the quotes taken off
/// (`-m "not e2e"` is two words: red team round 31's 31lb).
fn shell_words(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in value.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, ' ' | '\t' | ',' | '[' | ']') => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// A key as written, without quotes and a dotted TOML prefix
/// (`"python_files"`, `pytest.ini_options.python_files`).
fn key_of(k: &str) -> &str {
    let k = k.trim().trim_matches(['"', '\'']);
    k.rsplit('.').next().unwrap_or(k).trim_matches(['"', '\''])
}

/// Whether `k` is one of pytest's keys this reading takes.
fn is_key(k: &str) -> bool {
    matches!(k, "python_files" | "testpaths" | "addopts" | "pythonpath")
}

/// pytest's configuration at `path` (read because pytest runs, from its
/// directory's `bases`): what it discovers is listed by name below its
/// `testpaths` (else below `bases`), every module under
/// `--doctest-modules`, and a plugin's module is read in turn. Its other
/// words (other tools' sections of `pyproject.toml`, `setup.cfg`,
/// `tox.ini`) name nothing (red team round 29's 29la, 29lb, 29lc).
pub(super) fn read_pytest_config(path: &str, text: &str, bases: &[String], sink: &mut Sink<'_>) {
    if !PYTEST_CONFIGS.contains(&base_name(path)) {
        return;
    }
    let config = PytestConfig::of(text);
    let dirs: Vec<String> = if config.testpaths.is_empty() {
        bases.to_vec()
    } else {
        config
            .testpaths
            .iter()
            .flat_map(|t| joined(bases, t))
            .collect()
    };
    let patterns: Vec<&str> = config.patterns.iter().map(String::as_str).collect();
    sink.matching(&dirs, &patterns);
    if config.doctest_modules {
        sink.matching(&dirs, &["*.py"]);
    }
    for plugin in &config.plugins {
        let files = module_files(plugin);
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        sink.each(bases, &files, true);
    }
    // A directory on `sys.path` (`pythonpath`) or given as a path to
    // collect: any module there may be imported, by any name (round 30's
    // 30ppp, 30pao).
    sink.below = true;
    for dir in config.pythonpath.iter().chain(&config.testpaths) {
        for at in joined(bases, dir) {
            sink.add(at, false);
        }
    }
    sink.below = false;
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
