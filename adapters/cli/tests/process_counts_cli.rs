//! How many git processes and fsyncs Probity's commands cost (issue 24):
//! counts, never times. Every git Probity starts goes through a wrapper
//! (`PROBITY_GIT`) that appends its arguments to a counter file, then
//! executes the real git; a server hook inherits the variable from the
//! `git push` that runs it. fsyncs are counted with `strace` where it is
//! installed.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;
use support::*;

/// A `git` wrapper in `dir` that logs each run to `dir/count` and then
/// runs the real git (found before anything is prepended).
fn wrapper(dir: &Path) -> (PathBuf, PathBuf) {
    wrapper_logging(dir, r#""$*""#)
}

/// [`wrapper`] logging `line` (a shell word, expanded in the run's
/// environment) for each run.
fn wrapper_logging(dir: &Path, line: &str) -> (PathBuf, PathBuf) {
    let real = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh");
    let real = String::from_utf8(real.stdout).unwrap().trim().to_string();
    assert!(!real.is_empty(), "no git on PATH");
    let counter = dir.join("count");
    let script = dir.join("git");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' {line} >> '{}'\nexec '{real}' \"$@\"\n",
            counter.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&counter, "").unwrap();
    (script, counter)
}

/// The git runs logged so far (one line each), and the log emptied.
fn take(counter: &Path) -> Vec<String> {
    let lines: Vec<String> = std::fs::read_to_string(counter)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    std::fs::write(counter, "").unwrap();
    lines
}

/// A clone with `n` commits on top of the hooked server's `main`, each
/// reviewed as committed (`start --range`) and approved, the bundles
/// published to refs/notes/probity; nothing pushed yet.
fn reviewed_stack(n: usize) -> (Fixture, tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let (f, dir, server) = hooked_origin();
    for i in 0..n {
        f.write(&format!("src/m{i}.rs"), format!("fn f{i}() {{}}\n"))
            .unwrap();
        commit_all(&f, &format!("c{i}"));
    }
    let inputs = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start", "--range", "origin/main..HEAD"]);
    let lineages = st.json["lineages"].as_array().unwrap().clone();
    assert_eq!(lineages.len(), n);
    for l in &lineages {
        approve_started(f.root(), inputs.path(), l);
    }
    probity_ok(f.root(), &["publish"]);
    (f, dir, server, inputs)
}

/// Pushes the stack and its notes with plain `git push --atomic` (no
/// client hook),
/// every git of the server hook through the wrapper; `strace` (when given)
/// wraps the push. Returns the hook's git runs.
fn push_counted(f: &Fixture, tools: &Path, strace: Option<&Path>) -> Vec<String> {
    let (wrapper, counter) = wrapper(tools);
    push_traced(f, Some(&wrapper), strace, "trace=execve,fsync,fdatasync");
    take(&counter)
}

/// The push of [`push_counted`], the hook's gits through `wrapper` (else
/// the `git` on `PATH`, named as a bare name), under `strace -e <trace>`
/// when a log is given.
fn push_traced(f: &Fixture, wrapper: Option<&Path>, strace: Option<&Path>, trace: &str) {
    let push = [
        "push",
        "--no-verify",
        "--atomic",
        "origin",
        "HEAD:main",
        "refs/notes/probity:refs/notes/probity",
    ];
    let mut cmd = match strace {
        Some(out) => {
            let mut c = Command::new("strace");
            c.args(["-f", "-qq", "-e", trace, "-o"]).arg(out).arg("git");
            c
        }
        None => Command::new("git"),
    };
    isolated(&mut cmd)
        .args(push)
        .current_dir(f.root())
        .env(
            "PROBITY_GIT",
            wrapper.map_or("git".as_ref(), Path::as_os_str),
        )
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE");
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "push refused: {stderr}");
    assert!(stderr.contains("pre-receive ALLOW"), "{stderr}");
}

#[test]
fn the_server_hook_starts_as_many_gits_for_ten_commits_as_for_one() {
    let tools = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    for n in [1, 10] {
        let (f, _dir, _server, _inputs) = reviewed_stack(n);
        let runs = push_counted(&f, tools.path(), None);
        counts.push((n, runs));
    }
    let (one, ten) = (&counts[0].1, &counts[1].1);
    assert_eq!(
        one.len(),
        ten.len(),
        "1 commit: {} gits, 10 commits: {} gits\n{ten:#?}",
        one.len(),
        ten.len()
    );
    // A constant, and a small one: discovery, configuration, one object
    // reader, one walk, one diff of each kind, the replay search (13:
    // ancestry is walked through the object reader, D-R136), and the
    // ref's history the replay check reads (D-R145: the window below the
    // old tip and what the update brings, one listing each; the approved
    // paths from the push's batched raw diff, none per commit; the empty
    // tree from discovery's object format, no `hash-object`): 15.
    assert!(one.len() <= 15, "{} gits: {one:#?}", one.len());
}

