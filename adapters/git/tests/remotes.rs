//! Which names `probity push` measures publication against: a configured
//! remote has remote-tracking refs of its own; a URL or path does not.

use probity_git::fixture::Fixture;

#[test]
fn only_a_configured_remote_name_is_a_remote() {
    let f = Fixture::new().unwrap();
    f.write("a", "a\n").unwrap();
    f.commit_all("a").unwrap();
    f.git(&["remote", "add", "origin", "/tmp/elsewhere.git"])
        .unwrap();
    let repo = f.repo().unwrap();
    assert!(repo.is_configured_remote("origin").unwrap());
    for other in [
        "upstream",
        "/tmp/elsewhere.git",
        "https://example.invalid/r.git",
        "",
        "a:b",
    ] {
        assert!(!repo.is_configured_remote(other).unwrap(), "{other}");
    }
}
