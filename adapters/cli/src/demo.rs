//! `probity demo`: the five actions on a scratch repository, step by step.
//!
//! `--scenario ordinary` (default) shows the clean path and the gate
//! following the live candidate; `--scenario correction` shows a
//! candidate-causal blocker corrected inside its budget; `--scenario
//! server` pushes to a scratch bare repository whose server-side hook
//! (`probity validate --gate pre-receive`) denies an unreviewed
//! `--no-verify` push and allows the reviewed one with its notes;
//! `--scenario model` lets a built-in scripted model (no network) judge
//! through `probity review`: a BLOCKER, the fixer's hand-off, the targeted
//! validator, the independent check and approval.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;
use serde_json::Value;

use probity_core::review::Lens;
use probity_git::{GitCli, Repo};
use probity_ports::review::{
    self as drivers, EvidenceInput, FinalizeInput, LensResultInput, NamedInput, ReceiptStore,
};
use probity_store::FileStore;

use crate::authority_cmd::{
    DecisionView, FinalizeAnswer, StartAnswer, human_decision, review_error,
};
use crate::clock::SystemClock;
use crate::output::{CliError, ErrorKind, Output, value_of, wire_name};
use crate::scripted_model::{ScriptedFinding, ScriptedModel};

/// Which story the demo tells.
#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum Scenario {
    /// Clean review, then the gate after staging, a comment edit and unrelated work.
    #[default]
    Ordinary,
    /// A candidate-causal blocker, a forecast, a Git-measured fix, approval.
    Correction,
    /// A bare repository's server hook denies an unreviewed `--no-verify`
    /// push and allows the reviewed one with its notes.
    Server,
    /// The model judges inside the lifecycle: a built-in scripted model
    /// (no network) runs the lens over the frozen tree and reports a
    /// BLOCKER; the fixer gets the hand-off, corrects, the targeted
    /// validator runs, the independent check runs, approval.
    Model,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The scenario to run.
    #[arg(long, value_enum, default_value = "ordinary")]
    pub scenario: Scenario,
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
const PARSER_BUGGY: &str = "//! A tiny parser.\n\npub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').map(str::trim).collect()\n}\n\n/// Counts fields.\npub fn count(s: &str) -> usize {\n    parse(s).len() + 1\n}\n";
const PARSER_TEST: &str =
    "#[test]\nfn trims() {\n    assert_eq!(crate::parser::parse(\"a, b\"), [\"a\", \"b\"]);\n}\n";

/// Steps are printed as they happen (human) or collected (JSON).
struct Steps {
    out: Output,
    steps: Vec<Step>,
}

/// One step of the `--json` answer: its number, title and result.
#[derive(Debug, Serialize)]
struct Step {
    step: usize,
    title: String,
    /// The step's own typed answer, held as a value so the steps of one
    /// demo sit in one list.
    result: Value,
}

/// The `probity demo --json` answer.
#[derive(Debug, Serialize)]
struct DemoAnswer<'a> {
    scenario: String,
    steps: &'a [Step],
    /// With `--keep`: the scratch repository kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<String>,
}

/// A `finalize` step: its answer, and with a receipt, the receipt file
/// as stored (`null` if it is not JSON).
#[derive(Debug, Serialize)]
struct FinalizeStep<'a> {
    finalize: &'a FinalizeAnswer<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    receipt: Option<Value>,
}

/// The independent evidence a scripted step produced.
#[derive(Debug, Serialize)]
struct EvidenceStep<'a> {
    evidence: &'a str,
}

/// The paths a scripted correction edited.
#[derive(Debug, Serialize)]
struct EditedStep {
    edited: &'static [&'static str],
}

/// The server hook installed.
#[derive(Debug, Serialize)]
struct HookStep {
    hook: String,
}

/// A `git push --no-verify`: whether the server accepted, and what it
/// said.
#[derive(Debug, Serialize)]
struct PushStep<'a> {
    accepted: bool,
    remote: &'a [String],
}

/// The notes `publish` wrote.
#[derive(Debug, Serialize)]
struct PublishStep<'a> {
    written: Vec<WrittenNote<'a>>,
}

/// One delivery commit whose note gained a lineage's bundle.
#[derive(Debug, Serialize)]
struct WrittenNote<'a> {
    commit: &'a probity_core::review::CommitId,
    lineage_id: &'a probity_core::review::LineageId,
}

