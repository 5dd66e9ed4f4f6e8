//! Causal claims checked against the repository (R5, issue "causal
//! admission"): a finding that says the candidate `introduced` or `worsened`
//! something must point inside a changed hunk of (base, candidate); one that
//! says `activated` must name an existing line of a genesis path. Otherwise
//! its disposition is downgraded to `unknown` (which escalates) and the
//! downgrade is recorded.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::review::ids::RepoPath;

/// A location `path:line` or `path:start-end` (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    /// The repository-relative path: everything before the last `:`.
    pub path: RepoPath,
    /// The first line named, 1-based.
    pub start: u64,
    /// The last line named, inclusive; equals `start` for `path:line`.
    pub end: u64,
}

impl Location {
    /// Parses `path:line` or `path:start-end`; the path is everything before
    /// the last `:`.
    pub(crate) fn parse(s: &str) -> Option<Location> {
        let (path, lines) = s.trim().rsplit_once(':')?;
        let (start, end) = match lines.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let n = lines.parse().ok()?;
                (n, n)
            }
        };
        if start == 0 || end < start {
            return None;
        }
        Some(Location {
            path: RepoPath::parse(path).ok()?,
            start,
            end,
        })
    }
}

/// One changed hunk's new-side range, from `@@ -a,b +start,count @@`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    /// The first new-side line, 1-based; for a pure deletion (`count` 0)
    /// the line after which lines were removed (0: before line 1).
    pub start: u64,
    /// How many new-side lines the hunk spans (1 when the header omits it).
    pub count: u64,
}

/// What Git says about the paths severe causal claims name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CausalFacts {
    /// New-side hunks of (base, candidate), per genesis path.
    pub hunks: BTreeMap<RepoPath, Vec<Hunk>>,
    /// Line counts of genesis paths in the candidate (absent when deleted).
    pub candidate_lines: BTreeMap<RepoPath, u64>,
}

/// Why a causal claim was downgraded to `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DowngradeReason {
    /// The location is not `path:line` or `path:start-end`.
    UnparseableLocation,
    /// The path is not a genesis path.
    OutsideGenesis,
    /// `introduced`/`worsened`, but no changed hunk touches the lines.
    OutsideChangedHunks,
    /// `activated`, but the lines do not exist in the candidate.
    NoSuchLine,
}

/// Whether the candidate caused the finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CausalDisposition {
    /// The change created the problem: the location must touch a changed
    /// hunk.
    Introduced,
    /// The change made an existing problem reachable: the location must be
    /// an existing line, in the candidate, of a path the change touched (a
    /// genesis path).
    Activated,
    /// The change made an existing problem worse: the location must touch
    /// a changed hunk.
    Worsened,
    /// The problem was already there before the change: a non-blocking
    /// follow-up (R5.4).
    PreExisting,
    /// The problem is in the base only, not in what the change did: a
    /// non-blocking follow-up (R5.4).
    BaseOnly,
    /// The cause is not known, or a candidate-causal claim did not hold
    /// against the repository: a severe finding escalates (R5.5).
    Unknown,
}

impl CausalDisposition {
    /// `introduced`, `activated` or `worsened`.
    pub const fn is_candidate_causal(self) -> bool {
        matches!(self, Self::Introduced | Self::Activated | Self::Worsened)
    }
}

/// A finding's causal claim: whether it is severe, what it claims and
/// where (what `check` and `paths_needed` read of a finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim<'a> {
    /// Whether the finding is BLOCKER or CRITICAL; only severe claims are
    /// checked.
    pub severe: bool,
    /// The claimed disposition, if the finding carries one.
    pub disposition: Option<CausalDisposition>,
    /// `path:line` or `path:start-end`.
    pub location: &'a str,
}

/// A recorded downgrade: what was claimed and why it did not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CausalDowngrade {
    /// The candidate-causal disposition the reviewer claimed (`introduced`,
    /// `activated` or `worsened`).
    pub claimed: CausalDisposition,
    /// Which check the claim failed.
    pub reason: DowngradeReason,
}

