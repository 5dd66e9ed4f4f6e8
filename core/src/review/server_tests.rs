//! The server rules' tests (moved out of `server.rs` to keep it under 1,000 lines).

use super::*;
use crate::review::ids::{LineageId, TreeId};

#[test]
fn a_hook_binary_must_be_reachable_and_executable_by_who_runs_git() {
    let e = |uid, gid, mode| PathEntry { uid, gid, mode };
    let owner = HookRunner {
        uid: Some(65534),
        gid: 65534,
    };
    // /root (0700, root's) hides what is under it.
    let in_root_home = [e(0, 0, 0o755), e(0, 0, 0o700), e(0, 0, 0o755)];
    assert!(!may_run(&in_root_home, &owner));
    assert!(may_run(
        &in_root_home,
        &HookRunner {
            uid: Some(0),
            gid: 0
        }
    ));
    let public = [e(0, 0, 0o755), e(0, 0, 0o755), e(0, 0, 0o755)];
    assert!(may_run(&public, &owner));
    // Executable by its group only: for a group member, not for others.
    let group_only = [e(0, 0, 0o755), e(0, 50, 0o750)];
    assert!(may_run(&group_only, &HookRunner { uid: None, gid: 50 }));
    assert!(!may_run(&group_only, &owner));
    // The owner's bits answer for the owner, even when others' allow.
    assert!(!may_run(
        &[e(0, 0, 0o755), e(7, 0, 0o055)],
        &HookRunner {
            uid: Some(7),
            gid: 9
        }
    ));
    assert!(!may_run(&[], &owner));
    // Root needs some execute bit on the file.
    assert!(!may_run(
        &[e(0, 0, 0o644)],
        &HookRunner {
            uid: Some(0),
            gid: 0
        }
    ));
    // Who runs git, from the repository's directory.
    assert_eq!(hook_runners(&e(65534, 33, 0o755)).len(), 1);
    assert_eq!(
        hook_runners(&e(65534, 33, 0o2775))[1],
        HookRunner { uid: None, gid: 33 }
    );
    assert_eq!(hook_runners(&e(65534, 33, 0o777)).len(), 3);
}

#[test]
fn only_probitys_unedited_server_hook_is_its_own() {
    for path in ["/usr/local/bin/probity", "/opt/it's here/probity"] {
        let script = pre_receive_script(path);
        assert_eq!(
            server_hook_owner(script.as_bytes()),
            ServerHookOwner::Probity
        );
        let edited = script.replace("exec ", "echo hi\nexec ");
        assert_eq!(
            server_hook_owner(edited.as_bytes()),
            ServerHookOwner::EditedByUser
        );
    }
    assert_eq!(
        server_hook_owner(b"#!/bin/sh\nexit 0\n"),
        ServerHookOwner::Foreign
    );
    assert_eq!(server_hook_owner(&[0xff, 0xfe]), ServerHookOwner::Foreign);
}

const A: &str = "1111111111111111111111111111111111111111";
const B: &str = "2222222222222222222222222222222222222222";
const Z: &str = "0000000000000000000000000000000000000000";

#[test]
fn receive_lines_parse_creations_updates_and_deletions() {
    let input = format!("{Z} {A} refs/heads/main\n{A} {B} refs/heads/x\n{B} {Z} refs/tags/t\n\n");
    let u = parse_receive_updates(&input).unwrap();
    assert_eq!(u.len(), 3);
    assert_eq!(u[0].old, None);
    assert_eq!(u[0].new.as_ref().map(|c| c.as_str()), Some(A));
    assert_eq!(u[2].new, None);
    let push = u[1].as_push();
    assert_eq!(push.remote_ref, "refs/heads/x");
    assert_eq!(push.remote_oid.as_ref().map(|c| c.as_str()), Some(A));
}

