//! What judges a note's bundle at the server gate, its CI forms and a
//! client's pre-push: the signature policy of the server's configuration
//! and the repository policy and required checks of the push's bases
//! ([`PolicyJudge::judge`]); and, for a commit whose parent the push
//! itself brings, that parent's policy and checks too
//! ([`PolicyJudge::judge_under`], D-R172). Moved out of `pre_receive.rs`
//! (the signature policy as it was) when the parent's policy was added.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use probity_core::review::{Bundle, CommitId, NOTES_REF};
use probity_git::Repo;
use probity_ports::review::{self as drivers, BundlePolicy, ReceiveDenial, SignaturePolicy};

use super::policy_gate::{BaseChecks, BasePolicy};
use super::pre_receive::ServerFaults;
use crate::output::{CliError, ErrorKind};

/// The rules one judgement applies: repository policies (each with its
/// allowed signers) and required checks.
struct Rules {
    policies: Vec<BasePolicy>,
    checks: Vec<BaseChecks>,
}

/// At most this many bytes of a rules document are compared (each
/// document's own bound is smaller: a longer one is read, and refused, by
/// its reader).
const MAX_RULES_BYTES: usize = 4 << 20;
/// A commit's policy, allowed signers and checks, as bytes.
type RulesBytes = [Option<Vec<u8>>; 3];

/// A judgement, kept by what it judged.
type Answers<K> = RefCell<BTreeMap<K, Result<(), ReceiveDenial>>>;
/// A pushed parent's own rules (`None`: none differ from the bases').
type ParentRules = Result<Option<Rc<Rules>>, ReceiveDenial>;

/// Judges bundles under the push's bases and, on request, a pushed
/// parent's rules; every answer kept for the push.
pub(super) struct PolicyJudge<'a> {
    repo: &'a Repo,
    faults: &'a ServerFaults,
    policy: SignaturePolicy,
    port: probity_git::sign::SshKeygen,
    bases: Vec<CommitId>,
    rules: Rules,
    /// Each answer by the bundle's bytes: the lines of a note for one
    /// lineage are checked with the same signatures (the note's, D-R119
    /// and red team round 3), so each distinct bundle costs its signature
    /// checks once, however many lines repeat it. A cache, never a digest
    /// anything else reads.
    answered: Answers<Vec<u8>>,
    /// A pushed parent's rules that differ from the bases' (`None`: none
    /// differ), read once per parent.
    parents: RefCell<BTreeMap<CommitId, ParentRules>>,
    /// The bases' rules as bytes, read on the first pushed parent.
    base_bytes: RefCell<Option<Vec<RulesBytes>>>,
    /// Each answer under a pushed parent's rules, by parent and bytes.
    answered_under: Answers<(CommitId, Vec<u8>)>,
}

/// The signature policy (`probity.requireSignature`, D-R40–D-R43): with it
/// set, every bundle the notes carry must hold a DSSE envelope whose
/// signature, by a key `probity.allowedSignersFile` lists, covers exactly
/// the statement this repository derives for each approved record of the
/// bundle's chain whose trees are here (D-R55), not only the leaf's; otherwise
/// the push is denied with `signature_missing`, `signature_invalid` or
/// `signer_not_allowed`. Without it every verified bundle passes. The
/// configuration is read once, before anything is judged, and with a
/// signature required the allowed-signers file is checked then too: a
/// missing or unusable file, like a failing `ssh-keygen`, is the server's
/// fault, never the pusher's ([`ServerFaults`]).
///
/// The repository policy of every base judged against (`policies`, read by
/// [`super::policy_gate::read_policies`]) is applied to each bundle too:
/// its risk floors and the roles its tiers ask to sign.
pub(super) fn signature_policy<'a>(
    repo: &'a Repo,
    faults: &'a ServerFaults,
    bases: &[CommitId],
) -> Result<PolicyJudge<'a>, CliError> {
    use probity_ports::review::{SignatureError, SshSignatures};
    let config = |message: String| {
        faults.error(CliError::new(
            ErrorKind::Repository,
            "repository_error",
            message,
            "fix the signature settings (probity.requireSignature, probity.allowedSignersFile) and retry",
        ))
    };
    let policy = probity_git::sign::signature_policy(repo).map_err(|e| config(e.to_string()))?;
    let port = probity_git::sign::SshKeygen::for_repo(repo).map_err(|e| config(e.to_string()))?;
    if policy.require_signature {
        match &policy.allowed_signers {
            None => return Err(config(SignatureError::NoAllowedSigners.to_string())),
            Some(path) => port
                .check_allowed_signers(path)
                .map_err(|e| config(e.to_string()))?,
        }
    }
    let policies =
        super::policy_gate::read_policies(repo, bases, policy.allowed_signers.as_deref())?;
    for p in &policies {
        if let Some(path) = p.signers_path() {
            port.check_allowed_signers(path).map_err(|e| {
                config(format!(
                    "the allowed signers of the policy at {}: {e}",
                    p.base
                ))
            })?;
        }
    }
    if policies.is_empty() {
        eprintln!("probity: note: {}", super::policy_gate::NO_POLICY_NOTE);
    }
    let checks = super::policy_gate::read_checks(repo, bases)?;
    Ok(PolicyJudge {
        repo,
        faults,
        policy,
        port,
        bases: bases.to_vec(),
        rules: Rules { policies, checks },
        answered: RefCell::default(),
        parents: RefCell::default(),
        base_bytes: RefCell::default(),
        answered_under: RefCell::default(),
    })
}

