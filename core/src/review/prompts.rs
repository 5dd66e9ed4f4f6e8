//! The versioned prompts of the model-run roles (issue 10 §1): one per lens
//! (risk R1, readability R2, reliability R3, resilience R4), the refuter and
//! the targeted validator, each composed with the shared frame (tools,
//! untrusted data, severities, what a causal claim must cite, the output
//! rule).
//!
//! The texts are files in the repository (`core/prompts/*.md`), embedded in
//! the build. `start` freezes each selected lens's prompt digest (and the
//! refuter's and the validator's) into the state, and a lens binding names
//! its lens's digest (`probity-lens-binding/v2 ... prompt=sha256:...`): a
//! changed prompt is a different binding, visible in the record, and a run
//! whose prompt is not the frozen one is refused before it asks a model.
//!
//! Every file opens with its header line (`probity-prompt/v1 role=...`), so a
//! prompt set read from elsewhere ([`PromptSet::from_files`]; no command
//! reads one yet, every run uses the build's) is checked to be one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::digest::{Domain, Sha256Digest};
use crate::review::lens::Lens;

/// The domain of a composed prompt's digest.
pub const PROMPT_DOMAIN: Domain = Domain::new("probity/prompt/v1");

/// The largest prompt file accepted (each of the seven).
pub const MAX_PROMPT_FILE_BYTES: usize = 64 * 1024;

/// A role a model plays in the lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PromptRole {
    /// A reviewer running the given lens over the frozen candidate.
    Lens(Lens),
    /// The refuter judging the batch of inferential severe findings.
    Refuter,
    /// The targeted validator judging a correction.
    Validator,
}

impl PromptRole {
    /// The role's plain name: the lens's name (`reliability`), `refuter` or
    /// `validator` (what answers and logs call a role run).
    pub const fn name(self) -> &'static str {
        match self {
            PromptRole::Lens(l) => l.name(),
            PromptRole::Refuter => "refuter",
            PromptRole::Validator => "validator",
        }
    }

    /// The file that holds this role's prompt.
    pub const fn file_name(self) -> &'static str {
        match self {
            PromptRole::Lens(Lens::Risk) => "lens-risk.md",
            PromptRole::Lens(Lens::Readability) => "lens-readability.md",
            PromptRole::Lens(Lens::Reliability) => "lens-reliability.md",
            PromptRole::Lens(Lens::Resilience) => "lens-resilience.md",
            PromptRole::Refuter => "refuter.md",
            PromptRole::Validator => "validator.md",
        }
    }

    /// The header line its file must open with.
    pub fn header(self) -> String {
        match self {
            PromptRole::Lens(l) => format!(
                "probity-prompt/v1 role=lens lens={} prefix={}",
                l.name(),
                l.prefix()
            ),
            PromptRole::Refuter => "probity-prompt/v1 role=refuter".into(),
            PromptRole::Validator => "probity-prompt/v1 role=validator".into(),
        }
    }

    /// Every role, lenses in canonical order first.
    pub fn all() -> [PromptRole; 6] {
        [
            PromptRole::Lens(Lens::Risk),
            PromptRole::Lens(Lens::Resilience),
            PromptRole::Lens(Lens::Readability),
            PromptRole::Lens(Lens::Reliability),
            PromptRole::Refuter,
            PromptRole::Validator,
        ]
    }
}

/// The frame's file and header.
pub const FRAME_FILE: &str = "frame.md";
/// The frame's header line.
pub const FRAME_HEADER: &str = "probity-prompt/v1 role=frame";

