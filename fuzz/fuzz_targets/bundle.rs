//! Review bundles (`Bundle::from_bytes`): a file given to `bundle import`,
//! a line of a note fetched from anyone. Beyond not panicking: an accepted
//! bundle is exactly its canonical bytes, and those read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::Bundle;

fuzz_target!(|data: &[u8]| {
    let Ok(bundle) = Bundle::from_bytes(data) else {
        return;
    };
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    let bytes = bundle
        .to_bytes()
        .expect("an accepted bundle has canonical bytes");
    assert_eq!(bytes, body, "an accepted bundle is its canonical bytes");
    let again = Bundle::from_bytes(&bytes).expect("canonical bytes read back");
    assert_eq!(again, bundle);
});