fn deny(code: &str, message: String) -> ReceiveDenial {
    ReceiveDenial {
        reason_code: code.to_owned(),
        refname: NOTES_REF.into(),
        commit: None,
        message,
        next_action: "sign",
    }
}

impl PolicyJudge<'_> {
    /// `bundle` under the signature policy and `rules`.
    fn judge_with(&self, rules: &Rules, bundle: &Bundle) -> Result<(), ReceiveDenial> {
        use probity_ports::review::SignatureError;
        if !self.policy.require_signature && rules.policies.is_empty() && rules.checks.is_empty() {
            return Ok(());
        }
        let statements = drivers::statements_to_vouch_for(self.repo, bundle).map_err(|e| {
            deny(
                "authority_invalid",
                format!("bundle of {}: {e}", bundle.lineage_id),
            )
        })?;
        let mut envelopes = Vec::new();
        for e in &bundle.attestations {
            let bytes = probity_core::canonical::canonical_bytes(e).map_err(|e| {
                deny(
                    "bad_envelope",
                    format!("bundle of {}: {e}", bundle.lineage_id),
                )
            })?;
            envelopes.push(bytes);
        }
        let refs: Vec<&[u8]> = envelopes.iter().map(Vec::as_slice).collect();
        // Every approved review of the chain that could authorize a
        // delivery here must be vouched for, not only the leaf (issue 20
        // §3): a maintainer's signature on a later link does not cover an
        // unsigned earlier one.
        let required = if self.policy.require_signature {
            statements.as_slice()
        } else {
            &[]
        };
        for (lineage, statement) in required {
            drivers::check_attestations(&self.port, &refs, statement, &self.policy).map_err(
                |e| match e {
                    // The server's allowed-signers file or its ssh-keygen:
                    // nothing the pusher can sign fixes it.
                    SignatureError::NoAllowedSigners
                    | SignatureError::AllowedSigners(_)
                    | SignatureError::Tool(_) => self.faults.denial(e.code(), e.to_string()),
                    e => {
                        // In a hook the pusher reads this: the server's
                        // allowed-signers path stays on the server.
                        let why = match &e {
                            SignatureError::SignerNotAllowed { keyid, .. } if self.faults.hook => {
                                format!(
                                    "signed by {keyid}, which the server's allowed signers do not list"
                                )
                            }
                            e => e.to_string(),
                        };
                        deny(
                            e.code(),
                            format!(
                                "the review {lineage} (in the chain of {}) is not signed by an allowed key ({why}): sign it with `probity attest --lineage {lineage} --sign`, then `probity push` again",
                                bundle.lineage_id
                            ),
                        )
                    }
                },
            )?;
        }
        super::policy_gate::check_bundle(
            self.repo,
            &self.port,
            &rules.policies,
            bundle,
            &refs,
            &statements,
        )?;
        super::policy_gate::check_required_checks(self.repo, &rules.checks, bundle, &statements)
    }

    /// The rules `parent` holds that the bases' do not: its policy when its
    /// document or allowed signers differ from every base's, its checks
    /// when their bytes do. `None` when neither differs. A document that
    /// cannot be read or parsed is the pusher's content: a denial.
    fn parent_rules(&self, parent: &CommitId) -> ParentRules {
        if let Some(r) = self.parents.borrow().get(parent) {
            return r.clone();
        }
        let read = self.read_parent_rules(parent).map_err(|e| {
            let mut d = deny(&e.code, e.message.clone());
            d.next_action = "start_commit_review";
            d
        });
        self.parents
            .borrow_mut()
            .insert(parent.clone(), read.clone());
        read
    }

    /// What `commit` holds of the rules, as bytes: its policy document,
    /// the allowed signers that document names, and its required checks.
    fn rules_bytes(&self, commit: &CommitId) -> Result<RulesBytes, CliError> {
        use probity_core::review::{CHECKS_PATH, POLICY_PATH, RepoPolicy};
        let read = |path: &str| {
            self.repo
                .read_path(commit.as_str(), path, MAX_RULES_BYTES)
                .map_err(super::repo_error)
        };
        let policy = read(POLICY_PATH)?;
        let named = policy
            .as_deref()
            .and_then(|b| RepoPolicy::parse(b).ok())
            .and_then(|p| p.allowed_signers().map(str::to_owned));
        let signers = match named {
            Some(path) => read(&path)?,
            None => None,
        };
        Ok([policy, signers, read(CHECKS_PATH)?])
    }

    fn read_parent_rules(&self, parent: &CommitId) -> Result<Option<Rc<Rules>>, CliError> {
        use probity_core::review::CHECKS_PATH;
        use probity_ports::review::SshSignatures;
        // The common case, a parent holding a base's rules byte for byte
        // (every commit of a stack that changes no policy): nothing new,
        // and nothing more read.
        if self.bases.contains(parent) {
            return Ok(None);
        }
        let own = self.rules_bytes(parent)?;
        if self.base_bytes.borrow().is_none() {
            let read: Result<Vec<RulesBytes>, CliError> =
                self.bases.iter().map(|b| self.rules_bytes(b)).collect();
            *self.base_bytes.borrow_mut() = Some(read?);
        }
        if self
            .base_bytes
            .borrow()
            .as_ref()
            .is_some_and(|all| all.contains(&own))
        {
            return Ok(None);
        }
        // read_policies drops a document (with its signers) already in
        // force at an earlier base: what is left is the parent's own.
        let mut all = self.bases.clone();
        all.push(parent.clone());
        let policies: Vec<BasePolicy> = super::policy_gate::read_policies(
            self.repo,
            &all,
            self.policy.allowed_signers.as_deref(),
        )?
        .into_iter()
        .filter(|p| p.base == *parent)
        .collect();
        for p in &policies {
            if let Some(path) = p.signers_path() {
                self.port.check_allowed_signers(path).map_err(|e| {
                    CliError::new(
                        ErrorKind::RejectedInput,
                        "policy_invalid",
                        format!("the allowed signers of the policy at {parent}: {e}"),
                        "fix .probity/allowed_signers in that commit",
                    )
                })?;
            }
        }
        let bytes = |c: &CommitId| {
            self.repo
                .read_path(c.as_str(), CHECKS_PATH, 1 << 20)
                .map_err(super::repo_error)
        };
        let own = bytes(parent)?;
        let mut differs = own.is_some();
        for b in &self.bases {
            if bytes(b)? == own {
                differs = false;
            }
        }
        let checks = if differs {
            super::policy_gate::read_checks(self.repo, std::slice::from_ref(parent))?
        } else {
            Vec::new()
        };
        if policies.is_empty() && checks.is_empty() {
            return Ok(None);
        }
        Ok(Some(Rc::new(Rules { policies, checks })))
    }
}

