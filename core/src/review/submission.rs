//! How inputs reach a lineage from outside the worktree: lens results
//! matched to their lens by name (never by position), the binding a
//! submitted result proves, and the size bound of every role document (the
//! evidence of a check Probity ran itself is in `review::evidence`).
//!
//! Everything here is a pure function of plain values; reading files,
//! running the check and storing submissions belong to the adapters.

use crate::digest::{Domain, Sha256Digest};
use crate::review::ErrorClass;
use crate::review::lens::Lens;

/// The largest lens result, refuter batch or validator result accepted, in
/// bytes (checked before parsing: a larger document is refused with
/// `input_too_large`). A lens result holds at most 999 findings; 1 MiB
/// leaves room for generous evidence while keeping every later `status`
/// and gate cheap.
pub const MAX_ROLE_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// Why lens results could not be matched to the selected lenses. Nothing
/// changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// A result without a lens name while zero or several lenses are
    /// selected: which lens it is cannot be told.
    #[error(
        "a result without a lens name is accepted only when exactly one lens is selected; name each result: --result LENS=FILE (selected: {selected})"
    )]
    Unnamed {
        /// The selected lenses, comma-separated in selected order (`none`
        /// when none is).
        selected: String,
    },
    /// A result named for a lens the lineage did not select.
    #[error("lens `{lens}` is not selected for this lineage (selected: {selected})")]
    NotSelected {
        /// The lens named, lowercase.
        lens: &'static str,
        /// The selected lenses, comma-separated (`none` when none is).
        selected: String,
    },
    /// Two results for the same lens (an unnamed one counts for the only
    /// selected lens).
    #[error("two results for lens `{lens}`; give exactly one per selected lens")]
    Duplicate {
        /// The lens given twice, lowercase.
        lens: &'static str,
    },
    /// A selected lens got no result.
    #[error("no result for {missing}; every selected lens needs one (selected: {selected})")]
    Missing {
        /// The lenses without a result, comma-separated in selected order.
        missing: String,
        /// The selected lenses, comma-separated.
        selected: String,
    },
}

impl PlacementError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            PlacementError::Unnamed { .. } => (ErrorClass::Usage, "result_unnamed"),
            PlacementError::NotSelected { .. } => {
                (ErrorClass::RejectedInput, "result_not_selected")
            }
            PlacementError::Duplicate { .. } => (ErrorClass::RejectedInput, "result_duplicate"),
            PlacementError::Missing { .. } => (ErrorClass::RejectedInput, "result_missing"),
        }
    }
}

fn names(lenses: &[Lens]) -> String {
    Lens::names_or(lenses, "none")
}

/// The lens a result stands for: the one it names, or, unnamed, the only
/// selected lens (none when zero or several are selected).
fn lens_of(selected: &[Lens], named: Option<Lens>) -> Option<Lens> {
    named.or_else(|| (selected.len() == 1).then(|| selected[0]))
}

/// Places results given by lens name into the selected order. A result
/// without a name stands for the only selected lens and is refused when
/// zero or several lenses are selected; a name that is not selected, a lens
/// named twice and a selected lens without a result are refused.
pub fn place_results<T>(
    selected: &[Lens],
    given: Vec<(Option<Lens>, T)>,
) -> Result<Vec<T>, PlacementError> {
    let mut slots: Vec<Option<T>> = selected.iter().map(|_| None).collect();
    for (lens, value) in given {
        let lens = lens_of(selected, lens).ok_or_else(|| PlacementError::Unnamed {
            selected: names(selected),
        })?;
        let i = selected.iter().position(|s| *s == lens).ok_or_else(|| {
            PlacementError::NotSelected {
                lens: lens.name(),
                selected: names(selected),
            }
        })?;
        if slots[i].is_some() {
            return Err(PlacementError::Duplicate { lens: lens.name() });
        }
        slots[i] = Some(value);
    }
    let missing: Vec<Lens> = selected
        .iter()
        .zip(&slots)
        .filter(|(_, s)| s.is_none())
        .map(|(l, _)| *l)
        .collect();
    if !missing.is_empty() {
        return Err(PlacementError::Missing {
            missing: names(&missing),
            selected: names(selected),
        });
    }
    Ok(slots.into_iter().flatten().collect())
}

/// A result `lens submit` kept differs from the one given for the same
/// lens: which one finalize should take cannot be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the submitted result for lens `{}` differs from the one given", .lens.name())]
pub struct SubmittedDiffers {
    /// The lens with two different results.
    pub lens: Lens,
}

/// Which kept results finalize takes beside the `given` ones (each with
/// the lens it names, and its bytes): a result for a lens not selected is
/// ignored; one for a lens that also has a given result (an unnamed given
/// result stands for the only selected lens) must be the same bytes and is
/// then that result; every other one is taken, in `submitted` order.
pub fn submitted_to_take<'a>(
    selected: &[Lens],
    given: &[(Option<Lens>, &[u8])],
    submitted: &'a [(Lens, Vec<u8>)],
) -> Result<Vec<(Lens, &'a [u8])>, SubmittedDiffers> {
    let named: Vec<(Lens, &[u8])> = given
        .iter()
        .filter_map(|(lens, bytes)| lens_of(selected, *lens).map(|l| (l, *bytes)))
        .collect();
    let mut take = Vec::new();
    for (lens, bytes) in submitted {
        if !selected.contains(lens) {
            continue;
        }
        match named.iter().find(|(l, _)| l == lens) {
            Some((_, b)) if *b == bytes.as_slice() => {}
            Some(_) => return Err(SubmittedDiffers { lens: *lens }),
            None => take.push((*lens, bytes.as_slice())),
        }
    }
    Ok(take)
}