#[test]
fn malformed_receive_lines_are_typed() {
    assert_eq!(
        parse_receive_updates(&format!("{A} {B}\n")),
        Err(ReceiveInputError::Fields { line: 1 })
    );
    assert!(matches!(
        parse_receive_updates(&format!("{A} xyz refs/heads/m\n")),
        Err(ReceiveInputError::ObjectId { line: 1, .. })
    ));
    // Git's deletion of a ref the repository does not have (issue 26
    // §4): an update, not malformed input, and it withdraws nothing.
    let gone = parse_receive_updates(&format!("{Z} {Z} refs/heads/m\n")).unwrap();
    assert_eq!((gone[0].old.as_ref(), gone[0].new.as_ref()), (None, None));
    assert_eq!(
        check_deletion(&gone[0], &["refs/heads/*".into()], false),
        Ok(())
    );
    assert_eq!(
        parse_receive_updates(&format!("{A} {B} main\n")),
        Err(ReceiveInputError::Fields { line: 1 })
    );
    let big = "x".repeat(MAX_RECEIVE_BYTES + 1);
    assert!(matches!(
        parse_receive_updates(&big),
        Err(ReceiveInputError::TooLarge { .. })
    ));
}

/// Red team round 10: a ref named twice (a hand-written client; git's own
/// never sends one) is refused, whichever ref and whatever the values.
#[test]
fn a_ref_named_twice_is_refused() {
    for input in [
        format!("{A} {B} refs/notes/probity\n{B} {A} refs/heads/m\n{B} {Z} refs/notes/probity\n"),
        format!("{A} {A} refs/heads/m\n{A} {A} refs/heads/m\n"),
    ] {
        assert!(
            matches!(
                parse_receive_updates(&input),
                Err(ReceiveInputError::RepeatedRef { refname, .. }) if refname.starts_with("refs/")
            ),
            "{input}"
        );
    }
    let two = parse_receive_updates(&format!("{A} {B} refs/heads/m\n{A} {B} refs/heads/n\n"));
    assert_eq!(two.map(|u| u.len()), Ok(2));
}

/// Found by the `hook_input` fuzz target (docs/reliability.md): a ref
/// name holding a control character (here the carriage return left
/// after the line's own was stripped) was taken, though git never
/// writes one (`git check-ref-format`), and it named a ref no
/// protected-ref glob matches.
#[test]
fn a_receive_ref_name_holding_a_control_character_is_refused() {
    // The fuzz target's crash input, minimised.
    let crash = format!("{B} {A} refs/\r\r");
    assert_eq!(
        parse_receive_updates(&crash),
        Err(ReceiveInputError::Fields { line: 1 })
    );
    for refname in [
        "refs/heads/ma\rin",
        "refs/heads/main\r\r",
        "refs/heads/a\0b",
        "refs/heads/\x7f",
        "refs/heads/a\tb",
    ] {
        assert_eq!(
            parse_receive_updates(&format!("{Z} {A} refs/heads/ok\n{A} {B} {refname}\n")),
            Err(ReceiveInputError::Fields { line: 2 }),
            "{refname:?}"
        );
    }
    // A carriage return git's line ends with is still the line's own.
    assert_eq!(
        parse_receive_updates(&format!("{A} {B} refs/heads/main\r\n")).unwrap()[0].refname,
        "refs/heads/main"
    );
}

#[test]
fn an_approval_delivers_its_trees_into_a_refs_history_once() {
    let c = |s: &str| CommitId::parse(s).unwrap();
    let t = |s: &str| TreeId::parse(s).unwrap();
    let l = LineageId::parse("review-0123456789abcdef").unwrap();
    let trees = (t(A), t(B));
    let prior = |commit: &str, trees: (TreeId, TreeId), in_history: bool| PriorDelivery {
        carries_approved_change: false,
        composed_approval: false,
        commit: c(commit),
        trees,
        in_ref_history: in_history,
    };
    let replay = "3333333333333333333333333333333333333333";
    // The revert of a revert: same trees, the earlier commit in main.
    let spent = check_not_replayed(
        "refs/heads/main",
        &c(replay),
        &trees,
        &l,
        &[prior(A, trees.clone(), true)],
    )
    .unwrap_err();
    assert_eq!(spent.code(), "approval_spent");
    assert_eq!(spent.prior, c(A));
    // The same commit again; another ref's history (a backport); other
    // trees (a rebase, the next commit of a stack): each passes.
    for priors in [
        vec![prior(replay, trees.clone(), true)],
        vec![prior(A, trees.clone(), false)],
        vec![prior(A, (t(B), t(A)), true)],
        vec![],
    ] {
        assert_eq!(
            check_not_replayed("refs/heads/main", &c(replay), &trees, &l, &priors),
            Ok(())
        );
    }
}

