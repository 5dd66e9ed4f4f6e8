//! The drivers' error plumbing (issue 25 §5): a Git port's error reaches a
//! driver's answer as `ReviewError::Repository` by `?` alone, and a record
//! that must exist is read by one `ReviewStore::get` that answers
//! `NotFound`; the classes and messages are the ones the hand-written
//! conversions gave.

use probity_core::review::FirstRecord;
use probity_core::review::Lens;
use probity_core::review::LineageId;
use probity_core::review::fixtures;
use probity_ports::review::{AdapterError, RecordStore, ReviewError, StoreError};
use probity_testkit::InMemoryStore;

fn observe() -> Result<(), AdapterError> {
    Err("object 1111111111111111111111111111111111111111 is missing".into())
}

fn driver() -> Result<(), ReviewError> {
    observe()?;
    Ok(())
}

#[test]
fn a_port_error_is_the_repository_class_with_its_message_kept() {
    let e = driver().unwrap_err();
    assert!(matches!(e, ReviewError::Repository(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "could not observe the repository: object 1111111111111111111111111111111111111111 is missing"
    );
    let source = std::error::Error::source(&e).map(ToString::to_string);
    assert_eq!(
        source.as_deref(),
        Some("object 1111111111111111111111111111111111111111 is missing")
    );
}

#[test]
fn get_answers_the_stored_record_and_not_found_for_a_lineage_never_created() {
    let store = InMemoryStore::new();
    let record = fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    let lineage = record.state().lineage_id().clone();
    let e = store.get(&lineage).unwrap_err();
    assert!(
        matches!(&e, StoreError::NotFound(l) if l == &lineage),
        "{e}"
    );
    assert_eq!(e.to_string(), format!("no lineage {lineage} in the store"));
    store
        .create(&FirstRecord::check(record.clone()).unwrap())
        .unwrap();
    assert_eq!(store.get(&lineage).unwrap(), record);
    let other = LineageId::parse("review-0123456789abcdef").unwrap();
    assert!(matches!(store.get(&other), Err(StoreError::NotFound(l)) if l == other));
}

fn transport_driver() -> Result<(), probity_ports::review::TransportError> {
    observe()?;
    Ok(())
}

#[test]
fn a_port_error_in_a_transport_driver_is_the_same_repository_class() {
    let e = transport_driver().unwrap_err();
    assert!(
        matches!(
            &e,
            probity_ports::review::TransportError::Review(ReviewError::Repository(_))
        ),
        "{e:?}"
    );
    assert_eq!(e.to_string(), driver().unwrap_err().to_string());
}

fn refused_successor() -> Result<(), ReviewError> {
    let record = fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    probity_core::review::Successor::check(&record, record.clone())?;
    Ok(())
}

#[test]
fn core_refusing_a_new_lineage_answers_the_store_class_it_always_had() {
    let e = refused_successor().unwrap_err();
    let lineage = fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .lineage_id()
        .clone();
    assert!(
        matches!(&e, ReviewError::Store(StoreError::Malformed { path, detail })
            if *path == lineage.to_string() && detail == "a successor must name its predecessor"),
        "{e:?}"
    );
}

/// A library consumer reads the same stable code and class the command
/// line prints, from the error itself (issue 25 §5): the store's, a
/// transition's and the driver's own.
#[test]
fn every_error_names_its_code_and_class_itself() {
    use probity_core::review::ErrorClass;
    use probity_core::review::TransitionError;
    let e = driver().unwrap_err();
    assert_eq!(e.classify(), (ErrorClass::Repository, "repository_error"));
    let lineage = LineageId::parse("review-0123456789abcdef").unwrap();
    let e = ReviewError::from(StoreError::NotFound(lineage.clone()));
    assert_eq!(e.code(), "lineage_not_found");
    assert_eq!(e.classify().0, ErrorClass::RejectedInput);
    let e = ReviewError::from(TransitionError::ZeroForecast);
    assert_eq!(e.classify(), (ErrorClass::RejectedInput, "zero_forecast"));
    let e = ReviewError::CorrectionOpen { lineage };
    assert_eq!(e.classify(), (ErrorClass::Conflict, "correction_open"));
}
