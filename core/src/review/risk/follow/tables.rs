//! Risk policy v12's tables and walks (D-R174): what a step's words
//! name beyond v11's reading (package runners, Python project tools,
//! configurations tools load, test discovery, the directories a walker is
//! given), and what a Python or JavaScript file read in turn imports.

use super::structural;
use super::{NPMS, Piece, Sink, Walk, base_name, joined, module_files, read_by_name};
use crate::review::risk::refs;

/// v12: what the Python or JavaScript file at `path` imports by name
/// (`structural::imports`), named and read in turn.
pub(super) fn name_imports(path: &str, text: &str, bases: &[String], sink: &mut Sink<'_>) {
    let found = structural::imports(path, text);
    let mut bases = bases.to_vec();
    bases.extend(found.bases.iter().filter_map(|b| refs::normalise_cased(b)));
    let own = path.rsplit_once('/').map_or("", |(d, _)| d);
    for m in &found.modules {
        let files = module_files(m);
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        sink.each(&bases, &files, true);
        // What Python runs instead of the source: its `__pycache__`
        // (round 20's 02f: an unchecked-hash `.pyc`).
        let parent = m.rsplit_once('.').map_or("", |(p, _)| p).replace('.', "/");
        sink.below = true;
        for b in bases.iter().map(String::as_str).chain([own]) {
            if let Some(p) = refs::normalise_cased(&format!("{b}/{parent}/__pycache__")) {
                sink.add(p, false);
            }
        }
        sink.below = false;
    }
    for f in &found.files {
        if let Some(d) = f.strip_suffix(".py").and_then(|p| p.rsplit_once('/')) {
            sink.below = true;
            if let Some(p) = refs::normalise_cased(&format!("{}/__pycache__", d.0)) {
                sink.add(p, false);
            }
            sink.below = false;
        }
    }
    for f in found.files {
        if let Some(p) = refs::normalise_cased(&f) {
            sink.add(p, true);
        }
    }
    sink.below = true;
    for d in found.dirs {
        if let Some(p) = refs::normalise_cased(&d) {
            sink.add(p, false);
        }
    }
    for package in &found.packages {
        for b in &bases {
            if let Some(p) = refs::normalise_cased(&format!("{b}/{package}")) {
                sink.add(p, false);
            }
        }
    }
    sink.below = false;
}

