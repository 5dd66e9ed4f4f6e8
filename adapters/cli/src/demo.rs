//! `probity demo`: the five actions on a scratch repository, step by step.

use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use probity_core::review::lens::Lens;
use probity_git::{GitCli, Repo};
use probity_ports::review::{self as drivers, FinalizeInput, NamedInput, ReviewStore};
use probity_store::FileStore;

use crate::authority_cmd::{
    decision_json, finalize_json, human_decision, review_error, start_json,
};
use crate::clock::SystemClock;
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the scratch repository and print its path.
    #[arg(long)]
    pub keep: bool,
}

fn io_err(what: &str) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |e| {
        CliError::new(
            ErrorKind::Io,
            "demo_io",
            format!("{what}: {e}"),
            "check that the temp directory is writable",
        )
    }
}

fn git_err(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "install git 2.41 or newer",
    )
}

fn write(root: &Path, rel: &str, text: &str) -> Result<(), CliError> {
    let p = root.join(rel);
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir).map_err(io_err(rel))?;
    }
    std::fs::write(&p, text).map_err(io_err(rel))
}

const PARSER_V1: &str =
    "//! A tiny parser.\n\npub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').collect()\n}\n";
const PARSER_V2: &str = "//! A tiny parser.\n\npub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').map(str::trim).collect()\n}\n\n/// Counts fields.\npub fn count(s: &str) -> usize {\n    parse(s).len()\n}\n";
const PARSER_TEST: &str =
    "#[test]\nfn trims() {\n    assert_eq!(crate::parser::parse(\"a, b\"), [\"a\", \"b\"]);\n}\n";

/// Steps are printed as they happen (human) or collected (JSON).
struct Steps {
    out: Output,
    steps: Vec<Value>,
}

impl Steps {
    fn step(&mut self, n: usize, title: &str, value: Value, human: String) {
        if self.out.json {
            self.steps
                .push(json!({"step": n, "title": title, "result": value}));
        } else {
            println!("== {n}. {title}\n{human}");
        }
    }
}

