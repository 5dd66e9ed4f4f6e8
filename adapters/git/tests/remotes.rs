//! Which names `probity push` measures publication against: a configured
//! remote has remote-tracking refs of its own; a URL or path does not.

use probity_git::fixture::Fixture;

#[test]
fn only_a_configured_remote_name_is_a_remote() {
    let f = Fixture::committed(&[("a", "a\n")], "a").unwrap();
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

/// Whether a push reaches its remote by git's local transport (D-R124),
/// after git's own rewriting: a configured remote's push URLs (every one
/// local), a path or URL given to push as `insteadOf` rewrites it.
#[test]
fn a_push_target_is_local_by_gits_own_rule_after_its_rewriting() {
    use probity_git::delivery::{PushTarget, is_local_url};
    for (url, local) in [
        ("/srv/git/r.git", true),
        ("../r.git", true),
        ("r.git", true),
        ("file:///srv/git/r.git", true),
        ("./a:b", true),
        ("ssh://host/r.git", false),
        ("git@host:r.git", false),
        ("https://example.invalid/r.git", false),
        ("ext::ssh host r.git", false),
        ("", false),
    ] {
        assert_eq!(is_local_url(url), local, "{url}");
    }
    let f = Fixture::committed(&[("a", "a\n")], "a").unwrap();
    let g = |args: &[&str]| f.git(args).unwrap();
    g(&["remote", "add", "origin", "/tmp/elsewhere.git"]);
    g(&["remote", "add", "hub", "git@example.invalid:r.git"]);
    g(&["remote", "add", "mixed", "/tmp/elsewhere.git"]);
    g(&["config", "remote.mixed.pushurl", "/tmp/one.git"]);
    g(&[
        "config",
        "--add",
        "remote.mixed.pushurl",
        "ssh://host/two.git",
    ]);
    g(&["remote", "add", "rewritten", "/srv/mirror/r.git"]);
    g(&["config", "url.ssh://host/.pushInsteadOf", "/srv/mirror/"]);
    g(&["config", "url.ssh://other/.insteadOf", "short/"]);
    let repo = f.repo().unwrap();
    let target = |r: &str| repo.push_target(r).unwrap();
    g(&["remote", "add", "wrapped", "/tmp/elsewhere.git"]);
    g(&[
        "config",
        "remote.wrapped.receivepack",
        "/opt/git/bin/git-receive-pack",
    ]);
    let is = |configured, local| PushTarget {
        configured,
        local,
        receive_pack: None,
    };
    assert_eq!(
        target("wrapped"),
        PushTarget {
            configured: true,
            local: true,
            receive_pack: Some("/opt/git/bin/git-receive-pack".into()),
        }
    );
    assert_eq!(target("origin"), is(true, true));
    assert_eq!(target("hub"), is(true, false));
    assert_eq!(target("mixed"), is(true, false), "one push URL is ssh");
    assert_eq!(target("rewritten"), is(true, false), "pushInsteadOf");
    assert_eq!(target("/tmp/elsewhere.git"), is(false, true));
    assert_eq!(target("short/r.git"), is(false, false), "insteadOf");
    assert_eq!(target("https://example.invalid/r.git"), is(false, false));
    assert_eq!(
        target("upstream"),
        is(false, true),
        "a name no remote has is a path"
    );
}

/// A bare remote holding `refs/notes/probity` (one note on a commit of
/// `f`'s), and a second fixture with no notes that fetches them.
fn remote_with_notes() -> (Fixture, tempfile::TempDir, std::path::PathBuf, Fixture) {
    let f = Fixture::new().unwrap();
    for i in 0..20 {
        f.write(&format!("f{i}"), format!("{i}\n")).unwrap();
    }
    f.commit_all("a").unwrap();
    f.git(&["notes", "--ref=probity", "add", "-m", "a note", "HEAD"])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("server.git");
    f.git(&["init", "-q", "--bare", bare.to_str().unwrap()])
        .unwrap();
    f.git(&["push", "-q", bare.to_str().unwrap(), "refs/notes/probity"])
        .unwrap();
    let other = Fixture::new().unwrap();
    (f, dir, bare, other)
}

#[test]
fn the_notes_fetch_streams_gits_progress_when_asked() {
    let (f, _dir, bare, other) = remote_with_notes();
    let repo = other.repo().unwrap();
    let mut shown: Vec<u8> = Vec::new();
    let merged = repo
        .merge_remote_notes(bare.to_str().unwrap(), true, &mut shown)
        .unwrap();
    assert!(merged);
    let shown = String::from_utf8_lossy(&shown);
    // git's own meter (`--progress`: forced, stderr being a pipe here),
    // with no ref-update lines and nothing of Probity's scratch ref.
    assert!(shown.contains("objects"), "{shown}");
    assert!(shown.contains("100%"), "{shown}");
    assert!(!shown.contains("refs/"), "{shown}");
    let theirs = String::from_utf8(f.git(&["rev-parse", "refs/notes/probity"]).unwrap()).unwrap();
    assert_eq!(repo.notes_tip().unwrap().unwrap().as_str(), theirs.trim());
}

#[test]
fn the_notes_fetch_is_silent_unless_asked() {
    let (_f, _dir, bare, other) = remote_with_notes();
    let repo = other.repo().unwrap();
    let mut shown: Vec<u8> = Vec::new();
    assert!(
        repo.merge_remote_notes(bare.to_str().unwrap(), false, &mut shown)
            .unwrap()
    );
    assert!(shown.is_empty(), "{}", String::from_utf8_lossy(&shown));
}

#[test]
fn a_remote_without_notes_shows_no_fatal_line_even_with_progress() {
    let (_f, dir, _bare, other) = remote_with_notes();
    let empty = dir.path().join("empty.git");
    other
        .git(&["init", "-q", "--bare", empty.to_str().unwrap()])
        .unwrap();
    let repo = other.repo().unwrap();
    let mut shown: Vec<u8> = Vec::new();
    let merged = repo
        .merge_remote_notes(empty.to_str().unwrap(), true, &mut shown)
        .unwrap();
    assert!(!merged);
    assert!(repo.notes_tip().unwrap().is_none());
    // No notes there is an ordinary answer, not an error to print.
    let shown = String::from_utf8_lossy(&shown);
    assert!(!shown.contains("fatal"), "{shown}");
}