/// v12's tables at piece `i` (lowercased `lower`), named from `dirs`:
/// package runners' `package.json` and npm's implicit `server.js`, Python
/// project tools' `pyproject.toml`, the configurations tools load, the
/// files test runners discover, and every file when a runtime or a walker
/// is given the root.
pub(super) fn v12_tables(
    pieces: &[Piece],
    lower: &[String],
    i: usize,
    dirs: &[String],
    sink: &mut Sink<'_>,
) {
    let name = base_name(&lower[i]);
    // `xargs sh` and `parallel sh` run what their input names, which no
    // word shows (round 24's 24ga2: `ls tools/hooks | sed ... | xargs -n1
    // sh`): every file, unless the runner is given a path.
    // (Round 26: any runner among the next words, past options and
    // wrappers however they take values: `xargs -l sh`, `xargs stdbuf -o L
    // sh`; `run-parts` too.)
    if matches!(name, "xargs" | "parallel")
        && !lower[i + 1..]
            .iter()
            .take_while(|w| w.starts_with('-') || w.contains('/'))
            .any(|w| matches!(w.as_str(), "-a" | "--arg-file"))
        && (i + 1..lower.len().min(i + 9)).any(|k| {
            let n = base_name(&lower[k]);
            // Not a shell's builtin (`.`, `source`): `xargs` runs programs,
            // and `find . | xargs cat`'s `.` is a directory.
            (is_runner(n) && !matches!(n, "." | "source") || n == "run-parts")
                && runs_its_input(lower, k)
        })
    {
        sink.out.unread = true;
    }
    super::runners::doctest_modules(lower, i, dirs, sink);
    if is_python(name) {
        python_runtime(pieces, i, dirs, sink);
    }
    if structural::NPXS.contains(&name) {
        sink.each(dirs, &["package.json"], true);
    }
    if NPMS.contains(&name) {
        // `npm start` without a `start` script runs `node server.js`.
        sink.each(dirs, &["server.js"], true);
    }
    for (tool, files) in structural::PY_PROJECTS {
        if name == *tool {
            sink.each(dirs, files, true);
        }
    }
    // A tool's name, or the module `python -m` runs.
    let module = (i > 0 && lower[i - 1] == "-m").then_some(lower[i].as_str());
    for tool in [Some(name), module].into_iter().flatten() {
        for (t, globs) in structural::LOADS_CONFIG {
            if tool == *t {
                for g in *globs {
                    sink.glob(dirs, g, false);
                    // A name without a wildcard: read in turn
                    // (`bunfig.toml`'s preload: round 33's 33bpl).
                    if !g.contains(['*', '?', '[']) {
                        sink.each(dirs, &[g], true);
                    }
                    // Its configuration read in turn, whatever of the
                    // usual extensions it has.
                    if let Some(stem) = g.strip_suffix(".*") {
                        let files: Vec<String> = structural::CONFIG_EXTENSIONS
                            .iter()
                            .map(|e| format!("{stem}.{e}"))
                            .collect();
                        let files: Vec<&str> = files.iter().map(String::as_str).collect();
                        sink.each(dirs, &files, true);
                    }
                }
            }
        }
        for (t, globs) in structural::DISCOVERS {
            if tool == *t {
                sink.anywhere_globs(globs);
                // A directory's name (`__tests__`): every file below it.
                let listed: Vec<String> = globs
                    .iter()
                    .map(|g| match g.contains(['.', '*', '?', '[']) {
                        true => (*g).to_string(),
                        false => format!("{g}/**"),
                    })
                    .collect();
                let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
                sink.matching(dirs, &listed);
            }
        }
        // pytest's configuration, read for its keys: its discovery
        // patterns (`python_files`), where it starts (`testpaths`), and
        // its options (`addopts = -p tools.plug`, `--doctest-modules`)
        // (red team round 28's 28pa, 28pa2, 28pa3, 28pa4; round 29).
        if matches!(tool, "pytest" | "py.test") {
            super::runners::pytest_command(pieces, i, dirs, sink);
        }
        // JavaScript runtimes' own test runners (red team round 31's
        // 31ntt, 31ntd, 31ntn; round 32's 32ntj: `nodejs`, and bun's and
        // deno's): their default patterns, below where they run.
        let runner = match tool {
            "node" | "nodejs"
                if lower[i + 1..lower.len().min(i + 12)]
                    .iter()
                    .any(|w| w == "--test") =>
            {
                Some(NODE_TESTS)
            }
            "bun" if lower.get(i + 1).is_some_and(|w| w == "test") => Some(BUN_TESTS),
            "deno" if lower.get(i + 1).is_some_and(|w| w == "test") => Some(DENO_TESTS),
            _ => None,
        };
        if let Some(globs) = runner {
            sink.anywhere_globs(globs);
            sink.matching(dirs, globs);
        }
        // A pattern given to unittest's discovery (`-p '*_check.py'`).
        if tool == "unittest" {
            let given = super::runners::discovery_pattern(lower, i);
            let given: Vec<&str> = given.iter().map(String::as_str).collect();
            sink.anywhere_globs(&given);
            sink.matching(dirs, &given);
        }
    }
    // A walker runs what the directories it is given hold: its operands
    // (past options and their values: `run-parts -a start tools/hooks`),
    // and, given a variable, every literal value the files followed give
    // that name (round 20's 01a, 01e; `Vars`). `find` walks its start points, every file below, or
    // those its name tests match (01b, 01c).
    // `find`'s output may be run however it is used (`for c in $(find
    // tools -type f)`, round 21's 01f, 01h): it walks its start points
    // whether or not it runs them itself; from the root, only when it
    // does.
    let find = name == "find";
    if !structural::RUNS_DIRECTORY.contains(&name) && !find {
        return;
    }
    // Whether `find` runs what it finds (its action, or what `xargs`
    // runs of its output); asked only of a walker.
    let runs = find && super::find::runs(pieces, lower, i);
    // `-execdir` (`-okdir`) runs its command in each found file's
    // directory: a script it names by a relative path may be beside any
    // file found, so it is named at any depth (red team round 29's 29fe);
    // a word without a dot or a `/` is a command found on `PATH`, or an
    // option's value (round 30's 30li).
    if find {
        let own = lower[i + 1..]
            .iter()
            .take_while(|w| w.as_str() != "find")
            .count();
        for k in i + 1..=i + own {
            if matches!(lower[k].as_str(), "-execdir" | "-okdir") {
                for p in pieces[k + 1..=i + own].iter().take(6) {
                    if !p.text.starts_with('-') && p.text != "{}" && p.text.contains(['.', '/']) {
                        sink.anywhere(p.text.trim_start_matches("./"));
                    }
                }
            }
        }
    }
    if module.is_some() || lower.get(i + 1).is_some_and(|n| n == "-m") {
        // `python -m tools.gen` may run `tools/__pycache__/gen.*.pyc`
        // (round 21's 01d, 01e).
        let m = if let Some(m) = module {
            m.to_string()
        } else {
            pieces
                .get(i + 2)
                .map(|p| p.text.clone())
                .unwrap_or_default()
        };
        let path = m.replace('.', "/");
        let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
        sink.below = true;
        for d in dirs {
            for at in [parent, path.as_str()] {
                if let Some(p) = refs::normalise_cased(&format!("{d}/{at}/__pycache__")) {
                    sink.add(p, false);
                }
            }
        }
        sink.below = false;
    }
    let operands: Vec<&Piece> = if lower.get(i + 1).is_some_and(|n| n == "-m") {
        // `python3 -m flake8 ...` runs the module (named above); what
        // follows is its arguments (round 26's 26la3).
        Vec::new()
    } else if find {
        pieces[i + 1..]
            .iter()
            .skip_while(|n| structural::FIND_OPTIONS.contains(&n.text.as_str()))
            .take_while(|n| !n.text.starts_with('-') && !n.text.starts_with('('))
            .collect()
    } else {
        // Up to four operands, to the first a runtime runs by its name
        // (`python3 tools/gen.py src`: `src` is the script's argument).
        let mut seen = Vec::new();
        for n in pieces[i + 1..]
            .iter()
            .filter(|n| !n.text.starts_with('-'))
            .take(4)
        {
            seen.push(n);
            let file = base_name(&n.text);
            if name != "run-parts" && read_by_name(file, true) && file.rsplit_once('.').is_some() {
                break;
            }
        }
        seen
    };
    // `find`'s name tests, when they bound what it runs (`find.rs`).
    let tests = if find {
        super::find::narrowing(pieces, lower, i)
    } else {
        Vec::new()
    };
    let tests: Vec<&str> = tests.iter().map(String::as_str).collect();
    let mut targets: Vec<String> = operands.iter().map(|p| p.text.clone()).collect();
    // A whole variable (`"$HOOKS"`, not `$D/tools`, whose tail is read)
    // walks every literal value the files followed give it; a script's
    // argument (`"$1"`), or a variable with no such value (unassigned, or
    // computed at run time), may be any directory: every file, when the
    // walker runs what it finds (round 22's 22d, round 23's 23c).
    let walker = name == "run-parts" || (find && runs);
    for p in &operands {
        let Some(tail) = variable(pieces, p) else {
            continue;
        };
        match sink.vars.literal(&p.text) {
            Some(values) if !is_argument(&p.text) => {
                targets.extend(values.iter().map(|v| format!("{v}{tail}")));
            }
            _ if walker && tail.is_empty() => sink.out.unread = true,
            _ => {}
        }
    }
    for target in targets {
        if matches!(target.as_str(), "." | "./") {
            // The root: every file, unless `find`'s name tests bound it
            // (then they name what it finds, at any depth: round 21's
            // 02e, `find . -name setup.sh -exec sh {}`), or it runs
            // nothing itself.
            if !find || (runs && tests.is_empty()) {
                sink.out.unread = true;
            } else {
                // What they find is listed by name and read in turn
                // (round 27's 27fa, 27fa2).
                sink.anywhere_globs(&tests);
                sink.matching(&[String::new()], &tests);
            }
            continue;
        }
        let name = base_name(&target);
        if !find && read_by_name(name, true) && name.rsplit_once('.').is_some() {
            // A script by its name (`python3 tools/gen.py`): read as named.
            continue;
        }
        // A value that is a glob (`for D in tools/*; do run-parts "$D"`,
        // round 24's 24wa8) walks every file below the directory before
        // its first wildcard.
        let (target, recursive) = match target.find(['*', '?', '[']) {
            Some(at) => (
                target[..at]
                    .rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_string()),
                true,
            ),
            None => (target, find),
        };
        if target.is_empty() {
            sink.out.unread = true;
            continue;
        }
        for dir in joined(dirs, &target) {
            if !find || tests.is_empty() {
                sink.walks.push(Walk {
                    dir,
                    glob: None,
                    recursive,
                    matching: None,
                });
                continue;
            }
            // Listed by name: bounded by what the tests match.
            sink.matching(&[dir], &tests);
        }
    }
}

