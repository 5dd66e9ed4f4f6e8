//! Risk classification from a versioned, hashed policy (R2.4–R2.6).
//!
//! The policy is data (`core/policy/risk-policy-v1.json` to `-v11.json`,
//! embedded); `policy_hash` is its canonical digest. `start` freezes under
//! the newest, and a gate derives with the newest whatever a record names
//! (D-R114, D-R122, D-R131, D-R135, D-R143, D-R165, D-R167, D-R168,
//! D-R169). The tier is always explained by the
//! reason codes it reports, and [`RiskAssessment::new`] refuses a tier the
//! reasons do not imply: the classifier fails closed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::digest::{Domain, Sha256Digest};
use crate::review::lens::Lens;
use crate::review::snapshot::{CandidateContent, ChangedFile, FileMode, LineCount};

mod builtins;
mod checkout;
mod directives;
mod follow;
mod links;
#[cfg(any(test, feature = "fixtures"))]
mod memory_tree;
mod reasons;
mod refs;
mod scan;
#[cfg(test)]
mod tests;

use builtins::*;
pub use follow::{FollowRule, StructuralRule};
use links::Links;
pub use links::Symlink;
#[cfg(any(test, feature = "fixtures"))]
pub use memory_tree::{ports_read, ports_read_linked};
pub use reasons::{RiskAssessment, RiskReason, UnexplainedRisk};
use refs::References;
pub use refs::{Listed, Matching, ReferenceStep, RunConfig};
use scan::Scan;

/// Domain of `policy_hash` for the built-in policy v1.
pub const POLICY_DOMAIN: Domain = Domain::new("probity/risk-policy/v1");

/// Domain of `policy_hash` for the built-in policy v2.
pub const POLICY_V2_DOMAIN: Domain = Domain::new("probity/risk-policy/v2");

/// Domain of `policy_hash` for the built-in policy v3.
pub const POLICY_V3_DOMAIN: Domain = Domain::new("probity/risk-policy/v3");

/// Domain of `policy_hash` for the built-in policy v4.
pub const POLICY_V4_DOMAIN: Domain = Domain::new("probity/risk-policy/v4");

/// Domain of `policy_hash` for the built-in policy v5.
pub const POLICY_V5_DOMAIN: Domain = Domain::new("probity/risk-policy/v5");

/// Domain of `policy_hash` for the built-in policy v6.
pub const POLICY_V6_DOMAIN: Domain = Domain::new("probity/risk-policy/v6");

/// Domain of `policy_hash` for the built-in policy v7.
pub const POLICY_V7_DOMAIN: Domain = Domain::new("probity/risk-policy/v7");

/// Domain of `policy_hash` for the built-in policy v8.
pub const POLICY_V8_DOMAIN: Domain = Domain::new("probity/risk-policy/v8");

/// Domain of `policy_hash` for the built-in policy v9.
pub const POLICY_V9_DOMAIN: Domain = Domain::new("probity/risk-policy/v9");

/// Domain of `policy_hash` for the built-in policy v10.
pub const POLICY_V10_DOMAIN: Domain = Domain::new("probity/risk-policy/v10");

/// Domain of `policy_hash` for the built-in policy v11.
pub const POLICY_V11_DOMAIN: Domain = Domain::new("probity/risk-policy/v11");

/// Domain of `policy_hash` for the built-in policy v12.
pub const POLICY_V12_DOMAIN: Domain = Domain::new("probity/risk-policy/v12");

/// What the base and candidate trees of a change hold besides its changed
/// files, which a policy may read: their symbolic links (v4) and the
/// auto-run configurations whose references it reads (v5), each an
/// explicit input observed by an adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeInputs<'a> {
    /// Both trees' symbolic links, in any order.
    pub links: &'a [Symlink],
    /// Both trees' configurations at the paths
    /// [`RiskPolicy::reference_configs`] names, in any order (an absent
    /// one left out).
    pub configs: &'a [RunConfig],
    /// Both trees' `.gitattributes` files in the root and in every
    /// directory holding a changed file (v9's `checkout_transforms`), in
    /// any order (an absent one left out).
    pub attributes: &'a [RunConfig],
}

/// The risk tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    /// Only provably passive files (docs, images): no lens runs.
    Low,
    /// Ordinary code: the one `--focus` lens runs.
    Medium,
    /// At least one high reason: all four lenses run, in canonical order.
    High,
}

impl RiskLevel {
    /// The lowercase wire spelling, `low` etc.
    pub const fn name(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
        }
    }

    /// The tier's order: low 0, medium 1, high 2 (a higher tier runs more
    /// lenses and asks more signatures).
    pub const fn rank(self) -> u8 {
        match self {
            RiskLevel::Low => 0,
            RiskLevel::Medium => 1,
            RiskLevel::High => 2,
        }
    }
}

