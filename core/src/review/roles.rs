//! The model's roles inside the lifecycle (issue 10 §2): what a lens, the
//! refuter and the targeted validator are asked, how their answers are
//! checked, how the conversation is bound into what is submitted, and what
//! the fixer is handed.
//!
//! The model judges; this module decides everything else. The context a
//! role reads is built from the frozen lineage (the binding start prepared,
//! the frozen diff, the changed-path manifest, the output schema) and its
//! prompt is the one start froze ([`check_prompt`]). An answer is accepted
//! only as a strict role document (the loop's [`Finish::Document`]); code
//! then appends one evidence entry naming the transcript's digest and the
//! prompt's, so a submitted result is traceable to the exact conversation
//! (the transcript itself is kept by the store).

use serde::Serialize;

use crate::canonical::canonical_bytes;
use crate::digest::Sha256Digest;
use crate::review::export::ManifestEntry;
use crate::review::finding::{
    RefuterResult, ReviewerResult, RoleDocError, Severity, ValidatorResult,
};
use crate::review::ids::{FindingId, LineageId, NonBlank, RepoPath};
use crate::review::lens::Lens;
use crate::review::policy::RepoPolicy;
use crate::review::prompts::{PromptMismatch, PromptRole, PromptSet, check_prompt};
use crate::review::schema::SchemaDoc;
use crate::review::state::{NextInput, ReviewState, Stage};
use crate::snapshot_tools::{DocumentCheck, Finish};

/// What one role is asked: its system prompt (the frozen prompt), the
/// user message (binding, frozen context, schema) and what it is checked
/// against.
#[derive(Debug, Clone)]
pub struct RoleContext {
    /// The role asked: a lens, the refuter or the validator.
    pub role: PromptRole,
    /// The system prompt: the frame and the role's text, as frozen.
    pub system: String,
    /// The user message: for a lens, its binding first; then the frozen
    /// context (findings, diff, changed paths) and the output schema.
    pub user: String,
    /// The prompt's digest (the one the lineage froze).
    pub prompt_digest: Sha256Digest,
    /// A lens's binding (what the result is submitted with).
    pub binding: Option<String>,
    /// How the answer is checked (the loop's finish).
    pub finish: Finish,
}

/// A role's context whose answer is one strict document of `schema`
/// (checked by `check`), with the role's system prompt and its digest.
fn document_context(
    prompts: &PromptSet,
    role: PromptRole,
    user: String,
    binding: Option<String>,
    schema: &'static str,
    check: DocumentCheck,
) -> RoleContext {
    RoleContext {
        role,
        system: prompts.system(role),
        user,
        prompt_digest: prompts.digest(role),
        binding,
        finish: Finish::Document {
            role: schema,
            check,
        },
    }
}

/// Why a role cannot run now. Nothing is asked of any model then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleError {
    /// The prompt set's prompt for the role is not the one start froze (or
    /// none was frozen).
    #[error(transparent)]
    Prompt(#[from] PromptMismatch),
    /// The lineage's stage does not await this role's answer.
    #[error("lineage {lineage} is `{state}`: {role} does not run now (next: {next})")]
    NotNow {
        /// The lineage asked for.
        lineage: LineageId,
        /// Its stage name, e.g. `validating`.
        state: &'static str,
        /// The role as displayed, e.g. ``lens `risk` ``.
        role: String,
        /// The input the lineage awaits instead, e.g. `provide_evidence`.
        next: &'static str,
    },
    /// The lens is not one the lineage selected.
    #[error("lens `{lens}` is not selected for lineage {lineage}")]
    NotSelected {
        /// The lineage asked for.
        lineage: LineageId,
        /// The lens named, lowercase.
        lens: &'static str,
    },
}

fn next_name(n: NextInput) -> &'static str {
    match n {
        NextInput::RunLenses => "run_lenses",
        NextInput::Finalize => "finalize",
        NextInput::ProvideRefuter => "provide_refuter",
        NextInput::ForecastCorrection => "forecast_correction",
        NextInput::ProvideValidation => "provide_validation",
        NextInput::ProvideEvidence => "provide_evidence",
        NextInput::None => "none",
    }
}