impl Steps {
    fn step(&mut self, title: &str, value: &(impl Serialize + ?Sized), human: String) {
        let n = self.steps.len() + 1;
        if !self.out.json {
            crate::output::emit(&format!("== {n}. {title}\n{human}\n"));
        }
        self.steps.push(Step {
            step: n,
            title: title.to_string(),
            result: value_of(value),
        });
    }
}

/// A scratch repository (`work/`) with one commit, pushed to a bare
/// `origin.git/` beside it.
struct Scratch {
    dir: tempfile::TempDir,
    /// Removes it if the run is interrupted (its drop does otherwise).
    registered: Vec<probity_scratch::Registered>,
    git: GitCli,
}

impl Scratch {
    fn new() -> Result<Self, CliError> {
        // Made and registered in one step: an interrupted demo removes it
        // with everything its gits wrote there (they are stopped first).
        let (dir, registered) = probity_scratch::registry::make(|| {
            let dir = tempfile::Builder::new().prefix("probity-demo-").tempdir()?;
            let entry = probity_scratch::registry::Entry::Artifact(dir.path().to_path_buf());
            Ok((dir, vec![entry]))
        })
        .map_err(io_err("temp dir"))?;
        let git = GitCli::default();
        git.ensure_supported().map_err(git_err)?;
        let s = Self {
            dir,
            registered,
            git,
        };
        std::fs::create_dir(s.root()).map_err(io_err("scratch work tree"))?;
        s.git(&["init", "-q", "-b", "main"])?;
        for (k, v) in [
            ("user.name", "Probity Demo"),
            ("user.email", "demo@probity.invalid"),
            ("commit.gpgsign", "false"),
            // The scratch repository's own hooks directory: a global
            // `core.hooksPath` must not run the user's hooks here.
            ("core.hooksPath", ".git/hooks"),
        ] {
            s.git(&["config", k, v])?;
        }
        write(&s.root(), "src/parser.rs", PARSER_V1)?;
        write(&s.root(), "README.md", "# demo\n")?;
        write(&s.root(), ".gitignore", "target/\n")?;
        s.git(&["add", "-A"])?;
        s.git(&["commit", "-q", "-m", "base"])?;
        let origin = s.dir.path().join("origin.git");
        let origin = origin.to_string_lossy();
        s.git(&["init", "-q", "--bare", "-b", "main", &origin])?;
        s.git(&["remote", "add", "origin", &origin])?;
        s.git(&["push", "-q", "origin", "main"])?;
        Ok(s)
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>, CliError> {
        self.git.run(&self.root(), args).map_err(git_err)
    }
}

fn named(name: &str, bytes: impl Into<Vec<u8>>) -> NamedInput {
    NamedInput {
        name: name.into(),
        bytes: bytes.into(),
    }
}

fn to_bytes(v: &impl Serialize) -> Vec<u8> {
    // Plain structs of strings and booleans: serializing cannot fail.
    serde_json::to_vec_pretty(v).unwrap_or_default()
}

/// A lens result as the scripted lens writes it. The fields are in
/// alphabetical order, the order its bytes have always had.
#[derive(Debug, Serialize)]
struct LensResultDoc {
    evidence: &'static [&'static str],
    findings: &'static [FindingDoc],
}

/// One finding of a scripted lens result.
#[derive(Debug, Serialize)]
struct FindingDoc {
    #[serde(skip_serializing_if = "Option::is_none")]
    causal_disposition: Option<&'static str>,
    claim: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence_class: Option<&'static str>,
    location: &'static str,
    proof_refs: &'static [&'static str],
    severity: &'static str,
}

/// A targeted validator's result as the scripted validator writes it
/// (alphabetical, as its bytes have always been).
#[derive(Debug, Serialize)]
struct ValidationDoc {
    correction_regression: CriterionDoc,
    follow_ups: &'static [&'static str],
    original_criteria: CriterionDoc,
}

/// One criterion of a validator's result.
#[derive(Debug, Serialize)]
struct CriterionDoc {
    evidence: &'static [&'static str],
    passed: bool,
}

