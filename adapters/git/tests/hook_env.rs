//! A hook (or an outer git, or a wrapper) runs Probity with `GIT_*`
//! variables that point elsewhere: another git dir and index, another work
//! tree, configuration through the environment, a ref namespace, another
//! object directory. Every git Probity spawns must ignore them; only the
//! server gate keeps the object directory (receive quarantine).
//!
//! Each case is checked twice: the adapter's observations equal those made
//! without the variables, and a plain `git` given them answers otherwise
//! (so the case would catch a leak).
//!
//! This is the only test in its binary: it changes the process environment,
//! which would race with any other test thread spawning git.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use probity_core::review::CandidateObservation;
use probity_core::review::CommitId;
use probity_git::fixture::Fixture;
use probity_git::{GitCli, Repo};

/// Everything the adapter observed: where the repository is, the
/// candidate, and what the repository advertises as a remote of itself.
#[derive(Debug, Clone, PartialEq)]
struct Observed {
    root: PathBuf,
    git_dir: PathBuf,
    common_dir: PathBuf,
    candidate: CandidateObservation,
    tips: Vec<(String, CommitId)>,
}

fn observe(git: GitCli, dir: &Path) -> Result<Observed, String> {
    let repo = Repo::discover(git, dir).map_err(|e| e.to_string())?;
    let candidate = repo.observe_candidate().map_err(|e| e.to_string())?;
    let remote = dir.to_str().ok_or("a non-UTF-8 fixture path")?;
    let tips = repo.remote_tips(remote).map_err(|e| e.to_string())?;
    Ok(Observed {
        root: repo.root().to_path_buf(),
        git_dir: repo.git_dir().to_path_buf(),
        common_dir: repo.common_dir().to_path_buf(),
        candidate,
        tips,
    })
}

/// A plain git in `dir` given `vars` (and no other `GIT_*` variable the
/// test runs with): whether it succeeded, and its output.
fn plain_git(dir: &Path, args: &[&str], vars: &[(&str, OsString)]) -> (bool, Vec<u8>) {
    let out = Command::new("git")
        .env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| !k.to_string_lossy().starts_with("GIT_")))
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (out.status.success(), out.stdout)
}

/// Variables to set, by name.
type Vars<'a> = Vec<(&'a str, OsString)>;

/// Runs `f` with `vars` set in the process environment.
fn with_env<T>(vars: &[(&str, OsString)], f: impl FnOnce() -> T) -> T {
    // SAFETY: no other thread runs in this test binary.
    for (k, v) in vars {
        unsafe { std::env::set_var(k, v) };
    }
    let out = f();
    for (k, _) in vars {
        unsafe { std::env::remove_var(k) };
    }
    out
}

