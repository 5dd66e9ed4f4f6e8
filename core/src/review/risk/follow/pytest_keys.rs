//! pytest's configuration read as pytest itself reads it (risk policy
//! v12, D-R176; red team round 31): a TOML file (`pyproject.toml`,
//! `pytest.toml`) by a TOML parser, an INI file (`pytest.ini`,
//! `setup.cfg`, `tox.ini`) by iniconfig's rules, and a value of pytest's
//! own keys, its command line and `PYTEST_ADDOPTS` split as `shlex`
//! splits them. Only pytest's keys are taken, wherever they are (any
//! table or section: a conservative reading of which one pytest uses).

use toml_edit::{Document, Item, Value};

/// What pytest's configuration says of what it imports.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct PytestConfig {
    /// `python_files`: the discovery's patterns.
    pub(super) patterns: Vec<String>,
    /// `testpaths`, and the paths `addopts` gives (which pytest puts
    /// before the command's own: red team round 30's 30pao): where the
    /// discovery starts, from the file's directory.
    pub(super) testpaths: Vec<String>,
    /// `--doctest-modules`: every module is imported.
    pub(super) doctest_modules: bool,
    /// Modules imported: `-p MODULE` (and `PYTEST_PLUGINS`) plugins, and
    /// a warning filter's category's module (`filterwarnings`, `-W`: red
    /// team round 32's 32pfw, 32pwa).
    pub(super) plugins: Vec<String>,
    /// `--doctest-glob`: files whose `>>>` lines run (round 32's 32pdg).
    pub(super) doctest_globs: Vec<String>,
    /// `pythonpath`: directories put on `sys.path` (round 30's 30ppp).
    pub(super) pythonpath: Vec<String>,
    /// `-c FILE` (`--config-file`, `--inifile`): the configuration read
    /// instead, from where pytest runs.
    pub(super) configs: Vec<String>,
    /// Paths collected with the configuration's patterns instead of its
    /// `testpaths`, not named whole: a command line's own paths (its
    /// pieces that are no option or an option's value; a later command's
    /// words too), and a word after an option this reading does not know
    /// (a plugin's option's value, or a path: round 32's 32lc).
    pub(super) args: Vec<String>,
}

/// Where pytest's options are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Given {
    /// `addopts`, split as `shlex` splits it: its paths are collected.
    Addopts,
    /// `PYTEST_ADDOPTS`, split so: its paths are words named as such.
    Environment,
    /// A command line's pieces, cut at `=` too (`-o KEY VALUE`).
    Pieces,
}

