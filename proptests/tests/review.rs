//! Properties of review authority's canonical bytes and derivations.

use proptest::prelude::*;
use serde_json::Value;

use probity_core::canonical::canonical_value_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::fixtures;
use probity_core::review::{CandidateObservation, correction_budget};
use probity_core::review::{Nonce, RepoPath, Timestamp};
use probity_core::review::{REVISION_DOMAIN, StateRecord, derive_lineage_id};

/// The I-JSON integer range hashed documents are limited to.
const SAFE: i64 = (1 << 53) - 1;

/// JSON without floats and with integers in the I-JSON range, as a list of
/// entries so key order can be chosen.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn json_strategy() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        (-SAFE..=SAFE).prop_map(J::Int),
        "\\PC{0,8}".prop_map(J::Str),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::btree_map("[a-z\\u{e9}\\u{1F600}]{0,4}", inner, 0..6)
                .prop_map(|m| J::Obj(m.into_iter().collect())),
        ]
    })
}

/// Renders with object keys in the given order (reversed when `rev`).
fn render(j: &J, rev: bool) -> String {
    match j {
        J::Null => "null".into(),
        J::Bool(b) => b.to_string(),
        J::Int(i) => i.to_string(),
        J::Str(s) => serde_json::to_string(s).unwrap(),
        J::Arr(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| render(i, rev))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        J::Obj(entries) => {
            let mut e: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{} : {}", serde_json::to_string(k).unwrap(), render(v, rev)))
                .collect();
            if rev {
                e.reverse();
            }
            format!("{{ {} }}", e.join(" ,\n "))
        }
    }
}

proptest! {
    /// Integers beyond ±(2^53 − 1) are refused, never rounded into a
    /// neighbour's bytes.
    #[test]
    fn integers_beyond_the_safe_range_are_refused(n in any::<i64>()) {
        let v = serde_json::json!({"n": n});
        let r = canonical_value_bytes(&v);
        if n.unsigned_abs() > SAFE as u64 {
            prop_assert!(r.is_err());
        } else {
            prop_assert_eq!(r.unwrap(), format!("{{\"n\":{n}}}").into_bytes());
        }
    }

    #[test]
    fn canonical_bytes_are_idempotent_and_key_order_free(j in json_strategy()) {
        let a: Value = serde_json::from_str(&render(&j, false)).unwrap();
        let b: Value = serde_json::from_str(&render(&j, true)).unwrap();
        let ca = canonical_value_bytes(&a).unwrap();
        let cb = canonical_value_bytes(&b).unwrap();
        prop_assert_eq!(&ca, &cb);
        let again: Value = serde_json::from_slice(&ca).unwrap();
        prop_assert_eq!(canonical_value_bytes(&again).unwrap(), ca);
    }

    /// The writer that needs no reordering (issue 24) writes exactly what
    /// the general RFC 8785 canonicalizer writes, on values it takes (ASCII
    /// keys, any string) and on those it leaves to it (keys beyond ASCII).
    #[test]
    fn canonical_bytes_are_the_canonicalizers(
        j in json_strategy(),
        text in "[\\u{0}-\\u{1f}\"\\\\ a\\u{7f}\\u{e9}\\u{2028}\\u{1F600}]{0,12}",
        key in "[\\u{0}-\\u{7f}]{0,6}",
    ) {
        let inner: Value = serde_json::from_str(&render(&j, true)).unwrap();
        let mut map = serde_json::Map::new();
        map.insert(key, Value::Array(vec![inner, Value::String(text.clone())]));
        map.insert(text, Value::Null);
        let v = Value::Object(map);
        prop_assert_eq!(
            canonical_value_bytes(&v).unwrap(),
            serde_json_canonicalizer::to_vec(&v).unwrap()
        );
    }

    #[test]
    fn budget_formula(n in any::<u64>()) {
        let b = correction_budget(n);
        let ceil_half = n / 2 + n % 2;
        prop_assert_eq!(b, ceil_half.min(200));
        prop_assert!(b <= 200);
        if n < u64::MAX {
            prop_assert!(correction_budget(n + 1) >= b);
        }
    }

    #[test]
    fn lineage_ids_are_stable_and_nonce_bound(nonce in "[0-9a-f]{32}", other in "[0-9a-f]{32}", secs in 0u64..4_000_000_000) {
        let target = Sha256Digest::plain(nonce.as_bytes());
        let t = Timestamp::from_unix_seconds(secs);
        let n = Nonce::parse(nonce.clone()).unwrap();
        let a = derive_lineage_id(&target, 1, &t, &n).unwrap();
        let b = derive_lineage_id(&target, 1, &t, &n).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert!(a.as_str().starts_with("review-") && a.as_str().len() == 23);
        if other != nonce {
            let c = derive_lineage_id(&target, 1, &t, &Nonce::parse(other).unwrap()).unwrap();
            prop_assert_ne!(a, c);
        }
    }

    #[test]
    fn revision_is_a_function_of_state_bytes(
        lines in prop::collection::vec((1u64..500, 0u64..500), 1..6),
        focus in prop_oneof![Just(Lens::Risk), Just(Lens::Resilience), Just(Lens::Readability), Just(Lens::Reliability)],
    ) {
        let mut obs: CandidateObservation = fixtures::parser_observation();
        obs.changed = lines
            .iter()
            .enumerate()
            .map(|(i, (a, r))| fixtures::text_change(&format!("src/m{i}.rs"), *a, *r, "fn f() {}\n"))
            .collect();
        obs.intended_untracked = vec![RepoPath::parse("src/m0.rs").unwrap()];
        let state = fixtures::start(&obs, focus).unwrap();
        let record = state.record().unwrap();
        let bytes = record.to_bytes().unwrap();
        prop_assert_eq!(record.revision(), Sha256Digest::of(REVISION_DOMAIN, &state.canonical_bytes().unwrap()));
        let loaded = StateRecord::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&loaded, &record);
        prop_assert_eq!(loaded.to_bytes().unwrap(), bytes);
        // Any change of state content changes the revision.
        let next = state.accept_results(
            state.frozen().selected_lenses.iter().map(|_| fixtures::clean_result()).collect(),
            &Default::default(),
        ).unwrap();
        prop_assert_ne!(next.revision().unwrap(), record.revision());
    }
}