impl BundlePolicy for PolicyJudge<'_> {
    fn judge(&self, bundle: &Bundle) -> Result<(), ReceiveDenial> {
        let Ok(key) = probity_core::canonical::canonical_bytes(bundle) else {
            return self.judge_with(&self.rules, bundle);
        };
        if let Some(answer) = self.answered.borrow().get(&key) {
            return answer.clone();
        }
        let answer = self.judge_with(&self.rules, bundle);
        self.answered.borrow_mut().insert(key, answer.clone());
        answer
    }

    /// Under the rules `parent` holds that the bases' do not (the policy
    /// a commit earlier in the same push brought), with the same
    /// signature policy; `Ok` when it holds none of its own.
    fn judge_under(&self, parent: &CommitId, bundle: &Bundle) -> Result<(), ReceiveDenial> {
        let Some(rules) = self.parent_rules(parent)? else {
            return Ok(());
        };
        let Ok(bytes) = probity_core::canonical::canonical_bytes(bundle) else {
            return self.judge_with(&rules, bundle);
        };
        let key = (parent.clone(), bytes);
        if let Some(answer) = self.answered_under.borrow().get(&key) {
            return answer.clone();
        }
        let answer = self.judge_with(&rules, bundle).map_err(|mut d| {
            d.message = format!(
                "under the repository policy of {parent}, which this push brings: {}",
                d.message
            );
            d
        });
        self.answered_under.borrow_mut().insert(key, answer.clone());
        answer
    }
}
