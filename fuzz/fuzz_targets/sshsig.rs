//! SSH signature files: an SSHSIG blob (`parse_sshsig`) and its armored
//! text (`dearmor`, what `ssh-keygen -Y sign` writes). Beyond not
//! panicking: an accepted blob is kept whole and armors back to itself;
//! accepted armor holds a blob that parses on its own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::{armor, dearmor, parse_sshsig};

fuzz_target!(|data: &[u8]| {
    if let Ok(sig) = parse_sshsig(data) {
        assert_eq!(sig.blob, data);
        assert_eq!(dearmor(armor(data).as_bytes()).as_ref(), Ok(&sig));
    }
    if let Ok(sig) = dearmor(data) {
        assert_eq!(parse_sshsig(&sig.blob).as_ref(), Ok(&sig));
    }
});