/// When the operand `p` (one of `pieces`) is a variable's name (`$D`),
/// the path after it in the same word (`$D/hooks`: `/hooks`), if any.
fn variable<'p>(pieces: &'p [Piece], p: &Piece) -> Option<&'p str> {
    if !p.variable || p.text.contains('/') {
        return None;
    }
    let tail = pieces
        .iter()
        .position(|q| std::ptr::eq(q, p))
        .and_then(|k| pieces.get(k + 1))
        .filter(|n| n.after_variable && n.text.starts_with('/'))
        .map_or("", |n| n.text.as_str());
    Some(tail)
}

/// Whether a variable's name is a script's argument (`1`, `@`, `*`).
pub(super) fn is_argument(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '@' | '*' | '#'))
}

/// What `node --test` imports when given no file (node 20 to 24's
/// defaults, its type-stripped TypeScript too), below where it runs
/// (red team round 31's 31ntt, 31ntd).
pub(super) const NODE_TESTS: &[&str] = &[
    "*.test.*js",
    "*-test.*js",
    "*_test.*js",
    "test-*.*js",
    "test.*js",
    "test/**/*js",
    "*.test.*ts",
    "*-test.*ts",
    "*_test.*ts",
    "test-*.*ts",
    "test.*ts",
    "test/**/*ts",
];