#[test]
fn every_approval_a_delivery_rests_on_is_spent_by_its_first_delivery() {
    let c = |s: &str| CommitId::parse(s).unwrap();
    let t = |s: &str| TreeId::parse(s).unwrap();
    let (t0, t1, t2) = (t(A), t(B), t(&"c".repeat(40)));
    let a = LineageId::parse("review-0123456789abcdef").unwrap();
    let b = LineageId::parse("review-fedcba9876543210").unwrap();
    let squash = c(&"3".repeat(40));
    let earlier = c(&"4".repeat(40));
    let history = |lineage: &LineageId, approved: (TreeId, TreeId), priors: Vec<PriorDelivery>| {
        ApprovalHistory {
            lineage: lineage.clone(),
            approved: Some(approved),
            priors,
        }
    };
    let prior = |trees: (TreeId, TreeId), in_ref_history: bool| PriorDelivery {
        carries_approved_change: false,
        composed_approval: false,
        commit: earlier.clone(),
        trees,
        in_ref_history,
    };
    // A squash t0 -> t2 composing A (t0 -> t1) and B (t1 -> t2), where
    // A alone was delivered into the ref before: spent, naming A.
    let spent = check_approvals_not_replayed(
        "refs/heads/main",
        &squash,
        &(t0.clone(), t2.clone()),
        &[
            history(
                &a,
                (t0.clone(), t1.clone()),
                vec![prior((t0.clone(), t1.clone()), true)],
            ),
            history(&b, (t1.clone(), t2.clone()), vec![]),
        ],
    )
    .unwrap_err();
    assert_eq!((spent.lineage, spent.prior), (a.clone(), earlier.clone()));
    // A rebased delivery (other trees) of an approval delivered before.
    let spent = check_approvals_not_replayed(
        "refs/heads/main",
        &squash,
        &(t1.clone(), t2.clone()),
        &[history(
            &a,
            (t0.clone(), t1.clone()),
            vec![prior((t0.clone(), t1.clone()), true)],
        )],
    );
    assert!(spent.is_err());
    // Not in this ref's history (a backport), or the approval's record
    // unknown and the trees different: each passes.
    for approvals in [
        vec![history(
            &a,
            (t0.clone(), t1.clone()),
            vec![prior((t0.clone(), t1.clone()), false)],
        )],
        vec![ApprovalHistory {
            lineage: a.clone(),
            approved: None,
            priors: vec![prior((t0.clone(), t1.clone()), true)],
        }],
    ] {
        assert_eq!(
            check_approvals_not_replayed(
                "refs/heads/main",
                &squash,
                &(t1.clone(), t2.clone()),
                &approvals
            ),
            Ok(())
        );
    }
}

#[test]
fn only_a_protected_refs_deletion_is_refused_and_only_unless_allowed() {
    let input = format!("{A} {Z} refs/heads/main\n{A} {Z} refs/tags/t\n{Z} {A} refs/heads/x\n");
    let u = parse_receive_updates(&input).unwrap();
    let none: Vec<String> = Vec::new();
    let denied = check_deletion(&u[0], &none, false).unwrap_err();
    assert_eq!(denied.code(), "protected_ref_deleted");
    assert_eq!(denied.refname, "refs/heads/main");
    // Allowed by the server; an unprotected tag; a creation.
    assert_eq!(check_deletion(&u[0], &none, true), Ok(()));
    assert_eq!(check_deletion(&u[1], &none, false), Ok(()));
    assert_eq!(check_deletion(&u[2], &none, false), Ok(()));
    // A protected tag.
    let tags = vec!["refs/tags/*".to_string()];
    assert!(check_deletion(&u[1], &tags, false).is_err());
    assert_eq!(check_deletion(&u[0], &tags, false), Ok(()));
}

#[test]
fn globs_cover_nested_refs_and_default_to_branches() {
    assert!(glob_matches("refs/heads/*", "refs/heads/main"));
    assert!(glob_matches("refs/heads/*", "refs/heads/team/x"));
    assert!(!glob_matches("refs/heads/*", "refs/tags/v1"));
    assert!(glob_matches("refs/heads/release-?", "refs/heads/release-1"));
    assert!(!glob_matches(
        "refs/heads/release-?",
        "refs/heads/release-10"
    ));
    assert!(glob_matches("refs/heads/main", "refs/heads/main"));
    assert!(!glob_matches("refs/heads/main", "refs/heads/mainx"));
    assert!(glob_matches("refs/*/v*", "refs/tags/v1.0"));
    assert!(is_protected(&[], "refs/heads/main"));
    assert!(!is_protected(&[], "refs/tags/v1"));
    assert!(!is_protected(&[], NOTES_REF));
    let g = vec!["refs/heads/main".to_string(), "refs/tags/*".to_string()];
    assert!(is_protected(&g, "refs/tags/v1"));
    assert!(!is_protected(&g, "refs/heads/feature"));
    assert!(!is_protected(&["refs/*".to_string()], NOTES_REF));
    // Review objects are never a delivery, whatever the globs.
    assert!(!is_protected(
        &["refs/*".to_string()],
        "refs/probity/trees/review-0123456789abcdef/final"
    ));
}

