//! Real Git servers (issue 21, "Real servers in the tests"): a bare
//! repository with the Probity server hook installed, served on 127.0.0.1
//! through `git http-backend` behind Apache (mod_cgi), and through
//! `git daemon --enable=receive-pack`, each on a free port; clones push to
//! it over the network: a reviewed commit (allowed, its note on the
//! server), an unreviewed one (denied), a reviewed stack, a commit rebased
//! after another clone's concurrent push, a notes-only push followed by
//! the plain push it vouches for, and a round of ten clones pushing at
//! once (no wrong allow, no lost note, no wrong refusal).
//!
//! Apache is found at `/usr/sbin/apache2` (or `PROBITY_APACHE`). When it is
//! missing the HTTP half is skipped and says so loudly on stderr, unless
//! `PROBITY_REAL_SERVERS=1` (set by `.ci/run`, which installs Apache) asks
//! for it: then a missing server fails the test. Every wait is bounded;
//! every server is stopped (its whole process group) on drop.

mod support;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Set (to `1`) where the real servers must run: a missing one fails.
const REQUIRED: &str = "PROBITY_REAL_SERVERS";
/// How long any one git or probity run may take before it is killed.
const RUN_SECS: u64 = 120;
/// The user Apache's children run as when the test runs as root (Apache
/// refuses to serve as root): Debian's web server user.
const WEB_USER: &str = "www-data";

fn required() -> bool {
    std::env::var(REQUIRED).is_ok_and(|v| v == "1")
}

/// Says loudly that a half of this suite did not run (or fails when
/// [`REQUIRED`] asks for it).
fn skip(what: &str, why: &str) {
    assert!(
        !required(),
        "{REQUIRED}=1 but {what} cannot run: {why} (.ci/run installs apache2)"
    );
    // Straight to the process's stderr: the test harness captures
    // `eprintln!` of a passing test, and this must be seen.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         SKIPPED: the real-server tests over {what} did not run: {why}.\n\
         Install it (Debian: apt-get install -y apache2) or set {REQUIRED}=1 to\n\
         make its absence a failure.\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
}

/// A free TCP port on 127.0.0.1 (bound, then released for the server).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn is_root() -> bool {
    // SAFETY: geteuid(2) has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A program's output under a watchdog: past `secs` its process group is
/// killed (it was started as a group leader) and the answer is an error.
fn bounded(cmd: &mut Command, secs: u64) -> Result<std::process::Output, String> {
    use std::os::unix::process::CommandExt;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = wait.recv_timeout(Duration::from_secs(secs)).is_err();
        if timed_out {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .status();
        }
        timed_out
    });
    let out = child.wait_with_output().map_err(|e| e.to_string());
    let _ = done.send(());
    if watchdog.join().unwrap_or(true) {
        return Err(format!("{cmd:?} ran over {secs} s and was killed"));
    }
    out
}

/// A clone's hermetic git (no global configuration, fixed identity),
/// bounded: Ok(stdout) or Err(stderr).
fn git(cwd: &Path, home: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = probity_testkit::git_env::git_command(cwd, Some(home));
    cmd.args(args);
    let out = bounded(&mut cmd, RUN_SECS)?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!("git {args:?}: {stderr}"))
    }
}

/// `probity --json --cwd <cwd> args...`, bounded.
fn probity_run(cwd: &Path, args: &[&str]) -> Run {
    let mut cmd = json_command(cwd, args);
    match bounded(&mut cmd, RUN_SECS) {
        Ok(out) => run_of(&out),
        Err(e) => panic!("probity {args:?}: {e}"),
    }
}

/// Which real server fronts the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Apache 2 running `git http-backend` as a CGI program.
    Http,
    /// `git daemon --enable=receive-pack`.
    Daemon,
}

/// A served bare repository with the Probity server hook, and the server
/// process (its own process group, stopped on drop).
struct Server {
    kind: Kind,
    dir: tempfile::TempDir,
    bare: PathBuf,
    url: String,
    child: Option<Child>,
    home: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let group = format!("-{}", child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // Whatever is left of the group (CGI children, daemon forks).
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = child.wait();
        if self.kind == Kind::Http && is_root() {
            // Files the web server user made, so the temporary directory
            // can go.
            let _ = Command::new("chown")
                .args(["-R", "root:root"])
                .arg(self.dir.path())
                .status();
        }
    }
}