/// What the clean-path lens reports: one suggestion.
const ORDINARY_RESULT: LensResultDoc = LensResultDoc {
    evidence: &["read the whole candidate diff of src/parser.rs and src/parser_test.rs"],
    findings: &[FindingDoc {
        causal_disposition: None,
        claim: "parse could reserve capacity for the fields",
        evidence_class: None,
        location: "src/parser.rs:4",
        proof_refs: &["src/parser.rs:4 collects without a size hint"],
        severity: "SUGGESTION",
    }],
};

/// What the correction scenario's lens reports: a candidate-causal blocker.
const BLOCKER_RESULT: LensResultDoc = LensResultDoc {
    evidence: &["ran count(\"a,b\") against the candidate"],
    findings: &[FindingDoc {
        causal_disposition: Some("introduced"),
        claim: "count is off by one",
        evidence_class: Some("deterministic"),
        location: "src/parser.rs:9",
        proof_refs: &["count(\"a,b\") returns 3 on the candidate; the base has no count"],
        severity: "BLOCKER",
    }],
};

/// What the server scenario's lens reports: nothing.
const CLEAN_RESULT: LensResultDoc = LensResultDoc {
    evidence: &["read the whole candidate diff of src/parser.rs and src/parser_test.rs"],
    findings: &[],
};

/// The validator's pass of the corrected count.
const PASSED_VALIDATION: ValidationDoc = ValidationDoc {
    correction_regression: CriterionDoc {
        evidence: &["parse tests still pass"],
        passed: true,
    },
    follow_ups: &[],
    original_criteria: CriterionDoc {
        evidence: &["count(\"a,b\") returns 2"],
        passed: true,
    },
};

fn start_step(s: &mut Steps, repo: &Repo, store: &FileStore) -> Result<(), CliError> {
    let started =
        drivers::start(repo, store, &SystemClock, Lens::Reliability).map_err(review_error)?;
    let st = started.record.state();
    s.step(
        "probity start: freeze the candidate",
        &StartAnswer::of(&started.record, false),
        format!(
            "lineage {} | risk {} | lenses [{}] | {} file(s), {} line(s), budget {}\nintended untracked: {}\nbinding: {}\n",
            st.lineage_id(),
            st.frozen().risk_level.name(),
            st.frozen().selected_lenses.iter().map(|l| l.name()).collect::<Vec<_>>().join(", "),
            st.frozen().changed_files,
            st.frozen().authored_lines,
            st.frozen().correction_budget,
            st.snapshot().intended_untracked.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", "),
            st.lens_bindings().first().map(|b| b.binding.as_str()).unwrap_or("(no lens)"),
        ),
    );
    Ok(())
}

fn finalize_step(
    s: &mut Steps,
    title: &str,
    repo: &Repo,
    store: &FileStore,
    input: FinalizeInput,
) -> Result<drivers::Finalized, CliError> {
    let done = drivers::finalize(repo, store, input).map_err(review_error)?;
    let answer = FinalizeAnswer::of(&done.record, done.receipt_location.as_deref());
    let mut human = format!(
        "{} is {} | next: {}\n",
        answer.lineage_id,
        answer.state,
        wire_name(answer.action)
    );
    human.push_str(&answer.human_findings());
    if answer.charged_lines > 0 {
        human.push_str(&format!(
            "  charged {} of {} budget lines (measured by Git)\n",
            answer.charged_lines, answer.correction_budget
        ));
    }
    let mut value = FinalizeStep {
        finalize: &answer,
        receipt: None,
    };
    if done.receipt_location.is_some() {
        let receipt = store
            .read_receipt(done.record.state().lineage_id())
            .map_err(|e| review_error(e.into()))?
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        human.push_str(&format!("  receipt: {receipt}"));
        value.receipt = Some(serde_json::from_str(&receipt).unwrap_or(Value::Null));
    }
    s.step(title, &value, human);
    Ok(done)
}

fn gate_step(s: &mut Steps, title: &str, repo: &Repo, store: &FileStore) -> Result<(), CliError> {
    let d = drivers::validate_pre_commit(repo, store, &drivers::Delivery::Worktree)
        .map_err(review_error)?;
    s.step(title, &DecisionView::of(&d), human_decision(&d));
    Ok(())
}

