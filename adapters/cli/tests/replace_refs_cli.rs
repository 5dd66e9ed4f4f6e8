//! Replacements (`refs/replace/*`) at the server (red team round 12,
//! D-R164), on a real bare remote with the server hook: the gate reads
//! every object as it is, but every other reader of the server with git's
//! defaults would read a pushed replacement in place of the reviewed
//! bytes. A push that creates or moves one is refused; deleting one is
//! allowed.

mod support;

use support::*;

#[test]
fn a_pushed_replacement_is_refused_and_one_already_there_may_be_deleted() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    let c1 = deliver_reviewed(&f, inputs.path());
    // The reviewed file's blob replaced by other bytes.
    let reviewed = rev_parse(&f, "HEAD:src/parser.rs");
    let other = git_out(
        f.root(),
        &["hash-object", "-w", "--stdin"],
        b"fn parse() { std::process::exit(1) }\n",
        &[],
    );
    f.git(&["replace", &reviewed, other.trim()]).unwrap();
    let refname = format!("refs/replace/{reviewed}");
    let err = f
        .git(&["push", "-q", "--no-verify", "origin", &refname])
        .unwrap_err()
        .to_string();
    assert!(err.contains("DENY: replace_ref_refused"), "{err}");
    assert!(err.contains(&refname), "{err}");
    assert_eq!(rev(&f, &server, &refname), None);
    // What a reader of the server with git's defaults sees is still the
    // reviewed blob.
    let shown = git_out(&server, &["show", "main:src/parser.rs"], b"", &[]);
    assert!(!shown.contains("exit"), "{shown}");
    assert_eq!(rev(&f, &server, "main"), Some(c1));
    // One put there past the hook (by an administrator) may be deleted.
    let bytes = b"fn parse() { std::process::exit(1) }\n";
    git_out(&server, &["hash-object", "-w", "--stdin"], bytes, &[]);
    let admin = [
        "-c",
        "core.hooksPath=/dev/null",
        "update-ref",
        refname.as_str(),
        other.trim(),
    ];
    f.git_in(&server, &admin).unwrap();
    f.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        &format!(":{refname}"),
    ])
    .unwrap();
    assert_eq!(rev(&f, &server, &refname), None);
}