/// The fsyncs the process that ran `exe` made, from an `strace -f` log of
/// `trace=execve,fsync,fdatasync`.
fn fsyncs_of(log: &str, exe: &str) -> usize {
    let pids: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("execve(") && l.contains(exe) && !l.contains("ENOENT"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(!pids.is_empty(), "{exe} never ran:\n{log}");
    log.lines()
        .filter(|l| l.contains("fsync("))
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|p| pids.contains(&p))
        })
        .count()
}

#[test]
fn the_server_hook_makes_no_fsync_while_verifying() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("strace is not installed: the fsync count is not checked here");
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let (f, _dir, _server, _inputs) = reviewed_stack(3);
    let log = tools.path().join("strace.log");
    push_counted(&f, tools.path(), Some(&log));
    let log = std::fs::read_to_string(&log).unwrap();
    assert_eq!(fsyncs_of(&log, env!("CARGO_BIN_EXE_probity")), 0);
}

/// The processes the process that ran `exe` (and its threads) started,
/// from an `strace -f` log of `trace=execve,clone,clone3,fork,vfork`:
/// `(started without copying the process (vfork), copied (fork))`.
fn spawns_of(log: &str, exe: &str) -> (usize, usize) {
    let mut group: Vec<String> = log
        .lines()
        .filter(|l| l.contains("execve(") && l.contains(exe) && !l.contains("ENOENT"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(!group.is_empty(), "{exe} never ran:\n{log}");
    let (mut vforks, mut forks) = (0, 0);
    // A call interrupted by another thread's line: its first half by pid.
    let mut pending: std::collections::BTreeMap<String, String> = Default::default();
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let call = if rest.contains("<unfinished ...>") {
            pending.insert(pid.to_string(), rest.to_string());
            continue;
        } else if rest.starts_with("<... ") {
            match pending.remove(pid) {
                Some(first) => format!("{first}{rest}"),
                None => continue,
            }
        } else {
            rest.to_string()
        };
        let spawn = ["clone(", "clone3(", "fork(", "vfork("]
            .iter()
            .any(|c| call.starts_with(c));
        if !spawn || !group.iter().any(|g| g == pid) {
            continue;
        }
        let result = call.rsplit("= ").next().unwrap_or("").trim();
        if call.contains("CLONE_THREAD") {
            group.push(result.to_string());
        } else if call.starts_with("vfork(") || call.contains("CLONE_VFORK") {
            vforks += 1;
        } else {
            forks += 1;
        }
    }
    (vforks, forks)
}

#[test]
fn the_server_hook_starts_its_gits_without_copying_itself() {
    // With the hermetic environment, a bare program name made the
    // standard library fork (copy the process) and search PATH in the
    // child; Probity looks git up once and starts it by path (vfork).
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("strace is not installed: how gits start is not checked here");
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let (f, _dir, _server, _inputs) = reviewed_stack(1);
    let log = tools.path().join("strace.log");
    push_traced(&f, None, Some(&log), "trace=execve,clone,clone3,fork,vfork");
    let log = std::fs::read_to_string(&log).unwrap();
    let (vforks, forks) = spawns_of(&log, env!("CARGO_BIN_EXE_probity"));
    assert!(vforks >= 10, "{vforks} gits started by vfork:\n{log}");
    assert_eq!(forks, 0, "{forks} processes started by fork:\n{log}");
}

/// `probity --json --cwd <cwd> args...` with every git through the wrapper
/// in `tools`; the answer and the git runs it made.
fn counted(cwd: &Path, tools: &Path, args: &[&str]) -> (Run, Vec<String>) {
    let (wrapper, counter) = wrapper(tools);
    let r = probity_env(cwd, args, &[("PROBITY_GIT", wrapper.to_str().unwrap())]);
    (r, take(&counter))
}

/// Every entry under `dir` (the work tree and the git directory with it):
/// its path, type, length and modification time. A file written, even
/// one written then removed (its directory's time), shows.
fn disk_state(dir: &Path) -> Vec<(PathBuf, bool, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let m = std::fs::symlink_metadata(&d).unwrap();
        out.push((d.clone(), true, m.len(), m.modified().unwrap()));
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), false, m.len(), m.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_pre_commit_gate_runs_no_git_and_writes_nothing() {
    let f = medium_change();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let tools = tempfile::tempdir().unwrap();
    let before = store_snapshot(&f);
    let index = std::fs::read(f.root().join(".git/index")).unwrap();
    let disk = disk_state(f.root());
    let (r, runs) = counted(
        f.root(),
        tools.path(),
        &["validate", "--gate", "pre-commit"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["decision"], "allow", "{}", r.stdout);
    // Discovery and HEAD's tree are read in-process (D-R142), and so is
    // the live candidate, whose tree the store already holds (D-R152): no
    // `add -A` on a stand-in index, no `write-tree`.
    assert!(runs.is_empty(), "{} gits: {runs:#?}", runs.len());
    assert!(store_snapshot(&f) == before, "the gate wrote to the store");
    assert_eq!(std::fs::read(f.root().join(".git/index")).unwrap(), index);
    assert!(disk_state(f.root()) == disk, "the gate wrote to the disk");
}

#[test]
fn a_pre_commit_gate_git_must_answer_runs_one_git_and_writes_nothing_lasting() {
    // Attributes: git's to apply (D-R152), so `add -A` on a stand-in runs.
    let f = medium_change();
    f.write(".gitattributes", "*.rs text\n").unwrap();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let tools = tempfile::tempdir().unwrap();
    let before = store_snapshot(&f);
    let index = std::fs::read(f.root().join(".git/index")).unwrap();
    let (r, runs) = counted(
        f.root(),
        tools.path(),
        &["validate", "--gate", "pre-commit"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["decision"], "allow", "{}", r.stdout);
    // The approved candidate's tree is already in the store, computed from
    // git's index in-process (D-R87): no `write-tree`.
    assert_eq!(runs.len(), 1, "{} gits: {runs:#?}", runs.len());
    assert!(runs[0].contains(" add "), "{runs:#?}");
    assert!(store_snapshot(&f) == before, "the gate wrote to the store");
    assert_eq!(std::fs::read(f.root().join(".git/index")).unwrap(), index);
}

#[test]
fn a_new_start_runs_a_bounded_number_of_gits() {
    let f = medium_change();
    let tools = tempfile::tempdir().unwrap();
    let (r, runs) = counted(f.root(), tools.path(), &["start"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.json["lineage_id"].is_string(), "{}", r.stdout);
    // `add -A` and `write-tree` into a quarantine, one diff (raw,
    // numstat, frozen patch and git's version), the object reader (sizes,
    // heads, the index entries of added paths). Discovery and HEAD's tree
    // (D-R142) and `probity.keepTrees` (D-R98) are read in-process when
    // that is certainly git's answer, as here.
    assert!(runs.len() <= 4, "{} gits: {runs:#?}", runs.len());
    assert!(!runs.iter().any(|r| r.contains("rev-parse")), "{runs:#?}");
    assert!(!runs.iter().any(|r| r.contains(" config ")), "{runs:#?}");
    assert!(
        !runs
            .iter()
            .any(|r| r.contains(" init ") || r.contains("ls-files")),
        "{runs:#?}"
    );
    assert_eq!(
        runs.iter().filter(|r| r.contains("diff-tree")).count(),
        1,
        "{runs:#?}"
    );
}

/// A new start over an edit whose tree the store already holds (here
/// `git stash` wrote it, and `git stash pop` brought the edit back) still
/// runs `write-tree`: it refreshes the stored tree's time, so that `gc`
/// keeps a tree the new lineage names (D-R157 withdrawn, D-R159).
#[test]
fn a_start_over_an_edit_whose_tree_is_stored_refreshes_it() {
    let f = parser_base();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    f.git(&["stash"]).unwrap();
    let stashed = String::from_utf8(f.git(&["rev-parse", "stash@{0}^{tree}"]).unwrap()).unwrap();
    let stashed = stashed.trim();
    f.git(&["stash", "pop"]).unwrap();
    let loose = f
        .root()
        .join(".git/objects")
        .join(&stashed[..2])
        .join(&stashed[2..]);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(30 * 24 * 3600);
    std::fs::File::open(&loose)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let tools = tempfile::tempdir().unwrap();
    let (r, runs) = counted(f.root(), tools.path(), &["start"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(runs.iter().any(|r| r.contains("write-tree")), "{runs:#?}");
    assert_eq!(
        r.json["candidate_tree"].as_str(),
        Some(stashed),
        "{}",
        r.stdout
    );
    let modified = std::fs::metadata(&loose).unwrap().modified().unwrap();
    assert!(modified > old + std::time::Duration::from_secs(24 * 3600));
}

/// A new start's `git add -A` keeps zlib's memory from one object to the
/// next (D-R156), with the caller's own glibc tunables after Probity's so
/// that theirs win; no other git is given the variable by Probity.
#[test]
fn a_new_starts_add_keeps_zlibs_memory_and_the_callers_own_tunables() {
    let f = medium_change();
    let tools = tempfile::tempdir().unwrap();
    let (git, log) = wrapper_logging(tools.path(), r#""${GLIBC_TUNABLES-unset}|$*""#);
    let theirs = "glibc.malloc.perturb=0";
    let r = probity_env(
        f.root(),
        &["start"],
        &[
            ("PROBITY_GIT", git.to_str().unwrap()),
            ("GLIBC_TUNABLES", theirs),
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let runs = take(&log);
    let (adds, others): (Vec<&String>, Vec<&String>) =
        runs.iter().partition(|r| r.contains(" add -A "));
    assert_eq!(adds.len(), 1, "{runs:#?}");
    assert!(
        adds[0].starts_with(&format!("glibc.malloc.trim_threshold=1048576:{theirs}|")),
        "{runs:#?}"
    );
    assert!(!others.is_empty(), "{runs:#?}");
    for run in others {
        assert!(run.starts_with(&format!("{theirs}|")), "{runs:#?}");
    }
}

#[test]
fn probity_push_of_one_reviewed_commit_runs_a_bounded_number_of_gits() {
    let (f, _dir, _server, _inputs) = reviewed_stack(1);
    let tools = tempfile::tempdir().unwrap();
    let (r, runs) = counted(f.root(), tools.path(), &["push", "origin", "HEAD:main"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // The client's (discovery, which also says where hooks run from; the
    // dry run, the pre-push judgment, the atomic push: 8) and the server
    // hook's (which inherits PROBITY_GIT: 9), together. The notes ref and
    // `HEAD` are read from their files, not by a `rev-parse` each time they
    // are asked (the notes ref was asked four times, the hooks directory
    // and `HEAD` once each more: 29), and the hook's settings by one `git
    // config` (seven before, one per key: 23). This server's default
    // branch holds no policy, so it governs nothing and the hook lists its
    // protected tips to read theirs (one `for-each-ref`, D-R117: 18), and
    // it measures every note the push adds (one `ls-tree -l` of a new
    // notes ref, or one `diff-tree` of an update, sizes from the object
    // reader: 19). The client's remote lookup is its push URLs (`remote
    // get-url --push`, which also says whether `receive-pack` runs here),
    // no longer `config --get` of its URL; a remote that is a path has
    // its own receiving program asked too, which Probity starts
    // sheltered (D-R124: 20). The history a notes update brings is held
    // to the notes' rules too: one `rev-list --parents` of its commits, one
    // `diff-tree --stdin --root` of each against its first parent, one
    // `rev-list --disk-usage` of what only they store (D-R126: 23).
    // Whether a ref's old tip is an ancestor of its new one is walked
    // through the object reader for a few commits before `git merge-base`
    // is asked (the notes fast-forward, the replay check's ancestry, and
    // D-R136's question whether a ref update takes its old tip away: 21).
    // The hook reads the ref's history for earlier deliveries, as a CI
    // form does (D-R145, red team round 6): the window below the old tip
    // and what the update brings, one listing each: 23.
    assert!(runs.len() <= 23, "{} gits: {runs:#?}", runs.len());
    assert_eq!(
        runs.iter().filter(|r| r.contains(" config ")).count(),
        2,
        "the remote's receiving program and the hook's settings: {runs:#?}"
    );
    assert_eq!(
        runs.iter()
            .filter(|r| r.contains(" remote get-url --push "))
            .count(),
        1,
        "the client's remote lookup: {runs:#?}"
    );
    assert!(
        !runs
            .iter()
            .any(|r| r.contains("refs/notes/probity^{commit}")),
        "{runs:#?}"
    );
}