/// Selects lenses for a risk level: low → none, medium → the focus lens,
/// high → the four canonical lenses in order.
pub fn select_lenses(level: RiskLevel, focus: Lens) -> Vec<Lens> {
    match level {
        RiskLevel::Low => Vec::new(),
        RiskLevel::Medium => vec![focus],
        RiskLevel::High => Lens::CANONICAL.to_vec(),
    }
}

/// Whether `lenses` is a legal selection for `level` (with any focus lens).
pub(crate) fn is_legal_selection(level: RiskLevel, lenses: &[Lens]) -> bool {
    match level {
        RiskLevel::Low => lenses.is_empty(),
        RiskLevel::Medium => lenses.len() == 1,
        RiskLevel::High => lenses == Lens::CANONICAL,
    }
}

/// Authored lines: added + removed of changed paths, excluding golden and
/// generated files (which stay in the identity) and binary files (0).
/// A generated-file marker counts only when the base already had it, so a
/// hand-written change cannot mark itself generated.
pub fn authored_lines(policy: &RiskPolicy, files: &[ChangedFile]) -> u64 {
    files
        .iter()
        .filter(|f| !policy.is_golden(f.path.as_str(), f.base_content.bytes(), f.content.bytes()))
        .map(|f| match f.lines {
            LineCount::Text { added, removed } => added.saturating_add(removed),
            LineCount::Binary => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// The golden/generated rule: files whose lines do not count as authored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenRule {
    /// A path starting with one of these (`golden/`) is golden.
    pub path_prefixes: Vec<String>,
    /// A path containing one of these (`/snapshots/`) is golden.
    pub path_infixes: Vec<String>,
    /// A path ending with one of these (`.snap`) is golden.
    pub suffixes: Vec<String>,
    /// A path whose last component is one of these (lock files such as
    /// `Cargo.lock`) is golden.
    pub file_names: Vec<String>,
    /// Byte strings (`@generated`) that mark a file generated when both the
    /// base and the candidate content carry one.
    pub generated_markers: Vec<String>,
    /// How many leading bytes of each side are searched for a marker.
    pub marker_scan_bytes: usize,
}

/// A versioned risk policy. Changing any field changes `policy_hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskPolicy {
    /// The policy's version label, `probity.risk-policy/v1` to `/v12`.
    pub schema: String,
    /// Path tokens (a path split at `/`, `\`, `.`, `-` and `_`,
    /// lowercased) that make a change high (`path_token:<t>`).
    pub high_path_tokens: Vec<String>,
    /// Pairs of consecutive path tokens that make a change high
    /// (`adjacent_tokens:<a>+<b>`).
    pub high_adjacent_tokens: Vec<(String, String)>,
    /// Extensions (lowercase, no dot) of shell sources (`shell_source`).
    pub shell_extensions: Vec<String>,
    /// Path prefixes of CI configuration directories (`ci_config`).
    pub ci_path_prefixes: Vec<String>,
    /// File names of CI and release configuration (`ci_config`).
    pub ci_file_names: Vec<String>,
    /// Byte strings whose presence in a changed file's scanned content
    /// means it may spawn a process (`process_spawn`).
    pub process_spawn_patterns: Vec<String>,
    /// More authored (or text-measured) lines than this is
    /// `large_change`.
    pub large_change_lines: u64,
    /// Extensions of text documents a change may touch and stay low risk.
    pub passive_text_extensions: Vec<String>,
    /// Extensions of images a change may touch and stay low risk.
    pub passive_image_extensions: Vec<String>,
    /// File names (matched case-insensitively) of agent instructions: never
    /// passive, whatever their extension.
    pub agent_instruction_file_names: Vec<String>,
    /// Which files' lines are not authored (R2.4).
    pub golden: GoldenRule,
    /// Compare `process_spawn_patterns` (and `doc_code_markers`) with the
    /// scanned content with whitespace removed from both: ASCII
    /// whitespace, the vertical tab, and the Unicode spaces Rust's and
    /// JavaScript's lexers skip; so `Command :: new (` matches
    /// `Command::new(` (v2; absent, false, in v1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spawn_ignores_whitespace: bool,
    /// Also search the content with `/* */` and `//` comments removed
    /// (a lexer reads a comment between tokens as whitespace:
    /// `Command/**/::new(`), besides the whole content (v2; absent, false,
    /// in v1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spawn_ignores_comments: bool,
    /// Agent-instruction paths, matched case-insensitively at a path
    /// segment anywhere in a path: one ending `/` names a directory and
    /// everything under it (`.claude/`), another a file
    /// (`.github/copilot-instructions.md`). Never passive (v2; absent in
    /// v1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_instruction_paths: Vec<String>,
    /// Paths (matched as `agent_instruction_paths`) of agent configuration
    /// that runs commands by itself: hooks, MCP server launchers
    /// (`agent_hooks`, high; v2, absent in v1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_hook_paths: Vec<String>,
    /// Byte strings that mark code in a text document (a fence, a doctest
    /// prompt, a reStructuredText code directive), compared as the spawn
    /// patterns are: such a document is not passive (`doc_code_block`;
    /// v2, absent in v1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doc_code_markers: Vec<String>,
    /// A text document with a line indented this many columns (a tab
    /// reaching the next multiple of 4) that may begin an indented code
    /// block is not passive (`doc_code_block`); 0 (v1): no such rule.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub doc_indented_code_columns: u64,
    /// A medium tier names its causes (`agent_instructions`,
    /// `doc_code_block`, `code_change`) instead of `code_change` alone (v2;
    /// absent, false, in v1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub medium_reasons: bool,
    /// Paths (matched as `agent_instruction_paths`; a `*` in a file
    /// pattern's last segment stands for any characters but `/`) of
    /// configuration a tool runs by itself, on a teammate's or a CI
    /// machine, with no one asking to run the project: on opening the
    /// folder in an editor, on entering the directory, on a git operation,
    /// on installing dependencies (`auto_run_config`, high; v3, absent
    /// before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_run_paths: Vec<String>,
    /// Package manifests whose install-time scripts run by themselves
    /// (`auto_run_config`, high; v3, absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_run_scripts: Option<ScriptsRule>,
    /// A changed path a symbolic link of the base or candidate tree
    /// resolves to is also rated as if it sat at the link's path, through
    /// chains of at most this many links (a longer chain:
    /// `unscanned_content`); 0: links are not followed (v4, absent
    /// before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub symlink_hops: u64,
    /// Manifests that run code of the project's own when a key is present
    /// (`Cargo.toml`'s `build` or `proc-macro`): `auto_run_config`, high
    /// (v4, absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_run_manifest_keys: Vec<ManifestKeysRule>,
    /// A changed file whose content starts (leading whitespace aside) with
    /// one of these holds its real content elsewhere (a Git LFS pointer):
    /// `unscanned_content`, high (v4, absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unscanned_content_prefixes: Vec<String>,
    /// Compare the spawn patterns with Rust's raw identifier prefix `r#`
    /// removed where an identifier character follows it
    /// (`std::r#process::r#Command` is `std::process::Command`), in every
    /// view (v5, absent before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spawn_strips_raw_identifiers: bool,
    /// Compare the spawn patterns with adjacent string literals joined, as
    /// Python and C join them: a quote closing a literal and the same quote
    /// opening the next (whitespace between them removed already) are
    /// dropped, so `"sub" "process"` reads `"subprocess"` (v5, absent
    /// before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spawn_joins_string_literals: bool,
    /// More manifests whose install-time scripts run by themselves,
    /// read as [`ScriptsRule`] reads `package.json` (Composer's
    /// `composer.json` and its event scripts): `auto_run_config`, high
    /// (v5, absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_run_script_manifests: Vec<ScriptsRule>,
    /// A submodule entry (gitlink, git mode `160000`) is rated as the
    /// directory it stands for: a path rule naming a file or directory
    /// that could be inside it (`.husky/`, `.vscode/tasks.json`,
    /// `.github/workflows/`) applies (v5, absent before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gitlinks_stand_for_directories: bool,
    /// A symbolic link (git mode `120000`) is rated as the directory it
    /// stands for, as a submodule is: a link `.vscode -> editor` puts
    /// `editor/tasks.json` where VS Code runs it (v7, absent before; red
    /// team round 12).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symlinks_stand_for_directories: bool,
    /// Link targets are walked as a checkout walks them: a link met
    /// before a `..` is followed, as well as taken for a directory; and a
    /// submodule or link that changes is also rated at every link whose
    /// target passes through it (v8, absent before; red team round 13).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub links_resolved_as_checked_out: bool,
    /// A changed path is also rated as a case-insensitive file system
    /// (macOS, Windows) opens it: `.vſcode` is `.vscode` there; a possible
    /// 8.3 short name (`VSCODE~1`) could be any name
    /// (`unscanned_content`). Link targets are compared the same way
    /// (v9, absent before; red team round 14).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paths_folded: bool,
    /// A link target that leaves the repository may come back in: the
    /// names after a climb above the root may lead back down to it, any
    /// tail of an absolute target may be a path from the root (v9).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub link_targets_reenter: bool,
    /// A configuration's references are matched at every path a changed
    /// file is rated at (through links, folded), not only its own (v9).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub references_at_aliases: bool,
    /// Attributes that make a checkout write other bytes than git stores
    /// (`working-tree-encoding`, `filter`): a changed file one of the
    /// trees' `.gitattributes` may give one, and a changed
    /// `.gitattributes` naming one, cannot be shown free of a rule
    /// (`unscanned_content`; v9, absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkout_transforms: Vec<String>,
    /// A configuration whose path meets a link with an absolute target
    /// (`.vscode -> /proc/self/cwd/tools/vscode`) cannot be read from the
    /// trees: it is taken as not read whole, so every changed file may be
    /// one it names (v10, absent before; red team round 15).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configs_behind_absolute_links_unread: bool,
    /// Auto-run configurations (`.vscode/tasks.json`,
    /// `.pre-commit-config.yaml`, `.envrc`, at the repository's root) whose
    /// references are read from the base and the candidate tree: a
    /// changed file one of them names (or one under a directory it names)
    /// is `auto_run_config`, high (v5, absent before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_run_reference_configs: Vec<String>,
    /// What those configurations run indirectly is followed: a task's
    /// words read from its `options.cwd` too, the file `make`, `npm run`,
    /// `just` and `python -m` read, and what a `Makefile`, a
    /// `package.json` or a script so named runs, read in turn (v11,
    /// absent before; red team round 14's 06). The files to read are
    /// [`RiskPolicy::reference_reads`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references_followed: Option<FollowRule>,
    /// Directives in a text document (reStructuredText's `.. name::`,
    /// MyST's fenced `{name}`): one the rule does not list as inert may
    /// run its content when the docs are built or doctested
    /// (`testcleanup`, `ipython`, `plot`, `jupyter-execute`), so the
    /// document is not passive (`doc_code_block`), whatever its body's
    /// indentation (v6, absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_directives: Option<DirectiveRule>,
}

/// Which directives of a text document leave it passive (v6, D-R143):
/// every directive not listed here makes it `doc_code_block`, so one a
/// policy does not know (an extension's) counts as running its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectiveRule {
    /// Directive names (matched ASCII case-insensitively, as docutils
    /// lowercases them) that neither run their content or arguments nor
    /// make other text part of the document: admonitions, images, tables,
    /// a table of contents (`note`, `image`, `toctree`).
    pub inert: Vec<String>,
}