fn not_now(state: &ReviewState, role: PromptRole) -> RoleError {
    RoleError::NotNow {
        lineage: state.lineage_id.clone(),
        state: state.stage.name(),
        role: role.to_string(),
        next: next_name(state.next_action()),
    }
}

/// The frozen diff as shown to a model: whole when it fits `max_bytes`,
/// else cut at the last file boundary (`diff --git`) that fits, with the
/// paths left out named (the model reads them through its tools).
pub(crate) fn shown_diff(diff: &[u8], manifest: &[ManifestEntry], max_bytes: u64) -> String {
    let text = String::from_utf8_lossy(diff);
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    if text.len() <= max {
        return text.into_owned();
    }
    let mut cut = 0;
    let mut at = 0;
    while let Some(i) = text[at..].find("diff --git ") {
        let start = at + i;
        if start > max {
            break;
        }
        cut = start;
        at = start + 1;
    }
    let shown = &text[..cut];
    let omitted: Vec<&str> = manifest
        .iter()
        .map(|m| m.path.as_str())
        .filter(|p| !shown.contains(&format!(" b/{p}\n")) && !shown.contains(&format!(" a/{p} ")))
        .collect();
    format!(
        "{shown}\n[diff cut at {cut} of {} bytes to fit the context budget; not shown: {}. Read them with the `read` tool.]\n",
        text.len(),
        if omitted.is_empty() {
            "(none)".to_string()
        } else {
            omitted.join(", ")
        }
    )
}