#[test]
fn the_notes_ref_is_append_only() {
    let upd = |old: Option<&str>, new: Option<&str>| ReceiveUpdate {
        old: old.map(|s| CommitId::parse(s).unwrap()),
        new: new.map(|s| CommitId::parse(s).unwrap()),
        refname: NOTES_REF.into(),
    };
    assert_eq!(check_notes_update(&upd(None, Some(A)), false), Ok(()));
    assert_eq!(check_notes_update(&upd(Some(A), Some(B)), true), Ok(()));
    assert_eq!(
        check_notes_update(&upd(Some(A), Some(B)), false),
        Err(NotesRefDenial::NotesRefRewritten)
    );
    assert_eq!(
        check_notes_update(&upd(Some(A), None), true),
        Err(NotesRefDenial::NotesRefDeleted)
    );
    assert_eq!(NotesRefDenial::NotesRefDeleted.code(), "notes_ref_deleted");
}

#[test]
fn a_note_may_only_gain_lines() {
    let old = b"{\"a\":1}\n{\"b\":2}\n";
    // Kept, in any order, with lines added, or without a final LF.
    assert_eq!(check_note_growth(old, Some(old)), Ok(()));
    assert_eq!(
        check_note_growth(old, Some(b"0 garbage\n{\"a\":1}\n{\"b\":2}\n")),
        Ok(())
    );
    assert_eq!(
        check_note_growth(old, Some(b"{\"b\":2}\n{\"a\":1}")),
        Ok(())
    );
    // A line dropped, or the whole note: denied.
    assert_eq!(
        check_note_growth(old, Some(b"{\"a\":1}\n")),
        Err(NotesRefDenial::NotesLineRemoved)
    );
    assert_eq!(
        check_note_growth(old, Some(b"{\"a\":1}\n{\"b\":3}\n")),
        Err(NotesRefDenial::NotesLineRemoved)
    );
    assert_eq!(
        check_note_growth(old, None),
        Err(NotesRefDenial::NotesLineRemoved)
    );
    assert_eq!(
        NotesRefDenial::NotesLineRemoved.code(),
        "notes_line_removed"
    );
    // A note over the bound cannot be checked nor read: denied.
    let big = vec![b'x'; MAX_NOTE_BYTES + 1];
    assert_eq!(
        check_note_growth(old, Some(&big)),
        Err(NotesRefDenial::NoteTooLarge)
    );
    assert_eq!(
        check_note_growth(&big, Some(old)),
        Err(NotesRefDenial::NoteTooLarge)
    );
    assert_eq!(NotesRefDenial::NoteTooLarge.code(), "input_too_large");
}

#[test]
fn the_server_hook_execs_the_gate_with_a_quoted_path() {
    let s = pre_receive_script("/opt/it's/probity");
    assert!(s.starts_with(&format!("#!/bin/sh\n{SERVER_MARKER}\n")));
    assert!(s.ends_with("exec '/opt/it'\\''s/probity' validate --gate pre-receive\n"));
}

#[test]
fn the_notes_ref_is_not_a_delivery_at_pre_push() {
    let u = |r: &str| RefUpdate {
        local_ref: r.into(),
        local_oid: Some(CommitId::parse(A).unwrap()),
        remote_ref: r.into(),
        remote_oid: None,
    };
    let (d, notes) = split_notes_updates(vec![
        u("refs/heads/main"),
        u(NOTES_REF),
        u("refs/probity/trees/review-0123456789abcdef/base"),
    ]);
    assert_eq!(d, vec![u("refs/heads/main")]);
    assert!(notes);
    let (d, notes) = split_notes_updates(vec![u("refs/heads/main")]);
    assert_eq!(d.len(), 1);
    assert!(!notes);
}