pub fn run(out: Output, args: &DemoArgs) -> Result<ExitCode, CliError> {
    let dir = tempfile::Builder::new()
        .prefix("probity-demo-")
        .tempdir()
        .map_err(io_err("temp dir"))?;
    let root = dir.path().to_path_buf();
    let git = GitCli::default();
    git.ensure_supported().map_err(git_err)?;
    let run_git = |a: &[&str]| git.run(&root, a).map_err(git_err);
    run_git(&["init", "-q", "-b", "main"])?;
    for (k, v) in [
        ("user.name", "Probity Demo"),
        ("user.email", "demo@probity.invalid"),
        ("commit.gpgsign", "false"),
    ] {
        run_git(&["config", k, v])?;
    }
    write(&root, "src/parser.rs", PARSER_V1)?;
    write(&root, "README.md", "# demo\n")?;
    write(&root, ".gitignore", "target/\n")?;
    run_git(&["add", "-A"])?;
    run_git(&["commit", "-q", "-m", "base"])?;
    // The change under review: an edit and an intended untracked file, plus
    // ignored build output that must stay out of the candidate.
    write(&root, "src/parser.rs", PARSER_V2)?;
    write(&root, "src/parser_test.rs", PARSER_TEST)?;
    write(&root, "target/debug/output.bin", "build output\n")?;

    let repo = Repo::discover(git.clone(), &root).map_err(git_err)?;
    let store = FileStore::for_common_dir(repo.common_dir());
    let mut s = Steps {
        out,
        steps: Vec::new(),
    };

    // 1. start
    let started =
        drivers::start(&repo, &store, &SystemClock, Lens::Reliability).map_err(review_error)?;
    let st = &started.record.state;
    s.step(
        1,
        "probity start: freeze the candidate",
        start_json(&started.record, false),
        format!(
            "lineage {} | risk {} | lenses [{}] | {} file(s), {} line(s), budget {}\nintended untracked: {}\nbinding: {}\n",
            st.lineage_id,
            st.frozen.risk_level.name(),
            st.frozen.selected_lenses.iter().map(|l| l.name()).collect::<Vec<_>>().join(", "),
            st.frozen.changed_files,
            st.frozen.authored_lines,
            st.frozen.correction_budget,
            st.snapshot.intended_untracked.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", "),
            st.lens_bindings().first().map(|b| b.binding.as_str()).unwrap_or("(no lens)"),
        ),
    );

    // 2. the lens (scripted here; a model or a person in real use)
    let lens_result = json!({
        "findings": [{
            "location": "src/parser.rs:4",
            "severity": "SUGGESTION",
            "claim": "parse could reserve capacity for the fields",
            "proof_refs": ["src/parser.rs:4 collects without a size hint"]
        }],
        "evidence": ["read the whole candidate diff of src/parser.rs and src/parser_test.rs"]
    });
    let lens_bytes = serde_json::to_vec_pretty(&lens_result)
        .map_err(|e| io_err("lens result")(std::io::Error::other(e)))?;
    s.step(
        2,
        "run the reliability lens once (scripted in this demo)",
        lens_result.clone(),
        format!("{}\n", String::from_utf8_lossy(&lens_bytes)),
    );

    // 3. independent evidence (a real check here: the test file exists and
    // names the function it tests)
    let test_src =
        std::fs::read_to_string(root.join("src/parser_test.rs")).map_err(io_err("evidence"))?;
    let evidence = format!(
        "demo check: src/parser_test.rs present ({} bytes), exercises parse: {}\n",
        test_src.len(),
        test_src.contains("parse(")
    );
    s.step(
        3,
        "produce independent evidence",
        json!({"evidence": evidence}),
        evidence.clone(),
    );

    // 4. finalize
    let done = drivers::finalize(
        &repo,
        &store,
        FinalizeInput {
            lineage: None,
            results: vec![NamedInput {
                name: "reliability.json".into(),
                bytes: lens_bytes,
            }],
            evidence: Some(NamedInput {
                name: "evidence.txt".into(),
                bytes: evidence.into_bytes(),
            }),
            refuter: None,
            correction_lines: None,
            validation: None,
        },
    )
    .map_err(review_error)?;
    let receipt = store
        .read_receipt(&done.record.state.lineage_id)
        .map_err(|e| review_error(e.into()))?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    s.step(
        4,
        "probity finalize: judgment becomes authority",
        json!({"finalize": finalize_json(&done.record, done.receipt_location.as_deref()), "receipt": serde_json::from_str::<Value>(&receipt).unwrap_or(Value::Null)}),
        format!("{} is {}\nreceipt: {receipt}", done.record.state.lineage_id, done.record.state.stage.name()),
    );

    // 5. validate, then watch it follow the live candidate
    let mut gate = |n: usize, title: &str| -> Result<(), CliError> {
        let d = drivers::validate_pre_commit(&repo, &store).map_err(review_error)?;
        s.step(n, title, decision_json(&d), human_decision(&d));
        Ok(())
    };
    gate(5, "probity validate --gate pre-commit")?;
    run_git(&["add", "-A"])?;
    gate(
        6,
        "stage the same content (a representation change, not drift)",
    )?;
    write(
        &root,
        "src/parser.rs",
        &PARSER_V2.replace("Counts fields.", "Counts the fields."),
    )?;
    gate(7, "edit a comment in a reviewed file")?;
    write(&root, "src/parser.rs", PARSER_V2)?;
    write(&root, "docs/notes.md", "unrelated notes\n")?;
    gate(8, "restore it, and add unrelated new work")?;

    if out.json {
        let mut v = json!({"steps": s.steps});
        if args.keep {
            v["repository"] = json!(root.display().to_string());
        }
        out.answer(&v, String::new);
    }
    if args.keep {
        let kept = dir.keep();
        if !out.json {
            println!("scratch repository kept at {}", kept.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