impl Server {
    /// The base repository (`src/parser.rs` on `main`), bare, hooked,
    /// served by `kind`. None: the server program is missing (said
    /// loudly by [`skip`]).
    fn start(kind: Kind) -> Option<Server> {
        let apache = std::env::var_os("PROBITY_APACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/sbin/apache2"));
        let modules = Path::new("/usr/lib/apache2/modules");
        let daemon = PathBuf::from(
            git(Path::new("/"), Path::new("/"), &["--exec-path"]).unwrap_or_default(),
        )
        .join("git-daemon");
        match kind {
            Kind::Http if !apache.is_file() || !modules.join("mod_cgi.so").is_file() => {
                skip(
                    "Apache + git http-backend",
                    &format!("{} or its mod_cgi is missing", apache.display()),
                );
                return None;
            }
            Kind::Daemon if !daemon.is_file() => {
                skip("git daemon", &format!("{} is missing", daemon.display()));
                return None;
            }
            _ => {}
        }
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let srv = dir.path().join("srv");
        std::fs::create_dir(&srv).unwrap();
        let bare = srv.join("server.git");
        // The base history, pushed before the hook exists.
        let base = parser_base();
        let b = bare.to_str().unwrap();
        base.git(&["init", "-q", "--bare", "-b", "main", b])
            .unwrap();
        base.git(&["push", "-q", b, "main"]).unwrap();
        // Pushes over HTTP without authentication are refused unless the
        // repository allows them.
        base.git_in(&bare, &["config", "http.receivepack", "true"])
            .unwrap();
        // Installed as the administrator would, before the repository is
        // handed to the server's user (git refuses to work in a repository
        // another user owns, `probity hooks install` included): the install
        // checks that whoever runs git for it may execute the binary.
        let r = probity_run(&bare, &["hooks", "install", "--server"]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        let as_web_user = kind == Kind::Http && is_root();
        if as_web_user {
            // Served by the web server user: the repository is theirs (git
            // refuses a repository another user owns), and the path to it
            // is searchable.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            let owner = format!("{WEB_USER}:{WEB_USER}");
            let st = Command::new("chown")
                .args(["-R", &owner])
                .arg(&srv)
                .status()
                .unwrap();
            assert!(st.success(), "chown {owner}");
        }
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
        let mut cmd = match kind {
            Kind::Http => {
                let conf = dir.path().join("httpd.conf");
                let user = if as_web_user {
                    format!("User {WEB_USER}\nGroup {WEB_USER}\n")
                } else {
                    String::new()
                };
                let run = dir.path().join("run");
                std::fs::create_dir(&run).unwrap();
                let m = modules.display();
                std::fs::write(
                    &conf,
                    format!(
                        "ServerName 127.0.0.1\n\
                         ServerRoot {root}\n\
                         Listen 127.0.0.1:{port}\n\
                         PidFile {root}/httpd.pid\n\
                         DefaultRuntimeDir {run}\n\
                         ErrorLog {root}/error.log\n\
                         LogLevel warn\n\
                         LoadModule mpm_prefork_module {m}/mod_mpm_prefork.so\n\
                         LoadModule authz_core_module {m}/mod_authz_core.so\n\
                         LoadModule alias_module {m}/mod_alias.so\n\
                         LoadModule cgi_module {m}/mod_cgi.so\n\
                         LoadModule env_module {m}/mod_env.so\n\
                         {user}\
                         StartServers 2\n\
                         MaxRequestWorkers 40\n\
                         Timeout 60\n\
                         SetEnv GIT_PROJECT_ROOT {srv}\n\
                         SetEnv GIT_HTTP_EXPORT_ALL 1\n\
                         ScriptAlias /git/ {exec}/git-http-backend/\n\
                         <Directory \"{exec}\">\n  Require all granted\n</Directory>\n",
                        root = dir.path().display(),
                        run = run.display(),
                        srv = srv.display(),
                        exec = daemon.parent().unwrap().display(),
                    ),
                )
                .unwrap();
                let mut c = Command::new(&apache);
                c.arg("-f").arg(&conf).arg("-DFOREGROUND");
                c
            }
            Kind::Daemon => {
                let mut c = Command::new(&daemon);
                c.args([
                    "--reuseaddr",
                    "--listen=127.0.0.1",
                    &format!("--port={port}"),
                    "--export-all",
                    "--enable=receive-pack",
                    "--informative-errors",
                ])
                .arg(format!("--base-path={}", srv.display()))
                .arg(&srv);
                c
            }
        };
        use std::os::unix::process::CommandExt;
        let child = cmd
            .current_dir(dir.path())
            .env_remove("GIT_DIR")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        let url = match kind {
            Kind::Http => format!("http://127.0.0.1:{port}/git/server.git"),
            Kind::Daemon => format!("git://127.0.0.1:{port}/server.git"),
        };
        let mut server = Server {
            kind,
            dir,
            bare,
            url,
            child: Some(child),
            home,
        };
        server.wait_listening(port);
        Some(server)
    }