fn ordinary(
    s: &mut Steps,
    scratch: &Scratch,
    repo: &Repo,
    store: &FileStore,
) -> Result<(), CliError> {
    let root = &scratch.root();
    start_step(s, repo, store)?;
    let lens_result = ORDINARY_RESULT;
    s.step(
        "run the reliability lens once (scripted in this demo)",
        &lens_result,
        format!("{}\n", String::from_utf8_lossy(&to_bytes(&lens_result))),
    );
    let test_src =
        std::fs::read_to_string(root.join("src/parser_test.rs")).map_err(io_err("evidence"))?;
    let evidence = format!(
        "demo check: src/parser_test.rs present ({} bytes), exercises parse: {}\n",
        test_src.len(),
        test_src.contains("parse(")
    );
    s.step(
        "produce independent evidence",
        &EvidenceStep {
            evidence: &evidence,
        },
        evidence.clone(),
    );
    finalize_step(
        s,
        "probity finalize: judgment becomes authority",
        repo,
        store,
        FinalizeInput {
            results: vec![LensResultInput::named(
                Lens::Reliability,
                named("reliability.json", to_bytes(&lens_result)),
            )],
            evidence: Some(EvidenceInput::Bytes(named("evidence.txt", evidence))),
            ..Default::default()
        },
    )?;
    gate_step(s, "probity validate --gate pre-commit", repo, store)?;
    scratch.git(&["add", "-A"])?;
    gate_step(
        s,
        "stage the same content (a representation change, not drift)",
        repo,
        store,
    )?;
    write(
        root,
        "src/parser.rs",
        &PARSER_V2.replace("Counts fields.", "Counts the fields."),
    )?;
    gate_step(s, "edit a comment in a reviewed file", repo, store)?;
    write(root, "src/parser.rs", PARSER_V2)?;
    write(root, "docs/notes.md", "unrelated notes\n")?;
    gate_step(s, "restore it, and add unrelated new work", repo, store)?;
    std::fs::remove_file(root.join("docs/notes.md")).map_err(io_err("docs/notes.md"))?;
    scratch.git(&["add", "-A"])?;
    scratch.git(&["commit", "-q", "-m", "parser: trim fields and count them"])?;
    push_step(
        s,
        "drop the notes, commit the approved candidate: probity validate --gate pre-push",
        repo,
        store,
    )?;
    write(
        root,
        "src/parser.rs",
        &PARSER_V2.replace("Counts fields.", "Counts the fields."),
    )?;
    scratch.git(&["commit", "-q", "-a", "--amend", "--no-edit"])?;
    push_step(
        s,
        "amend the commit with a comment edit: pre-push denies",
        repo,
        store,
    )
}

/// The role world of the demo: the scratch repository's frozen trees, the
/// built-in scripted model, the default budget and timeout.
fn scripted_world<'a>(
    prompts: &'a probity_core::review::PromptSet,
    subject: &'a (
            dyn Fn(
        &probity_core::review::TreeId,
    ) -> Result<probity_git::subject::Subject, drivers::AdapterError>
                + Sync
        ),
    model: &'a (
            dyn Fn(
        &probity_core::review::TreeId,
    ) -> Result<ScriptedModel, probity_ports::snapshot::ModelError>
                + Sync
        ),
) -> drivers::RoleWorld<'a, probity_git::subject::Subject, ScriptedModel, crate::review_cmd::Wall> {
    let config = probity_core::snapshot_tools::ReviewConfig::default();
    drivers::RoleWorld {
        prompts,
        subject,
        model,
        stopwatch: &crate::review_cmd::Wall::start,
        budget: config.budget(),
        timeout_ms: config.timeout_ms,
        max_diff_bytes: config.context.max_total_bytes,
        jobs: 1,
        log: &|_, _| {},
    }
}

fn roles_human(runs: &[drivers::RoleRun]) -> String {
    runs.iter()
        .map(|r| match &r.outcome {
            Ok(d) => format!(
                "{}: {} model call(s), read {} byte(s) through {} tool call(s); transcript {} ({})\n",
                r.role, d.model_calls, d.bytes_used, d.calls_used, d.transcript, d.transcript_digest
            ),
            Err(e) => format!("{}: {e}\n", r.role),
        })
        .collect()
}