/// pytest's options whose value is the next word when written apart
/// (not a path to collect: red team round 31's 31lc).
const VALUED: &[&str] = &[
    "-p",
    "-o",
    "-k",
    "-m",
    "-c",
    "-W",
    "-n",
    "-r",
    "--override-ini",
    "--pythonwarnings",
    "--config-file",
    "--inifile",
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

/// pytest's long options that take no value: the word after one is no
/// value of its own (`--pyargs tools.selfcheck`: red team round 33's
/// 33ppa).
const FLAGS: &[&str] = &[
    "--pyargs",
    "--strict-markers",
    "--strict-config",
    "--strict",
    "--lf",
    "--last-failed",
    "--ff",
    "--failed-first",
    "--nf",
    "--new-first",
    "--sw",
    "--stepwise",
    "--stepwise-skip",
    "--exitfirst",
    "--showlocals",
    "--disable-warnings",
    "--disable-pytest-warnings",
    "--no-header",
    "--no-summary",
    "--doctest-continue-on-failure",
    "--runxfail",
    "--pdb",
    "--trace",
    "--setup-only",
    "--setup-show",
    "--setup-plan",
    "--collect-only",
    "--co",
    "--verbose",
    "--quiet",
    "--cache-clear",
    "--full-trace",
    "--keep-duplicates",
    "--noconftest",
    "--continue-on-collection-errors",
];

/// pytest's short options that take a value: in a cluster (`-qp plug`,
/// `-rap`), the rest of the word or the next word is the value.
const SHORT_VALUED: &[char] = &['p', 'o', 'k', 'm', 'c', 'W', 'n', 'r'];

impl PytestConfig {
    /// The configuration at `path` (its name tells the format): `None`
    /// when it is not TOML a TOML 1.1 parser reads (a duplicate key, an
    /// unclosed array: pytest refuses it, or another version of its
    /// parser may read it otherwise), so that the caller names every
    /// file, as for a file cut short.
    pub(super) fn of(path: &str, text: &str) -> Option<Self> {
        let mut out = PytestConfig::default();
        if path.ends_with(".toml") {
            let doc = Document::parse(text).ok()?;
            for (key, item) in doc.as_table().iter() {
                out.toml_item(key, item);
            }
        } else {
            for (key, value) in ini_values(text) {
                out.set_value(&key, &value);
            }
        }
        Some(out)
    }

    /// A TOML item at `key`: a table's keys, each table of an array of
    /// tables, or a value.
    fn toml_item(&mut self, key: &str, item: &Item) {
        match item {
            Item::Value(v) => self.toml_value(key, v),
            Item::Table(t) => {
                for (k, i) in t.iter() {
                    self.toml_item(k, i);
                }
            }
            Item::ArrayOfTables(a) => {
                for t in a.iter() {
                    for (k, i) in t.iter() {
                        self.toml_item(k, i);
                    }
                }
            }
            Item::None => {}
        }
    }

    /// A TOML value at `key`: a string is split as pytest splits an INI
    /// value (`shlex`); an array's strings are each one word, as pytest
    /// takes them; an inline table's keys are read as a table's.
    fn toml_value(&mut self, key: &str, value: &Value) {
        match value {
            Value::String(s) => self.set_value(key, s.value()),
            Value::Array(a) => {
                let words: Vec<String> = a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                self.set(key, &words);
                for v in a.iter() {
                    if matches!(v, Value::InlineTable(_) | Value::Array(_)) {
                        self.toml_value("", v);
                    }
                }
            }
            Value::InlineTable(t) => {
                for (k, v) in t.iter() {
                    self.toml_value(k, v);
                }
            }
            Value::Integer(_) | Value::Float(_) | Value::Boolean(_) | Value::Datetime(_) => {}
        }
    }

    /// Key `key`'s value as written in one string: a line list for
    /// `filterwarnings` (a filter's message may hold blanks), else split
    /// as `shlex` splits it.
    fn set_value(&mut self, key: &str, value: &str) {
        let words = if key == "filterwarnings" {
            value.lines().map(str::to_string).collect()
        } else {
            shell_words(value)
        };
        self.set(key, &words);
    }

    /// The words of key `key`'s value.
    fn set(&mut self, key: &str, words: &[String]) {
        match key {
            "filterwarnings" => {
                for w in words {
                    self.plugins.extend(warning_module(w));
                }
            }
            "python_files" => self
                .patterns
                .extend(words.iter().map(|v| v.to_ascii_lowercase())),
            "testpaths" => self.testpaths.extend(words.iter().cloned()),
            "pythonpath" => self.pythonpath.extend(words.iter().cloned()),
            "addopts" => self.options(words, Given::Addopts),
            _ => {}
        }
    }

    /// pytest's options among `words` (`addopts`, `PYTEST_ADDOPTS`, its
    /// command line): `--doctest-modules`, `-p MODULE`, `-o KEY=VALUE`
    /// (round 30's 30poi), `-c FILE`, short options in a cluster; from
    /// `addopts`, the paths they give (round 30's 30pao; elsewhere the
    /// paths are words named as such).
    pub(super) fn options(&mut self, words: &[String], given: Given) {
        let mut k = 0;
        while k < words.len() {
            let w = words[k].as_str();
            let next = words.get(k + 1).map(String::as_str);
            k += 1;
            if w == "--doctest-modules" {
                self.doctest_modules = true;
                continue;
            }
            // `--option=value` or `--option value`.
            if let Some(long) = w.strip_prefix("--") {
                let (name, glued) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                let option = format!("--{name}");
                if !VALUED.contains(&option.as_str()) {
                    // An option this reading does not know, written apart
                    // from what may be its value: that word is listed as
                    // a path may be, not named whole.
                    if glued.is_none()
                        && given == Given::Addopts
                        && !FLAGS.contains(&option.as_str())
                        && let Some(v) = next.filter(|v| !v.starts_with('-'))
                    {
                        self.args.push(v.to_string());
                        k += 1;
                    }
                    continue;
                }
                let value = match glued {
                    Some(v) => v,
                    None => {
                        k += 1;
                        next.unwrap_or_default()
                    }
                };
                k += self.option(&option, value, given, &words[k.min(words.len())..]);
                continue;
            }
            // A cluster of short options (`-q`, `-pplug`, `-qp plug`).
            if let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) {
                for (at, c) in cluster.char_indices() {
                    if SHORT_VALUED.contains(&c) {
                        let rest = &cluster[at + c.len_utf8()..];
                        let value = if rest.is_empty() {
                            k += 1;
                            next.unwrap_or_default()
                        } else {
                            rest.trim_start_matches('=')
                        };
                        let after = &words[k.min(words.len())..];
                        k += self.option(&format!("-{c}"), value, given, after);
                        break;
                    }
                }
                continue;
            }
            match given {
                Given::Addopts => self.testpaths.push(w.to_string()),
                Given::Pieces => self.args.push(w.to_string()),
                Given::Environment => {}
            }
        }
    }

    /// One option `option` with its value; answers how many of the words
    /// `after` it it took (a command line's pieces are cut at `=`: `-o
    /// python_files=check_*.py` is `-o`, `python_files`, `check_*.py`, and
    /// every word up to the next option is taken as the key's).
    fn option(&mut self, option: &str, value: &str, given: Given, after: &[String]) -> usize {
        match option {
            "-p" if !value.starts_with("no:") && !value.is_empty() => {
                self.plugins.push(value.to_string());
            }
            "-o" | "--override-ini" => {
                if let Some((key, v)) = value.split_once('=') {
                    if key.trim() != "addopts" {
                        self.set(key.trim(), &shell_words(v));
                    }
                } else if given == Given::Pieces && value != "addopts" {
                    // Each word up to the next option may be the key's
                    // (`-o "python_files=a_*.py b_*.py"`) or a path
                    // (`-o python_files=a_*.py tests/unit`): a word with a
                    // `/` is no file name's pattern (round 32's 32lb).
                    let taken = after.iter().take_while(|w| !w.starts_with('-')).count();
                    let words: Vec<String> =
                        after[..taken].iter().flat_map(|w| shell_words(w)).collect();
                    let values: Vec<String> =
                        words.iter().filter(|w| !w.contains('/')).cloned().collect();
                    self.set(value.trim(), &values);
                    self.args.extend(words);
                    return taken;
                }
            }
            "-c" | "--config-file" | "--inifile" if !value.is_empty() => {
                self.configs.push(value.to_string());
            }
            "--doctest-glob" if !value.is_empty() => {
                self.doctest_globs.push(value.to_ascii_lowercase());
            }
            // A command line's pieces are cut at `:` too: any dotted word
            // up to the next option may be the category.
            "-W" | "--pythonwarnings" if given == Given::Pieces => {
                for w in std::iter::once(value)
                    .chain(
                        after
                            .iter()
                            .take_while(|w| !w.starts_with('-'))
                            .map(String::as_str),
                    )
                    .take(5)
                {
                    self.plugins.extend(dotted_parent(w));
                }
            }
            "-W" | "--pythonwarnings" => self.plugins.extend(warning_module(value)),
            _ => {}
        }
        0
    }

    /// The names its discovery lists: `python_files`' patterns (one with a
    /// `/` is matched against a whole path, `*` across directories, by
    /// pytest's `fnmatch_ex`: every module), and every module under
    /// `--doctest-modules`.
    pub(super) fn listed(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .patterns
            .iter()
            .map(|p| if p.contains('/') { "*.py" } else { p.as_str() })
            .collect();
        if self.doctest_modules {
            out.push("*.py");
        }
        out.extend(self.doctest_globs.iter().map(String::as_str));
        out
    }

    /// `PYTEST_PLUGINS`' value: modules, comma-separated.
    pub(super) fn plugins_of(&mut self, value: &str) {
        self.plugins.extend(
            value
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        );
    }
}