/// Manifests that run code of the project's own when they hold a key: a
/// changed manifest naming one of `keys` as a key (at a line's start or
/// after `.`, `{`, `,` or `]`, with whitespace and quotes removed and
/// `\u` escapes read, so a dotted, quoted or escaped key is seen; a
/// comment or a longer key is not) is `auto_run_config`. Conservative: a
/// key of that name in any table counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestKeysRule {
    /// File names (matched ASCII case-insensitively) of the manifests.
    pub manifests: Vec<String>,
    /// The keys (`build`, `proc-macro`).
    pub keys: Vec<String>,
}

/// Manifests (`package.json`) a package manager runs scripts of when it
/// installs dependencies: a changed manifest whose `scripts` object names
/// one of `scripts` (`postinstall`), or that does not parse as a JSON
/// object (so the scripts cannot be shown absent), is `auto_run_config`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptsRule {
    /// File names (matched ASCII case-sensitively, as npm reads them) of
    /// the manifests.
    pub manifests: Vec<String>,
    /// Script names run on install (`preinstall`, `install`,
    /// `postinstall`, `prepare`, ...).
    pub scripts: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RiskPolicy {
    /// Whether `bytes` (prepared: whitespace removed when the policy says
    /// so) holds any process-spawn pattern: one pass of an automaton
    /// (built once for a built-in policy), never a search per pattern.
    fn spawns(&self, bytes: &[u8], built: &Option<aho_corasick::AhoCorasick>) -> bool {
        match built {
            Some(m) => m.is_match(bytes),
            None => self
                .spawn_patterns()
                .iter()
                .any(|p| contains(bytes, p.as_bytes())),
        }
    }

    /// Whether `content`, its comments and whitespace removed, holds a
    /// spawn pattern (only when the policy ignores comments and the content
    /// has one): a second view, searched besides the whole content.
    fn spawns_between_comments(&self, content: &[u8], scan: &Scan) -> bool {
        let commented = |w: &[u8]| w == b"/*" || w == b"//";
        self.spawn_ignores_comments
            && content.windows(2).any(commented)
            && self.spawns(
                &scan::normalized(
                    &scan::uncommented(content, self.spawn_ignores_whitespace),
                    self.spawn_strips_raw_identifiers,
                    self.spawn_joins_string_literals,
                ),
                &scan.spawn,
            )
    }

    /// The spawn patterns as compared: whitespace removed when the policy
    /// ignores it.
    fn spawn_patterns(&self) -> Vec<String> {
        scan::compared(&self.process_spawn_patterns, self.spawn_ignores_whitespace)
    }

    /// The configuration paths whose references this policy reads from a
    /// change's base and candidate trees ([`TreeInputs::configs`]): read
    /// each, when present, at most [`RiskPolicy::MAX_CONFIG_BYTES`] of it
    /// (a longer one passed with `complete: false`).
    pub fn reference_configs(&self) -> &[String] {
        &self.auto_run_reference_configs
    }

    /// The files to read from both trees after `done` reads of what the
    /// configurations run (v11's [`RiskPolicy::references_followed`]),
    /// given `configs`: the configurations and the files read so far; the
    /// files of [`RiskPolicy::reference_step`] (none while directories
    /// are left to list, past the last step, or over the policy's bound
    /// at one step: the classification then takes the configurations as
    /// not read whole). Each is read as a configuration is: through the
    /// trees' links, at most [`RiskPolicy::MAX_CONFIG_BYTES`], absent ones
    /// left out.
    pub fn reference_reads(&self, configs: &[RunConfig], done: u8) -> Vec<String> {
        self.reference_step(configs, done).read
    }

    /// One step of what the ports read after `done` reads, given
    /// `configs`: the directories v12's walks need listed first (`run-parts
    /// tools/hooks`, `include tools/*.mk`; with every file below them:
    /// `find tools`, `tools/*/run.sh`), each not yet listed, and, when none
    /// is left to list, the files to read.
    /// The ports list each directory in both trees
    /// ([`RiskPolicy::reference_list_bound`] files at most), read the files
    /// listed into the configurations, add [`Listed::marker`] at the
    /// directory's own path, and ask again; a listing by name
    /// ([`Matching`]) likewise, with [`Matching::marker`]. Under v12 the steps go past
    /// the policy's reads while what is read there are modules a file
    /// read imports (red team round 23): the ports ask until nothing is
    /// left to read, and an empty step past the last one ends it.
    pub fn reference_step(&self, configs: &[RunConfig], done: u8) -> ReferenceStep {
        self.reference_step_linked(configs, done, &[])
    }

    /// [`RiskPolicy::reference_step`] for trees that hold `links` (both
    /// trees' symbolic links, as [`TreeInputs::links`]): under v12 a file
    /// read through a link is also read from where the link resolves (a
    /// script's real directory: red team round 33's 33psl), as the
    /// classification given the same links reads it.
    pub fn reference_step_linked(
        &self,
        configs: &[RunConfig],
        done: u8,
        links: &[Symlink],
    ) -> ReferenceStep {
        match &self.references_followed {
            Some(rule)
                if done <= rule.last_step() && !self.auto_run_reference_configs.is_empty() =>
            {
                let links = self.links_of(links);
                let reach = follow::Reach {
                    links: &links,
                    hops: self.symlink_hops,
                };
                let names = &self.auto_run_reference_configs;
                let f = follow::follow_all(configs, names, rule, done, reach);
                let (list, list_below, list_matching) = if rule.structural.is_some() {
                    (f.list, f.list_below, f.list_matching)
                } else {
                    (Vec::new(), Vec::new(), Vec::new())
                };
                let read = if !list.is_empty()
                    || !list_below.is_empty()
                    || !list_matching.is_empty()
                    || f.next.len() > rule.names_bound()
                {
                    Vec::new()
                } else {
                    f.next
                };
                ReferenceStep {
                    list,
                    list_below,
                    list_matching,
                    read,
                }
            }
            _ => ReferenceStep::default(),
        }
    }

    /// The most files the ports list in one walked directory
    /// ([`RiskPolicy::reference_step`]): the policy's files per read.
    pub fn reference_list_bound(&self) -> usize {
        self.references_followed
            .as_ref()
            .map_or(0, |r| usize::from(r.files_per_read))
    }

    /// How many bytes of a reference configuration an adapter reads: a
    /// longer one cannot be shown to name no changed file.
    pub const MAX_CONFIG_BYTES: usize = 1 << 20;

    /// The built-in policy whose digest is `hash`, if any.
    pub fn builtin(hash: &Sha256Digest) -> Option<&'static RiskPolicy> {
        builtins()
            .into_iter()
            .find(|b| b.hash == *hash)
            .map(|b| &b.policy)
    }

    /// Whether a tier derived under this policy may give `reason`: v2's
    /// and v3's reasons only under a policy that has their rules.
    pub fn gives(&self, reason: &RiskReason) -> bool {
        match reason {
            RiskReason::AgentInstructions | RiskReason::DocCodeBlock => self.medium_reasons,
            RiskReason::AgentHooks => !self.agent_hook_paths.is_empty(),
            RiskReason::AutoRunConfig => {
                !self.auto_run_paths.is_empty()
                    || self.auto_run_scripts.is_some()
                    || !self.auto_run_manifest_keys.is_empty()
                    || !self.auto_run_script_manifests.is_empty()
                    || !self.auto_run_reference_configs.is_empty()
            }
            RiskReason::PathToken(_)
            | RiskReason::AdjacentTokens(..)
            | RiskReason::ShellSource
            | RiskReason::CiConfig
            | RiskReason::ExecutableBitChange
            | RiskReason::ProcessSpawn
            | RiskReason::UnscannedContent
            | RiskReason::LargeChange
            | RiskReason::PolicyFloor(_)
            | RiskReason::DocsOnly
            | RiskReason::CodeChange => true,
        }
    }

    /// Whether `path` is golden or generated (its lines are not authored):
    /// by path, or by a generated marker present in both the base and the
    /// candidate content (a marker added by the change itself does not
    /// count).
    pub fn is_golden(&self, path: &str, base: Option<&[u8]>, candidate: Option<&[u8]>) -> bool {
        let g = &self.golden;
        let name = file_name(path);
        if g.path_prefixes.iter().any(|p| path.starts_with(p.as_str()))
            || g.path_infixes.iter().any(|p| path.contains(p.as_str()))
            || g.suffixes.iter().any(|s| path.ends_with(s.as_str()))
            || g.file_names.iter().any(|n| n == name)
        {
            return true;
        }
        let marked = |bytes: &[u8]| {
            let scan = &bytes[..bytes.len().min(g.marker_scan_bytes)];
            g.generated_markers
                .iter()
                .any(|m| contains(scan, m.as_bytes()))
        };
        match (base, candidate) {
            (Some(b), Some(c)) => marked(b) && marked(c),
            _ => false,
        }
    }

    /// Classifies a change. `authored_lines` is the authored line count.
    /// No symbolic link is followed: [`RiskPolicy::classify_linked`]
    /// without links.
    pub fn classify(&self, files: &[ChangedFile], authored_lines: u64) -> RiskAssessment {
        self.classify_linked(files, authored_lines, &[])
    }

    /// Classifies a change whose base and candidate trees hold `links`
    /// (both trees' symbolic links, in any order). Under a policy that
    /// follows links (`symlink_hops`, v4), a changed file is rated at its
    /// own path and at each path a link resolves to it from (the link's
    /// path, or the link's path joined with the rest under a linked
    /// directory, chains followed to the bound); a file reached through
    /// more links than that cannot be shown free of a rule
    /// (`unscanned_content`). Content rules read each file once.
    pub fn classify_linked(
        &self,
        files: &[ChangedFile],
        authored_lines: u64,
        links: &[Symlink],
    ) -> RiskAssessment {
        self.classify_in(
            files,
            authored_lines,
            TreeInputs {
                links,
                ..TreeInputs::default()
            },
        )
    }

    /// Classifies a change whose base and candidate trees hold `trees`:
    /// [`RiskPolicy::classify_linked`] with the trees' links, and, under a
    /// policy that reads them (v5), a changed file an auto-run
    /// configuration of either tree names (`trees.configs`) is
    /// `auto_run_config`.
    pub fn classify_in(
        &self,
        files: &[ChangedFile],
        authored_lines: u64,
        trees: TreeInputs<'_>,
    ) -> RiskAssessment {
        let links = self.links_of(trees.links);
        let names = &self.auto_run_reference_configs;
        let mut references = match &self.references_followed {
            _ if names.is_empty() => References::default(),
            Some(rule) => {
                let reach = follow::Reach {
                    links: &links,
                    hops: self.symlink_hops,
                };
                follow::follow(trees.configs, names, rule, rule.last_step(), reach).0
            }
            None => References::of(trees.configs, names),
        };
        let own;
        let scan = match builtins()
            .into_iter()
            .find(|b| std::ptr::eq(self, &b.policy))
        {
            Some(b) => b.scan.get_or_init(|| Scan::of(&b.policy)),
            None => {
                own = Scan::of(self);
                &own
            }
        };
        if self.configs_behind_absolute_links_unread
            && self
                .auto_run_reference_configs
                .iter()
                .any(|c| links.meets_absolute(c, self.symlink_hops))
        {
            references.mark_unread();
        }
        // A link whose target could not be walked within the bound could
        // lead anywhere (v8).
        let mut reasons = Vec::new();
        if links.unresolved && !files.is_empty() {
            reasons.push(RiskReason::UnscannedContent);
        }
        let transforms = checkout::Transforms::of(trees.attributes, &self.checkout_transforms);
        let mut medium = Vec::new();
        let mut all_passive = !files.is_empty();
        for f in files {
            // What a checkout writes where the tree says otherwise (v9).
            let seen = checkout::seen(self, &transforms, f, &mut reasons);
            if f.executable_bit_changed() {
                reasons.push(RiskReason::ExecutableBitChange);
            }
            // Content not read to the end cannot be shown free of anything;
            // nor can content kept elsewhere (a Git LFS pointer, v4).
            let unread = match &f.content {
                CandidateContent::Bytes { complete, bytes } => {
                    !*complete || scan::starts_with_any(bytes, &self.unscanned_content_prefixes)
                }
                CandidateContent::Absent => false,
            };
            if unread {
                reasons.push(RiskReason::UnscannedContent);
            }
            // Every file is scanned: a "document" can be a build input. One
            // pass finds both spawns and document code markers.
            let found = f.content.bytes().map(|raw| scan.find(self, raw));
            if found.is_some_and(|x| x.spawn) {
                reasons.push(RiskReason::ProcessSpawn);
            }
            let doc_code = found.is_some_and(|x| x.doc_code);
            let aliases = if links.is_empty() {
                links::Aliases::default()
            } else {
                // A changed link or submodule moves every link passing
                // through it (v8).
                let moved = self.links_resolved_as_checked_out && self.stands_for_directory(f);
                links.aliases(f.path.as_str(), self.symlink_hops, moved)
            };
            if aliases.beyond_bound {
                reasons.push(RiskReason::UnscannedContent);
            }
            let at: Vec<&str> = std::iter::once(f.path.as_str())
                .chain(seen.as_deref())
                .chain(aliases.paths.iter().map(String::as_str))
                .collect();
            let named = if self.references_at_aliases {
                at.iter().any(|p| references.names(p))
            } else {
                references.names(f.path.as_str())
            };
            if named {
                reasons.push(RiskReason::AutoRunConfig);
            }
            for path in at {
                self.rate_path(path, f, &mut reasons);
                if let Some(cause) = self.not_passive(path, f, doc_code) {
                    all_passive = false;
                    medium.push(if self.medium_reasons {
                        cause
                    } else {
                        RiskReason::CodeChange
                    });
                }
            }
        }
        // Size is judged on every line Git measured as text too (outside
        // golden paths): a NUL byte that makes a file "binary" for the
        // authored count must not shrink the tier.
        let text_lines = files
            .iter()
            .filter(|f| !self.is_golden(f.path.as_str(), f.base_content.bytes(), f.content.bytes()))
            .map(|f| f.text_lines)
            .fold(0u64, u64::saturating_add);
        if authored_lines.max(text_lines) > self.large_change_lines {
            reasons.push(RiskReason::LargeChange);
        }
        reasons.sort();
        reasons.dedup();
        medium.sort();
        medium.dedup();
        let (level, reasons) = if !reasons.is_empty() {
            (RiskLevel::High, reasons)
        } else if all_passive {
            (RiskLevel::Low, vec![RiskReason::DocsOnly])
        } else {
            (RiskLevel::Medium, medium)
        };
        RiskAssessment { level, reasons }
    }

    /// Where each of `paths` is when read through `links` (both trees'
    /// symbolic links) as this policy follows them: the paths themselves
    /// and every path they resolve to; `None` when one meets a link with
    /// an absolute target or resolves beyond the policy's hops (it could
    /// be anywhere). Without links, or under a policy that follows none,
    /// the paths alone.
    pub fn real_paths(&self, links: &[Symlink], paths: &[String]) -> Option<Vec<String>> {
        let followed = self.links_of(links);
        let mut out = Vec::new();
        for p in paths {
            if followed.meets_absolute(p, self.symlink_hops) {
                return None;
            }
            out.extend(followed.real_paths(p, self.symlink_hops)?);
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The links of `links` as this policy follows them: none (no hops),
    /// resolved lexically (v4 to v7), or walked as a checkout walks them
    /// (v8 on).
    fn links_of(&self, links: &[Symlink]) -> Links {
        if self.symlink_hops == 0 {
            Links::of(&[])
        } else if self.links_resolved_as_checked_out {
            let rules = links::WalkRules {
                reenter: self.link_targets_reenter,
                fold: self.paths_folded,
            };
            Links::as_checked_out(links, self.symlink_hops, rules)
        } else {
            Links::of(links)
        }
    }

    /// The high reasons `f` gives sitting at `path` (its own, or one a
    /// link reaches it from): path tokens, shell sources, CI
    /// configuration, agent hooks, configuration that runs by itself.
    fn rate_path(&self, path: &str, f: &ChangedFile, reasons: &mut Vec<RiskReason>) {
        let tokens: Vec<String> = path
            .split(['/', '\\', '.', '-', '_'])
            .filter(|t| !t.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        for t in &tokens {
            if self.high_path_tokens.iter().any(|h| h == t) {
                reasons.push(RiskReason::PathToken(t.clone()));
            }
        }
        for w in tokens.windows(2) {
            if self
                .high_adjacent_tokens
                .iter()
                .any(|(a, b)| *a == w[0] && *b == w[1])
            {
                reasons.push(RiskReason::AdjacentTokens(w[0].clone(), w[1].clone()));
            }
        }
        let ext = extension(path);
        if ext.is_some_and(|e| self.shell_extensions.contains(&e)) {
            reasons.push(RiskReason::ShellSource);
        }
        let name = file_name(path);
        let workflow_yaml = self
            .ci_path_prefixes
            .iter()
            .any(|p| path.starts_with(p.as_str()));
        if workflow_yaml || self.ci_file_names.iter().any(|n| n == name) {
            reasons.push(RiskReason::CiConfig);
        }
        // A submodule stands for a directory whose files this repository
        // does not list (v5): a rule naming a path that could be inside it
        // applies.
        let gitlink = self.stands_for_directory(f);
        if gitlink
            && self
                .ci_path_prefixes
                .iter()
                .any(|p| scan::could_hold(path, p, true))
        {
            reasons.push(RiskReason::CiConfig);
        }
        let matches = |patterns: &[String]| {
            scan::path_matches(path, patterns)
                || (gitlink && patterns.iter().any(|p| scan::could_hold(path, p, false)))
        };
        if matches(&self.agent_hook_paths) {
            reasons.push(RiskReason::AgentHooks);
        }
        if matches(&self.auto_run_paths)
            || self
                .auto_run_scripts
                .iter()
                .chain(&self.auto_run_script_manifests)
                .any(|r| r.runs_on_install(name, &f.content))
            || self
                .auto_run_manifest_keys
                .iter()
                .any(|r| r.names_key(name, &f.content))
        {
            reasons.push(RiskReason::AutoRunConfig);
        }
    }

    /// Whether `f` is a submodule entry (v5) or a symbolic link (v7) on
    /// either side and the policy rates one as the directory it stands
    /// for.
    fn stands_for_directory(&self, f: &ChangedFile) -> bool {
        let either = |m: FileMode| f.old_mode == Some(m) || f.new_mode == Some(m);
        (self.gitlinks_stand_for_directories && either(FileMode::Gitlink))
            || (self.symlinks_stand_for_directories && either(FileMode::Symlink))
    }

    /// Why a file is not provably passive (`None` when it is): an
    /// agent-instruction file (`agent_instructions`), a document carrying
    /// code (`doc_code_block`), anything else (`code_change`).
    ///
    /// Passive: docs (Markdown, reStructuredText, AsciiDoc; never `.txt`,
    /// which names build inputs such as `CMakeLists.txt` and
    /// `requirements.txt`) or images, with normal modes; text docs must be
    /// complete, valid UTF-8 without `#!` and, under v2, without a code
    /// marker or an indented code line, under v6 without a directive
    /// that is not listed inert; never an agent-instruction file.
    /// `doc_code`: the content holds a document code marker, as the spawn
    /// scan compares it.
    fn not_passive(&self, path: &str, f: &ChangedFile, doc_code: bool) -> Option<RiskReason> {
        let name = file_name(path);
        if self
            .agent_instruction_file_names
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
            || scan::path_matches(path, &self.agent_instruction_paths)
            || (self.stands_for_directory(f)
                && self
                    .agent_instruction_paths
                    .iter()
                    .any(|p| scan::could_hold(path, p, false)))
        {
            return Some(RiskReason::AgentInstructions);
        }
        let code = Some(RiskReason::CodeChange);
        let normal = |m: Option<FileMode>| matches!(m, None | Some(FileMode::Regular));
        if !normal(f.old_mode) || !normal(f.new_mode) {
            return code;
        }
        let ext = match extension(path) {
            Some(e) => e,
            None => return code,
        };
        if self.passive_image_extensions.contains(&ext) {
            return None;
        }
        if !self.passive_text_extensions.contains(&ext) {
            return code;
        }
        match &f.content {
            CandidateContent::Absent => None,
            CandidateContent::Bytes { bytes, complete } => {
                let text = match std::str::from_utf8(bytes) {
                    Ok(text) if *complete && !text.starts_with("#!") => text,
                    _ => return code,
                };
                if doc_code
                    || scan::indented_code(bytes, self.doc_indented_code_columns)
                    || self
                        .doc_directives
                        .as_ref()
                        .is_some_and(|r| directives::runs_a_directive(text, &r.inert))
                {
                    Some(RiskReason::DocCodeBlock)
                } else {
                    None
                }
            }
        }
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn extension(path: &str) -> Option<String> {
    let name = file_name(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        None
    } else {
        Some(ext.to_ascii_lowercase())
    }
}

/// A naive search: only for the golden markers, over at most
/// `marker_scan_bytes` (1 KiB) of each side; whole contents go through an
/// automaton ([`RiskPolicy::classify`]).
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// One automaton over the non-empty literals (`None` when there are none,
/// or the builder refuses them): a single pass answers which occur.
pub(crate) fn literal_matcher(patterns: &[String]) -> Option<aho_corasick::AhoCorasick> {
    scan::matcher(patterns)
}
