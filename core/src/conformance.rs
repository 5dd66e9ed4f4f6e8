//! Conformance vectors: the exact bytes and digests of every document
//! Probity hashes, in a form another implementation can check without
//! reading Rust (`conformance/` at the repository root, described in its
//! README).
//!
//! Every vector is built from plain fixture values and checked here against
//! the production function that computes the same identity, so a vector
//! can never say something the code does not do: a generator that finds a
//! difference fails instead of emitting.

use crate::review::{PROMPT_DOMAIN, PromptRole, PromptSet};
use serde::Serialize;
use serde_json::{Value, json};

use crate::canonical::{canonical_bytes, canonical_value_bytes, parse_strict};
use crate::context::Assembly;
use crate::context::record_key_raw;
use crate::digest::{Domain, Sha256Digest};
use crate::review::Lens;
use crate::review::ObjectId;
use crate::review::attest;
use crate::review::dsse;
use crate::review::evidence;
use crate::review::fixtures;
use crate::review::submission;
use crate::review::{BUNDLE_DOMAIN, Bundle};
use crate::review::{DELTA_DOMAIN, DELTA_ENTRY_DOMAIN, DeltaEntry, EntrySide, TreeDelta};
use crate::review::{
    EVIDENCE_DOMAIN, LINEAGE_DOMAIN, RESULTS_DOMAIN, REVISION_DOMAIN, ReviewState, StateError,
    StateRecord, derive_lineage_id,
};
use crate::review::{Escalation, Stage};
use crate::review::{FIX_DELTA_DOMAIN, Receipt};
use crate::review::{
    FileMode, PATHS_DOMAIN, TARGET_DOMAIN, UNTRACKED_DOMAIN, paths_digest, target_identity,
    untracked_digest,
};
use crate::review::{POLICY_DOMAIN, RiskPolicy};
use crate::review::{RepoPath, TreeId};
use crate::review::{empty_fix_delta, fix_delta_hash};

mod risk_policies;

/// The version of the vector files' format and content.
pub const VERSION: &str = "v1";

/// How a vector's preimage bytes are formed from its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// RFC 8785 canonical JSON of `input`.
    Jcs,
    /// `input` is a JSON string; its UTF-8 bytes are the preimage.
    Utf8,
    /// `input` is `{origin, repository_id, kind, id}`; the preimage is the
    /// four strings' UTF-8 bytes joined by one 0x00 byte each.
    RecordKey,
    /// `input` is `{payloadType, payload}` (the payload as a UTF-8 string);
    /// the preimage is DSSE's PAE: `DSSEv1 SP len(type) SP type SP
    /// len(body) SP body`, lengths in ASCII decimal.
    DssePae,
}

/// One hashed document: `sha256` is SHA-256 of `domain || 0x00 ||
/// canonical` when `domain` is set, of `canonical` alone when it is null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Vector {
    /// What is hashed, snake_case (`paths_digest`, `receipt`,
    /// `context_root_index`, ...; the list is in `conformance/README.md`).
    pub kind: &'static str,
    /// The fixture scenario the document comes from (`parser-scenario`,
    /// ...); unique together with `kind`.
    pub name: String,
    /// The domain separator label prefixed to the preimage
    /// (`probity/paths-digest/v1`, ...); `None` (JSON `null`) when an
    /// external format fixes the preimage and it is hashed plain.
    pub domain: Option<&'static str>,
    /// How the preimage bytes are formed from `input`.
    pub encoding: Encoding,
    /// The document as JSON, shaped as `encoding` requires.
    pub input: Value,
    /// The preimage bytes (for `jcs`, the RFC 8785 bytes of `input`).
    pub canonical_hex: String,
    /// Lowercase hex, no prefix.
    pub sha256: String,
    /// What the code derives from the digest or the input (a lineage id,
    /// finding ids), when the kind derives something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<Value>,
}