#[test]
fn note_paths_cover_git_fanout() {
    let c = CommitId::parse(A).unwrap();
    let p = note_paths(&c);
    assert_eq!(p[0], A);
    assert_eq!(p[1], format!("11/{}", &A[2..]));
    assert_eq!(p[2], format!("11/11/{}", &A[4..]));
    assert_eq!(p.len(), 4);
}

#[test]
fn a_new_refs_policy_comes_from_head_or_else_every_protected_tip() {
    let a = CommitId::parse(A).unwrap();
    let b = CommitId::parse(B).unwrap();
    let tips = vec![
        ("refs/heads/main".to_string(), a.clone()),
        ("refs/heads/keep".to_string(), a.clone()),
        ("refs/tags/HEAD".to_string(), b.clone()),
        ("refs/heads/dev".to_string(), b.clone()),
    ];
    // HEAD names a commit holding the policy: that one only.
    assert_eq!(
        new_ref_policy_bases(DefaultBranch::Governed(b.clone()), &tips, &[]),
        vec![b.clone()]
    );
    // An unborn HEAD, or one naming a commit without a policy: every
    // protected tip, once; a tag is not protected by default.
    let none = || DefaultBranch::Ungoverned;
    assert_eq!(new_ref_policy_bases(none(), &tips, &[]), vec![a.clone(), b]);
    assert_eq!(
        new_ref_policy_bases(none(), &tips, &["refs/heads/main".to_string()]),
        vec![a]
    );
    // No protected history: no base (a repository's first push).
    assert!(new_ref_policy_bases(none(), &[], &[]).is_empty());
}

/// Red team round 38: `HEAD` governs only when it names a protected ref
/// whose commit holds the policy.
#[test]
fn head_governs_only_from_a_protected_ref_holding_the_policy() {
    let b = CommitId::parse(B).unwrap();
    let main = Some("refs/heads/main");
    let only_main = ["refs/heads/main".to_string()];
    assert_eq!(
        default_branch(Some((b.clone(), true)), main, &[]),
        DefaultBranch::Governed(b.clone())
    );
    for (head, target, globs) in [
        (None, main, &[][..]),
        (Some((b.clone(), false)), main, &[][..]),
        (
            Some((b.clone(), true)),
            Some("refs/heads/master"),
            &only_main[..],
        ),
        (Some((b.clone(), true)), None, &[][..]),
    ] {
        assert_eq!(
            default_branch(head.clone(), target, globs),
            DefaultBranch::Ungoverned,
            "{head:?} {target:?} {globs:?}"
        );
    }
}

#[test]
fn a_protected_update_answers_to_its_old_tip_and_the_default_branch() {
    let a = CommitId::parse(A).unwrap();
    let b = CommitId::parse(B).unwrap();
    // An update of a ref the default branch does not hold: both policies.
    assert_eq!(
        protected_update_policy_bases(Some(&a), std::slice::from_ref(&b)),
        vec![a.clone(), b.clone()]
    );
    // The default branch itself: its old tip, once.
    assert_eq!(
        protected_update_policy_bases(Some(&b), std::slice::from_ref(&b)),
        vec![b.clone()]
    );
    // A creation: the default branch's alone.
    assert_eq!(
        protected_update_policy_bases(None, std::slice::from_ref(&b)),
        vec![b]
    );
    // No default branch (a repository's first push): the old tip alone.
    assert_eq!(protected_update_policy_bases(Some(&a), &[]), vec![a]);
}

#[test]
fn an_unborn_heads_branch_is_created_only_by_a_first_push() {
    let a = CommitId::parse(A).unwrap();
    let create = |name: &str| ReceiveUpdate {
        old: None,
        new: Some(a.clone()),
        refname: name.to_string(),
    };
    let master = Some("refs/heads/master");
    // Protected refs exist: creating HEAD's branch is refused, any other
    // creation is not this rule's.
    let e = check_default_branch_creation(&create("refs/heads/master"), master, true).unwrap_err();
    assert_eq!(e.code(), "default_branch_unborn");
    assert!(check_default_branch_creation(&create("refs/heads/feature"), master, true).is_ok());
    // A repository's first push, or a born HEAD, or an update: allowed.
    assert!(check_default_branch_creation(&create("refs/heads/master"), master, false).is_ok());
    assert!(check_default_branch_creation(&create("refs/heads/master"), None, true).is_ok());
    let update = ReceiveUpdate {
        old: Some(a.clone()),
        ..create("refs/heads/master")
    };
    assert!(check_default_branch_creation(&update, master, true).is_ok());
}