/// Why a prompt set was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// One of the seven files is absent from the prompt set.
    #[error("prompt file {file} is missing")]
    Missing {
        /// The absent file's name, e.g. `lens-risk.md`.
        file: &'static str,
    },
    /// A file longer than [`MAX_PROMPT_FILE_BYTES`].
    #[error("prompt file {file} is over the {MAX_PROMPT_FILE_BYTES}-byte limit")]
    TooLarge {
        /// The oversized file's name.
        file: &'static str,
    },
    /// A file whose bytes are not valid UTF-8.
    #[error("prompt file {file} is not UTF-8")]
    NotUtf8 {
        /// The file's name.
        file: &'static str,
    },
    /// A file whose first line (trailing whitespace ignored) is not its
    /// role's header: it is not that role's prompt.
    #[error("prompt file {file} must open with the line `{expected}`")]
    Header {
        /// The file's name.
        file: &'static str,
        /// The header line it must open with.
        expected: String,
    },
}

/// The seven prompt texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSet {
    frame: String,
    roles: [(PromptRole, String); 6],
}

const BUILTIN: [(&str, &str); 7] = [
    (FRAME_FILE, include_str!("../../prompts/frame.md")),
    ("lens-risk.md", include_str!("../../prompts/lens-risk.md")),
    (
        "lens-resilience.md",
        include_str!("../../prompts/lens-resilience.md"),
    ),
    (
        "lens-readability.md",
        include_str!("../../prompts/lens-readability.md"),
    ),
    (
        "lens-reliability.md",
        include_str!("../../prompts/lens-reliability.md"),
    ),
    ("refuter.md", include_str!("../../prompts/refuter.md")),
    ("validator.md", include_str!("../../prompts/validator.md")),
];

/// A built-in prompt file's text, by its name (tests build other prompt
/// sets from it).
#[cfg(test)]
pub(crate) fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

fn checked(file: &'static str, header: &str, bytes: &[u8]) -> Result<String, PromptError> {
    if bytes.len() > MAX_PROMPT_FILE_BYTES {
        return Err(PromptError::TooLarge { file });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| PromptError::NotUtf8 { file })?;
    if text.lines().next().map(str::trim_end) != Some(header) {
        return Err(PromptError::Header {
            file,
            expected: header.to_string(),
        });
    }
    Ok(text.to_string())
}

impl PromptSet {
    /// The prompts this build carries (`core/prompts/`). Their headers and
    /// bounds are checked by this crate's tests (`from_files` over the same
    /// files must give the same set), so no check runs here.
    pub fn builtin() -> PromptSet {
        let text = |name: &str| {
            BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(String::new(), |(_, t)| (*t).to_string())
        };
        PromptSet {
            frame: text(FRAME_FILE),
            roles: PromptRole::all().map(|r| (r, text(r.file_name()))),
        }
    }

    /// A prompt set from files (`file(name)` returns a file's bytes, or
    /// `None` when it is absent): every file present, within its bound,
    /// UTF-8, opening with its header line.
    pub fn from_files(file: impl Fn(&str) -> Option<Vec<u8>>) -> Result<PromptSet, PromptError> {
        let read = |name: &'static str, header: &str| {
            let bytes = file(name).ok_or(PromptError::Missing { file: name })?;
            checked(name, header, &bytes)
        };
        let frame = read(FRAME_FILE, FRAME_HEADER)?;
        let mut roles = Vec::with_capacity(6);
        for role in PromptRole::all() {
            roles.push((role, read(role.file_name(), &role.header())?));
        }
        let roles: [(PromptRole, String); 6] = roles
            .try_into()
            .map_err(|_| PromptError::Missing { file: FRAME_FILE })?;
        Ok(PromptSet { frame, roles })
    }

    /// The file names a prompt set consists of.
    pub fn file_names() -> Vec<&'static str> {
        std::iter::once(FRAME_FILE)
            .chain(PromptRole::all().into_iter().map(PromptRole::file_name))
            .collect()
    }

    fn role_text(&self, role: PromptRole) -> &str {
        self.roles
            .iter()
            .find(|(r, _)| *r == role)
            .map_or("", |(_, t)| t.as_str())
    }

    /// The system prompt of `role`: the frame, then the role's text.
    pub fn system(&self, role: PromptRole) -> String {
        format!(
            "{}\n\n{}",
            self.frame.trim_end(),
            self.role_text(role).trim_end()
        )
    }

    /// The digest of `role`'s system prompt (what a binding names).
    pub fn digest(&self, role: PromptRole) -> Sha256Digest {
        Sha256Digest::of(PROMPT_DOMAIN, self.system(role).as_bytes())
    }

    /// What `start` freezes for `lenses`.
    pub fn freeze(&self, lenses: &[Lens]) -> FrozenPrompts {
        FrozenPrompts {
            lenses: lenses
                .iter()
                .map(|l| LensPrompt {
                    lens: *l,
                    digest: self.digest(PromptRole::Lens(*l)),
                })
                .collect(),
            refuter: self.digest(PromptRole::Refuter),
            validator: self.digest(PromptRole::Validator),
        }
    }
}