fn model(s: &mut Steps, scratch: &Scratch, repo: &Repo, store: &FileStore) -> Result<(), CliError> {
    use probity_core::review::PromptSet;
    let root = scratch.root();
    let started =
        drivers::start(repo, store, &SystemClock, Lens::Reliability).map_err(review_error)?;
    let lineage = started.record.state().lineage_id().clone();
    s.step(
        "probity start: freeze the candidate (count() is off by one)",
        &StartAnswer::of(&started.record, false),
        format!(
            "lineage {lineage} | lenses [reliability] | binding: {}\n",
            started
                .record
                .state()
                .lens_bindings()
                .first()
                .map(|b| b.binding.as_str())
                .unwrap_or("(no lens)")
        ),
    );
    let prompts = PromptSet::builtin();
    let git = scratch.git.clone();
    let subject_root = root.clone();
    let subject = move |tree: &probity_core::review::TreeId| {
        probity_git::subject::Subject::open(
            &probity_git::subject::SubjectSpec::Tree(tree.to_string()),
            git.clone(),
            &subject_root,
        )
        .map_err(|e| Box::new(e) as drivers::AdapterError)
    };
    let finds = |_: &probity_core::review::TreeId| {
        Ok(ScriptedModel {
            blockers: vec![ScriptedFinding {
                location: "src/parser.rs:9".into(),
                claim: "count() returns one more than the number of fields".into(),
                proof: "src/parser.rs:9 adds 1 to parse(s).len()".into(),
            }],
        })
    };
    let reviewed = drivers::review_lineage(
        repo,
        store,
        &scripted_world(&prompts, &subject, &finds),
        &lineage,
    )
    .map_err(review_error)?;
    // The answer carries the fixer's hand-off (`handoff`) itself.
    let answer = FinalizeAnswer::of(&reviewed.record, reviewed.receipt_location.as_deref());
    let handoff = answer.handoff.as_ref();
    s.step(
        "probity review --lineage L: the scripted model judges the lens over the frozen tree",
        &answer,
        format!(
            "{}{} is {} | next: {}\nfixer hand-off: {}\n",
            roles_human(&reviewed.lenses),
            lineage,
            reviewed.record.state().stage().name(),
            reviewed
                .record
                .state()
                .next_action()
                .sentence(&lineage, &[]),
            handoff
                .as_ref()
                .map(|h| format!(
                    "fix {} inside [{}]",
                    h.findings
                        .iter()
                        .map(|f| format!("{} ({})", f.id, f.claim.as_str()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    h.allowed_paths
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .unwrap_or_else(|| "none".into())
        ),
    );
    finalize_step(
        s,
        "the fixer forecasts before editing: probity finalize --correction-lines 1",
        repo,
        store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            correction_lines: Some(1),
            ..Default::default()
        },
    )?;
    write(&root, "src/parser.rs", PARSER_V2)?;
    let clean = |_: &probity_core::review::TreeId| Ok(ScriptedModel::default());
    let (validated, run) = drivers::validate_correction(
        repo,
        store,
        &scripted_world(&prompts, &subject, &clean),
        &lineage,
    )
    .map_err(review_error)?;
    s.step(
        "fix count(), then probity review --lineage L --validate: the targeted validator",
        &FinalizeAnswer::of(&validated.record, None),
        format!(
            "{}{} is {} (the fix measured by Git: {} line(s) charged)\n",
            roles_human(std::slice::from_ref(&run)),
            lineage,
            validated.record.state().stage().name(),
            validated
                .record
                .state()
                .stage()
                .correction()
                .map_or(0, |c| c.charged_lines())
        ),
    );
    let check = [
        "grep".to_string(),
        "-qx".into(),
        "    parse(s).len()".into(),
        "src/parser.rs".into(),
    ];
    // On the lineage's final candidate tree, in a scratch checkout.
    let target =
        drivers::evidence_tree(repo, store, Some(&lineage), false).map_err(review_error)?;
    let ran = crate::authority_cmd::evidence_cmd::run_on_tree(
        repo,
        &target.tree,
        &check,
        std::time::Duration::from_secs(60),
        Some(&root),
    )?;
    finalize_step(
        s,
        "the independent check: probity finalize --evidence-cmd -- grep -qx '    parse(s).len()' src/parser.rs",
        repo,
        store,
        FinalizeInput {
            lineage: Some(lineage),
            evidence: Some(EvidenceInput::CommandOn {
                run: ran.run,
                tree: ran.tree,
            }),
            ..Default::default()
        },
    )?;
    gate_step(s, "probity validate --gate pre-commit", repo, store)
}

fn push_step(s: &mut Steps, title: &str, repo: &Repo, store: &FileStore) -> Result<(), CliError> {
    let boundary = drivers::PushBoundary::Head {
        remote: Some("origin".into()),
    };
    let d = drivers::validate_pre_push(repo, store, &boundary).map_err(review_error)?;
    s.step(title, &DecisionView::of(&d), human_decision(&d));
    Ok(())
}

fn correction(
    s: &mut Steps,
    scratch: &Scratch,
    repo: &Repo,
    store: &FileStore,
) -> Result<(), CliError> {
    let root = &scratch.root();
    start_step(s, repo, store)?;
    let lineage = drivers::status(repo, store, None)
        .map_err(review_error)?
        .map(|st| st.record.state().lineage_id().clone())
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::Io,
                "demo_state",
                "start left no lineage",
                "report this as a bug",
            )
        })?;
    let lens_result = BLOCKER_RESULT;
    s.step(
        "run the reliability lens once: it finds a candidate-causal blocker",
        &lens_result,
        format!("{}\n", String::from_utf8_lossy(&to_bytes(&lens_result))),
    );
    finalize_step(
        s,
        "probity finalize --result: admitted to correction",
        repo,
        store,
        FinalizeInput {
            results: vec![LensResultInput::named(
                Lens::Reliability,
                named("reliability.json", to_bytes(&lens_result)),
            )],
            ..Default::default()
        },
    )?;
    finalize_step(
        s,
        "probity finalize --correction-lines 2: forecast before editing",
        repo,
        store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            correction_lines: Some(2),
            ..Default::default()
        },
    )?;
    write(root, "src/parser.rs", PARSER_V2)?;
    s.step(
        "the correction actor fixes src/parser.rs (a genesis path)",
        &EditedStep {
            edited: &["src/parser.rs"],
        },
        "    parse(s).len() + 1  ->  parse(s).len()\n".into(),
    );
    let validation = PASSED_VALIDATION;
    finalize_step(
        s,
        "probity finalize --validation: Git measures the fix, the validator passes",
        repo,
        store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            validation: Some(named("validation.json", to_bytes(&validation))),
            ..Default::default()
        },
    )?;
    finalize_step(
        s,
        "probity finalize --evidence: approved; the receipt binds initial and final trees",
        repo,
        store,
        FinalizeInput {
            lineage: Some(lineage),
            evidence: Some(EvidenceInput::Bytes(named(
                "evidence.txt",
                "demo check: count(\"a,b\") == 2\n",
            ))),
            ..Default::default()
        },
    )?;
    gate_step(
        s,
        "probity validate --gate pre-commit: the corrected candidate",
        repo,
        store,
    )?;
    write(root, "src/parser.rs", PARSER_BUGGY)?;
    gate_step(s, "put the bug back: the gate denies", repo, store)
}

