//! Pre-push and pre-receive hook stdin (`parse_push_updates`,
//! `parse_receive_updates`): whatever git (or a client speaking to the
//! server) writes. Beyond not panicking: an accepted input, written back in
//! git's layout, parses to the same updates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::parse_push_updates;
use probity_core::review::parse_receive_updates;

const ZERO: &str = "0000000000000000000000000000000000000000";

fn oid(o: &Option<impl ToString>) -> String {
    o.as_ref()
        .map_or_else(|| ZERO.to_string(), ToString::to_string)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(updates) = parse_push_updates(text) {
        let written: String = updates
            .iter()
            .map(|u| {
                format!(
                    "{} {} {} {}\n",
                    u.local_ref,
                    oid(&u.local_oid),
                    u.remote_ref,
                    oid(&u.remote_oid)
                )
            })
            .collect();
        assert_eq!(
            parse_push_updates(&written).as_ref(),
            Ok(&updates),
            "{written:?}"
        );
    }
    if let Ok(updates) = parse_receive_updates(text) {
        let written: String = updates
            .iter()
            .map(|u| format!("{} {} {}\n", oid(&u.old), oid(&u.new), u.refname))
            .collect();
        assert_eq!(
            parse_receive_updates(&written).as_ref(),
            Ok(&updates),
            "{written:?}"
        );
        for u in &updates {
            let p = u.as_push();
            assert_eq!((p.local_oid, p.remote_oid), (u.new.clone(), u.old.clone()));
        }
    }
});
