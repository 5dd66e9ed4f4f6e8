//! The built-in risk policies (`core/policy/risk-policy-v1.json` to
//! `-v12.json`, embedded): each parsed and hashed once, its automata built
//! on first use, and the accessors naming each version and the newest.

use std::sync::LazyLock;

use super::scan::Scan;
use super::{
    POLICY_DOMAIN, POLICY_V2_DOMAIN, POLICY_V3_DOMAIN, POLICY_V4_DOMAIN, POLICY_V5_DOMAIN,
    POLICY_V6_DOMAIN, POLICY_V7_DOMAIN, POLICY_V8_DOMAIN, POLICY_V9_DOMAIN, POLICY_V10_DOMAIN,
    POLICY_V11_DOMAIN, POLICY_V12_DOMAIN, RiskPolicy,
};
use crate::canonical::canonical_digest;
use crate::digest::{Domain, Sha256Digest};

pub(super) const POLICY_V1_JSON: &str = include_str!("../../../policy/risk-policy-v1.json");
pub(super) const POLICY_V2_JSON: &str = include_str!("../../../policy/risk-policy-v2.json");
pub(super) const POLICY_V3_JSON: &str = include_str!("../../../policy/risk-policy-v3.json");
pub(super) const POLICY_V4_JSON: &str = include_str!("../../../policy/risk-policy-v4.json");
pub(super) const POLICY_V5_JSON: &str = include_str!("../../../policy/risk-policy-v5.json");
pub(super) const POLICY_V6_JSON: &str = include_str!("../../../policy/risk-policy-v6.json");
pub(super) const POLICY_V7_JSON: &str = include_str!("../../../policy/risk-policy-v7.json");
pub(super) const POLICY_V8_JSON: &str = include_str!("../../../policy/risk-policy-v8.json");
pub(super) const POLICY_V9_JSON: &str = include_str!("../../../policy/risk-policy-v9.json");
pub(super) const POLICY_V10_JSON: &str = include_str!("../../../policy/risk-policy-v10.json");
pub(super) const POLICY_V11_JSON: &str = include_str!("../../../policy/risk-policy-v11.json");
pub(super) const POLICY_V12_JSON: &str = include_str!("../../../policy/risk-policy-v12.json");

/// A built-in policy with its digest and its automata, built once.
pub(super) struct Builtin {
    pub(super) policy: RiskPolicy,
    pub(super) hash: Sha256Digest,
    /// Built the first time the policy classifies (issue 24: a gate
    /// finding a record's policy by its digest needs the digests of all
    /// six, not their automata; building them all cost every
    /// `validate` about 3 ms).
    pub(super) scan: std::sync::OnceLock<Scan>,
}

// The embedded policies are compile-time constants covered by tests; a
// failure here is a build defect, not user input.
#[allow(clippy::expect_used)]
fn builtin(json: &str, domain: Domain) -> Builtin {
    let policy: RiskPolicy = serde_json::from_str(json).expect("embedded risk policy parses");
    let hash = canonical_digest(domain, &policy).expect("embedded risk policy is canonical");
    Builtin {
        policy,
        hash,
        scan: std::sync::OnceLock::new(),
    }
}

static POLICY_V1: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V1_JSON, POLICY_DOMAIN));
static POLICY_V2: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V2_JSON, POLICY_V2_DOMAIN));
static POLICY_V3: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V3_JSON, POLICY_V3_DOMAIN));
static POLICY_V4: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V4_JSON, POLICY_V4_DOMAIN));
static POLICY_V5: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V5_JSON, POLICY_V5_DOMAIN));
static POLICY_V6: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V6_JSON, POLICY_V6_DOMAIN));
static POLICY_V7: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V7_JSON, POLICY_V7_DOMAIN));
static POLICY_V8: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V8_JSON, POLICY_V8_DOMAIN));
static POLICY_V9: LazyLock<Builtin> = LazyLock::new(|| builtin(POLICY_V9_JSON, POLICY_V9_DOMAIN));
static POLICY_V10: LazyLock<Builtin> =
    LazyLock::new(|| builtin(POLICY_V10_JSON, POLICY_V10_DOMAIN));
static POLICY_V11: LazyLock<Builtin> =
    LazyLock::new(|| builtin(POLICY_V11_JSON, POLICY_V11_DOMAIN));
static POLICY_V12: LazyLock<Builtin> =
    LazyLock::new(|| builtin(POLICY_V12_JSON, POLICY_V12_DOMAIN));

/// The built-in policies, oldest first: a state names one of them by its
/// digest, and the newest derives what a gate checks.
pub(super) fn builtins() -> [&'static Builtin; 12] {
    [
        &*POLICY_V1,
        &*POLICY_V2,
        &*POLICY_V3,
        &*POLICY_V4,
        &*POLICY_V5,
        &*POLICY_V6,
        &*POLICY_V7,
        &*POLICY_V8,
        &*POLICY_V9,
        &*POLICY_V10,
        &*POLICY_V11,
        &*POLICY_V12,
    ]
}