#[test]
fn git_environment_from_a_hook_does_not_redirect_observation() {
    let f = Fixture::committed(&[("src/lib.rs", "fn a() {}\n")], "base").unwrap();
    f.write("src/lib.rs", "changed\n").unwrap();
    f.write("src/new.rs", "fn b() {}\n").unwrap();
    // Another repository, with other objects and another work tree.
    let other = Fixture::committed(&[("README", "other\n")], "other").unwrap();
    // An excludes file that, honoured, hides the untracked file.
    let ignore = other.root().join("ignore-new");
    std::fs::write(&ignore, "src/new.rs\n").unwrap();

    let baseline = observe(GitCli::default(), f.root()).unwrap();
    let mut changed: Vec<&str> = baseline
        .candidate
        .changed
        .iter()
        .map(|c| c.path.as_str())
        .collect();
    changed.sort_unstable();
    assert_eq!(changed, ["src/lib.rs", "src/new.rs"]);
    assert_eq!(baseline.tips.len(), 1, "{:?}", baseline.tips);

    let remote = f.root().to_str().unwrap();
    let os = |p: &Path| p.as_os_str().to_owned();
    // (what, the variables, a plain git command they change)
    let cases: Vec<(&str, Vars, Vec<&str>)> = vec![
        (
            "another git dir and index",
            vec![
                ("GIT_DIR", os(&other.root().join(".git"))),
                ("GIT_INDEX_FILE", os(&other.root().join("nope"))),
            ],
            vec!["rev-parse", "--absolute-git-dir"],
        ),
        (
            "another work tree",
            vec![("GIT_WORK_TREE", os(other.root()))],
            vec!["status", "--porcelain", "--untracked-files=all"],
        ),
        (
            "configuration by count",
            vec![
                ("GIT_CONFIG_COUNT", "1".into()),
                ("GIT_CONFIG_KEY_0", "core.excludesFile".into()),
                ("GIT_CONFIG_VALUE_0", os(&ignore)),
            ],
            vec!["ls-files", "--others", "--exclude-standard"],
        ),
        (
            "configuration by parameters (`git -c`)",
            vec![(
                "GIT_CONFIG_PARAMETERS",
                format!("'core.excludesfile'='{}'", ignore.display()).into(),
            )],
            vec!["ls-files", "--others", "--exclude-standard"],
        ),
        (
            "a ref namespace",
            vec![("GIT_NAMESPACE", "elsewhere".into())],
            vec!["ls-remote", "--heads", "--", remote],
        ),
        (
            "another object directory (outside the server gate)",
            vec![(
                "GIT_OBJECT_DIRECTORY",
                os(&other.root().join(".git").join("objects")),
            )],
            vec!["cat-file", "-t", "HEAD"],
        ),
    ];
    for (case, vars, probe) in &cases {
        let plain = plain_git(f.root(), probe, &[]);
        let leaked = plain_git(f.root(), probe, vars);
        let observed = with_env(vars, || observe(GitCli::default(), f.root()));
        assert_ne!(
            leaked, plain,
            "{case}: a plain `git {probe:?}` ignores {vars:?} too; the case tests nothing"
        );
        assert_eq!(observed, Ok(baseline.clone()), "{case}: {vars:?}");
    }

    // The server gate alone keeps the object directory: its observation
    // does read the planted one (here: HEAD's commit is not in it).
    let (_, vars, _) = &cases[5];
    let gate = with_env(vars, || {
        observe(GitCli::default().with_receive_quarantine(), f.root())
    });
    assert_ne!(gate, Ok(baseline.clone()));

    // And it alone keeps git's configuration from the environment, both
    // forms (the receiving git read the repository with it).
    for case in [2, 3] {
        let (what, vars, _) = &cases[case];
        let gate = with_env(vars, || {
            observe(GitCli::default().with_receive_config(), f.root())
        });
        assert_ne!(gate, Ok(baseline.clone()), "{what}");
        // The transport opt-in does not keep it.
        let transport = with_env(vars, || {
            observe(GitCli::default().with_transport_env(), f.root())
        });
        assert_eq!(transport, Ok(baseline.clone()), "{what}");
    }

    // The user's ssh reaches the commands that talk to a remote (here
    // `ls-remote`, through a stand-in ssh that runs the command locally),
    // never an observation: the observation runner, given the same
    // variable, cannot reach the remote at all.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ssh.log");
    let ssh = dir.path().join("fake-ssh");
    probity_testkit::write_executable(
        &ssh,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nfor a; do last=$a; done\nexec sh -c \"git ${{last#git-}}\"\n",
            log.display()
        )
        .as_bytes(),
    )
    .unwrap();
    let url = format!("ssh://fakehost{}", f.root().display());
    let vars: Vars = vec![
        ("GIT_SSH_COMMAND", ssh.as_os_str().to_owned()),
        ("GIT_SSH_VARIANT", "simple".into()),
    ];
    let repo = Repo::discover(GitCli::default(), f.root()).unwrap();
    let (tips, observed) = with_env(&vars, || {
        (
            repo.remote_tips(&url),
            repo.run(["ls-remote", "--heads", "--", url.as_str()]),
        )
    });
    assert_eq!(tips.unwrap(), baseline.tips);
    assert!(
        observed.is_err(),
        "the observation runner kept GIT_SSH_COMMAND"
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls.lines().count(), 1, "{calls}");
    assert!(calls.starts_with("fakehost git-upload-pack"), "{calls}");
}