fn manifest_lines(manifest: &[ManifestEntry]) -> String {
    manifest
        .iter()
        .map(|m| {
            let status = match m.status {
                crate::review::export::ChangeStatus::Added => "added",
                crate::review::export::ChangeStatus::Deleted => "deleted",
                crate::review::export::ChangeStatus::Modified => "modified",
            };
            format!("- {} ({status})", m.path.as_str())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn schema_text(doc: SchemaDoc) -> String {
    serde_json::to_string_pretty(&doc.schema()).unwrap_or_default()
}

/// The context of one selected lens of `state` (awaiting lens results):
/// its frozen prompt, its binding, the frozen diff (within
/// `max_diff_bytes`), the manifest and the reviewer schema.
pub fn lens_context(
    state: &ReviewState,
    lens: Lens,
    prompts: &PromptSet,
    diff: &[u8],
    manifest: &[ManifestEntry],
    max_diff_bytes: u64,
) -> Result<RoleContext, RoleError> {
    let role = PromptRole::Lens(lens);
    if state.stage != Stage::Reviewing {
        return Err(not_now(state, role));
    }
    let binding = state
        .lens_bindings()
        .into_iter()
        .find(|b| b.lens == lens)
        .ok_or_else(|| RoleError::NotSelected {
            lineage: state.lineage_id.clone(),
            lens: lens.name(),
        })?;
    check_prompt(state.frozen.prompts.as_ref(), prompts, role)?;
    let user = format!(
        "{binding}\n\n\
         You are lens `{lens}` (finding IDs {prefix}-NNN) of review {lineage}: lens {order} of {count}. \
         The snapshot your tools read is the frozen candidate tree {tree}. \
         Risk tier: {risk}.\n\n\
         ## The change (frozen diff, base {base} to candidate {tree})\n\n```diff\n{diff}\n```\n\n\
         ## Changed paths\n\n{manifest}\n\n\
         ## Output: exactly one JSON document matching this schema (`probity schema reviewer`)\n\n{schema}\n",
        binding = binding.binding,
        lens = lens.name(),
        prefix = lens.prefix(),
        lineage = state.lineage_id,
        order = binding.order,
        count = state.frozen.selected_lenses.len(),
        tree = state.snapshot.candidate_tree,
        base = state.snapshot.base_tree,
        risk = state.frozen.risk_level.name(),
        diff = shown_diff(diff, manifest, max_diff_bytes),
        manifest = manifest_lines(manifest),
        schema = schema_text(SchemaDoc::Reviewer),
    );
    Ok(document_context(
        prompts,
        role,
        user,
        Some(binding.binding),
        "reviewer",
        reviewer_check(),
    ))
}

/// The findings the refuter judges: the admitted inferential severe
/// findings of a judgment that awaits its refuter batch, in finding order.
pub(crate) fn refuter_pending(state: &ReviewState) -> Vec<FindingId> {
    match &state.stage {
        Stage::AwaitingRefuter { judgment } => judgment
            .findings()
            .filter(|f| f.route == crate::review::finding::Route::Refuter)
            .map(|f| f.id)
            .collect(),
        Stage::Reviewing
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. }
        | Stage::Approved { .. }
        | Stage::Escalated { .. }
        | Stage::Invalidated { .. } => Vec::new(),
    }
}

fn finding_lines<'a>(
    findings: impl Iterator<Item = &'a crate::review::finding::Finding>,
) -> String {
    findings
        .map(|f| {
            let proofs = f
                .proof_refs
                .iter()
                .map(NonBlank::as_str)
                .collect::<Vec<_>>()
                .join("; ");
            format!(
                "- {} ({}) at {}: {}\n  proof refs: {}",
                f.id,
                f.severity.name(),
                f.location.as_str(),
                f.claim.as_str(),
                if proofs.is_empty() { "(none)" } else { &proofs }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The refuter's context: every finding awaiting the single batch, the
/// frozen diff and the refuter schema. The answer must name exactly those
/// findings.
pub fn refuter_context(
    state: &ReviewState,
    prompts: &PromptSet,
    diff: &[u8],
    manifest: &[ManifestEntry],
    max_diff_bytes: u64,
) -> Result<RoleContext, RoleError> {
    let role = PromptRole::Refuter;
    let pending = refuter_pending(state);
    let Some(judgment) = state.stage.judgment().filter(|_| !pending.is_empty()) else {
        return Err(not_now(state, role));
    };
    check_prompt(state.frozen.prompts.as_ref(), prompts, role)?;
    let findings = finding_lines(judgment.findings().filter(|f| pending.contains(&f.id)));
    let user = format!(
        "Review {lineage}: the refuter batch. The snapshot your tools read is the frozen candidate tree {tree}.\n\n\
         ## Findings to judge (each exactly once, by ID)\n\n{findings}\n\n\
         ## The change (frozen diff)\n\n```diff\n{diff}\n```\n\n\
         ## Output: exactly one JSON document matching this schema (`probity schema refuter`)\n\n{schema}\n",
        lineage = state.lineage_id,
        tree = state.snapshot.candidate_tree,
        diff = shown_diff(diff, manifest, max_diff_bytes),
        schema = schema_text(SchemaDoc::Refuter),
    );
    Ok(document_context(
        prompts,
        role,
        user,
        None,
        "refuter",
        refuter_check(pending),
    ))
}

/// The targeted validator's context after a correction edit: the admitted
/// findings, the fix diff (from the reviewed candidate to the corrected
/// one, which the tools read as `corrected_tree`) and the validator schema.
pub fn validator_context(
    state: &ReviewState,
    prompts: &PromptSet,
    fix_diff: &[u8],
    corrected_tree: &crate::review::ids::TreeId,
    max_diff_bytes: u64,
) -> Result<RoleContext, RoleError> {
    let role = PromptRole::Validator;
    if state.next_action() != NextInput::ProvideValidation {
        return Err(not_now(state, role));
    }
    let Some(judgment) = state.stage.judgment() else {
        return Err(not_now(state, role));
    };
    check_prompt(state.frozen.prompts.as_ref(), prompts, role)?;
    let admitted = judgment.correction_ids();
    let findings = finding_lines(judgment.findings().filter(|f| admitted.contains(&f.id)));
    let user = format!(
        "Review {lineage}: the targeted validator after a correction. The snapshot your tools read is the corrected candidate tree {corrected}.\n\n\
         ## Findings admitted to correction\n\n{findings}\n\n\
         ## The correction (diff from {from} to {corrected})\n\n```diff\n{diff}\n```\n\n\
         ## Output: exactly one JSON document matching this schema (`probity schema validator`)\n\n{schema}\n",
        lineage = state.lineage_id,
        from = state.final_candidate_tree(),
        corrected = corrected_tree,
        diff = shown_diff(fix_diff, &[], max_diff_bytes),
        schema = schema_text(SchemaDoc::Validator),
    );
    Ok(document_context(
        prompts,
        role,
        user,
        None,
        "validator",
        validator_check(),
    ))
}

fn why(e: RoleDocError) -> String {
    e.to_string()
}

/// A reviewer result: strict, as `finalize` reads it.
pub fn reviewer_check() -> DocumentCheck {
    DocumentCheck::new(|b| {
        ReviewerResult::parse(b).map_err(why)?;
        Ok(b.to_vec())
    })
}

/// A refuter batch naming exactly `pending`, each once.
pub fn refuter_check(pending: Vec<FindingId>) -> DocumentCheck {
    DocumentCheck::new(move |b| {
        let r = RefuterResult::parse(b).map_err(why)?;
        if let Some(o) = r.outcomes.iter().find(|o| !pending.contains(&o.finding_id)) {
            return Err(format!(
                "{} is not a finding awaiting the refuter (judge exactly: {})",
                o.finding_id,
                ids(&pending)
            ));
        }
        if let Some(id) = pending
            .iter()
            .find(|id| !r.outcomes.iter().any(|o| o.finding_id == **id))
        {
            return Err(format!(
                "no outcome for {id} (judge exactly: {})",
                ids(&pending)
            ));
        }
        Ok(b.to_vec())
    })
}

fn ids(v: &[FindingId]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A targeted validator result.
pub fn validator_check() -> DocumentCheck {
    DocumentCheck::new(|b| {
        ValidatorResult::parse(b).map_err(why)?;
        Ok(b.to_vec())
    })
}

/// The most bytes a model-run role's transcript (its conversation's
/// canonical JSON) may have: a role whose transcript is longer is refused
/// before its answer is submitted, and no store keeps one.
pub const MAX_TRANSCRIPT_BYTES: usize = 64 * 1024 * 1024;

/// The evidence entry code appends to a model-run role document: the
/// transcript's digest and the prompt's.
pub(crate) fn transcript_evidence(transcript: &Sha256Digest, prompt: &Sha256Digest) -> String {
    format!("probity-transcript {transcript} prompt {prompt}")
}

/// Reads an evidence entry [`transcript_evidence`] wrote: the transcript's
/// digest and the prompt's (`None`: any other entry).
pub(crate) fn parse_transcript_evidence(entry: &str) -> Option<(Sha256Digest, Sha256Digest)> {
    let rest = entry.strip_prefix("probity-transcript ")?;
    let (transcript, prompt) = rest.split_once(" prompt ")?;
    Some((transcript.parse().ok()?, prompt.parse().ok()?))
}

/// A lens result of an approved review that is not the model run the
/// policy asks for at its tier (`transcripts_unmet`, D-R103).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "review {lineage}: lens `{lens}`'s result {why}, and the policy asks that every lens result of a {level} review come from `probity review` (a model run bound to its kept transcript and to the prompt the lineage froze)"
)]
pub struct TranscriptsUnmet {
    /// The review.
    pub lineage: LineageId,
    /// Its tier, lowercase.
    pub level: &'static str,
    /// The lens, lowercase.
    pub lens: &'static str,
    /// What its result lacks.
    pub why: &'static str,
}

impl TranscriptsUnmet {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        "transcripts_unmet"
    }
}

/// Holds the lens results of `state` (each selected lens's evidence, in
/// selected order) to the policy's `transcripts` at its tier: each must
/// end with the binding `probity review` appends ([`bind_transcript`]),
/// naming the prompt the lineage froze for that lens. Returns the
/// transcripts the results name (empty where the tier asks for none).
///
/// The binding is text: whoever hands in a result can write one. What
/// vouches that the run happened is the signature of a role the tier
/// names, which the policy must name beside `transcripts`; this check
/// keeps a handed-in result from passing as a model run by accident, and
/// holds a signer's result to the prompts the server re-derives.
pub fn check_transcripts<'a>(
    policy: &RepoPolicy,
    state: &ReviewState,
    results: impl IntoIterator<Item = (Lens, &'a [NonBlank])>,
) -> Result<Vec<Sha256Digest>, TranscriptsUnmet> {
    let level = state.frozen.risk_level;
    if !policy.transcripts_required(level) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (lens, evidence) in results {
        let unmet = |why| TranscriptsUnmet {
            lineage: state.lineage_id.clone(),
            level: level.name(),
            lens: lens.name(),
            why,
        };
        let frozen = state
            .frozen
            .prompts
            .as_ref()
            .and_then(|p| p.digest(PromptRole::Lens(lens)))
            .ok_or_else(|| unmet("has no frozen prompt to be bound to (the lineage froze none)"))?;
        let (transcript, prompt) = evidence
            .last()
            .and_then(|e| parse_transcript_evidence(e.as_str()))
            .ok_or_else(|| {
                unmet("does not end with the binding `probity review` appends (it was handed in)")
            })?;
        if prompt != frozen {
            return Err(unmet(
                "is bound to another prompt than the one the lineage froze",
            ));
        }
        out.push(transcript);
    }
    Ok(out)
}

/// Why a checked document could not be bound (it was checked first, so
/// this is a bug, never the model's doing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// The document does not parse as the role's document.
    #[error(transparent)]
    Document(#[from] RoleDocError),
    /// The evidence entry is not a valid entry, or the bound document has
    /// no canonical bytes.
    #[error("could not encode the document: {0}")]
    Encode(String),
}

/// The document a model-run role submits: its answer (a checked `role`
/// document) with `transcript_evidence` appended to its evidence (a lens
/// result's `evidence`; each refuter outcome's; both validator checks'),
/// as canonical bytes.
pub fn bind_transcript(
    role: PromptRole,
    document: &[u8],
    transcript: &Sha256Digest,
    prompt: &Sha256Digest,
) -> Result<Vec<u8>, BindError> {
    let entry = NonBlank::parse(transcript_evidence(transcript, prompt))
        .map_err(|e| BindError::Encode(e.to_string()))?;
    match role {
        PromptRole::Lens(_) => {
            let mut r = ReviewerResult::parse(document)?;
            r.evidence.push(entry);
            canon(&r)
        }
        PromptRole::Refuter => {
            let mut r = RefuterResult::parse(document)?;
            for o in &mut r.outcomes {
                o.evidence.push(entry.clone());
            }
            canon(&r)
        }
        PromptRole::Validator => {
            let mut r = ValidatorResult::parse(document)?;
            r.original_criteria.evidence.push(entry.clone());
            r.correction_regression.evidence.push(entry);
            canon(&r)
        }
    }
}

fn canon<T: Serialize>(v: &T) -> Result<Vec<u8>, BindError> {
    canonical_bytes(v).map_err(|e| BindError::Encode(e.to_string()))
}

/// One finding handed to the fixer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandedFinding {
    /// The finding's code-assigned ID, e.g. `R3-001`.
    pub id: FindingId,
    /// Its severity (BLOCKER or CRITICAL: only severe findings are
    /// admitted).
    pub severity: Severity,
    /// Where the reviewer located it, `path:line` or `path:start-end`.
    pub location: NonBlank,
    /// What the reviewer says is wrong.
    pub claim: NonBlank,
    /// What the reviewer's claim can be checked against.
    pub proof_refs: Vec<NonBlank>,
}

/// What the correction actor receives (R6.3): exactly the findings
/// admitted to correction and the paths it may edit (the genesis paths),
/// with the budget left and the next inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixerHandoff {
    /// The lineage in correction.
    pub lineage_id: LineageId,
    /// The findings admitted to correction, in finding order.
    pub findings: Vec<HandedFinding>,
    /// The genesis paths, sorted: the only paths a fix may change.
    pub allowed_paths: Vec<RepoPath>,
    /// The correction budget frozen at start, in lines.
    pub correction_budget: u64,
    /// Lines already charged by earlier attempts.
    pub charged_lines: u64,
    /// The commands that carry the correction on, in order.
    pub next: Vec<String>,
}

/// The fixer hand-off of a lineage in correction (`None` otherwise).
pub fn fixer_handoff(state: &ReviewState) -> Option<FixerHandoff> {
    let forecast_given = match &state.stage {
        Stage::CorrectionRequired { .. } => false,
        Stage::Correcting { .. } => true,
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::Validating { .. }
        | Stage::Approved { .. }
        | Stage::Escalated { .. }
        | Stage::Invalidated { .. } => return None,
    };
    let judgment = state.stage.judgment()?;
    let admitted = judgment.correction_ids();
    let lineage = &state.lineage_id;
    let mut next = Vec::new();
    // One hand-off whichever way the correction goes on (issue 26 §3):
    // by hand or through the configured model; `N` and `F` are a person's.
    if !forecast_given {
        next.push(format!(
            "before editing, forecast the correction: `probity finalize --lineage {lineage} --correction-lines N` (N: the lines you expect to change)"
        ));
    }
    next.push("edit only the allowed paths to fix exactly the findings listed".to_string());
    next.push(format!(
        "run the targeted validator and give its result: `probity finalize --lineage {lineage} --validation F` (F: its result file), or let the configured model run it: `probity review --lineage {lineage} --validate`"
    ));
    Some(FixerHandoff {
        lineage_id: lineage.clone(),
        findings: judgment
            .findings()
            .filter(|f| admitted.contains(&f.id))
            .map(|f| HandedFinding {
                id: f.id,
                severity: f.severity,
                location: f.location.clone(),
                claim: f.claim.clone(),
                proof_refs: f.proof_refs.clone(),
            })
            .collect(),
        allowed_paths: state.snapshot.paths.clone(),
        correction_budget: state.frozen.correction_budget,
        charged_lines: state.stage.correction().map_or(0, |c| c.charged_lines()),
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures;

    fn with_prompts(mut s: ReviewState) -> ReviewState {
        s.frozen.prompts = Some(PromptSet::builtin().freeze(&s.frozen.selected_lenses));
        s
    }

    #[test]
    fn a_lens_context_names_its_binding_prompt_diff_manifest_and_schema() {
        let s = with_prompts(
            fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap(),
        );
        let prompts = PromptSet::builtin();
        let manifest = fixtures::parser_manifest_entries();
        let diff = b"diff --git a/src/parser.rs b/src/parser.rs\n+fn more() {}\n";
        let c = lens_context(&s, Lens::Reliability, &prompts, diff, &manifest, 200_000).unwrap();
        let binding = c.binding.clone().unwrap();
        assert!(binding.starts_with("probity-lens-binding/v2 "));
        assert!(c.user.starts_with(&binding));
        assert!(c.user.contains("+fn more() {}"));
        assert!(c.user.contains("Probity reviewer result v1"));
        assert_eq!(
            c.prompt_digest,
            prompts.digest(PromptRole::Lens(Lens::Reliability))
        );
        assert!(c.system.contains("Lens: reliability"));
        // Not selected, or not frozen: refused before any model is asked.
        assert!(matches!(
            lens_context(&s, Lens::Risk, &prompts, diff, &manifest, 200_000),
            Err(RoleError::NotSelected { .. })
        ));
        let bare = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        assert!(matches!(
            lens_context(&bare, Lens::Reliability, &prompts, diff, &manifest, 200_000),
            Err(RoleError::Prompt(PromptMismatch::NotFrozen))
        ));
        // Once results are in, no lens runs.
        let v = s
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap();
        assert!(matches!(
            lens_context(&v, Lens::Reliability, &prompts, diff, &manifest, 200_000),
            Err(RoleError::NotNow { .. })
        ));
    }

    #[test]
    fn a_long_diff_is_cut_at_a_file_boundary_and_names_what_is_left_out() {
        let manifest = fixtures::parser_manifest_entries();
        let mut diff = String::new();
        for m in &manifest {
            let p = m.path.as_str();
            diff.push_str(&format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n"));
            diff.push_str(&"+x\n".repeat(50));
        }
        let whole = shown_diff(diff.as_bytes(), &manifest, 1_000_000);
        assert_eq!(whole, diff);
        let cut = shown_diff(diff.as_bytes(), &manifest, 200);
        assert!(cut.contains("not shown:"), "{cut}");
        assert!(cut.len() < diff.len());
    }

    #[test]
    fn the_transcript_is_bound_into_each_role_document() {
        let t = Sha256Digest::plain(b"transcript");
        let p = Sha256Digest::plain(b"prompt");
        let r = bind_transcript(
            PromptRole::Lens(Lens::Reliability),
            br#"{"findings":[],"evidence":["read the diff"]}"#,
            &t,
            &p,
        )
        .unwrap();
        let parsed = ReviewerResult::parse(&r).unwrap();
        assert_eq!(parsed.evidence.len(), 2);
        assert_eq!(parsed.evidence[1].as_str(), transcript_evidence(&t, &p));
        let v = bind_transcript(
            PromptRole::Validator,
            br#"{"original_criteria":{"passed":true,"evidence":["a"]},"correction_regression":{"passed":true,"evidence":["b"]}}"#,
            &t,
            &p,
        )
        .unwrap();
        let v = ValidatorResult::parse(&v).unwrap();
        assert_eq!(v.original_criteria.evidence.len(), 2);
        assert_eq!(v.correction_regression.evidence.len(), 2);
        assert!(bind_transcript(PromptRole::Refuter, b"{}", &t, &p).is_err());
    }

    #[test]
    fn a_tier_the_policy_names_takes_only_results_bound_to_the_frozen_prompt() {
        let s = with_prompts(
            fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap(),
        );
        assert_eq!(s.frozen.risk_level.name(), "medium");
        let policy = |tiers: &str| {
            RepoPolicy::parse(
                format!(
                    r#"{{"schema":"probity-policy/v2","roles":{{"ci":["ci@example.org"]}},"signatures":{{"medium":["ci"],"high":["ci"]}},"transcripts":[{tiers}]}}"#
                )
                .as_bytes(),
            )
            .unwrap()
        };
        let asks = policy(r#""medium""#);
        let frozen = s
            .frozen
            .prompts
            .as_ref()
            .unwrap()
            .digest(PromptRole::Lens(Lens::Reliability))
            .unwrap();
        let t = Sha256Digest::plain(b"transcript");
        let entry = |text: String| NonBlank::parse(text).unwrap();
        let read = entry("read the diff".into());
        let bound = entry(transcript_evidence(&t, &frozen));
        let check = |evidence: &[NonBlank], p: &RepoPolicy| {
            check_transcripts(p, &s, [(Lens::Reliability, evidence)])
        };
        assert_eq!(check(&[read.clone(), bound.clone()], &asks), Ok(vec![t]));
        assert_eq!(parse_transcript_evidence(bound.as_str()), Some((t, frozen)));
        // Handed in: no binding, or one that is not last (a model's own
        // text before the binding code appends is never taken for it).
        for evidence in [
            vec![read.clone()],
            vec![bound.clone(), read.clone()],
            vec![],
        ] {
            let e = check(&evidence, &asks).unwrap_err();
            assert_eq!(e.code(), "transcripts_unmet");
            assert!(e.to_string().contains("lens `reliability`"), "{e}");
        }
        // Bound to another prompt.
        let other = entry(transcript_evidence(&t, &Sha256Digest::plain(b"other")));
        let e = check(&[other], &asks).unwrap_err();
        assert!(e.why.contains("another prompt"), "{e}");
        // A lineage that froze no prompts has nothing to be bound to.
        let bare = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        assert!(
            check_transcripts(&asks, &bare, [(Lens::Reliability, &[bound.clone()][..])]).is_err()
        );
        // A tier the policy does not name asks for nothing.
        assert_eq!(check(&[read], &policy(r#""high""#)), Ok(vec![]));
    }

    #[test]
    fn the_refuter_check_wants_exactly_the_pending_findings() {
        let id = |s: &str| FindingId::parse(s).unwrap();
        let check = refuter_check(vec![id("R1-002")]);
        assert!(
            check
                .check(br#"{"outcomes":[{"finding_id":"R1-002","outcome":"refuted","evidence":["read it"]}]}"#)
                .is_ok()
        );
        let e = check
            .check(
                br#"{"outcomes":[{"finding_id":"R1-003","outcome":"refuted","evidence":["x"]}]}"#,
            )
            .unwrap_err();
        assert!(e.contains("judge exactly: R1-002"), "{e}");
        assert!(check.check(br#"{"outcomes":[]}"#).is_err());
    }

    #[test]
    fn the_fixer_gets_exactly_the_admitted_findings_and_the_genesis_paths() {
        let s = fixtures::budget_scenario().unwrap();
        let h = fixer_handoff(&s).unwrap();
        assert_eq!(h.findings.len(), 1);
        assert_eq!(h.allowed_paths, s.snapshot.paths);
        assert_eq!(h.correction_budget, 60);
        assert!(h.next[0].contains("--correction-lines"));
        assert!(h.next.last().unwrap().contains("--validation F"));
        assert!(h.next.last().unwrap().contains("--validate`"));
        // No hand-off outside a correction.
        let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        assert_eq!(fixer_handoff(&r0), None);
    }
}