/// One selected lens's frozen prompt digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LensPrompt {
    /// The selected lens.
    pub lens: Lens,
    /// Digest (`probity/prompt/v1`) of its system prompt: the frame, a
    /// blank line, then the lens's text.
    pub digest: Sha256Digest,
}

/// The prompt digests frozen at start: one per selected lens (in selected
/// order), the refuter's and the validator's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrozenPrompts {
    /// One entry per selected lens, in selected order; empty at low risk.
    pub lenses: Vec<LensPrompt>,
    /// Digest (`probity/prompt/v1`) of the refuter's system prompt.
    pub refuter: Sha256Digest,
    /// Digest (`probity/prompt/v1`) of the targeted validator's system
    /// prompt.
    pub validator: Sha256Digest,
}

impl FrozenPrompts {
    /// The frozen digest of `role`'s prompt (`None`: a lens not selected).
    pub fn digest(&self, role: PromptRole) -> Option<Sha256Digest> {
        match role {
            PromptRole::Lens(l) => self.lenses.iter().find(|p| p.lens == l).map(|p| p.digest),
            PromptRole::Refuter => Some(self.refuter),
            PromptRole::Validator => Some(self.validator),
        }
    }

    /// Whether these digests are for exactly `lenses`, in order.
    pub fn covers(&self, lenses: &[Lens]) -> bool {
        self.lenses
            .iter()
            .map(|p| p.lens)
            .eq(lenses.iter().copied())
    }
}

/// Why a run's prompt is not the one start froze.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptMismatch {
    /// The lineage's state has no frozen prompt digests (started before
    /// prompts were versioned), so no model run can be bound to it.
    #[error(
        "the lineage froze no prompt digests (it was started before prompts were versioned): a model-run lens needs a lineage started with them"
    )]
    NotFrozen,
    /// The run asks for a lens the lineage did not select.
    #[error("{role} is not a role of this lineage")]
    NotSelected {
        /// The role as displayed, e.g. ``lens `risk` ``.
        role: String,
    },
    /// The prompt set's text for the role digests differently from what
    /// start froze: the prompt changed since start.
    #[error(
        "the {role} prompt is {found}, but the lineage froze {frozen}: the prompt changed since start"
    )]
    Changed {
        /// The role as displayed, e.g. ``lens `risk` `` or `refuter`.
        role: String,
        /// The digest start froze.
        frozen: Sha256Digest,
        /// The digest of the prompt the run would use.
        found: Sha256Digest,
    },
}

impl std::fmt::Display for PromptRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PromptRole::Lens(l) => write!(f, "lens `{}`", l.name()),
            PromptRole::Refuter => f.write_str("refuter"),
            PromptRole::Validator => f.write_str("validator"),
        }
    }
}