/// `git push --no-verify --atomic origin <refspecs>`: whether the server
/// accepted, and what it said (`remote:` lines).
fn push_no_verify(scratch: &Scratch, refspecs: &[&str]) -> Result<(bool, Vec<String>), CliError> {
    let mut args: Vec<std::ffi::OsString> = ["push", "--no-verify", "--atomic", "origin"]
        .iter()
        .map(Into::into)
        .collect();
    args.extend(refspecs.iter().map(Into::into));
    let out = scratch
        .git
        .output(&scratch.root(), &args, &[], None)
        .map_err(git_err)?;
    let said = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("remote: probity") || l.starts_with("remote:   "))
        .map(|l| l.trim_end().to_string())
        .collect();
    Ok((out.status.success(), said))
}

fn server(
    s: &mut Steps,
    scratch: &Scratch,
    repo: &Repo,
    store: &FileStore,
) -> Result<(), CliError> {
    let root = &scratch.root();
    let origin = scratch.dir.path().join("origin.git");
    let exe = std::env::current_exe().map_err(io_err("probity executable"))?;
    let hook = origin.join("hooks").join("pre-receive");
    std::fs::create_dir_all(origin.join("hooks")).map_err(io_err("hooks"))?;
    std::fs::write(
        &hook,
        probity_core::review::pre_receive_script(&exe.to_string_lossy()),
    )
    .map_err(io_err("pre-receive hook"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err("pre-receive hook"))?;
    }
    s.step(
        "probity hooks install --server (in origin.git)",
        &HookStep {
            hook: hook.display().to_string(),
        },
        format!("{}\n", hook.display()),
    );
    start_step(s, repo, store)?;
    let lens_result = CLEAN_RESULT;
    finalize_step(
        s,
        "probity finalize: approved",
        repo,
        store,
        FinalizeInput {
            results: vec![LensResultInput::named(
                Lens::Reliability,
                named("reliability.json", to_bytes(&lens_result)),
            )],
            evidence: Some(EvidenceInput::Bytes(named(
                "evidence.txt",
                "demo: parser tests pass\n",
            ))),
            ..Default::default()
        },
    )?;
    // An edit nobody reviewed, committed and pushed around the client hooks.
    write(
        root,
        "src/parser.rs",
        &PARSER_V2.replace("Counts fields.", "Counts the fields."),
    )?;
    scratch.git(&["add", "-A"])?;
    scratch.git(&["commit", "-q", "-m", "parser: unreviewed edit"])?;
    let (ok, said) = push_no_verify(scratch, &["main"])?;
    s.step(
        "git push --no-verify origin main (an unreviewed commit)",
        &PushStep {
            accepted: ok,
            remote: &said,
        },
        format!("accepted: {ok}\n{}\n", said.join("\n")),
    );
    // The reviewed candidate, committed; its bundle published as a note.
    write(root, "src/parser.rs", PARSER_V2)?;
    scratch.git(&[
        "commit",
        "-q",
        "-a",
        "--amend",
        "-m",
        "parser: trim fields and count them",
    ])?;
    let tip = repo.resolve_commit("HEAD").map_err(git_err)?;
    let published = drivers::publish(repo, store, &tip, &[], &drivers::RemoteScope::All)
        .map_err(crate::authority_cmd::transport_error)?;
    s.step(
        "probity publish: the review's bundle as a note under refs/notes/probity",
        &PublishStep {
            written: published
                .written
                .iter()
                .map(|(commit, lineage_id)| WrittenNote { commit, lineage_id })
                .collect(),
        },
        published
            .written
            .iter()
            .map(|(c, l)| format!("{c} <- {l}\n"))
            .collect(),
    );
    let (ok, said) = push_no_verify(scratch, &["main", "refs/notes/probity"])?;
    s.step(
        "git push --no-verify --atomic origin main refs/notes/probity (the reviewed commit)",
        &PushStep {
            accepted: ok,
            remote: &said,
        },
        format!("accepted: {ok}\n{}\n", said.join("\n")),
    );
    Ok(())
}