#[test]
fn what_a_notes_update_adds_is_notes_at_canonical_paths_within_bounds() {
    let id = "0123456789abcdef0123456789abcdef01234567";
    assert_eq!(note_path_commit(id).as_deref(), Some(id));
    assert_eq!(
        note_path_commit(&format!("01/23/{}", &id[4..])).as_deref(),
        Some(id)
    );
    for bad in [
        id.to_uppercase(),
        format!("{id}.x"),
        "zz/junk.bin".to_string(),
        format!("012/{}", &id[3..]),
        String::new(),
    ] {
        assert_eq!(note_path_commit(&bad), None, "{bad}");
    }
    let file = |p: &str, size: u64| AddedNoteFile {
        path: p.to_string(),
        size,
        added_bytes: size,
        other_paths: Vec::new(),
    };
    let small = |p: &str| file(p, 10);
    assert!(check_added_notes(&[small(id)]).is_ok());
    let (e, path) = check_added_notes(&[small("zz/junk.bin")]).unwrap_err();
    assert_eq!(
        (e.code(), path.as_deref()),
        ("note_path_invalid", Some("zz/junk.bin"))
    );
    let big = file(id, MAX_NOTE_BYTES as u64 + 1);
    assert_eq!(
        check_added_notes(&[big]).unwrap_err().0.code(),
        "input_too_large"
    );
    let twelve: Vec<AddedNoteFile> = (0..12)
        .map(|i| file(&format!("{id:0>38}{i:02}")[2..], MAX_NOTE_BYTES as u64))
        .collect();
    assert!(twelve.iter().all(|f| note_path_commit(&f.path).is_some()));
    let (e, path) = check_added_notes(&twelve).unwrap_err();
    assert_eq!((e, path), (NotesRefDenial::NotesTooLarge, None));
}

/// Red team round 4: a note moved to another fan-out path (git re-fans the
/// tree it writes) adds nothing, whatever its size; a second path for a
/// noted commit, at any depth, is refused naming both paths; and a path
/// deeper than the three fan-out levels the gates read is no note.
#[test]
fn a_moved_note_adds_nothing_and_a_commit_has_one_note_path() {
    let id = "0123456789abcdef0123456789abcdef01234567";
    let moved: Vec<AddedNoteFile> = (0..12)
        .map(|i| AddedNoteFile {
            path: format!("{id:0>38}{i:02}")[2..].to_string(),
            size: MAX_NOTE_BYTES as u64,
            added_bytes: 0,
            other_paths: Vec::new(),
        })
        .collect();
    assert!(check_added_notes(&moved).is_ok());
    let second = AddedNoteFile {
        path: format!("01/23/45/{}", &id[6..]),
        size: 5,
        added_bytes: 5,
        other_paths: vec![id.to_string()],
    };
    let (e, path) = check_added_notes(&[second]).unwrap_err();
    assert_eq!(e.code(), "note_path_invalid");
    let path = path.unwrap();
    assert!(
        path.contains(&format!("01/23/45/{}", &id[6..])) && path.contains(id),
        "{path}"
    );
    assert_eq!(note_path_commit(&format!("01/23/45/67/{}", &id[8..])), None);
    assert!(note_path_commit(&format!("01/23/45/{}", &id[6..])).is_some());
}

