//! `ci/probity-install.sh` (issue 22 §3), the install step the Action and
//! the GitLab template share, run for real: a cold job builds once, a warm
//! job reuses the cached build without building (a pinned commit without
//! even contacting the source), and the key changes with the Probity
//! commit or sources and with the runner image. `cargo` is a stand-in on
//! PATH that records its calls and writes a stub binary: what is tested is
//! the script's caching, not cargo.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::plain_git;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/probity-install.sh")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = plain_git(dir).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

struct Setup {
    tmp: tempfile::TempDir,
}

impl Setup {
    /// A Probity source repository (branch main) with a version and the
    /// gate script, and a stand-in cargo.
    fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("probity-src");
        std::fs::create_dir_all(src.join("adapters/cli")).unwrap();
        std::fs::create_dir_all(src.join("ci")).unwrap();
        std::fs::write(
            src.join("adapters/cli/Cargo.toml"),
            "[package]\nname = \"probity-cli\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        std::fs::write(src.join("adapters/cli/main.rs"), "fn main() {}\n").unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/probity-gate.sh"),
            src.join("ci/probity-gate.sh"),
        )
        .unwrap();
        std::fs::copy(script(), src.join("ci/probity-install.sh")).unwrap();
        git(&src, &["init", "-q", "-b", "main"]);
        git(&src, &["add", "-A"]);
        git(&src, &["commit", "-q", "-m", "v1"]);
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let cargo = bin.join("cargo");
        std::fs::write(
            &cargo,
            "#!/bin/sh\n# stand-in: records the call and where it ran, writes bin/probity under --root\nprintf '%s\\n' \"$*\" >>\"$CARGO_LOG\"\npwd -P >>\"$CARGO_LOG.cwd\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && printf '#!/bin/sh\\necho stub\\n' >\"$root/bin/probity\" && chmod +x \"$root/bin/probity\"\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        Setup { tmp }
    }

    fn src(&self) -> PathBuf {
        self.tmp.path().join("probity-src")
    }

    fn cache(&self) -> PathBuf {
        self.tmp.path().join("cache")
    }

    fn builds(&self) -> usize {
        std::fs::read_to_string(self.tmp.path().join("cargo.log"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    fn run(&self, vars: &[(&str, &str)], args: &[&str]) -> Output {
        self.run_in(self.tmp.path(), vars, args)
    }

    /// [`Setup::run`] with `cwd` as the working directory (a job runs the
    /// installer in the checkout under review).
    fn run_in(&self, cwd: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
        let path = std::env::join_paths(
            std::iter::once(self.tmp.path().join("bin"))
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        Command::new(script())
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("CARGO_LOG", self.tmp.path().join("cargo.log"))
            .env("PROBITY_INSTALL_CACHE", self.cache())
            .envs(vars.iter().copied())
            .output()
            .unwrap()
    }
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .trim()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_warm_job_reuses_the_build_and_a_new_commit_builds_once() {
    let s = Setup::new();
    let url = s.src();
    let url = url.to_str().unwrap();
    let vars = [("PROBITY_SOURCE_URL", url), ("PROBITY_SOURCE_REF", "main")];
    let cold = s.run(&vars, &[]);
    let dir = stdout(&cold);
    assert!(stderr(&cold).contains("cold"), "{}", stderr(&cold));
    assert_eq!(s.builds(), 1);
    let head = git(&s.src(), &["rev-parse", "HEAD"]);
    assert!(dir.contains(&head), "the key names the commit: {dir}");
    assert!(Path::new(&dir).join("bin/probity").exists());
    assert!(Path::new(&dir).join("probity-gate.sh").exists());
    // The installer the GitLab template runs next time, from that source.
    assert_eq!(
        std::fs::read(s.cache().join("probity-install.sh")).unwrap(),
        std::fs::read(script()).unwrap()
    );
    let warm = s.run(&vars, &[]);
    assert_eq!(stdout(&warm), dir);
    assert!(stderr(&warm).contains("warm"), "{}", stderr(&warm));
    assert_eq!(s.builds(), 1, "a warm job does not build");
    // A new commit on the branch: one build, and the old one is dropped.
    std::fs::write(s.src().join("adapters/cli/main.rs"), "fn main() { }\n").unwrap();
    git(&s.src(), &["commit", "-q", "-am", "v2"]);
    let next = stdout(&s.run(&vars, &[]));
    assert_ne!(next, dir);
    assert_eq!(s.builds(), 2);
    assert!(!Path::new(&dir).exists(), "the cache keeps one build");
    assert!(s.cache().join("probity-install.sh").exists());
}

#[test]
fn a_pinned_commit_warm_job_never_contacts_the_source() {
    let s = Setup::new();
    let head = git(&s.src(), &["rev-parse", "HEAD"]);
    let url = s.src();
    let pinned = [
        ("PROBITY_SOURCE_URL", url.to_str().unwrap()),
        ("PROBITY_SOURCE_REF", head.as_str()),
    ];
    let dir = stdout(&s.run(&pinned, &[]));
    // The source is gone: a warm job pinned to the commit still installs.
    std::fs::remove_dir_all(s.src()).unwrap();
    let gone = [
        ("PROBITY_SOURCE_URL", "/nonexistent/probity.git"),
        ("PROBITY_SOURCE_REF", head.as_str()),
    ];
    assert_eq!(stdout(&s.run(&gone, &[])), dir);
    assert_eq!(s.builds(), 1);
}

#[test]
fn the_key_follows_the_sources_and_the_runner_image() {
    let s = Setup::new();
    let src = s.src();
    let dir_vars = [("PROBITY_SOURCE_DIR", src.to_str().unwrap())];
    let key = stdout(&s.run(&dir_vars, &["--key"]));
    assert!(key.starts_with("probity-v0.1.0-"), "{key}");
    let image = [
        ("PROBITY_SOURCE_DIR", src.to_str().unwrap()),
        ("CI_JOB_IMAGE", "rust:1.89"),
    ];
    assert_ne!(
        stdout(&s.run(&image, &["--key"])),
        key,
        "another image, another key"
    );
    std::fs::write(
        src.join("adapters/cli/main.rs"),
        "fn main() {}\n// changed\n",
    )
    .unwrap();
    assert_ne!(
        stdout(&s.run(&dir_vars, &["--key"])),
        key,
        "other sources, another key"
    );
    // The checkout mode installs and reuses as the URL mode does.
    let dir = stdout(&s.run(&dir_vars, &[]));
    assert_eq!(stdout(&s.run(&dir_vars, &[])), dir);
    assert_eq!(s.builds(), 1);
}

#[test]
fn what_the_script_cannot_use_is_refused_and_nothing_is_cached() {
    let s = Setup::new();
    let url = s.src();
    let url = url.to_str().unwrap();
    for vars in [
        vec![("PROBITY_SOURCE_URL", url), ("PROBITY_SOURCE_REF", "-x")],
        vec![
            ("PROBITY_SOURCE_URL", url),
            ("PROBITY_SOURCE_REF", "no-such-branch"),
        ],
        vec![],
    ] {
        let o = s.run(&vars, &[]);
        assert_eq!(o.status.code(), Some(2), "{vars:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("probity-install: "),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(s.builds(), 0);
    let entries = std::fs::read_dir(s.cache()).map(|d| d.count()).unwrap_or(0);
    assert_eq!(entries, 0);
}

/// The job's working directory is the checkout under review: a
/// `rust-toolchain.toml` or `.cargo/config.toml` there would choose the
/// compiler (rustup's `path` toolchain) or a `rustc-wrapper`, so the
/// proposal would build the gate that judges it. The build runs in the
/// Probity source, never in the caller's directory, and a relative cache
/// directory still works.
#[test]
fn the_build_never_runs_in_the_checkout_under_review() {
    let s = Setup::new();
    let checkout = s.tmp.path().join("checkout");
    std::fs::create_dir_all(checkout.join(".cargo")).unwrap();
    std::fs::write(
        checkout.join("rust-toolchain.toml"),
        "[toolchain]\npath = \"./evil-toolchain\"\n",
    )
    .unwrap();
    std::fs::write(
        checkout.join(".cargo/config.toml"),
        "[build]\nrustc-wrapper = \"./evil-wrapper\"\n",
    )
    .unwrap();
    let src = s.src();
    let vars = [
        ("PROBITY_SOURCE_DIR", src.to_str().unwrap()),
        ("PROBITY_INSTALL_CACHE", "relative-cache"),
    ];
    let dir = stdout(&s.run_in(&checkout, &vars, &[]));
    assert_eq!(s.builds(), 1);
    let cwds = std::fs::read_to_string(s.tmp.path().join("cargo.log.cwd")).unwrap();
    let ran_in = std::fs::canonicalize(&src).unwrap();
    assert_eq!(cwds.trim(), ran_in.to_str().unwrap(), "cargo ran in {cwds}");
    assert!(Path::new(&dir).is_absolute(), "{dir}");
    assert!(Path::new(&dir).join("bin/probity").exists(), "{dir}");
    assert!(checkout.join("relative-cache").is_dir());
}