/// The genesis paths whose facts a set of findings needs.
pub(crate) fn paths_needed<'a>(
    claims: impl IntoIterator<Item = Claim<'a>>,
    genesis: &[RepoPath],
) -> Vec<RepoPath> {
    let mut out: Vec<RepoPath> = claims
        .into_iter()
        .filter(|c| c.severe)
        .filter(|c| {
            c.disposition
                .is_some_and(CausalDisposition::is_candidate_causal)
        })
        .filter_map(|c| Location::parse(c.location))
        .map(|l| l.path)
        .filter(|p| genesis.binary_search(p).is_ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Checks a severe candidate-causal claim; `None` when it holds (or when
/// there is no such claim to check).
pub(crate) fn check(
    claim: Claim<'_>,
    genesis: &[RepoPath],
    facts: &CausalFacts,
) -> Option<CausalDowngrade> {
    let claimed = claim.disposition?;
    if !claim.severe || !claimed.is_candidate_causal() {
        return None;
    }
    let downgrade = |reason| Some(CausalDowngrade { claimed, reason });
    let Some(loc) = Location::parse(claim.location) else {
        return downgrade(DowngradeReason::UnparseableLocation);
    };
    if genesis.binary_search(&loc.path).is_err() {
        return downgrade(DowngradeReason::OutsideGenesis);
    }
    match claimed {
        CausalDisposition::Activated => {
            let lines = facts.candidate_lines.get(&loc.path).copied().unwrap_or(0);
            if loc.end <= lines {
                None
            } else {
                downgrade(DowngradeReason::NoSuchLine)
            }
        }
        CausalDisposition::Introduced
        | CausalDisposition::Worsened
        | CausalDisposition::PreExisting
        | CausalDisposition::BaseOnly
        | CausalDisposition::Unknown => {
            let hunks = facts.hunks.get(&loc.path).map(Vec::as_slice).unwrap_or(&[]);
            // The path is gone from the candidate: the change removed it all.
            let deleted = !facts.candidate_lines.contains_key(&loc.path);
            let touches = hunks.iter().any(|h| {
                if h.count == 0 {
                    // A pure deletion after line `start` (0: before line 1)
                    // touches the lines on either side of it.
                    deleted || (h.start + 1 >= loc.start && h.start <= loc.end)
                } else {
                    h.start <= loc.end && loc.start < h.start + h.count
                }
            });
            if touches {
                None
            } else {
                downgrade(DowngradeReason::OutsideChangedHunks)
            }
        }
    }
}

/// Parses the `@@ -a,b +c,d @@` lines of a unified diff into new-side hunks.
pub fn parse_hunks(patch: &[u8]) -> Vec<Hunk> {
    let mut out = Vec::new();
    for line in patch.split(|b| *b == b'\n') {
        let Some(rest) = line.strip_prefix(b"@@ ") else {
            continue;
        };
        let Ok(rest) = std::str::from_utf8(rest) else {
            continue;
        };
        let Some(plus) = rest.split(' ').find(|t| t.starts_with('+')) else {
            continue;
        };
        let spec = &plus[1..];
        let (start, count) = match spec.split_once(',') {
            Some((s, c)) => (s.parse().ok(), c.parse().ok()),
            None => (spec.parse().ok(), Some(1)),
        };
        if let (Some(start), Some(count)) = (start, count) {
            out.push(Hunk { start, count });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::finding::{EvidenceClass, ReviewerFinding, Severity};
    use crate::review::ids::NonBlank;

    fn p(s: &str) -> RepoPath {
        RepoPath::parse(s).unwrap()
    }

    fn finding(loc: &str, d: CausalDisposition) -> ReviewerFinding {
        ReviewerFinding {
            location: NonBlank::parse(loc).unwrap(),
            severity: Severity::Blocker,
            claim: NonBlank::parse("c").unwrap(),
            proof_refs: vec![NonBlank::parse("p").unwrap()],
            evidence_class: Some(EvidenceClass::Deterministic),
            causal_disposition: Some(d),
        }
    }

    fn facts() -> CausalFacts {
        let mut f = CausalFacts::default();
        f.hunks.insert(
            p("a.rs"),
            vec![
                Hunk {
                    start: 10,
                    count: 3,
                },
                Hunk {
                    start: 40,
                    count: 0,
                },
            ],
        );
        f.candidate_lines.insert(p("a.rs"), 50);
        f
    }

    #[test]
    fn locations() {
        assert_eq!(
            Location::parse("src/a.rs:12"),
            Some(Location {
                path: p("src/a.rs"),
                start: 12,
                end: 12
            })
        );
        assert_eq!(
            Location::parse("a:b.rs:3-5").map(|l| (l.start, l.end)),
            Some((3, 5))
        );
        for bad in ["a.rs", "a.rs:0", "a.rs:5-3", "a.rs:x", ":3", "../a:1"] {
            assert_eq!(Location::parse(bad), None, "{bad}");
        }
    }

    /// What `check` makes of a finding at `loc` claiming `d`, over the
    /// genesis `a.rs` and `f`.
    fn downgrade(loc: &str, d: CausalDisposition, f: &CausalFacts) -> Option<CausalDowngrade> {
        check(finding(loc, d).claim(), &[p("a.rs")], f)
    }

    /// The reason of [`downgrade`], if any.
    fn reason(loc: &str, d: CausalDisposition, f: &CausalFacts) -> Option<DowngradeReason> {
        downgrade(loc, d, f).map(|x| x.reason)
    }

    #[test]
    fn introduced_must_touch_a_changed_hunk() {
        use CausalDisposition::*;
        assert_eq!(downgrade("a.rs:11", Introduced, &facts()), None);
        assert_eq!(downgrade("a.rs:1-10", Worsened, &facts()), None);
        assert_eq!(
            downgrade("a.rs:41", Introduced, &facts()),
            None,
            "next to a deletion"
        );
        assert_eq!(
            downgrade("a.rs:13", Introduced, &facts()),
            Some(CausalDowngrade {
                claimed: Introduced,
                reason: DowngradeReason::OutsideChangedHunks
            })
        );
        assert_eq!(
            reason("b.rs:1", Introduced, &facts()),
            Some(DowngradeReason::OutsideGenesis)
        );
        assert_eq!(
            reason("a.rs", Introduced, &facts()),
            Some(DowngradeReason::UnparseableLocation)
        );
    }

    #[test]
    fn a_deletion_at_the_top_touches_line_one_only() {
        use CausalDisposition::Introduced;
        let mut f = CausalFacts::default();
        f.hunks.insert(p("a.rs"), vec![Hunk { start: 0, count: 0 }]);
        f.candidate_lines.insert(p("a.rs"), 9000);
        assert_eq!(reason("a.rs:1", Introduced, &f), None);
        assert_eq!(
            reason("a.rs:5000", Introduced, &f),
            Some(DowngradeReason::OutsideChangedHunks)
        );
        // A deleted file: every line of it was changed.
        f.candidate_lines.clear();
        assert_eq!(reason("a.rs:5000", Introduced, &f), None);
    }

    #[test]
    fn activated_must_name_an_existing_line() {
        use CausalDisposition::Activated;
        assert_eq!(reason("a.rs:50", Activated, &facts()), None);
        assert_eq!(
            reason("a.rs:49-51", Activated, &facts()),
            Some(DowngradeReason::NoSuchLine)
        );
    }

    #[test]
    fn other_dispositions_are_not_checked() {
        let pre_existing = CausalDisposition::PreExisting;
        assert_eq!(reason("zzz", pre_existing, &facts()), None);
    }

    #[test]
    fn hunk_headers() {
        let patch =
            b"diff --git a/x b/x\n@@ -1,2 +1,3 @@ fn x\n+a\n@@ -9 +10 @@\n@@ -20,4 +22,0 @@\n";
        assert_eq!(
            parse_hunks(patch),
            vec![
                Hunk { start: 1, count: 3 },
                Hunk {
                    start: 10,
                    count: 1
                },
                Hunk {
                    start: 22,
                    count: 0
                }
            ]
        );
    }
}