/// What `bun test` imports: its default patterns, JavaScript and
/// TypeScript only (`js`, `mjs`, `cjs`, `jsx`, `ts`, `mts`, `cts`, `tsx`;
/// not a Go `*_test.go`: round 33's 33ld).
const BUN_TESTS: &[&str] = &[
    "*.test.*js",
    "*.test.*ts",
    "*.test.*sx",
    "*_test.*js",
    "*_test.*ts",
    "*_test.*sx",
    "*.spec.*js",
    "*.spec.*ts",
    "*.spec.*sx",
    "*_spec.*js",
    "*_spec.*ts",
    "*_spec.*sx",
];

/// What `deno test` imports: its default patterns, JavaScript and
/// TypeScript only (round 33's 33le, 33lf).
const DENO_TESTS: &[&str] = &[
    "*_test.*js",
    "*_test.*ts",
    "*_test.*sx",
    "*.test.*js",
    "*.test.*ts",
    "*.test.*sx",
    "test.*js",
    "test.*ts",
    "test.*sx",
];

/// Python at piece `i` (`name`): the directory it puts first on
/// `sys.path` (where it runs for `-m` and `-c`, else its script's own)
/// shadows the standard library for what it imports (red team round 32's
/// 32pgl); a `-W` filter imports its category's module (32pwc). Its
/// pieces are cut at `:` and `=`, so which word is the script is not
/// known past an option's value (`-X dev`, `-W error`,
/// `--check-hash-based-pycs default`: round 33's 33pxd, 33pwe, 33phb):
/// each word up to one that is a path (a `/` or `.py`) may be, and its
/// directory is taken.
pub(super) fn python_runtime(pieces: &[Piece], i: usize, dirs: &[String], sink: &mut Sink<'_>) {
    let end = pieces.len().min(i + 12);
    let mut k = i + 1;
    let mut candidates = 0;
    while k < end && candidates < 4 {
        let text = pieces[k].text.as_str();
        k += 1;
        if let Some(glued) = text.strip_prefix("-W") {
            // Any dotted word up to the next option may be the category.
            let words = pieces[k..end]
                .iter()
                .map(|p| p.text.as_str())
                .take_while(|w| !w.starts_with('-'))
                .take(4);
            for w in std::iter::once(glued).chain(words) {
                if let Some(m) = super::pytest_keys::dotted_parent(w) {
                    let files = module_files(&m);
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    sink.each(dirs, &files, true);
                }
            }
            continue;
        }
        if text.starts_with("-m") || text.starts_with("-c") {
            super::stdlib::shadows(dirs, sink);
            return;
        }
        if text.starts_with('-') {
            continue;
        }
        // A script, or an option's value: its own directory, where the
        // links it is reached through resolve (round 33's 33psl: Python
        // takes the script's real path).
        candidates += 1;
        let mut own: Vec<String> = Vec::new();
        for p in joined(dirs, text) {
            match sink.reach.real_dirs(&p) {
                Some(dirs) => own.extend(dirs),
                None => sink.out.mark_unread(),
            }
        }
        super::stdlib::shadows(&own, sink);
        if text.contains('/') || text.ends_with(".py") {
            return;
        }
    }
    // No script: `python` reads from its input, from where it runs.
    super::stdlib::shadows(dirs, sink);
}

/// Whether `name` is a Python interpreter (`python`, `python3.12`, `py`,
/// `pypy3`).
pub(super) fn is_python(name: &str) -> bool {
    name == "py" || name.starts_with("python") || name.starts_with("pypy")
}

/// The shells: each runs the script it is given.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// Whether `name` runs the file it is given: a shell or a runtime.
pub(super) fn is_runner(name: &str) -> bool {
    SHELLS.contains(&name)
        || matches!(name, "source" | ".")
        || (structural::RUNS_DIRECTORY.contains(&name) && name != "run-parts")
}