/// The module a warning filter `action:message:category:module:lineno`
/// imports for its category (Python's `warnings._getcategory` and
/// pytest's `parse_warning_filter`): the category's dotted parent (a
/// built-in category has no dot).
pub(super) fn warning_module(filter: &str) -> Option<String> {
    dotted_parent(filter.split(':').nth(2)?)
}

/// What is before the last dot of a dotted name (`tools.warn.W`:
/// `tools.warn`).
pub(super) fn dotted_parent(name: &str) -> Option<String> {
    let name = name.trim();
    let (module, class) = name.rsplit_once('.')?;
    (!module.is_empty() && !class.is_empty() && !name.contains([' ', '/']))
        .then(|| module.to_string())
}

/// An INI file's keys and values as pytest's iniconfig reads them: a
/// line whose first character past blanks is `#` or `;` (or a blank
/// line) is skipped, inside a value too; a section line is cut at a
/// comment; a key is split at its first `=` (at `:` when the name would
/// hold one); an indented line continues the value before it; no other
/// comment is taken off (` #` stays in a value: red team round 31's
/// 31phi). A line iniconfig refuses is passed over.
fn ini_values(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    // Whether the last line read was a key's (a value may continue).
    let mut in_value = false;
    for line in text.lines() {
        let line = line.trim_end();
        if matches!(line.trim_start().chars().next(), None | Some('#' | ';')) {
            continue;
        }
        let indented = line.starts_with(char::is_whitespace);
        let section = line.starts_with('[')
            && line
                .split(['#', ';'])
                .next()
                .is_some_and(|s| s.trim_end().ends_with(']'));
        if section {
            in_value = false;
            continue;
        }
        if !indented && !line.starts_with('[') {
            let split = match line.split_once('=') {
                Some((name, value)) if !name.contains(':') => Some((name, value)),
                _ => line.split_once(':'),
            };
            in_value = split.is_some();
            if let Some((name, value)) = split {
                out.push((name.trim().to_string(), value.trim().to_string()));
            }
            continue;
        }
        // A continuation (or a `[` line that is no section, which
        // iniconfig takes as one).
        if in_value && let Some((_, value)) = out.last_mut() {
            if !value.is_empty() {
                value.push('\n');
            }
            value.push_str(line.trim());
        }
    }
    out
}

