//! `probity export-context` (R10.2–R10.5) through the real binary on real
//! repositories: read-only, any lineage, distinct refusals.

mod support;

use std::process::Command;

use support::*;

fn patch(cwd: &std::path::Path, lineage: &str) -> (i32, Vec<u8>) {
    let out = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .args(["--cwd"])
        .arg(cwd)
        .args(["export-context", "--lineage", lineage, "--patch"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

#[test]
fn a_lineage_exports_its_frozen_context_without_writing_anything() {
    let f = medium_change();
    let st = probity_ok(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let store_before = store_snapshot(&f);
    let index_before = f.index_bytes().unwrap();
    let status_before = f.status().unwrap();

    let e = probity_ok(f.root(), &["export-context", "--lineage", &lineage]);
    let j = &e.json;
    assert_eq!(j["schema"], "probity.context-export/v1");
    assert_eq!(j["lineage_id"], lineage.as_str());
    assert_eq!(j["revision"], st.json["store_revision"]);
    assert_eq!(j["state"], "reviewing");
    assert_eq!(j["applicability"], "current");
    assert_eq!(j["snapshot"]["candidate_tree"], st.json["candidate_tree"]);
    assert_eq!(j["snapshot"]["paths_digest"], st.json["paths_digest"]);
    let manifest: Vec<(&str, &str)> = j["changed_path_manifest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["path"].as_str().unwrap(), m["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        manifest,
        [
            ("src/parser.rs", "modified"),
            ("src/parser_test.rs", "added")
        ]
    );
    assert_eq!(j["derivation"]["flags"].as_array().unwrap().len(), 12);
    assert!(
        j["derivation"]["git_version"]
            .as_str()
            .unwrap()
            .starts_with("git version")
    );
    assert_eq!(
        j["budget"]["correction_budget"],
        st.json["correction_budget"]
    );

    // The payload is the diff, and the diff is what the frozen trees say.
    let (code, bytes) = patch(f.root(), &lineage);
    assert_eq!(code, 0);
    assert_eq!(j["candidate_diff"]["encoding"], "base64");
    assert_eq!(j["candidate_diff"]["byte_size"], bytes.len() as u64);
    assert_eq!(
        j["candidate_diff"]["sha256"],
        probity_core::digest::Sha256Digest::plain(&bytes)
            .to_string()
            .as_str()
    );
    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.contains("diff --git a/src/parser.rs b/src/parser.rs\n"),
        "{text}"
    );
    assert!(text.contains("+fn more() {}\n"), "{text}");
    assert!(text.contains("new file mode 100644\n"), "{text}");
    // Two exports give the same bytes.
    let again = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(again.json["candidate_diff"], j["candidate_diff"]);

    assert!(
        store_snapshot(&f) == store_before,
        "export wrote to the store"
    );
    assert_eq!(f.index_bytes().unwrap(), index_before);
    assert_eq!(f.status().unwrap(), status_before);
}

#[test]
fn a_non_current_lineage_exports_from_a_sibling_worktree() {
    let f = medium_change();
    let lineage = start_lineage(f.root());
    let wt_dir = tempfile::tempdir().unwrap();
    let wt = wt_dir.path().join("wt");
    f.git(&["worktree", "add", "-q", "--detach", wt.to_str().unwrap()])
        .unwrap();
    let e = probity_ok(&wt, &["export-context", "--lineage", &lineage]);
    assert_ne!(e.json["applicability"], "current");
    let here = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(e.json["candidate_diff"], here.json["candidate_diff"]);
}

#[test]
fn refusals_are_distinct_and_write_nothing() {
    let f = medium_change();
    let lineage = start_lineage(f.root());
    let before = store_snapshot(&f);

    let unknown = probity(
        f.root(),
        &["export-context", "--lineage", "review-0123456789abcdef"],
    );
    assert_eq!(unknown.code, 3, "{}", unknown.stdout);
    assert_eq!(unknown.json["error"]["code"], "lineage_not_found");
    let bad = probity(f.root(), &["export-context", "--lineage", "nope"]);
    assert_eq!(bad.json["error"]["code"], "bad_lineage");

    // The frozen candidate tree is unreferenced: pruning removes it.
    f.git(&["prune", "--expire=now"]).unwrap();
    let pruned = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(pruned.code, 5, "{}", pruned.stdout);
    assert_eq!(pruned.json["error"]["code"], "objects_missing");
    assert!(store_snapshot(&f) == before, "a refusal wrote to the store");
}

#[test]
fn a_candidate_whose_diff_cannot_be_carried_is_not_started() {
    // R12.4: representability is checked before the candidate is accepted.
    let f = medium_change();
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef\n";
    f.write("data/big.txt", line.repeat(100_000)).unwrap();
    let st = probity(f.root(), &["start"]);
    st.assert_refused(3, "not_representable");
    assert!(store_snapshot(&f).is_empty(), "a lineage was written");
}

#[test]
fn the_diff_is_anchored_at_start_and_drift_is_refused() {
    let f = medium_change();
    let lineage = start_lineage(f.root());
    let e = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(
        e.json["snapshot"]["diff"]["sha256"],
        e.json["candidate_diff"]["sha256"]
    );
    assert_eq!(
        e.json["snapshot"]["diff"]["byte_size"],
        e.json["candidate_diff"]["byte_size"]
    );
}

#[test]
fn status_names_the_next_transition_and_carries_frozen_inputs_only_when_current() {
    let f = medium_change();
    let lineage = start_lineage(f.root());
    let cur = probity_ok(f.root(), &["status", "--next-transition"]);
    let next = &cur.json["next_transition"];
    assert_eq!(next["action"], "run_lenses");
    let export = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(next["candidate_diff"], export.json["candidate_diff"]);
    assert_eq!(
        next["changed_path_manifest"],
        export.json["changed_path_manifest"]
    );
    // Without the flag, status carries none of it.
    assert!(
        probity(f.root(), &["status"])
            .json
            .get("next_transition")
            .is_none()
    );

    // Not current: the frozen inputs are omitted, with the way to get them.
    f.write("src/parser.rs", "// parser\nfn parse() { changed() }\n")
        .unwrap();
    let other = probity(
        f.root(),
        &["status", "--lineage", &lineage, "--next-transition"],
    );
    assert_eq!(other.json["applicability"], "scope_changed");
    assert_eq!(other.json["next_transition"]["candidate_diff"], "omitted");
    assert!(
        other.json["next_transition"]["export"]
            .as_str()
            .unwrap()
            .contains(&lineage)
    );
}

#[test]
fn kept_trees_survive_garbage_collection() {
    let f = medium_change();
    f.git(&["config", "probity.keepTrees", "true"]).unwrap();
    let st = probity_ok(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let refs = String::from_utf8(
        f.git(&[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/probity/",
        ])
        .unwrap(),
    )
    .unwrap();
    assert!(
        refs.contains(&format!(
            "refs/probity/{lineage}/candidate {}",
            st.json["candidate_tree"].as_str().unwrap()
        )),
        "{refs}"
    );
    assert!(
        refs.contains(&format!("refs/probity/{lineage}/base ")),
        "{refs}"
    );
    f.git(&["gc", "-q", "--prune=now"]).unwrap();
    probity_ok(f.root(), &["export-context", "--lineage", &lineage]);
    // Ordinary history views are unaffected by refs to trees.
    f.git(&["log", "--all", "--oneline"]).unwrap();
    // A bad value is an error, not a silent "no".
    f.git(&["config", "probity.keepTrees", "maybe"]).unwrap();
    let bad = probity(f.root(), &["start"]);
    assert_eq!(bad.code, 5, "{}", bad.stdout);
}

#[test]
fn the_export_does_not_depend_on_diff_configuration_or_attributes() {
    let f = medium_change();
    // Blank context lines, and attributes inside the frozen tree naming a
    // diff driver.
    f.write(
        "src/parser.rs",
        "// parser\n\nfn parse() {}\n\nfn more() {}\n",
    )
    .unwrap();
    f.write(".gitattributes", "*.rs diff=rust\n").unwrap();
    let lineage = start_lineage(f.root());
    let plain = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(plain.code, 0, "{}", plain.stdout);
    // Settings that would change a porcelain diff, or a plumbing one that
    // honoured attributes and drivers.
    f.git(&["config", "diff.suppressBlankEmpty", "true"])
        .unwrap();
    f.git(&["config", "diff.rust.binary", "true"]).unwrap();
    f.git(&["config", "diff.noprefix", "true"]).unwrap();
    f.git(&["config", "core.bigFileThreshold", "1"]).unwrap();
    // Drivers that apply without any attribute, and the repository's own
    // attributes file.
    f.git(&["config", "diff.default.binary", "true"]).unwrap();
    f.git(&["config", "diff.default.xfuncname", "^fn"]).unwrap();
    std::fs::write(f.root().join(".git/info/attributes"), "* -diff\n").unwrap();
    let configured = probity(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(
        configured.json["candidate_diff"], plain.json["candidate_diff"],
        "{}",
        configured.stdout
    );
    assert!(
        plain.json["derivation"]["command"]
            .as_str()
            .unwrap()
            .contains("diff.suppressBlankEmpty=false")
    );
}

/// A new start derives its diff anchor in the repository itself (D-R86),
/// with the repository's diff settings in place and no `info/attributes`:
/// the anchor is still the one an export re-derives in an empty bare
/// repository, byte for byte.
#[test]
fn the_anchor_made_at_start_does_not_depend_on_the_repositorys_diff_settings() {
    let f = medium_change();
    // Blank context lines, hunks close together, a binary file, a changed
    // mode, an added and a removed file, and in-tree attributes naming a
    // driver.
    f.write(
        "src/parser.rs",
        "// parser\n\nfn parse() {}\n\nfn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\nfn more() {}\n",
    )
    .unwrap();
    std::fs::write(f.root().join("data.bin"), b"\x00\x01binary\x00\xff").unwrap();
    f.write(".gitattributes", "*.rs diff=rust\n").unwrap();
    f.write("zz/last.txt", "one\ntwo\n").unwrap();
    for (k, v) in [
        ("diff.suppressBlankEmpty", "true"),
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("diff.srcPrefix", "x/"),
        ("diff.dstPrefix", "y/"),
        ("diff.context", "9"),
        ("diff.interHunkContext", "9"),
        ("diff.algorithm", "histogram"),
        ("diff.indentHeuristic", "true"),
        ("diff.relative", "true"),
        ("diff.renames", "copies"),
        ("diff.external", "false"),
        ("diff.ignoreSubmodules", "all"),
        ("diff.wsErrorHighlight", "all"),
        ("diff.rust.binary", "true"),
        ("diff.rust.xfuncname", "^fn"),
        ("diff.default.binary", "true"),
        ("diff.default.xfuncname", "^fn"),
        ("core.bigFileThreshold", "1"),
        ("core.abbrev", "7"),
        ("core.quotePath", "true"),
        ("color.diff", "always"),
    ] {
        f.git(&["config", k, v]).unwrap();
    }
    std::fs::write(f.root().join(".git/order"), "zz/*\n*\n").unwrap();
    f.git(&["config", "diff.orderFile", ".git/order"]).unwrap();
    let st = probity_ok(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let e = probity_ok(f.root(), &["export-context", "--lineage", &lineage]);
    assert_eq!(
        e.json["snapshot"]["diff"]["sha256"], e.json["candidate_diff"]["sha256"],
        "{}",
        e.stdout
    );
    assert_eq!(
        e.json["snapshot"]["diff"]["byte_size"],
        e.json["candidate_diff"]["byte_size"]
    );
}

#[test]
fn a_submodule_change_is_a_changed_path_whatever_gitmodules_says() {
    let f = probity_git::fixture::Fixture::new().unwrap();
    f.write("f.txt", "x\n").unwrap();
    f.commit_all("a").unwrap();
    let head = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    f.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},sub", head.trim()),
    ])
    .unwrap();
    f.write(
        ".gitmodules",
        "[submodule \"sub\"]\n\tpath = sub\n\turl = ./x\n\tignore = all\n",
    )
    .unwrap();
    f.git(&["add", ".gitmodules"]).unwrap();
    f.git(&["commit", "-q", "-m", "b"]).unwrap();
    f.git(&["rm", "-q", "--cached", "sub"]).unwrap();
    f.write("f.txt", "x\nmore\n").unwrap();
    let st = probity_ok(f.root(), &["start"]);
    let lineage = st.json["lineage_id"].as_str().unwrap();
    let e = probity(f.root(), &["export-context", "--lineage", lineage]);
    let paths: Vec<&str> = e.json["snapshot"]["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(paths, ["f.txt", "sub"], "{}", e.stdout);
}

#[test]
fn status_answers_even_when_the_frozen_inputs_cannot_be_carried() {
    let f = medium_change();
    assert_eq!(probity(f.root(), &["start"]).code, 0);
    // The base side of a changed file is lost from the object store (a
    // damaged clone); the live candidate is still current.
    let old = String::from_utf8(f.git(&["rev-parse", "HEAD:src/parser.rs"]).unwrap()).unwrap();
    let old = old.trim();
    std::fs::remove_file(
        f.root()
            .join(".git/objects")
            .join(&old[..2])
            .join(&old[2..]),
    )
    .unwrap();
    let st = probity_ok(f.root(), &["status", "--next-transition"]);
    assert_eq!(st.json["state"], "reviewing");
    assert_eq!(st.json["next_transition"]["action"], "run_lenses");
    assert_eq!(
        st.json["next_transition"]["candidate_diff"]["error"], "objects_missing",
        "{}",
        st.stdout
    );
}

#[test]
fn a_superseded_lineage_hands_out_no_frozen_inputs_as_a_next_transition() {
    let f = medium_change();
    let lineage = start_lineage(f.root());
    let inv = invalidate(&f, &lineage, "x");
    let rev = string_at(&inv.json, "store_revision");
    let rec = probity(
        f.root(),
        &recover_args(&lineage, &rev, "invalidated", "again", "maintainer"),
    );
    assert_eq!(rec.code, 0, "{}", rec.stdout);
    let old = probity(
        f.root(),
        &["status", "--lineage", &lineage, "--next-transition"],
    );
    assert_eq!(old.json["next_transition"]["candidate_diff"], "omitted");
}

#[test]
fn a_bad_keep_trees_setting_changes_nothing() {
    let f = medium_change();
    f.git(&["config", "probity.keepTrees", "maybe"]).unwrap();
    let st = probity(f.root(), &["start"]);
    assert_eq!(st.code, 5, "{}", st.stdout);
    assert!(store_snapshot(&f).is_empty(), "a lineage was written");
}

#[test]
fn a_receipt_is_attested_as_an_in_toto_statement() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let lineage = start_lineage(f.root());
    // Not terminal yet: nothing to attest.
    let early = probity(f.root(), &["attest", "--lineage", &lineage]);
    assert_eq!(early.code, 3, "{}", early.stdout);
    assert_eq!(early.json["error"]["code"], "not_terminal");
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let ev = input(tmp.path(), "ev.txt", "tests passed\n");
    let done = probity(f.root(), &["finalize", "--result", &r, "--evidence", &ev]);
    assert_eq!(done.json["state"], "approved");

    let manifest = tmp.path().join("manifest.json");
    let run = || {
        probity_in(f.root())
            .args(["attest", "--lineage", &lineage, "--manifest-out"])
            .arg(&manifest)
            .env_remove("GIT_DIR")
            .output()
            .unwrap()
    };
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, run().stdout, "the statement is canonical");
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(
        s["predicateType"],
        "https://probity.dev/attestation/review-receipt/v1"
    );
    // The predicate is the receipt the store holds.
    let receipt: serde_json::Value = serde_json::from_slice(
        &std::fs::read(done.json["receipt_path"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(s["predicate"], receipt);
    // The subject names the manifest's bytes and the final tree.
    let bytes = std::fs::read(&manifest).unwrap();
    assert_eq!(
        s["subject"][0]["digest"]["sha256"],
        probity_core::digest::Sha256Digest::plain(&bytes).hex()
    );
    assert_eq!(
        s["subject"][1]["digest"]["gitTree"],
        receipt["final_candidate_tree"]
    );
    // The statement on stdout is exactly its canonical bytes.
    assert_ne!(out.stdout.last(), Some(&b'\n'));
    let m: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(m["entries"].as_array().unwrap().len(), 2);
}

#[test]
fn export_and_attest_usage_errors_are_typed() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let done = approve_live(f.root(), tmp.path());
    let lineage = string_at(&done, "lineage_id");
    // --patch prints bytes; --json asks for a document: not both.
    let both = probity(
        f.root(),
        &["export-context", "--lineage", &lineage, "--patch"],
    );
    assert_eq!(both.code, 2, "{}", both.stdout);
    assert_eq!(both.json["error"]["code"], "usage");
    // An unwritable --manifest-out (a directory) is an I/O error.
    let bad = probity(
        f.root(),
        &[
            "attest",
            "--lineage",
            &lineage,
            "--manifest-out",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(bad.code, 7, "{}", bad.stdout);
    assert_eq!(bad.json["error"]["code"], "manifest_io");
}