/// Checks that `set`'s prompt for `role` is the one `frozen` names.
pub(crate) fn check_prompt(
    frozen: Option<&FrozenPrompts>,
    set: &PromptSet,
    role: PromptRole,
) -> Result<(), PromptMismatch> {
    let frozen = frozen.ok_or(PromptMismatch::NotFrozen)?;
    let want = frozen
        .digest(role)
        .ok_or_else(|| PromptMismatch::NotSelected {
            role: role.to_string(),
        })?;
    let found = set.digest(role);
    if want != found {
        return Err(PromptMismatch::Changed {
            role: role.to_string(),
            frozen: want,
            found,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_prompts_are_a_valid_set_with_distinct_digests() {
        let set = PromptSet::builtin();
        let checked = PromptSet::from_files(|name| {
            BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.as_bytes().to_vec())
        });
        assert_eq!(checked.as_ref(), Ok(&set));
        let digests: std::collections::BTreeSet<_> =
            PromptRole::all().iter().map(|r| set.digest(*r)).collect();
        assert_eq!(digests.len(), 6);
        for role in PromptRole::all() {
            let system = set.system(role);
            assert!(system.starts_with(FRAME_HEADER), "{role}");
            assert!(system.contains(&role.header()), "{role}");
        }
        // Each lens prompt names its own prefix.
        for l in Lens::CANONICAL {
            assert!(
                set.system(PromptRole::Lens(l))
                    .contains(&format!("{}-NNN", l.prefix()))
            );
        }
    }

    #[test]
    fn a_changed_prompt_is_a_changed_digest_and_is_refused() {
        let set = PromptSet::builtin();
        let frozen = set.freeze(&[Lens::Reliability]);
        assert!(frozen.covers(&[Lens::Reliability]));
        assert!(!frozen.covers(&Lens::CANONICAL));
        let role = PromptRole::Lens(Lens::Reliability);
        assert_eq!(check_prompt(Some(&frozen), &set, role), Ok(()));
        let edited = PromptSet::from_files(|name| {
            BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, t)| {
                let mut t = t.to_string();
                if *n == "lens-reliability.md" {
                    t.push_str("\nAlso look for typos.\n");
                }
                t.into_bytes()
            })
        })
        .unwrap();
        assert!(matches!(
            check_prompt(Some(&frozen), &edited, role),
            Err(PromptMismatch::Changed { .. })
        ));
        // The frame is part of every lens's digest.
        let reframed = PromptSet::from_files(|name| {
            BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, t)| {
                let mut t = t.to_string();
                if *n == FRAME_FILE {
                    t.push('\n');
                    t.push_str("One more rule.\n");
                }
                t.into_bytes()
            })
        })
        .unwrap();
        assert_ne!(reframed.digest(role), set.digest(role));
        assert!(matches!(
            check_prompt(None, &set, role),
            Err(PromptMismatch::NotFrozen)
        ));
        assert!(matches!(
            check_prompt(Some(&frozen), &set, PromptRole::Lens(Lens::Risk)),
            Err(PromptMismatch::NotSelected { .. })
        ));
    }

    #[test]
    fn a_prompt_set_from_files_is_checked_file_by_file() {
        let base = |name: &str| {
            BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.as_bytes().to_vec())
        };
        assert!(matches!(
            PromptSet::from_files(|n| (n != "refuter.md").then(|| base(n)).flatten()),
            Err(PromptError::Missing { file: "refuter.md" })
        ));
        assert!(matches!(
            PromptSet::from_files(|n| if n == "validator.md" {
                Some(b"no header\n".to_vec())
            } else {
                base(n)
            }),
            Err(PromptError::Header { .. })
        ));
        assert!(matches!(
            PromptSet::from_files(|n| if n == FRAME_FILE {
                Some(vec![0xff, 0xfe])
            } else {
                base(n)
            }),
            Err(PromptError::NotUtf8 { .. })
        ));
        assert!(matches!(
            PromptSet::from_files(|n| if n == FRAME_FILE {
                Some(vec![b'a'; MAX_PROMPT_FILE_BYTES + 1])
            } else {
                base(n)
            }),
            Err(PromptError::TooLarge { .. })
        ));
        assert_eq!(PromptSet::file_names().len(), 7);
    }
}