/// Calls that list a directory (`os.listdir`, `Path.iterdir`, `glob.glob`,
/// `fs.readdirSync`, `opendir`), and those that list every file below it.
const LISTS: &[&str] = &[
    "listdir",
    "scandir",
    "iterdir",
    "glob",
    "readdirsync",
    "readdir",
    "ls",
    "fwalk",
    "opendirsync",
    "opendir",
    "walk",
    "rglob",
    "walkdir",
];
/// Of [`LISTS`], those that list every file below.
const LISTS_BELOW: &[&str] = &["walk", "rglob", "walkdir", "fwalk"];
/// Words of a script that runs another program.
const RUNS: &[&str] = &[
    "subprocess",
    "system",
    "popen",
    "exec",
    "execfile",
    "execsync",
    "execfilesync",
    "spawn",
    "spawnsync",
    "runpy",
    "child_process",
    "run_path",
    "check_call",
    "check_output",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnl",
    "spawnlp",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "execl",
    "execlp",
    "require",
    "posix_spawn",
    "posix_spawnp",
    "import_module",
    "__import__",
    "run_module",
];

/// v12: a script that lists a directory and runs something (`for n in
/// os.listdir("tools/hooks"): subprocess.run(["sh", "tools/hooks/" + n])`,
/// round 24's 24ga7, 24ga8) may run any file of every directory it names
/// by path: each is walked.
pub(super) fn walk_listed(
    pieces: &[Piece],
    lower: &[String],
    dirs: &[String],
    sink: &mut Sink<'_>,
) {
    // A call's last name (`os.listdir`: `listdir`), borrowed.
    let calls = || {
        lower
            .iter()
            .map(|l| l.rsplit(['.', '/']).next().unwrap_or(l))
    };
    if !calls().any(|c| LISTS.contains(&c)) || !calls().any(|c| RUNS.contains(&c)) {
        return;
    }
    let recursive = calls().any(|c| LISTS_BELOW.contains(&c));
    for p in pieces {
        let text = p.text.trim_end_matches('/');
        if p.file_only
            || p.after_variable
            || text.starts_with('-')
            || !text.contains('/')
            || base_name(text).contains('.')
            || structural::is_glob(text)
        {
            continue;
        }
        for dir in joined(dirs, text) {
            sink.walks.push(Walk {
                dir,
                glob: None,
                recursive,
                matching: None,
            });
        }
    }
}

/// `xargs`' and `parallel`'s options that take the next word as a value.
const XARGS_VALUES: &[&str] = &[
    "-n",
    "-L",
    "-P",
    "-I",
    "-d",
    "-E",
    "-s",
    "-a",
    "-j",
    "--max-args",
    "--max-lines",
    "--max-procs",
    "--delimiter",
    "--eof",
    "--max-chars",
    "--arg-file",
    "--jobs",
];
/// Commands that run the rest of their words as a command (`env sh`,
/// `nice -n 5 sh`), with their options that take a value.
const WRAPPERS: &[&str] = &[
    "env", "command", "exec", "nice", "nohup", "timeout", "stdbuf", "setsid", "time", "busybox",
    "sudo", "doas", "chrt", "ionice", "taskset",
];

/// The index of the command an action or `xargs` runs: its first word
/// at or after `from` that is no option, no option's value (read as
/// written: `-l` is not `-L`), no wrapper, no assignment and no number
/// (round 25's 25xa, 25xa2: `xargs -n 1 sh`, `xargs -n1 env sh`).
pub(super) fn command_after(pieces: &[Piece], from: usize) -> Option<usize> {
    let mut k = from;
    while let Some(p) = pieces.get(k) {
        let w = p.text.as_str();
        if XARGS_VALUES.contains(&w) {
            k += 2;
        } else if w.starts_with('-')
            || WRAPPERS.contains(&base_name(w))
            || w.contains('=')
            || w.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            k += 1;
        } else {
            return Some(k);
        }
    }
    None
}

/// Whether the runner at `k` runs the files its input names: not given
/// a path, and not only checking them (`bash -n`, `python3 -m
/// py_compile`: round 25's 25la6).
fn runs_its_input(lower: &[String], k: usize) -> bool {
    let next = lower.get(k + 1).map(String::as_str);
    // A shell's `-n`, node's `--check`, or a module `-m` runs (a linter,
    // a compiler: round 26's 26la3) rather than the input.
    let checks = matches!(next, Some("-n" | "--check" | "-m"));
    !checks && next.is_none_or(|n| n.starts_with('-') || !n.contains('/'))
}
