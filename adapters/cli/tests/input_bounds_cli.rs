//! Issue 23 §2: every input file a user can name, one row per flag (or
//! configuration key naming a file), crossed with every shape a path can
//! take: a regular file, a FIFO, `/dev/zero`, a directory, a symbolic link
//! to each, a huge sparse file past every bound, and a missing path. Each
//! answer is a typed refusal (or, for a regular file, the document's own
//! answer), never a hang: every run is under a watchdog that kills it after
//! 10 s, which fails the row. Nothing changes on disk: the store is
//! compared byte for byte, and the inputs' directory gains no file.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use support::fifo::mkfifo;
use support::{
    allowed, approve_live, input, keygen, medium_change, probity, probity_bounded, store_snapshot,
    string_at,
};

/// How long one run may take before the watchdog kills it (a failure).
const WATCHDOG_SECS: u64 = 10;

/// The shapes a named path can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A regular file whose bytes are not the document (a typed answer
    /// about the content: the file was read).
    Regular,
    Fifo,
    DevZero,
    Directory,
    LinkToRegular,
    LinkToFifo,
    LinkToDevZero,
    LinkToDirectory,
    /// A sparse file of 4 GiB: past every bound.
    Huge,
    Missing,
}

const SHAPES: [Shape; 10] = [
    Shape::Regular,
    Shape::Fifo,
    Shape::DevZero,
    Shape::Directory,
    Shape::LinkToRegular,
    Shape::LinkToFifo,
    Shape::LinkToDevZero,
    Shape::LinkToDirectory,
    Shape::Huge,
    Shape::Missing,
];

/// The paths of every shape, made once in `dir`.
struct Paths {
    dir: PathBuf,
}

impl Paths {
    fn new(dir: &Path) -> Self {
        let dir = dir.join("shapes");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("regular"), b"this is not the document asked for\n").unwrap();
        mkfifo(&dir.join("fifo"));
        std::fs::create_dir(dir.join("directory")).unwrap();
        std::os::unix::fs::symlink(dir.join("regular"), dir.join("link-regular")).unwrap();
        std::os::unix::fs::symlink(dir.join("fifo"), dir.join("link-fifo")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("link-zero")).unwrap();
        std::os::unix::fs::symlink(dir.join("directory"), dir.join("link-directory")).unwrap();
        std::fs::File::create(dir.join("huge"))
            .unwrap()
            .set_len(4 << 30)
            .unwrap();
        Self { dir }
    }

    fn path(&self, shape: Shape) -> String {
        let name = match shape {
            Shape::Regular => "regular",
            Shape::Fifo => "fifo",
            Shape::DevZero => return "/dev/zero".into(),
            Shape::Directory => "directory",
            Shape::LinkToRegular => "link-regular",
            Shape::LinkToFifo => "link-fifo",
            Shape::LinkToDevZero => "link-zero",
            Shape::LinkToDirectory => "link-directory",
            Shape::Huge => "huge",
            Shape::Missing => "missing",
        };
        self.dir.join(name).display().to_string()
    }

    /// The names in the shapes' directory (none may appear or vanish).
    fn listing(&self) -> BTreeSet<String> {
        std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }
}

/// The codes a refusal of the path itself answers.
const PATH_CODES: [&str; 3] = ["input_not_regular", "input_too_large", "unreadable_input"];

/// What a shape must answer for an input whose missing path has its own
/// code (`missing`), or `unreadable_input` when it has none.
fn want(shape: Shape, missing: &str) -> Option<&str> {
    match shape {
        Shape::Regular | Shape::LinkToRegular => None,
        Shape::Fifo
        | Shape::DevZero
        | Shape::Directory
        | Shape::LinkToFifo
        | Shape::LinkToDevZero
        | Shape::LinkToDirectory => Some("input_not_regular"),
        Shape::Huge => Some("input_too_large"),
        Shape::Missing => Some(missing),
    }
}

/// The arguments naming a path, and the git configuration set first.
type ArgsOf = dyn Fn(&str) -> (Vec<String>, Vec<(String, String)>);

/// One input a user can name: how to pass a path to it.
struct Row {
    name: &'static str,
    /// The code a missing path answers (`None`: a missing path is made,
    /// as the flag documents).
    missing: Option<&'static str>,
    /// The environment the command needs to reach its inputs.
    env: Vec<(&'static str, &'static str)>,
    /// The arguments naming `path`, and the configuration to set first.
    args: Box<ArgsOf>,
}

