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
/// `[tool.pytest.ini_options]`, `[tool.pytest]`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct PytestConfig {
    /// `python_files`: the discovery's patterns.
    pub(super) patterns: Vec<String>,
    /// `testpaths`: where the discovery starts, from the file's directory.
    pub(super) testpaths: Vec<String>,
    /// `addopts` holds `--doctest-modules`: every module is imported.
    pub(super) doctest_modules: bool,
    /// `addopts`' `-p MODULE`: plugins imported.
    pub(super) plugins: Vec<String>,
}

impl PytestConfig {
    /// The keys of the configuration `text`: a key at a line's start,
    /// `=` or `:`, and its value, continued on indented lines or inside
    /// a TOML array left open (round 28's 28pa, 28pa4; round 29's 29pdt).
    pub(super) fn of(text: &str) -> Self {
        let mut out = PytestConfig::default();
        let mut key = String::new();
        let mut open = false;
        for line in refs::code_lines(text) {
            let trimmed = line.trim_start();
            let value = match trimmed.split_once(['=', ':']) {
                Some((k, v)) if !line.starts_with([' ', '\t']) && !open && is_key(k.trim()) => {
                    key = k.trim().to_string();
                    v
                }
                _ if open || line.starts_with([' ', '\t']) => line,
                _ => {
                    key.clear();
                    continue;
                }
            };
            open = (open || value.contains('[')) && !value.contains(']');
            let words = value
                .split([' ', '\t', ','])
                .map(|v| v.trim_matches(['[', ']', '"', '\'']))
                .filter(|v| !v.is_empty());
            match key.as_str() {
                "python_files" => out.patterns.extend(
                    words
                        .filter(|v| v.contains(['.', '*']) && !v.contains('/'))
                        .map(str::to_ascii_lowercase),
                ),
                "testpaths" => out.testpaths.extend(words.map(str::to_string)),
                "addopts" => {
                    let words: Vec<&str> = words.collect();
                    for (k, w) in words.iter().enumerate() {
                        out.doctest_modules |= *w == "--doctest-modules";
                        let plugin = match w.strip_prefix("-p") {
                            Some("") => words.get(k + 1).copied(),
                            Some(glued) => Some(glued),
                            None => None,
                        };
                        if let Some(p) = plugin.filter(|p| !p.contains(':')) {
                            out.plugins.push(p.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// Whether `k` is one of pytest's keys this reading takes.
fn is_key(k: &str) -> bool {
    matches!(k, "python_files" | "testpaths" | "addopts")
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