/// Red team round 4: the history a notes update brings is held to the
/// notes' rules, not only its new tree: a file at a path that is no note
/// in any brought commit, a note over its bound, more stored bytes than an
/// update may add, or more commits than are read, is refused.
#[test]
fn the_history_a_notes_update_brings_is_held_to_the_notes_rules() {
    let id = "0123456789abcdef0123456789abcdef01234567";
    let side = CommitId::parse("89abcdef0123456789abcdef0123456789abcdef").unwrap();
    let ok = NotesHistory {
        commits: 3,
        files: vec![(side.clone(), format!("01/{}", &id[2..]), 10)],
        files_listed: 1,
        stored_bytes: 4096,
    };
    assert!(check_notes_history(&ok).is_ok());
    let junk = NotesHistory {
        files: vec![(side.clone(), "junk-a.bin".into(), 10)],
        ..ok.clone()
    };
    let (e, at) = check_notes_history(&junk).unwrap_err();
    assert_eq!(e.code(), "note_path_invalid");
    let at = at.unwrap();
    assert!(
        at.contains("junk-a.bin") && at.contains(side.as_str()),
        "{at}"
    );
    let big = NotesHistory {
        files: vec![(side.clone(), id.into(), MAX_NOTE_BYTES as u64 + 1)],
        ..ok.clone()
    };
    assert_eq!(
        check_notes_history(&big).unwrap_err().0.code(),
        "input_too_large"
    );
    let stored = NotesHistory {
        stored_bytes: MAX_ADDED_NOTES_BYTES + 1,
        ..ok.clone()
    };
    let (e, why) = check_notes_history(&stored).unwrap_err();
    assert_eq!(e, NotesRefDenial::NotesTooLarge);
    let why = why.unwrap();
    assert!(
        why.contains(&(MAX_ADDED_NOTES_BYTES + 1).to_string()) && why.contains("probity push"),
        "{why}"
    );
    let many = NotesHistory {
        commits: MAX_NOTES_UPDATE_COMMITS + 1,
        ..ok.clone()
    };
    assert_eq!(
        check_notes_history(&many).unwrap_err().0.code(),
        "input_too_large"
    );
    // Red team round 5: a history that lists too many files against first
    // parents (an alternating one), or more than git's listing may write.
    for listed in [MAX_NOTES_HISTORY_FILES + 1, usize::MAX] {
        let long = NotesHistory {
            files_listed: listed,
            ..ok.clone()
        };
        let (e, why) = check_notes_history(&long).unwrap_err();
        assert_eq!(e.code(), "input_too_large");
        assert!(why.is_some_and(|w| w.contains("list")));
    }
    let at_bound = NotesHistory {
        files_listed: MAX_NOTES_HISTORY_FILES,
        ..ok
    };
    assert!(check_notes_history(&at_bound).is_ok());
}

/// Red team round 6 (finding 4, D-R144): a merge of the server's notes
/// into a teammate's is listed against the parent the server holds (the
/// old tip first), not against its first parent, which listed every note
/// the server already held again; a parent the update brings (one the
/// pusher made, whatever its tree) is never preferred to a held one, and a
/// commit whose parents are all brought is listed against its first.
#[test]
fn a_brought_commit_is_listed_against_a_parent_the_server_holds() {
    use std::collections::BTreeSet;
    let id = |c: char| CommitId::parse(c.to_string().repeat(40)).unwrap();
    let (old, held, mine, made) = (id('a'), id('b'), id('c'), id('d'));
    let brought: BTreeSet<CommitId> = [mine.clone(), made.clone()].into_iter().collect();
    // The teammate's `cat_sort_uniq` merge: its own notes first, the
    // server's second.
    let merge = [mine.clone(), old.clone()];
    assert_eq!(notes_listing_base(&merge, Some(&old), &brought), Some(&old));
    // A held parent that is not the old tip (an ancestor of it), after a
    // fabricated one.
    let earlier = [made.clone(), held.clone()];
    assert_eq!(
        notes_listing_base(&earlier, Some(&old), &brought),
        Some(&held)
    );
    // The old tip wins over another held parent, whatever the order.
    let both = [held.clone(), made.clone(), old.clone()];
    assert_eq!(notes_listing_base(&both, Some(&old), &brought), Some(&old));
    // Parents all brought (a fabricated one among them): the first.
    let fabricated = [made.clone(), mine.clone()];
    assert_eq!(
        notes_listing_base(&fabricated, Some(&old), &brought),
        Some(&made)
    );
    // A new notes ref: everything is brought.
    let all: BTreeSet<CommitId> = [old.clone(), mine.clone()].into_iter().collect();
    assert_eq!(notes_listing_base(&merge, None, &all), Some(&mine));
    assert_eq!(notes_listing_base(&[], Some(&old), &brought), None);
}

