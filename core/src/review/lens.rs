//! The four canonical lenses, their fixed finding-ID prefixes and selection.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A review lens. Each has a fixed finding-ID prefix whatever its position.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Lens {
    /// What the change could let go wrong beyond the code: authorization,
    /// secrets, untrusted input, data loss, widened CI or release
    /// configuration, misused cryptography. Findings `R1-NNN`.
    Risk,
    /// How the change behaves when the world misbehaves: unbounded work,
    /// waits without a timeout, failed dependencies, interruption between
    /// steps that must go together. Findings `R4-NNN`.
    Resilience,
    /// Whether the next person can understand and safely change the code:
    /// misleading names or comments, blurred responsibilities, hidden
    /// error paths. Findings `R2-NNN`.
    Readability,
    /// Whether the change does what it claims for every input it accepts:
    /// logic errors, error handling, state and concurrency, missing tests.
    /// Findings `R3-NNN`; the default `--focus` lens at medium risk (R2.7).
    Reliability,
}

impl Lens {
    /// The canonical order for high risk: `risk, resilience, readability, reliability`.
    pub const CANONICAL: [Lens; 4] = [
        Lens::Risk,
        Lens::Resilience,
        Lens::Readability,
        Lens::Reliability,
    ];

    /// The lenses' names, comma-separated, or `empty` when there are none.
    pub(crate) fn names_or(lenses: &[Lens], empty: &str) -> String {
        if lenses.is_empty() {
            empty.into()
        } else {
            lenses
                .iter()
                .map(|l| l.name())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    /// The fixed finding-ID prefix: risk `R1`, readability `R2`, reliability
    /// `R3`, resilience `R4`.
    pub const fn prefix(self) -> &'static str {
        match self {
            Lens::Risk => "R1",
            Lens::Readability => "R2",
            Lens::Reliability => "R3",
            Lens::Resilience => "R4",
        }
    }

    /// The lens with the given prefix.
    pub fn from_prefix(p: &str) -> Option<Lens> {
        Lens::CANONICAL.into_iter().find(|l| l.prefix() == p)
    }

    /// The lowercase name used on the command line and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Lens::Risk => "risk",
            Lens::Resilience => "resilience",
            Lens::Readability => "readability",
            Lens::Reliability => "reliability",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::risk::{RiskLevel, select_lenses};

    #[test]
    fn prefixes_are_fixed() {
        assert_eq!(Lens::Risk.prefix(), "R1");
        assert_eq!(Lens::Readability.prefix(), "R2");
        assert_eq!(Lens::Reliability.prefix(), "R3");
        assert_eq!(Lens::Resilience.prefix(), "R4");
    }

    #[test]
    fn selection_is_0_1_4() {
        assert!(select_lenses(RiskLevel::Low, Lens::Reliability).is_empty());
        assert_eq!(
            select_lenses(RiskLevel::Medium, Lens::Readability),
            vec![Lens::Readability]
        );
        assert_eq!(
            select_lenses(RiskLevel::High, Lens::Reliability),
            Lens::CANONICAL.to_vec()
        );
    }
}