    /// Waits (bounded) until the server accepts connections.
    fn wait_listening(&mut self, port: u16) {
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let started = Instant::now();
        loop {
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("{:?} ended ({status}): {}", self.kind, self.logs());
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{:?} did not listen on {port} in 20 s: {}",
                self.kind,
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the server logged (for failure messages).
    fn logs(&self) -> String {
        let mut t = String::new();
        for name in ["server.log", "error.log"] {
            if let Ok(s) = std::fs::read_to_string(self.dir.path().join(name)) {
                t.push_str(&format!("\n--- {name}\n{s}"));
            }
        }
        t
    }

    /// `git args...` in the server's repository itself (its owner may be
    /// another user): its output, None when it fails.
    fn git_here(&self, args: &[&str]) -> Option<String> {
        let safe = format!("safe.directory={}", self.bare.display());
        let args = [&["-c", safe.as_str()], args].concat();
        git(&self.bare, self.home.path(), &args).ok()
    }

    /// A ref on the server, read from the repository itself.
    fn rev(&self, r: &str) -> Option<String> {
        self.git_here(&["rev-parse", "-q", "--verify", r])
    }

    /// The server's note on `commit`, if any.
    fn note(&self, commit: &str) -> Option<String> {
        self.git_here(&["notes", "--ref=probity", "show", commit])
    }

    /// A fresh clone of the served repository over the network.
    fn clone(&self, name: &str) -> Dev {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        git(
            dir.path(),
            home.path(),
            &["clone", "-q", &self.url, path.to_str().unwrap()],
        )
        .unwrap_or_else(|e| panic!("{e}{}", self.logs()));
        let c = Dev {
            _dir: dir,
            home,
            path,
            inputs: tempfile::tempdir().unwrap(),
        };
        // Who commits in this clone (the fixed dates stay: ids differ by
        // content and identity).
        c.git(&["config", "user.name", name]).unwrap();
        c.git(&["config", "user.email", &format!("{name}@probity.invalid")])
            .unwrap();
        c
    }
}

/// A developer clone of a served repository.
struct Dev {
    _dir: tempfile::TempDir,
    home: tempfile::TempDir,
    path: PathBuf,
    inputs: tempfile::TempDir,
}

impl Dev {
    fn git(&self, args: &[&str]) -> Result<String, String> {
        git(&self.path, self.home.path(), args)
    }

    fn rev(&self, r: &str) -> String {
        self.git(&["rev-parse", r]).unwrap()
    }

    /// Writes `rel` with `text`.
    fn write(&self, rel: &str, text: &str) {
        let p = self.path.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Reviews the live change to `approved` and commits it; answers the
    /// lineage.
    fn review_and_commit(&self, message: &str) -> String {
        let done = approve_live(&self.path, self.inputs.path());
        self.commit(message);
        done["lineage_id"].as_str().unwrap().to_string()
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]).unwrap();
        self.git(&["commit", "-q", "-m", message]).unwrap();
    }

    /// `probity push origin <refspec>`.
    fn probity_push(&self, refspec: &str) -> Run {
        probity_run(&self.path, &["push", "origin", refspec])
    }

    /// A plain `git push` (no client hook).
    fn plain_push(&self, args: &[&str]) -> Result<String, String> {
        let mut all = vec!["push", "-q", "--no-verify", "origin"];
        all.extend_from_slice(args);
        self.git(&all)
    }
}

/// `probity push main` from `c`: allowed, the server's `main` moves to
/// `c`'s `HEAD`, and the server's note on it names `lineage`.
fn pushed_with_its_note(s: &Server, c: &Dev, lineage: &str) {
    let tip = c.rev("HEAD");
    let p = c.probity_push("main");
    assert_eq!(p.code, 0, "{}{}{}", p.stdout, p.stderr, s.logs());
    assert_eq!(s.rev("refs/heads/main"), Some(tip.clone()));
    assert!(s.note(&tip).is_some_and(|n| n.contains(lineage)));
}

/// A reviewed commit pushes with `probity push`: allowed, the branch moves
/// and the note is on the server.
fn reviewed(s: &Server) {
    let c = s.clone("reviewed");
    c.write("src/reviewed.rs", "fn reviewed() {}\n");
    let lineage = c.review_and_commit("reviewed");
    pushed_with_its_note(s, &c, &lineage);
}

/// An unreviewed commit is denied by the server hook (a plain push that
/// bypasses every client hook) and refused by `probity push` before
/// anything is sent; the server is unchanged.
fn unreviewed(s: &Server) {
    let c = s.clone("unreviewed");
    let before = s.rev("refs/heads/main");
    c.write("src/unreviewed.rs", "fn unreviewed() {}\n");
    c.commit("unreviewed");
    let err = c.plain_push(&["main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(err.contains("probity pre-receive DENY"), "{err}");
    let p = c.probity_push("main");
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["error"]["code"], "push_denied", "{}", p.stdout);
    assert_eq!(s.rev("refs/heads/main"), before);
}

/// A stack of two reviewed commits is allowed in one push.
fn stack(s: &Server) {
    let c = s.clone("stack");
    c.write("src/stack_one.rs", "fn one() {}\n");
    let first = c.review_and_commit("first slice");
    c.write("src/stack_two.rs", "fn two() {}\n");
    let second = c.review_and_commit("second slice");
    pushed_with_its_note(s, &c, &second);
    assert!(s.note(&c.rev("HEAD~1")).is_some_and(|n| n.contains(&first)));
}

/// A reviewed commit rebased onto another clone's concurrent reviewed
/// push is allowed (the rebase proof, against the trees the review froze).
fn rebased(s: &Server) {
    let a = s.clone("rebased-a");
    let b = s.clone("rebased-b");
    a.write("src/rebased.rs", "fn rebased() {}\n");
    let lineage = a.review_and_commit("reviewed in A");
    b.write("docs/rebased.md", "# upstream\n");
    b.review_and_commit("reviewed in B, pushed first");
    let pb = b.probity_push("main");
    assert_eq!(pb.code, 0, "{}{}{}", pb.stdout, pb.stderr, s.logs());
    a.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    pushed_with_its_note(s, &a, &lineage);
}

/// The notes pushed alone (published first) are accepted without any
/// branch moving; the plain push of the branch after them is allowed.
fn notes_only(s: &Server) {
    let c = s.clone("notes");
    c.write("src/notes_only.rs", "fn notes_only() {}\n");
    let lineage = c.review_and_commit("reviewed, notes first");
    let tip = c.rev("HEAD");
    let before = s.rev("refs/heads/main");
    // Another clone's notes may be on the server: merged first.
    c.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/notes/probity:refs/notes/probity",
    ])
    .unwrap();
    let p = probity_run(&c.path, &["publish"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    c.plain_push(&["refs/notes/probity"])
        .unwrap_or_else(|e| panic!("{e}{}", s.logs()));
    assert_eq!(s.rev("refs/heads/main"), before, "a notes-only push");
    assert!(s.note(&tip).is_some_and(|n| n.contains(&lineage)));
    c.plain_push(&["main"])
        .unwrap_or_else(|e| panic!("{e}{}", s.logs()));
    assert_eq!(s.rev("refs/heads/main"), Some(tip));
}

/// Ten clones push at once: seven reviewed commits on their own branches
/// with `probity push` (retried, bounded, when another clone's notes
/// landed first: git's own non-fast-forward, never the gate), three
/// unreviewed ones with a plain push. No unreviewed branch reaches the
/// server (no wrong allow), every reviewed one does with its note (no
/// lost note), and the gate never denies a reviewed push (no wrong
/// refusal).
fn ten_clones_at_once(s: &Server) {
    const REVIEWED: usize = 7;
    const ALL: usize = 10;
    let clones: Vec<(Dev, String, Option<String>)> = (0..ALL)
        .map(|i| {
            let c = s.clone(&format!("c{i}"));
            let branch = format!("c{i}");
            c.git(&["checkout", "-q", "-b", &branch]).unwrap();
            c.write(&format!("src/c{i}.rs"), &format!("fn c{i}() {{}}\n"));
            let lineage = if i < REVIEWED {
                Some(c.review_and_commit(&format!("reviewed {i}")))
            } else {
                c.commit(&format!("unreviewed {i}"));
                None
            };
            (c, branch, lineage)
        })
        .collect();
    // Every pusher starts at the same moment.
    let start = std::sync::Barrier::new(ALL);
    let outcomes: Vec<Result<u32, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = clones
            .iter()
            .map(|(c, branch, lineage)| {
                let start = &start;
                scope.spawn(move || {
                    start.wait();
                    if lineage.is_none() {
                        return match c.plain_push(&[branch]) {
                            Ok(_) => Err(format!("{branch}: an unreviewed push was allowed")),
                            Err(e) if e.contains("receipt_missing") => Ok(0),
                            Err(e) => Err(format!("{branch}: refused for another reason: {e}")),
                        };
                    }
                    for attempt in 0..30u32 {
                        let p = c.probity_push(branch);
                        if p.code == 0 {
                            return Ok(attempt);
                        }
                        let said = format!("{}{}", p.stdout, p.stderr);
                        if said.contains("DENY") || said.contains("push_denied") {
                            return Err(format!("{branch}: a wrong refusal: {said}"));
                        }
                        // Another clone's notes landed between this one's
                        // merge and its push: git refuses the notes update
                        // (not a fast-forward), and the whole atomic push.
                        std::thread::sleep(Duration::from_millis(50 + 37 * u64::from(attempt)));
                    }
                    Err(format!("{branch}: still refused after 30 attempts"))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a pusher panicked".into())))
            .collect()
    });
    let failures: Vec<&String> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}{}", s.logs());
    let retries: u32 = outcomes.iter().flatten().sum();
    eprintln!(
        "{:?}: ten clones at once, {retries} retried push(es)",
        s.kind
    );
    for (c, branch, lineage) in &clones {
        let on_server = s.rev(&format!("refs/heads/{branch}"));
        match lineage {
            None => assert_eq!(on_server, None, "{branch}: a wrong allow"),
            Some(lineage) => {
                let tip = c.rev("HEAD");
                assert_eq!(on_server, Some(tip.clone()), "{branch}");
                assert!(
                    s.note(&tip).is_some_and(|n| n.contains(lineage)),
                    "{branch}: its note was lost"
                );
            }
        }
    }
}

/// Every scenario against one server kind, in order (each clones the
/// server as the previous one left it).
fn scenarios(kind: Kind) {
    let Some(s) = Server::start(kind) else {
        return;
    };
    reviewed(&s);
    unreviewed(&s);
    stack(&s);
    rebased(&s);
    notes_only(&s);
    ten_clones_at_once(&s);
}

#[test]
fn apache_with_git_http_backend_serves_the_gated_repository() {
    scenarios(Kind::Http);
}

#[test]
fn git_daemon_serves_the_gated_repository() {
    scenarios(Kind::Daemon);
}