/// One input Probity refuses, and the code it refuses it with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Always `refusal`.
    pub kind: &'static str,
    /// What the case exercises (`float`, `duplicate-key-nested`, ...);
    /// unique among the refusals.
    pub name: &'static str,
    /// What reads the text: `json` (any hashed or typed input) or
    /// `state_record` (a stored record, which must also be canonical).
    pub reader: &'static str,
    /// The exact text to feed the reader, as UTF-8.
    pub input_text: String,
    /// The code the reader must refuse it with: a
    /// [`CanonicalError::code`](crate::canonical::CanonicalError::code)
    /// (`float`, `integer_out_of_range`, `duplicate_key`, `invalid_json`)
    /// or `not_canonical` for a stored record.
    pub error: &'static str,
}

/// A vector the generator could not vouch for: its bytes or digest differ
/// from what the production code computes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("conformance vector {name}: {detail}")]
pub struct VectorError {
    /// The `name` of the vector or refusal being built.
    pub name: String,
    /// What went wrong: the digest mismatch, a fixture that failed to
    /// build, or a refusal the reader accepted.
    pub detail: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest(domain: Option<Domain>, bytes: &[u8]) -> Sha256Digest {
    match domain {
        Some(d) => Sha256Digest::of(d, bytes),
        None => Sha256Digest::plain(bytes),
    }
}

fn err(name: &str, detail: impl Into<String>) -> VectorError {
    VectorError {
        name: name.to_string(),
        detail: detail.into(),
    }
}

struct Builder {
    out: Vec<Vector>,
}

impl Builder {
    /// A JCS vector whose digest must equal `expected` (the production
    /// function's answer).
    fn jcs(
        &mut self,
        kind: &'static str,
        name: &str,
        domain: Option<Domain>,
        input: Value,
        expected: Option<Sha256Digest>,
        derived: Option<Value>,
    ) -> Result<Sha256Digest, VectorError> {
        let bytes = canonical_value_bytes(&input).map_err(|e| err(name, e.to_string()))?;
        self.push(
            kind,
            name,
            domain,
            Encoding::Jcs,
            input,
            &bytes,
            expected,
            derived,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        kind: &'static str,
        name: &str,
        domain: Option<Domain>,
        encoding: Encoding,
        input: Value,
        bytes: &[u8],
        expected: Option<Sha256Digest>,
        derived: Option<Value>,
    ) -> Result<Sha256Digest, VectorError> {
        let d = digest(domain, bytes);
        if let Some(e) = expected
            && e != d
        {
            return Err(err(name, format!("digest {d} but the code computes {e}")));
        }
        self.out.push(Vector {
            kind,
            name: name.to_string(),
            domain: domain.map(Domain::label),
            encoding,
            input,
            canonical_hex: hex(bytes),
            sha256: d.hex(),
            derived,
        });
        Ok(d)
    }
}

/// The `receipt` vector `name` of `receipt` (checked as `n`): the receipt
/// file is the canonical bytes and one newline.
fn receipt_vector(
    b: &mut Builder,
    n: &str,
    name: &str,
    receipt: &Receipt,
) -> Result<(), VectorError> {
    let bytes = receipt.to_bytes().map_err(state_err(n))?;
    let value = to_value(n, receipt)?;
    let canonical = bytes
        .strip_suffix(b"\n")
        .ok_or_else(|| err(n, "the receipt file does not end with a newline"))?;
    same_bytes(n, &value, canonical)?;
    b.jcs("receipt", name, None, value, None, None)?;
    Ok(())
}

fn to_value<T: Serialize>(name: &str, v: &T) -> Result<Value, VectorError> {
    serde_json::to_value(v).map_err(|e| err(name, e.to_string()))
}

fn state_err(name: &str) -> impl Fn(StateError) -> VectorError + '_ {
    move |e| err(name, e.to_string())
}

fn tree(name: &str, hex: &str) -> Result<TreeId, VectorError> {
    TreeId::parse(hex).map_err(|e| err(name, e.to_string()))
}

fn path(name: &str, p: &str) -> Result<RepoPath, VectorError> {
    RepoPath::parse(p).map_err(|e| err(name, e.to_string()))
}

/// Every vector, in a fixed order. `contexts` are assembled
/// entity-context snapshots (name, assembly) whose root index digests are
/// pinned.
pub fn vectors(contexts: &[(&str, &Assembly)]) -> Result<Vec<Vector>, VectorError> {
    let mut b = Builder { out: Vec::new() };
    jcs_vectors(&mut b)?;
    review_vectors(&mut b)?;
    context_vectors(&mut b, contexts)?;
    risk_policies::vectors(&mut b)?;
    Ok(b.out)
}

/// RFC 8785 itself: key order by UTF-16 code units, string escapes, the
/// integer limits.
fn jcs_vectors(b: &mut Builder) -> Result<(), VectorError> {
    b.jcs(
        "jcs",
        "key-order-utf16",
        None,
        // U+FB01 sorts after U+1F600 in UTF-16 code units (0xD83D < 0xFB01)
        // although its code point is smaller.
        json!({"\u{fb01}": 3, "\u{1f600}": 2, "z": 1, "\u{e9}": 4, "": 0, "a": {"b": [], "a": {}}}),
        None,
        None,
    )?;
    b.jcs(
        "jcs",
        "string-escapes",
        None,
        json!([
            "\u{0}\u{1f}\u{7f}",
            "\"\\/",
            "\u{2028}\u{2029}",
            "tab\there\nnewline"
        ]),
        None,
        None,
    )?;
    b.jcs(
        "jcs",
        "integer-limits",
        None,
        json!([9007199254740991u64, -9007199254740991i64, 0, -1, 1000000]),
        None,
        None,
    )?;
    b.jcs(
        "jcs",
        "literals",
        None,
        json!({"t": true, "f": false, "n": null, "e": [], "o": {}}),
        None,
        None,
    )?;
    Ok(())
}

fn review_vectors(b: &mut Builder) -> Result<(), VectorError> {
    let n = "parser-scenario";
    let obs = fixtures::parser_observation();
    let r0 = fixtures::start(&obs, Lens::Reliability).map_err(state_err(n))?;
    let r1 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .map_err(|e| err(n, e.to_string()))?;
    let evidence = "cargo test: 42 passed, 0 failed\n";
    let r2 = r1
        .accept_evidence(evidence.as_bytes())
        .map_err(|e| err(n, e.to_string()))?;
    let snap = &r0.snapshot;

    // Paths, intended untracked files, target identity.
    for (name, paths) in [("parser-scenario", &snap.paths[..]), ("empty", &[])] {
        let digest = paths_digest(paths);
        b.jcs(
            "paths_digest",
            name,
            Some(PATHS_DOMAIN),
            to_value(n, &paths)?,
            Some(digest),
            None,
        )?;
    }
    b.jcs(
        "intended_untracked",
        "parser-scenario",
        Some(UNTRACKED_DOMAIN),
        to_value(n, &snap.intended_untracked)?,
        Some(untracked_digest(&snap.intended_untracked)),
        None,
    )?;
    let empty = tree("root-commit", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")?;
    let root = tree("root-commit", "ea87f48da7c3ea941866d92c1795b7dacf2f4ded")?;
    for (name, base, candidate) in [
        ("parser-scenario", &snap.base_tree, &snap.candidate_tree),
        ("root-commit", &empty, &root),
    ] {
        let input = json!({"base_tree": base, "candidate_tree": candidate});
        let digest = target_identity(base, candidate);
        b.jcs(
            "target_identity",
            name,
            Some(TARGET_DOMAIN),
            input,
            Some(digest),
            None,
        )?;
    }

    // Lineage id derivation.
    let lineage =
        derive_lineage_id(&snap.target, 1, &r0.created_at, &r0.nonce).map_err(state_err(n))?;
    let d = b.jcs(
        "lineage_id",
        "parser-scenario",
        Some(LINEAGE_DOMAIN),
        json!({"target": snap.target, "generation": 1, "created_at": r0.created_at, "nonce": r0.nonce}),
        None,
        Some(json!({"lineage_id": lineage})),
    )?;
    if format!("review-{}", &d.hex()[..16]) != lineage.as_str() || lineage != r0.lineage_id {
        return Err(err(n, "lineage id is not review- + 16 hex of the digest"));
    }

    // The risk policy.
    b.jcs(
        "policy_hash",
        "risk-policy-v1",
        Some(POLICY_DOMAIN),
        to_value(n, RiskPolicy::v1())?,
        Some(RiskPolicy::v1_hash()),
        None,
    )?;

    // Lens bindings: exact strings, compared byte for byte.
    let n4 = "payments-scenario";
    let (p0, results, facts) = fixtures::payments_scenario().map_err(state_err(n4))?;
    for binding in p0.lens_bindings() {
        let s = binding.binding.clone();
        b.push(
            "lens_binding",
            &format!("payments-scenario-{}", binding.lens.name()),
            None,
            Encoding::Utf8,
            Value::String(s.clone()),
            s.as_bytes(),
            None,
            Some(json!({"lens": binding.lens, "order": binding.order, "finding_id_prefix": binding.finding_id_prefix})),
        )?;
    }

    // Finding id assignment: the accepted results of four lenses.
    let p1 = p0
        .accept_results(results, &facts)
        .map_err(|e| err(n4, e.to_string()))?;
    let judgment = p1
        .stage
        .judgment()
        .ok_or_else(|| err(n4, "no judgment after results"))?;
    let ids: Vec<String> = judgment.findings().map(|f| f.id.to_string()).collect();
    b.jcs(
        "accepted_results",
        "payments-scenario",
        Some(RESULTS_DOMAIN),
        to_value(n4, &judgment.results)?,
        Some(judgment.results_hash),
        Some(json!({"finding_ids": ids})),
    )?;

    // State record revisions.
    let budget = fixtures::budget_scenario().map_err(|e| err("budget-scenario", e.to_string()))?;
    for (name, s) in [
        ("parser-reviewing", &r0),
        ("parser-validating", &r1),
        ("parser-approved", &r2),
        ("payments-after-results", &p1),
        ("budget-correction-required", &budget),
    ] {
        state_vector(b, name, s)?;
    }

    // Evidence (raw bytes) and the empty evidence of an escalation.
    let crate::review::Stage::Approved { evidence_hash, .. } = &r2.stage else {
        return Err(err(n, "the scenario did not approve"));
    };
    let approved_evidence = *evidence_hash;
    b.push(
        "evidence_hash",
        "parser-scenario",
        Some(EVIDENCE_DOMAIN),
        Encoding::Utf8,
        Value::String(evidence.into()),
        evidence.as_bytes(),
        Some(approved_evidence),
        None,
    )?;
    b.push(
        "evidence_hash",
        "escalated-no-evidence",
        Some(EVIDENCE_DOMAIN),
        Encoding::Utf8,
        Value::String(String::new()),
        b"",
        None,
        None,
    )?;

    // Fix deltas.
    let from = tree("fix", "0000000000000000000000000000000000000c00")?;
    let to = tree("fix", "0000000000000000000000000000000000000001")?;
    let fix_paths = vec![path("fix", "src/token_cache.rs")?];
    b.jcs(
        "fix_delta_hash",
        "budget-attempt-1",
        Some(FIX_DELTA_DOMAIN),
        json!({"from_tree": from, "to_tree": to, "paths": fix_paths}),
        Some(fix_delta_hash(&from, &to, &fix_paths)),
        None,
    )?;
    b.push(
        "fix_delta_hash",
        "no-correction",
        Some(FIX_DELTA_DOMAIN),
        Encoding::Utf8,
        Value::String(String::new()),
        b"",
        Some(empty_fix_delta()),
        None,
    )?;

    // The receipt, the candidate manifest and the in-toto statement.
    let receipt = Receipt::derive(&r2).ok_or_else(|| err(n, "no receipt"))?;
    receipt_vector(b, n, "parser-approved", &receipt)?;

    let entries = fixtures::parser_manifest_entries();
    let manifest = attest::manifest_bytes(&receipt, entries).map_err(|e| err(n, e.to_string()))?;
    let manifest_value = parse_strict(&manifest).map_err(|e| err(n, e.to_string()))?;
    same_bytes(n, &manifest_value, &manifest)?;
    let manifest_digest = b.jcs(
        "candidate_manifest",
        "parser-approved",
        None,
        manifest_value,
        None,
        None,
    )?;
    let statement = attest::statement(&receipt, &manifest);
    let statement_bytes = attest::statement_bytes(&statement).map_err(|e| err(n, e.to_string()))?;
    let statement_value = parse_strict(&statement_bytes).map_err(|e| err(n, e.to_string()))?;
    same_bytes(n, &statement_value, &statement_bytes)?;
    if !statement_value.to_string().contains(&manifest_digest.hex()) {
        return Err(err(n, "the statement does not name the manifest's sha256"));
    }
    b.jcs(
        "intoto_statement",
        "parser-approved",
        None,
        statement_value,
        None,
        None,
    )?;
    // DSSE: the pre-authentication encoding a signature covers, the
    // specification's own example first.
    for (name, payload_type, body) in [
        (
            "dsse-spec-example",
            "http://example.com/HelloWorld",
            b"hello world".to_vec(),
        ),
        (
            "parser-approved-statement",
            dsse::PAYLOAD_TYPE,
            statement_bytes.clone(),
        ),
    ] {
        let body_text = String::from_utf8(body.clone()).map_err(|e| err(name, e.to_string()))?;
        b.push(
            "dsse_pae",
            name,
            None,
            Encoding::DssePae,
            json!({"payloadType": payload_type, "payload": body_text}),
            &dsse::pae(payload_type, &body),
            None,
            None,
        )?;
    }
    // Lens binding tokens: what an orchestrator echoes for a binding.
    for binding in p0.lens_bindings().into_iter().take(2) {
        let name = format!("payments-scenario-{}", binding.lens.name());
        let (token, d) = binding_token_vector(b, &name, &binding.binding)?;
        if token != format!("lbt1-{}", &d.hex()[..20]) {
            return Err(err(n4, "token is not lbt1- + 20 hex of the digest"));
        }
    }
    // `finalize --evidence-cmd`: the canonical document the evidence hash
    // covers, checked against a real transition's `evidence_hash`.
    let run = evidence::CommandRun {
        argv: vec!["cargo".into(), "test".into(), "--locked".into()],
        exit: evidence::ExitOutcome::Code(0),
        output_sha256: Sha256Digest::plain(b"test result: ok. 42 passed; 0 failed\n"),
        output_bytes: 37,
    };
    // A run's evidence document and the state `r1` takes on it.
    let by_cmd = |run: &evidence::CommandRun| -> Result<(Vec<u8>, ReviewState), VectorError> {
        let doc = evidence::command_evidence(run)
            .map_err(|e| err("command-evidence", e.to_string()))?
            .bytes;
        let next = r1
            .accept_evidence(&doc)
            .map_err(|e| err("command-evidence", e.to_string()))?;
        Ok((doc, next))
    };
    let (doc, approved_by_cmd) = by_cmd(&run)?;
    let Stage::Approved { evidence_hash, .. } = &approved_by_cmd.stage else {
        return Err(err("command-evidence", "the evidence did not approve"));
    };
    command_evidence_vector(b, "cargo-test", &doc, *evidence_hash)?;
    // A failed run: its document names the exit code, and the transition it
    // drives escalates with that document's hash.
    let failed_run = evidence::CommandRun {
        exit: evidence::ExitOutcome::Code(101),
        output_sha256: Sha256Digest::plain(b"test result: FAILED. 41 passed; 1 failed\n"),
        output_bytes: 41,
        ..run
    };
    let (failed, escalated_by_cmd) = by_cmd(&failed_run)?;
    let Stage::Escalated {
        reason: Escalation::EvidenceFailed {
            evidence_hash: failed_hash,
        },
        ..
    } = &escalated_by_cmd.stage
    else {
        return Err(err("command-evidence", "the failed check did not escalate"));
    };
    command_evidence_vector(b, "cargo-test-failed", &failed, *failed_hash)?;
    // The rebase proof's delta identity and one entry's identity.
    let side = |mode, o: &str| -> Result<Option<EntrySide>, VectorError> {
        Ok(Some(EntrySide {
            mode,
            object: ObjectId::parse(o).map_err(|e| err("delta", e.to_string()))?,
        }))
    };
    let delta = TreeDelta::new(vec![
        DeltaEntry {
            path: path("delta", "src/parser.rs")?,
            base: side(FileMode::Regular, &"1".repeat(40))?,
            candidate: side(FileMode::Regular, &"2".repeat(40))?,
        },
        DeltaEntry {
            path: path("delta", "bin/run")?,
            base: None,
            candidate: side(FileMode::Executable, &"3".repeat(40))?,
        },
    ])
    .map_err(|e| err("delta", e.to_string()))?;
    let docs: Vec<Value> = delta
        .entries()
        .iter()
        .map(|e| {
            let sd = |s: &Option<EntrySide>| {
                s.as_ref()
                    .map(|s| json!({"mode": s.mode.octal(), "object": s.object.as_str()}))
            };
            json!({"path": e.path, "base": sd(&e.base), "final": sd(&e.candidate)})
        })
        .collect();
    b.jcs(
        "delta_identity",
        "rebase-two-entries",
        Some(DELTA_DOMAIN),
        Value::Array(docs.clone()),
        Some(delta.identity()),
        None,
    )?;
    let first = delta
        .entry_identities()
        .first()
        .map(|(k, _)| *k)
        .ok_or_else(|| err("delta", "no entry identity"))?;
    b.jcs(
        "delta_entry",
        "rebase-first-entry",
        Some(DELTA_ENTRY_DOMAIN),
        docs[0].clone(),
        Some(first),
        None,
    )?;
    // A review bundle's digest: the bundle without its `digest` field.
    let bundle = Bundle::build(vec![r2.record().map_err(state_err(n))?], Vec::new())
        .map_err(|e| err("bundle", e.to_string()))?;
    let mut body = to_value("bundle", &bundle)?;
    if let Value::Object(m) = &mut body {
        m.remove("digest");
    }
    b.jcs(
        "bundle_digest",
        "parser-approved",
        Some(BUNDLE_DOMAIN),
        body,
        Some(bundle.digest),
        None,
    )?;
    // Prompt digests (issue 10): each built-in role's composed system
    // prompt, and a v2 binding (which names its lens's prompt digest) with
    // its token, from the payments scenario started with frozen prompts.
    let prompts = PromptSet::builtin();
    for role in PromptRole::all() {
        let text = prompts.system(role);
        b.push(
            "prompt_digest",
            role.file_name(),
            Some(PROMPT_DOMAIN),
            Encoding::Utf8,
            Value::String(text.clone()),
            text.as_bytes(),
            Some(prompts.digest(role)),
            None,
        )?;
    }
    let mut with_prompts = p0.clone();
    with_prompts.frozen.prompts = Some(prompts.freeze(&with_prompts.frozen.selected_lenses));
    for binding in with_prompts.lens_bindings().into_iter().take(1) {
        let want = prompts.digest(PromptRole::Lens(binding.lens));
        if !binding.binding.ends_with(&format!(" prompt={want}"))
            || !binding.binding.starts_with("probity-lens-binding/v2 ")
        {
            return Err(err(n4, "a v2 binding names its lens's prompt digest"));
        }
        let name = format!("payments-scenario-v2-{}", binding.lens.name());
        binding_token_vector(b, &name, &binding.binding)?;
    }
    Ok(())
}

/// A `finalize --evidence-cmd` document's vector: canonical as written,
/// hashed under the evidence domain to `hash`.
fn command_evidence_vector(
    b: &mut Builder,
    name: &str,
    doc: &[u8],
    hash: Sha256Digest,
) -> Result<(), VectorError> {
    let value = parse_strict(doc).map_err(|e| err("command-evidence", e.to_string()))?;
    same_bytes("command-evidence", &value, doc)?;
    b.jcs(
        "command_evidence",
        name,
        Some(EVIDENCE_DOMAIN),
        value,
        Some(hash),
        None,
    )?;
    Ok(())
}

/// A lens binding's token vector (what an orchestrator echoes for the
/// binding): the token and the digest it is cut from.
fn binding_token_vector(
    b: &mut Builder,
    name: &str,
    binding: &str,
) -> Result<(String, Sha256Digest), VectorError> {
    let token = submission::binding_token(binding);
    let d = b.push(
        "lens_binding_token",
        name,
        Some(submission::BINDING_TOKEN_DOMAIN),
        Encoding::Utf8,
        Value::String(binding.to_string()),
        binding.as_bytes(),
        None,
        Some(json!({"token": token})),
    )?;
    Ok((token, d))
}

/// A state record revision: the state's canonical bytes under the state
/// schema's domain.
fn state_vector(b: &mut Builder, name: &str, s: &ReviewState) -> Result<(), VectorError> {
    let record = s.record().map_err(state_err(name))?;
    let value = to_value(name, s)?;
    same_bytes(name, &value, &s.canonical_bytes().map_err(state_err(name))?)?;
    b.jcs(
        "state_revision",
        name,
        Some(REVISION_DOMAIN),
        value,
        Some(record.revision),
        None,
    )?;
    Ok(())
}

fn same_bytes(name: &str, value: &Value, bytes: &[u8]) -> Result<(), VectorError> {
    let again = canonical_value_bytes(value).map_err(|e| err(name, e.to_string()))?;
    if again != bytes {
        return Err(err(
            name,
            "the code's bytes are not the JCS bytes of the input",
        ));
    }
    Ok(())
}

fn context_vectors(b: &mut Builder, contexts: &[(&str, &Assembly)]) -> Result<(), VectorError> {
    for (origin, repo, kind, id, name) in [
        (
            "github://github.com",
            "R_kgDOExample",
            "comment",
            "IC_kwDOExample",
            "seed-example",
        ),
        (
            "gitlab://gitlab.example.com:8443",
            "278964",
            "review",
            "gid://gitlab/Note/1",
            "gitlab-with-port",
        ),
        (
            "forgejo://codeberg.org",
            "12",
            "check",
            "\u{e9}t\u{e9}",
            "non-ascii-id",
        ),
    ] {
        let mut pre = Vec::new();
        for (i, part) in [origin, repo, kind, id].iter().enumerate() {
            if i > 0 {
                pre.push(0);
            }
            pre.extend_from_slice(part.as_bytes());
        }
        let key = record_key_raw(origin, repo, kind, id);
        let d = b.push(
            "record_key",
            name,
            None,
            Encoding::RecordKey,
            json!({"origin": origin, "repository_id": repo, "kind": kind, "id": id}),
            &pre,
            None,
            Some(json!({"record_key": key.hex()})),
        )?;
        if d.hex() != key.hex() {
            return Err(err(name, "record key differs from the code's"));
        }
    }
    for (name, assembly) in contexts {
        let index = assembly
            .tree
            .get("index.json")
            .ok_or_else(|| err(name, "the tree has no index.json"))?;
        let value = parse_strict(index).map_err(|e| err(name, e.to_string()))?;
        same_bytes(name, &value, index)?;
        let d = b.jcs("context_root_index", name, None, value, None, None)?;
        if d.hex() != assembly.index_digest.hex() {
            return Err(err(name, "root index digest differs from the assembler's"));
        }
    }
    Ok(())
}

/// Every refusal vector: text Probity never hashes or accepts, with the
/// code it answers.
pub fn refusals() -> Result<Vec<Refusal>, VectorError> {
    let cases: [(&str, &str, &str); 9] = [
        ("float", "json", r#"{"a":1.5}"#),
        ("float-integral", "json", r#"{"a":1.0}"#),
        ("integer-2^53", "json", r#"{"a":9007199254740992}"#),
        ("integer-minus-2^53", "json", r#"[-9007199254740992]"#),
        ("integer-beyond-64-bits", "json", "18446744073709551616"),
        ("duplicate-key", "json", r#"{"a":1,"a":1}"#),
        ("duplicate-key-nested", "json", r#"{"x":[{"b":1,"b":2}]}"#),
        ("lone-surrogate", "json", r#"["\ud800"]"#),
        ("trailing-data", "json", r#"{"a":1} {"b":2}"#),
    ];
    let mut out = Vec::new();
    for (name, reader, text) in cases {
        out.push(json_refusal(name, reader, text.to_string())?);
    }
    // A stored record must be canonical: the same record with a space.
    let n = "state-record-not-canonical";
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .map_err(state_err(n))?;
    let bytes = r0
        .record()
        .and_then(|r| r.to_bytes())
        .map_err(state_err(n))?;
    let text = String::from_utf8(bytes).map_err(|e| err(n, e.to_string()))?;
    let spaced = text.replacen(',', ", ", 1);
    let code = match StateRecord::from_bytes(spaced.as_bytes()) {
        Err(StateError::NotCanonical) => "not_canonical",
        Err(e) => return Err(err(n, format!("refused with another error: {e}"))),
        Ok(_) => return Err(err(n, "accepted a non-canonical record")),
    };
    out.push(Refusal {
        kind: "refusal",
        name: n,
        reader: "state_record",
        input_text: spaced,
        error: code,
    });
    // Added after the first ten (issue 23 §5), so those lines keep their
    // place: `-0` is a float (its sign would not survive as an integer),
    // and 128 levels of nesting are past the reader's depth limit (127
    // levels are read).
    let added: [(&'static str, String); 3] = [
        ("negative-zero", "-0".into()),
        ("negative-zero-nested", r#"{"a":[-0]}"#.into()),
        (
            "nesting-128",
            format!("{}{}", "[".repeat(128), "]".repeat(128)),
        ),
    ];
    for (name, text) in added {
        out.push(json_refusal(name, "json", text)?);
    }
    Ok(out)
}

/// The refusal vector of `text`, which the strict JSON reader must refuse.
fn json_refusal(
    name: &'static str,
    reader: &'static str,
    text: String,
) -> Result<Refusal, VectorError> {
    let code = match parse_strict(text.as_bytes()) {
        Err(e) => e.code(),
        Ok(_) => return Err(err(name, "accepted, but listed as a refusal")),
    };
    Ok(Refusal {
        kind: "refusal",
        name,
        reader,
        input_text: text,
        error: code,
    })
}

/// One JSON document per line (the vector files' format).
pub fn jsonl<T: Serialize>(items: &[T]) -> Result<String, VectorError> {
    let mut s = String::new();
    for item in items {
        let bytes = canonical_bytes(item).map_err(|e| err("jsonl", e.to_string()))?;
        s.push_str(&String::from_utf8(bytes).map_err(|e| err("jsonl", e.to_string()))?);
        s.push('\n');
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_review_vector_matches_the_code() {
        let v = vectors(&[]).unwrap();
        for kind in [
            "jcs",
            "paths_digest",
            "intended_untracked",
            "target_identity",
            "lineage_id",
            "policy_hash",
            "lens_binding",
            "accepted_results",
            "state_revision",
            "evidence_hash",
            "fix_delta_hash",
            "receipt",
            "candidate_manifest",
            "intoto_statement",
            "record_key",
            "dsse_pae",
            "lens_binding_token",
            "command_evidence",
            "delta_identity",
            "delta_entry",
            "bundle_digest",
        ] {
            assert!(v.iter().any(|x| x.kind == kind), "no {kind} vector");
        }
        // The seed's record-key vector is among them.
        assert!(v.iter().any(
            |x| x.sha256 == "c73645a72a9c5de28d71e3e1efe235b9a5d02ee6dfe7dc0ef06cf3d0e5ee3421"
        ));
    }

    /// Issue 23 §5: `-0` and nesting at serde_json's depth limit are
    /// refusals Probity makes, so the vectors pin them.
    #[test]
    fn refusals_pin_negative_zero_and_the_nesting_limit() {
        let r = refusals().unwrap();
        let of = |name: &str| {
            r.iter()
                .find(|x| x.name == name)
                .unwrap_or_else(|| panic!("no {name} refusal"))
        };
        for name in ["negative-zero", "negative-zero-nested"] {
            assert_eq!(of(name).error, "float", "{name}");
        }
        let deep = of("nesting-128");
        assert_eq!(deep.error, "invalid_json");
        assert_eq!(deep.input_text.matches('[').count(), 128);
        // One level less is read.
        let shallow = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert!(parse_strict(shallow.as_bytes()).is_ok());
    }

    #[test]
    fn refusals_name_their_codes() {
        let r = refusals().unwrap();
        let codes: Vec<&str> = r.iter().map(|x| x.error).collect();
        for c in [
            "float",
            "integer_out_of_range",
            "duplicate_key",
            "invalid_json",
            "not_canonical",
        ] {
            assert!(codes.contains(&c), "{c}");
        }
    }
}
