//! What the file store's tests share: the parser candidate's started
//! record, as a first record, in a store of its own; every file below a
//! folder, to hold a refusal to "wrote nothing".

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use probity_core::review::FirstRecord;
use probity_core::review::Lens;
use probity_core::review::StateRecord;
use probity_core::review::fixtures;
use probity_ports::review::RecordStore;
use probity_store::FileStore;

/// `r` as a first record, by core's check.
pub fn first(r: &StateRecord) -> FirstRecord {
    FirstRecord::check(r.clone()).unwrap()
}

/// The parser candidate's record, just started (reviewing).
pub fn started() -> StateRecord {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap()
}

/// A file store in a fresh directory that holds [`started`]'s lineage:
/// the directory, the store and that first record.
pub fn created() -> (tempfile::TempDir, FileStore, StateRecord) {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    let r = started();
    store.create(&first(&r)).unwrap();
    (dir, store, r)
}

/// Every file below `root` (which must exist), path → bytes.
pub fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            let bytes = std::fs::read(&p).unwrap();
            out.insert(p, bytes);
        }
    }
    out
}