/// D-R144: a note git moved to another fan-out path (the same commit, the
/// same blob, its old path dropped) is not counted as listed; each dropped
/// path pairs with one added path only, and another blob, another commit
/// or a path that names no commit is counted.
#[test]
fn a_note_moved_between_fan_out_levels_is_not_listed_as_added() {
    let id = "0123456789abcdef0123456789abcdef01234567";
    let flat = id.to_string();
    let one = format!("01/{}", &id[2..]);
    let two = format!("01/23/{}", &id[4..]);
    let other = "89abcdef0123456789abcdef0123456789abcdef".to_string();
    let p = |a: &str, b: &str| (a.to_string(), b.to_string());
    let removed = vec![p(&one, "b1")];
    let added = vec![
        p(&two, "b1"),
        p(&flat, "b1"),
        p(&two, "b2"),
        p(&other, "b1"),
        p("junk", "b1"),
    ];
    assert_eq!(
        moved_notes(&added, &removed),
        vec![true, false, false, false, false]
    );
    assert_eq!(moved_notes(&added, &[]), vec![false; 5]);
    assert_eq!(moved_notes(&[], &removed), Vec::<bool>::new());
}

/// Red team round 5 (D-R133): an earlier delivery through a rebase proof
/// (other trees, the approval's change) spends the approval when it is in
/// the ref's history; the rule over its paths and bytes is core's.
#[test]
fn a_delivery_that_carried_the_approved_change_spends_it() {
    use crate::review::ids::RepoPath;
    let c = |s: &str| CommitId::parse(s).unwrap();
    let t = |s: &str| TreeId::parse(s).unwrap();
    let p = |s: &str| RepoPath::parse(s).unwrap();
    let l = LineageId::parse("review-0123456789abcdef").unwrap();
    let replay = c(&"3".repeat(40));
    let rebased = |in_ref_history| PriorDelivery {
        commit: c(A),
        trees: (t(B), t(A)),
        in_ref_history,
        carries_approved_change: true,
        composed_approval: false,
    };
    let trees = (t(&"c".repeat(40)), t(&"d".repeat(40)));
    let spent =
        check_not_replayed("refs/heads/main", &replay, &trees, &l, &[rebased(true)]).unwrap_err();
    assert_eq!(spent.prior, c(A));
    assert_eq!(
        check_not_replayed("refs/heads/main", &replay, &trees, &l, &[rebased(false)]),
        Ok(())
    );
    let lib = vec![p("src/lib.rs")];
    // The same paths with the approved bytes: carried.
    assert!(delivers_the_approved_change(&lib, &lib, &[p("README.md")]));
    // Other bytes at an approved path, or other paths: not carried.
    assert!(!delivers_the_approved_change(&lib, &lib, &lib));
    assert!(!delivers_the_approved_change(
        &[p("src/lib.rs"), p("src/more.rs")],
        &lib,
        &[]
    ));
    assert!(!delivers_the_approved_change(&[], &[], &[]));
}

/// Red team round 5 (D-R134): an earlier squash that composed the approval
/// (other trees, other paths) spends it when it is in the ref's history.
#[test]
fn a_squash_that_composed_the_approval_spends_it() {
    let c = |s: &str| CommitId::parse(s).unwrap();
    let t = |s: &str| TreeId::parse(s).unwrap();
    let l = LineageId::parse("review-0123456789abcdef").unwrap();
    let replay = c(&"3".repeat(40));
    let squash = |in_ref_history, composed_approval| PriorDelivery {
        commit: c(A),
        trees: (t(B), t(A)),
        in_ref_history,
        carries_approved_change: false,
        composed_approval,
    };
    let trees = (t(&"c".repeat(40)), t(&"d".repeat(40)));
    let spent = check_not_replayed(
        "refs/heads/main",
        &replay,
        &trees,
        &l,
        &[squash(true, true)],
    )
    .unwrap_err();
    assert_eq!((spent.code(), spent.prior), ("approval_spent", c(A)));
    for (in_history, composed) in [(false, true), (true, false)] {
        assert_eq!(
            check_not_replayed(
                "refs/heads/main",
                &replay,
                &trees,
                &l,
                &[squash(in_history, composed)]
            ),
            Ok(())
        );
    }
}

/// D-R136: what one push leaves only the notes holding is bounded as what
/// a notes update adds is, and refused `input_too_large` past it.
#[test]
fn what_a_push_leaves_only_the_notes_holding_is_bounded() {
    assert_eq!(check_left_to_notes(0), Ok(()));
    assert_eq!(check_left_to_notes(MAX_ADDED_NOTES_BYTES), Ok(()));
    let d = check_left_to_notes(MAX_ADDED_NOTES_BYTES + 1).unwrap_err();
    assert_eq!(
        (d, d.code()),
        (NotesRefDenial::NotesLeftHolding, "input_too_large")
    );
    assert!(d.to_string().contains("only refs/notes/probity holds"));
}