fn row(
    name: &'static str,
    missing: &'static str,
    args: impl Fn(&str) -> Vec<String> + 'static,
) -> Row {
    Row {
        name,
        missing: Some(missing),
        env: Vec::new(),
        args: Box::new(move |p| (args(p), Vec::new())),
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Runs every row over every shape in `f`, checking each answer.
fn check_rows(f: &Fixture, paths: &Paths, rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    let before = store_snapshot(f);
    let listing = paths.listing();
    for row in rows {
        for shape in SHAPES {
            if shape == Shape::Missing && row.missing.is_none() {
                continue;
            }
            let missing = row.missing.unwrap_or_default();
            let path = paths.path(shape);
            let (args, config) = (row.args)(&path);
            for (k, v) in &config {
                f.git(&["config", k, v]).unwrap();
            }
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let r = probity_bounded(f.root(), &argv, &row.env, WATCHDOG_SECS);
            for (k, _) in &config {
                f.git(&["config", "--unset", k]).unwrap();
            }
            // An error's code, or a gate's reason for a denial (exit 1).
            let got = r.json["error"]["code"]
                .as_str()
                .or(r.json["reason_code"].as_str())
                .unwrap_or_default();
            let what = format!("{} / {shape:?}", row.name);
            if r.code == -1 {
                failures.push(format!(
                    "{what}: killed by the watchdog after {WATCHDOG_SECS} s"
                ));
                continue;
            }
            match want(shape, missing) {
                Some(code) if got != code || r.code != exit_of(code) => failures.push(format!(
                    "{what}: want {code} (exit {}), got {got:?} (exit {}): {}{}",
                    exit_of(code),
                    r.code,
                    r.stdout,
                    r.stderr
                )),
                None if r.code == 0 || got.is_empty() || PATH_CODES.contains(&got) => {
                    failures.push(format!(
                        "{what}: want the document's own typed refusal, got {got:?} (exit {}): {}{}",
                        r.code, r.stdout, r.stderr
                    ))
                }
                _ => {}
            }
            if store_snapshot(f) != before {
                failures.push(format!("{what}: the store changed"));
            }
            if paths.listing() != listing {
                failures.push(format!("{what}: the inputs' directory changed"));
            }
        }
    }
    failures
}

/// Every refusal here is a rejected input: exit 3 (docs/errors.md).
fn exit_of(_code: &str) -> i32 {
    3
}

/// A model that is configured but answers nothing (nothing listens on
/// port 9): a command that needs one reaches its inputs.
const MODEL_ENV: [(&str, &str); 3] = [
    ("PROBITY_MODEL_BASE_URL", "http://127.0.0.1:9"),
    ("PROBITY_MODEL", "none"),
    ("PROBITY_MODEL_API_KEY", "none"),
];

#[test]
fn every_named_input_is_a_typed_refusal_at_once_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = Paths::new(tmp.path());
    let mut failures = Vec::new();

    // A repository with an approved, signed lineage: the signature inputs,
    // bundles, envelopes and the documents of commands that need no review.
    let f = medium_change();
    let done = approve_live(f.root(), tmp.path());
    let lineage = string_at(&done, "lineage_id");
    let key = keygen(tmp.path(), "alice");
    f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
        .unwrap();
    let signed = probity(f.root(), &["attest", "--lineage", &lineage, "--sign"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let envelope = input(tmp.path(), "envelope.json", &signed.stdout);
    let signers = allowed(tmp.path(), &[("alice@example.com", &key)]);
    f.git(&["config", "--unset", "probity.signingKey"]).unwrap();
    let head = f.git(&["rev-parse", "HEAD"]).unwrap();
    let head = String::from_utf8(head).unwrap().trim().to_string();
    let out_dir = tmp.path().join("never-made");
    let out_dir = out_dir.display().to_string();

    let l = lineage.clone();
    let e = envelope.clone();
    let rows = vec![
        Row {
            name: "probity.signingKey (attest --sign)",
            missing: Some("signing_key_not_found"),
            env: Vec::new(),
            args: Box::new(move |p| {
                (
                    strings(&["attest", "--lineage", &l, "--sign"]),
                    vec![("probity.signingKey".into(), p.into())],
                )
            }),
        },
        row(
            "attest verify --allowed-signers",
            "allowed_signers_not_found",
            {
                let e = e.clone();
                move |p| strings(&["attest", "verify", "--envelope", &e, "--allowed-signers", p])
            },
        ),
        Row {
            name: "probity.allowedSignersFile (attest verify)",
            missing: Some("allowed_signers_not_found"),
            env: Vec::new(),
            args: Box::new({
                let e = e.clone();
                move |p| {
                    (
                        strings(&["attest", "verify", "--envelope", &e]),
                        vec![("probity.allowedSignersFile".into(), p.into())],
                    )
                }
            }),
        },
        row("attest verify --envelope", "unreadable_input", {
            let s = signers.display().to_string();
            move |p| strings(&["attest", "verify", "--envelope", p, "--allowed-signers", &s])
        }),
        row("bundle import", "unreadable_input", |p| {
            strings(&["bundle", "import", p])
        }),
        row(
            "validate release --checksums",
            "unreadable_input",
            move |p| strings(&["validate", "release", "--revision", &head, "--checksums", p]),
        ),
        row("context assemble --input", "unreadable_input", {
            let o = out_dir.clone();
            move |p| strings(&["context", "assemble", "--input", p, "--out", &o])
        }),
        Row {
            env: vec![("PROBITY_TEST_FORGE_TOKEN", "tok-none")],
            ..row("context fetch --profile", "unreadable_input", {
                let o = out_dir.clone();
                move |p| {
                    strings(&[
                        "context",
                        "fetch",
                        "--forge",
                        "github",
                        "--host",
                        "github.com",
                        "--api-base",
                        "http://127.0.0.1:9",
                        "--token-env",
                        "PROBITY_TEST_FORGE_TOKEN",
                        "--repo",
                        "o/r",
                        "--change",
                        "1",
                        "--out",
                        &o,
                        "--profile",
                        p,
                    ])
                }
            })
        },
        row("context run --input", "unreadable_input", |p| {
            strings(&["context", "run", "--input", p, "--", "true"])
        }),
        row("snapshot --config", "unreadable_input", |p| {
            strings(&["snapshot", "list", "--subject", "index", "--config", p, "."])
        }),
        Row {
            missing: None,
            ..row("snapshot --budget-file", "", |p| {
                strings(&[
                    "snapshot",
                    "list",
                    "--subject",
                    "index",
                    "--budget-file",
                    p,
                    ".",
                ])
            })
        },
        Row {
            env: MODEL_ENV.to_vec(),
            ..row("review --prompt", "unreadable_input", |p| {
                strings(&["review", "--subject", "index", "--prompt", p])
            })
        },
        Row {
            env: MODEL_ENV.to_vec(),
            ..row("review --config", "unreadable_input", {
                let prompt = input(tmp.path(), "prompt.txt", "review this\n");
                move |p| {
                    strings(&[
                        "review",
                        "--subject",
                        "index",
                        "--prompt",
                        &prompt,
                        "--config",
                        p,
                    ])
                }
            })
        },
        row("mcp --config", "unreadable_input", |p| {
            strings(&["mcp", "--subject", "index", "--config", p])
        }),
    ];
    failures.extend(check_rows(&f, &paths, &rows));

    // A started review: the role documents and evidence.
    let g = medium_change();
    let st = probity(g.root(), &["start"]);
    assert_eq!(st.code, 0, "{}", st.stderr);
    let rows = vec![
        row("finalize --result", "unreadable_input", |p| {
            strings(&["finalize", "--result", p])
        }),
        row("finalize --result LENS=FILE", "unreadable_input", |p| {
            strings(&["finalize", "--result", &format!("reliability={p}")])
        }),
        row("finalize --refuter", "unreadable_input", |p| {
            strings(&["finalize", "--refuter", p])
        }),
        row("finalize --validation", "unreadable_input", |p| {
            strings(&["finalize", "--validation", p])
        }),
        row("finalize --evidence", "unreadable_input", |p| {
            strings(&["finalize", "--evidence", p])
        }),
        row("lens submit", "unreadable_input", |p| {
            strings(&["lens", "submit", "--lens", "reliability", p])
        }),
        row("lens replay", "unreadable_input", |p| {
            strings(&["lens", "replay", p])
        }),
    ];
    failures.extend(check_rows(&g, &paths, &rows));

    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