/// The words of `value` as Python's `shlex.split` gives them (POSIX
/// mode): split at blanks outside quotes, quotes taken off, a backslash
/// outside quotes (and before `"` or `\` inside double quotes) taking the
/// next character as it is (`-m "not e2e"` is two words: red team round
/// 31's 31lb).
pub(super) fn shell_words(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') if matches!(chars.peek(), Some('"' | '\\')) => {
                word.extend(chars.next());
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, '\\') => word.extend(chars.next()),
            (None, c) if c.is_whitespace() => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: &[&str]) -> Vec<String> {
        v.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn values_split_as_shlex_splits_them() {
        for (value, want) in [
            ("-m \"not e2e\" -ra", &["-m", "not e2e", "-ra"][..]),
            ("a\\ b 'c d'\te", &["a b", "c d", "e"]),
            ("\"a\\\"b\\x\"", &["a\"b\\x"]),
            ("check\\_*.py\ntest_*.py", &["check_*.py", "test_*.py"]),
            ("x'y'\"z\"", &["xyz"]),
        ] {
            assert_eq!(shell_words(value), words(want), "{value}");
        }
    }

    #[test]
    fn ini_is_read_as_iniconfig_reads_it() {
        let text = "# top\n[pytest] ; the suite\npython_files = test_*.py #1\n\n    ; skipped\n  check_*.py\nfoo: bar = baz\naddopts=-q\n[other\n";
        assert_eq!(
            ini_values(text),
            vec![
                (
                    "python_files".to_string(),
                    "test_*.py #1\ncheck_*.py".to_string()
                ),
                ("foo".to_string(), "bar = baz".to_string()),
                ("addopts".to_string(), "-q\n[other".to_string()),
            ]
        );
    }

    #[test]
    fn options_take_their_values_in_clusters_and_glued() {
        let mut c = PytestConfig::default();
        c.options(
            &words(&[
                "-qp",
                "tools.plug",
                "-pother",
                "--rootdir",
                "docs",
                "-o",
                "python_files=check_*.py x_*.py",
                "-c",
                "ci/pytest.ini",
                "-p",
                "no:cacheprovider",
                "tests",
                "--config-file=ci/b.toml",
            ]),
            Given::Addopts,
        );
        assert_eq!(c.plugins, words(&["tools.plug", "other"]));
        assert_eq!(c.patterns, words(&["check_*.py", "x_*.py"]));
        assert_eq!(c.configs, words(&["ci/pytest.ini", "ci/b.toml"]));
        assert_eq!(c.testpaths, words(&["tests"]));
    }

    #[test]
    fn toml_is_read_as_toml() {
        let c = PytestConfig::of(
            "pyproject.toml",
            "[tool]\npytest = { ini_options = { \"python\\u005ffiles\" = [\"a_*.py\"] } }\n[[x]]\ntestpaths = 't'\n",
        )
        .unwrap();
        assert_eq!(c.patterns, words(&["a_*.py"]));
        assert_eq!(c.testpaths, words(&["t"]));
        assert!(PytestConfig::of("pytest.toml", "a = [\n").is_none());
    }
}