pub fn run(out: Output, args: &DemoArgs) -> Result<ExitCode, CliError> {
    let scratch = Scratch::new()?;
    let root = scratch.root();
    // The change under review: an edit and an intended untracked file, plus
    // ignored build output that must stay out of the candidate.
    let edited = match args.scenario {
        Scenario::Ordinary => PARSER_V2,
        Scenario::Correction => PARSER_BUGGY,
        Scenario::Server => PARSER_V2,
        Scenario::Model => PARSER_BUGGY,
    };
    write(&root, "src/parser.rs", edited)?;
    write(&root, "src/parser_test.rs", PARSER_TEST)?;
    write(&root, "target/debug/output.bin", "build output\n")?;
    let repo = Repo::discover(scratch.git.clone(), &root).map_err(git_err)?;
    let store = FileStore::for_common_dir(repo.common_dir());
    let mut s = Steps {
        out,
        steps: Vec::new(),
    };
    match args.scenario {
        Scenario::Ordinary => ordinary(&mut s, &scratch, &repo, &store)?,
        Scenario::Correction => correction(&mut s, &scratch, &repo, &store)?,
        Scenario::Server => server(&mut s, &scratch, &repo, &store)?,
        Scenario::Model => model(&mut s, &scratch, &repo, &store)?,
    }
    if out.json {
        let answer = DemoAnswer {
            scenario: format!("{:?}", args.scenario).to_lowercase(),
            steps: &s.steps,
            repository: args.keep.then(|| root.display().to_string()),
        };
        out.answer(&answer, String::new);
    }
    if args.keep {
        let Scratch {
            dir, registered, ..
        } = scratch;
        // Kept: no longer removed if the rest of the run is interrupted.
        drop(registered);
        let kept = dir.keep();
        if !out.json {
            crate::output::emit(&format!("scratch repository kept at {}\n", kept.display()));
        }
    }
    Ok(ExitCode::SUCCESS)
}