/// The domain of a binding's short token.
pub(crate) const BINDING_TOKEN_DOMAIN: Domain = Domain::new("probity/lens-binding-token/v1");

/// A short token derived from a prepared binding string (`lbt1-` and 20 hex
/// digits of its domain-separated SHA-256): what an orchestrator echoes
/// when it submits the result of the lens it prompted with that binding.
pub(crate) fn binding_token(binding: &str) -> String {
    let hex = Sha256Digest::of(BINDING_TOKEN_DOMAIN, binding.as_bytes()).hex();
    format!("lbt1-{}", &hex[..20])
}

/// Whether `given` (the exact binding string, or its token) proves the
/// prepared binding.
pub fn binding_proves(prepared: &str, given: &str) -> bool {
    given == prepared || given == binding_token(prepared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Lens::*;

    const HIGH: [Lens; 4] = Lens::CANONICAL;

    #[test]
    fn named_results_are_placed_in_selected_order_whatever_order_they_come_in() {
        let given = vec![
            (Some(Reliability), "d"),
            (Some(Risk), "a"),
            (Some(Readability), "c"),
            (Some(Resilience), "b"),
        ];
        assert_eq!(place_results(&HIGH, given), Ok(vec!["a", "b", "c", "d"]));
    }

    #[test]
    fn an_unnamed_result_stands_for_the_only_selected_lens() {
        assert_eq!(place_results(&[Reliability], vec![(None, 1)]), Ok(vec![1]));
        assert_eq!(
            place_results(&[Readability], vec![(Some(Readability), 1)]),
            Ok(vec![1])
        );
    }

    #[test]
    fn an_unnamed_result_with_several_lenses_is_refused_naming_the_spelling() {
        let e = place_results(&HIGH, vec![(None, 1)]).unwrap_err();
        assert_eq!(
            e,
            PlacementError::Unnamed {
                selected: "risk, resilience, readability, reliability".into()
            }
        );
        assert!(e.to_string().contains("--result LENS=FILE"), "{e}");
        assert!(matches!(
            place_results(&[], vec![(None, 1)]),
            Err(PlacementError::Unnamed { .. })
        ));
    }

    #[test]
    fn a_lens_not_selected_is_refused() {
        assert_eq!(
            place_results(&[Reliability], vec![(Some(Risk), 1)]),
            Err(PlacementError::NotSelected {
                lens: "risk",
                selected: "reliability".into()
            })
        );
        assert!(matches!(
            place_results(&[], vec![(Some(Risk), 1)]),
            Err(PlacementError::NotSelected { .. })
        ));
    }

    #[test]
    fn a_duplicate_lens_is_refused_even_when_unnamed() {
        assert_eq!(
            place_results(&[Reliability], vec![(Some(Reliability), 1), (None, 2)]),
            Err(PlacementError::Duplicate {
                lens: "reliability"
            })
        );
    }

    #[test]
    fn a_missing_lens_is_named() {
        assert_eq!(
            place_results(&HIGH, vec![(Some(Risk), 1), (Some(Reliability), 4)]),
            Err(PlacementError::Missing {
                missing: "resilience, readability".into(),
                selected: "risk, resilience, readability, reliability".into()
            })
        );
        assert_eq!(place_results::<u8>(&[], vec![]), Ok(vec![]));
    }

    #[test]
    fn a_binding_is_proven_by_itself_or_its_token_only() {
        let b = "probity-lens-binding/v1 lineage=review-0000000000000000 lens=risk position=1/4";
        let t = binding_token(b);
        assert!(t.starts_with("lbt1-") && t.len() == 25, "{t}");
        assert!(binding_proves(b, b));
        assert!(binding_proves(b, &t));
        assert!(!binding_proves(b, &binding_token("other")));
        assert!(!binding_proves(b, ""));
        assert!(!binding_proves(b, &b.replace("1/4", "2/4")));
    }

    #[test]
    fn a_kept_result_is_taken_unless_given_again_and_must_then_be_the_same_bytes() {
        let submitted = vec![(Risk, b"r".to_vec()), (Resilience, b"s".to_vec())];
        let selected = [Risk, Resilience];
        // Nothing given: both kept results are taken, in their order.
        assert_eq!(
            submitted_to_take(&selected, &[], &submitted),
            Ok(vec![(Risk, &b"r"[..]), (Resilience, &b"s"[..])])
        );
        // Given again with the same bytes: that one is the given result.
        assert_eq!(
            submitted_to_take(&selected, &[(Some(Risk), b"r")], &submitted),
            Ok(vec![(Resilience, &b"s"[..])])
        );
        // Different bytes: refused, naming the lens.
        let e = submitted_to_take(&selected, &[(Some(Resilience), b"x")], &submitted).unwrap_err();
        assert_eq!(e, SubmittedDiffers { lens: Resilience });
        assert_eq!(
            e.to_string(),
            "the submitted result for lens `resilience` differs from the one given"
        );
        // A kept result for a lens not selected is ignored.
        assert_eq!(
            submitted_to_take(&[Resilience], &[], &submitted),
            Ok(vec![(Resilience, &b"s"[..])])
        );
        // An unnamed given result stands for the only selected lens.
        assert_eq!(
            submitted_to_take(&[Risk], &[(None, b"other")], &submitted),
            Err(SubmittedDiffers { lens: Risk })
        );
        // With several selected, an unnamed one names none (placement
        // refuses it later).
        assert_eq!(
            submitted_to_take(&selected, &[(None, b"other")], &submitted),
            Ok(vec![(Risk, &b"r"[..]), (Resilience, &b"s"[..])])
        );
    }
}
