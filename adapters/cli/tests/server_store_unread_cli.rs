//! "The server-side gate reads authority only from `refs/notes/probity`
//! ...; it never reads the server's own store" (docs/ARCHITECTURE.md).
//! `transport_cli.rs` shows that a valid store on the server gives no
//! authority; this shows that the gate does not even open it: where the
//! server's store would be (`<git-dir>/probity`) a regular file stands,
//! so any read below it fails (not a directory: permissions would not
//! stop a test run as root), and a reviewed, published push is still
//! allowed, the file untouched.

mod support;

use support::transport::*;
use support::*;

#[test]
fn the_server_gate_allows_published_work_without_opening_its_own_store() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let own_store = s.server.join("probity");
    assert!(!own_store.exists(), "the server has no store yet");
    std::fs::write(&own_store, b"not a store\n").unwrap();
    let tip = s.rev("HEAD");
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(tip));
    assert_eq!(std::fs::read(&own_store).unwrap(), b"not a store\n");
    // The CI form of the same gate, run in the server repository.
    let base = s.rev("HEAD~1");
    let range = format!("{base}..{}", s.rev("HEAD"));
    let ci = probity(&s.server, &pre_receive_args(&range, "refs/heads/main"));
    assert_eq!(ci.code, 0, "{}{}", ci.stdout, ci.stderr);
    assert_eq!(std::fs::read(&own_store).unwrap(), b"not a store\n");
}