impl RiskPolicy {
    /// The built-in policy v1.
    pub fn v1() -> &'static RiskPolicy {
        &POLICY_V1.policy
    }

    /// The canonical digest of the built-in policy v1
    /// (`probity/risk-policy/v1`).
    pub fn v1_hash() -> Sha256Digest {
        POLICY_V1.hash
    }

    /// The built-in policy v2: v1's rules, and agent-instruction
    /// directories, agent hooks, code in documents and a spawn scan blind
    /// to whitespace (D-R114).
    pub fn v2() -> &'static RiskPolicy {
        &POLICY_V2.policy
    }

    /// The canonical digest of the built-in policy v2
    /// (`probity/risk-policy/v2`).
    pub fn v2_hash() -> Sha256Digest {
        POLICY_V2.hash
    }

    /// The built-in policy v3: v2's rules, and configuration that runs by
    /// itself (`auto_run_config`) and more agents' instructions and hooks
    /// (D-R122).
    pub fn v3() -> &'static RiskPolicy {
        &POLICY_V3.policy
    }

    /// The canonical digest of the built-in policy v3
    /// (`probity/risk-policy/v3`).
    pub fn v3_hash() -> Sha256Digest {
        POLICY_V3.hash
    }

    /// The built-in policy v4: v3's rules, and files reached through
    /// symbolic links rated at the links' paths, manifests naming a build
    /// script or a proc-macro, Git LFS pointers (D-R131).
    pub fn v4() -> &'static RiskPolicy {
        &POLICY_V4.policy
    }

    /// The canonical digest of the built-in policy v4
    /// (`probity/risk-policy/v4`).
    pub fn v4_hash() -> Sha256Digest {
        POLICY_V4.hash
    }

    /// The built-in policy v5: v4's rules, and a content scan that reads
    /// Rust raw identifiers and joined string literals and rates Python's
    /// dynamic imports and evaluation, more configuration that runs by
    /// itself, submodules at a listed directory's name, and files an
    /// auto-run configuration runs by reference (D-R135).
    pub fn v5() -> &'static RiskPolicy {
        &POLICY_V5.policy
    }

    /// The canonical digest of the built-in policy v5
    /// (`probity/risk-policy/v5`).
    pub fn v5_hash() -> Sha256Digest {
        POLICY_V5.hash
    }

    /// The built-in policy v6: v5's rules, and a document naming a
    /// directive that is not listed inert (`.. testcleanup::`,
    /// `.. ipython::`, `:::{jupyter-execute}`) is `doc_code_block`
    /// (D-R143).
    pub fn v6() -> &'static RiskPolicy {
        &POLICY_V6.policy
    }

    /// The canonical digest of the built-in policy v6
    /// (`probity/risk-policy/v6`).
    pub fn v6_hash() -> Sha256Digest {
        POLICY_V6.hash
    }

    /// The built-in policy v7: v6's rules, and a symbolic link is rated
    /// as the directory it stands for, as a submodule is (a link at
    /// `.vscode`, `.husky` or `.github`: D-R165).
    pub fn v7() -> &'static RiskPolicy {
        &POLICY_V7.policy
    }

    /// The canonical digest of the built-in policy v7
    /// (`probity/risk-policy/v7`).
    pub fn v7_hash() -> Sha256Digest {
        POLICY_V7.hash
    }

    /// The built-in policy v8: v7's rules, with links resolved as a
    /// checkout resolves them (`tools/cur/../vscode` after `tools/cur`
    /// became a link) and a changed link or submodule rated at every link
    /// passing through it (D-R167).
    pub fn v8() -> &'static RiskPolicy {
        &POLICY_V8.policy
    }

    /// The canonical digest of the built-in policy v8
    /// (`probity/risk-policy/v8`).
    pub fn v8_hash() -> Sha256Digest {
        POLICY_V8.hash
    }

    /// The built-in policy v9: v8's rules, and what a checkout writes
    /// where git's tree says otherwise: paths as a case-insensitive file
    /// system opens them, link targets that leave the repository and come
    /// back, references matched through links, and attributes that
    /// re-encode or filter content (D-R168).
    pub fn v9() -> &'static RiskPolicy {
        &POLICY_V9.policy
    }

    /// The canonical digest of the built-in policy v9
    /// (`probity/risk-policy/v9`).
    pub fn v9_hash() -> Sha256Digest {
        POLICY_V9.hash
    }

    /// The built-in policy v10: v9's rules, `export-subst` among the
    /// checkout transforms (`git archive` writes a commit's message into
    /// the files), and a configuration behind a link with an absolute
    /// target taken as not read whole (D-R169).
    pub fn v10() -> &'static RiskPolicy {
        &POLICY_V10.policy
    }

    /// The canonical digest of the built-in policy v10
    /// (`probity/risk-policy/v10`).
    pub fn v10_hash() -> Sha256Digest {
        POLICY_V10.hash
    }

    /// The built-in policy v11: v10's rules, and what the auto-run
    /// configurations run indirectly followed (a task's `options.cwd`,
    /// `make`, `npm run`, `just`, `python -m`, and what a `Makefile`, a
    /// `package.json` or a script they name runs; D-R170).
    pub fn v11() -> &'static RiskPolicy {
        &POLICY_V11.policy
    }

    /// The canonical digest of the built-in policy v11
    /// (`probity/risk-policy/v11`).
    pub fn v11_hash() -> Sha256Digest {
        POLICY_V11.hash
    }

    /// The built-in policy v12: v11's rules, and its following made
    /// structural: every name also a directory and a stem, globs and
    /// variables inside a component matched, more kinds of file read in
    /// turn, the per-step bound on the files the trees hold (D-R174).
    pub fn v12() -> &'static RiskPolicy {
        &POLICY_V12.policy
    }

    /// The canonical digest of the built-in policy v12
    /// (`probity/risk-policy/v12`).
    pub fn v12_hash() -> Sha256Digest {
        POLICY_V12.hash
    }

    /// The newest built-in policy: what `start` freezes under and what a
    /// gate derives a record's tier with, whatever policy the record names.
    pub fn newest() -> &'static RiskPolicy {
        Self::v12()
    }

    /// The digest of [`RiskPolicy::newest`].
    pub fn newest_hash() -> Sha256Digest {
        Self::v12_hash()
    }
}
