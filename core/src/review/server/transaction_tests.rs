use super::*;

fn id(c: char) -> CommitId {
    CommitId::parse(c.to_string().repeat(40)).unwrap()
}

fn update(old: Option<char>, new: Option<char>, refname: &str) -> ReceiveUpdate {
    ReceiveUpdate {
        old: old.map(id),
        new: new.map(id),
        refname: refname.into(),
    }
}

fn globs() -> Vec<String> {
    vec!["refs/heads/*".into()]
}

/// main a→b and the notes n→m, judged together.
fn judged() -> JudgedNotes {
    JudgedNotes::of_push(
        &[
            update(Some('a'), Some('b'), "refs/heads/main"),
            update(Some('e'), Some('f'), "refs/tags/v1"),
            update(Some('d'), None, "refs/heads/gone"),
            update(Some('1'), Some('2'), NOTES_REF),
        ],
        &globs(),
    )
    .unwrap()
}

fn line<'a>(old: &'a str, new: &'a str, refname: &'a str) -> TransactionLine<'a> {
    TransactionLine { old, new, refname }
}

type Verdict = Result<Result<(), NotesNotInPlace>, String>;

/// [`check_transaction`] with the notes ref at `current` and no ref in
/// the way of creating it.
fn check(lines: &[TransactionLine<'_>], current: Option<char>) -> Verdict {
    check_transaction(&judged(), lines, || Ok(current.map(id)), || Ok(false))
}

#[test]
fn a_push_bringing_no_notes_or_no_protected_update_records_nothing() {
    let main = update(Some('a'), Some('b'), "refs/heads/main");
    assert_eq!(
        JudgedNotes::of_push(std::slice::from_ref(&main), &globs()),
        None
    );
    let tag = update(None, Some('b'), "refs/tags/v1");
    let notes = update(Some('1'), Some('2'), NOTES_REF);
    assert_eq!(JudgedNotes::of_push(&[tag, notes.clone()], &globs()), None);
    let deleted = update(Some('a'), None, "refs/heads/main");
    assert_eq!(JudgedNotes::of_push(&[deleted, notes], &globs()), None);
}

#[test]
fn a_record_reads_back_as_written_and_refuses_what_it_is_not() {
    let j = judged();
    let bytes = j.to_bytes();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert_eq!(
        text,
        format!(
            "{JUDGED_NOTES_HEADER}\nnotes {}\n{} {}\n",
            id('2'),
            id('a'),
            id('b')
        )
    );
    assert_eq!(JudgedNotes::parse(&bytes), Ok(j));
    let creation = JudgedNotes::of_push(
        &[
            update(None, Some('b'), "refs/heads/new"),
            update(None, Some('2'), NOTES_REF),
        ],
        &globs(),
    )
    .unwrap();
    assert_eq!(JudgedNotes::parse(&creation.to_bytes()), Ok(creation));
    for bad in [
        "".to_string(),
        "probity-judged-notes v2\n".to_string(),
        format!(
            "{JUDGED_NOTES_HEADER}\nnotes xyz\n{} {}\n",
            id('a'),
            id('b')
        ),
        format!("{JUDGED_NOTES_HEADER}\nnotes {}\n", id('2')),
        format!("{JUDGED_NOTES_HEADER}\nnotes {}\n{}\n", id('2'), id('a')),
        format!(
            "{JUDGED_NOTES_HEADER}\nnotes {}\n{} {}\n",
            id('2'),
            id('a'),
            "0".repeat(40)
        ),
    ] {
        assert!(JudgedNotes::parse(bad.as_bytes()).is_err(), "{bad:?}");
    }
    let huge = vec![b'a'; MAX_JUDGED_NOTES_BYTES + 1];
    assert!(JudgedNotes::parse(&huge).is_err());
}

#[test]
fn a_judged_update_lands_with_its_notes_in_the_same_transaction() {
    let (a, b, one, two) = (id('a'), id('b'), id('1'), id('2'));
    let lines = [
        line(a.as_str(), b.as_str(), "refs/heads/main"),
        line(one.as_str(), two.as_str(), NOTES_REF),
    ];
    // The notes ref is at the update's old value (git holds it locked):
    // the update applies, and sets the judged notes.
    let verdict = check_transaction(
        &judged(),
        &lines,
        || Ok(Some(one.clone())),
        || Err("blocked".to_string()),
    );
    assert_eq!(verdict, Ok(Ok(())));
}

/// Git 2.51 and later apply a push without `--atomic` as one transaction
/// whose updates may each fail, and name a refused one to the hook too:
/// a notes update whose old value the ref no longer holds (a lost race)
/// will not apply, so the judged update beside it is refused.
#[test]
fn a_notes_update_in_the_transaction_counts_only_when_it_will_apply() {
    let (a, b, one, two) = (id('a'), id('b'), id('1'), id('2'));
    let lines = [
        line(a.as_str(), b.as_str(), "refs/heads/main"),
        line(one.as_str(), two.as_str(), NOTES_REF),
    ];
    assert_eq!(
        check(&lines, Some('3')),
        Ok(Err(NotesNotInPlace {
            refname: "refs/heads/main".into(),
            notes: id('2'),
            found: Some(id('3')),
        }))
    );
    assert!(matches!(check(&lines, None), Ok(Err(_))));
    // A creation applies only where the ref is absent and nothing blocks it.
    let zeros = "0".repeat(40);
    let created = [
        line(a.as_str(), b.as_str(), "refs/heads/main"),
        line(&zeros, two.as_str(), NOTES_REF),
    ];
    assert_eq!(check(&created, None), Ok(Ok(())));
    assert!(matches!(check(&created, Some('1')), Ok(Err(_))));
    let blocked = check_transaction(&judged(), &created, || Ok::<_, String>(None), || Ok(true));
    assert!(matches!(blocked, Ok(Err(_))), "{blocked:?}");
}

#[test]
fn refs_named_above_or_below_the_notes_ref_block_it() {
    for name in [
        "refs/notes",
        "refs/notes/probity/x",
        "refs/notes/probity/a/b",
    ] {
        assert!(blocks_notes_ref(name), "{name}");
        let created = update(None, Some('b'), name);
        assert_eq!(
            check_notes_ref_blocker(&created).map_err(|e| e.code()),
            Err("notes_ref_blocked")
        );
        // Deleting one unblocks.
        assert_eq!(
            check_notes_ref_blocker(&update(Some('b'), None, name)),
            Ok(())
        );
    }
    for name in [
        NOTES_REF,
        "refs/notes/probityx",
        "refs/notes/other",
        "refs/heads/notes",
    ] {
        assert!(!blocks_notes_ref(name), "{name}");
    }
}

#[test]
fn a_replacement_is_refused_unless_deleted() {
    let name = "refs/replace/aaaa";
    for created in [
        update(None, Some('b'), name),
        update(Some('a'), Some('b'), name),
        update(None, Some('b'), "refs/Replace/aaaa"),
        update(None, Some('b'), "REFS/REPLACE/aaaa"),
    ] {
        assert_eq!(
            check_replace_ref(&created).map_err(|e| e.code()),
            Err("replace_ref_refused")
        );
    }
    assert_eq!(check_replace_ref(&update(Some('b'), None, name)), Ok(()));
    for other in [
        "refs/heads/replace/x",
        "refs/tags/replace",
        "refs/replacements/x",
    ] {
        assert_eq!(check_replace_ref(&update(None, Some('b'), other)), Ok(()));
    }
}

#[test]
fn a_judged_update_alone_needs_the_notes_in_place_or_descended_from() {
    let (a, b) = (id('a'), id('b'));
    let main = [line(a.as_str(), b.as_str(), "refs/heads/main")];
    // In place: the push's notes landed first.
    assert_eq!(check(&main, Some('2')), Ok(Ok(())));
    // A tip after them (another push's notes, or a child of the push's
    // own that drops its note, red team round 9): not in place.
    assert_eq!(
        check(&main, Some('3')),
        Ok(Err(NotesNotInPlace {
            refname: "refs/heads/main".into(),
            notes: id('2'),
            found: Some(id('3')),
        }))
    );
    // Not landed (later in the push) or lost to a race.
    for (current, found) in [(Some('1'), Some(id('1'))), (None, None)] {
        assert_eq!(
            check(&main, current),
            Ok(Err(NotesNotInPlace {
                refname: "refs/heads/main".into(),
                notes: id('2'),
                found,
            }))
        );
    }
    // Judged by old and new, whatever name the transaction shows (a
    // symbolic ref's target).
    let target = [line(a.as_str(), b.as_str(), "refs/heads/trunk")];
    assert!(matches!(check(&target, Some('1')), Ok(Err(_))));
}

#[test]
fn a_transaction_judged_with_nothing_passes_unread() {
    let (a, c, two, three) = (id('a'), id('c'), id('2'), id('3'));
    for lines in [
        vec![line(two.as_str(), three.as_str(), NOTES_REF)],
        vec![line(a.as_str(), c.as_str(), "refs/heads/main")],
        // The tag was not protected; the deletion sets nothing.
        vec![line(id('e').as_str(), id('f').as_str(), "refs/tags/v1")],
        vec![line("ref:refs/heads/x", "ref:refs/heads/y", "HEAD")],
    ] {
        let verdict = check_transaction(
            &judged(),
            &lines,
            || Err("read".to_string()),
            || Err("blocked".to_string()),
        );
        assert_eq!(verdict, Ok(Ok(())), "{lines:?}");
    }
}

#[test]
fn notes_deleted_or_set_to_a_symbolic_ref_are_not_in_place() {
    let (a, b, two) = (id('a'), id('b'), id('2'));
    let zeros = "0".repeat(40);
    for new in [zeros.as_str(), "ref:refs/notes/other"] {
        let lines = [
            line(a.as_str(), b.as_str(), "refs/heads/main"),
            line(two.as_str(), new, NOTES_REF),
        ];
        assert!(matches!(check(&lines, Some('2')), Ok(Err(_))), "{new}");
    }
}

#[test]
fn an_observation_error_is_the_callers() {
    let (a, b) = (id('a'), id('b'));
    let main = [line(a.as_str(), b.as_str(), "refs/heads/main")];
    let verdict = check_transaction(&judged(), &main, || Err("unreadable"), || Ok(false));
    assert_eq!(verdict, Err("unreadable"));
}

#[test]
fn the_input_is_three_fields_a_line() {
    let input = format!(
        "{a} {b} refs/heads/main\n\n{b} {a} refs/x\r\n",
        a = id('a'),
        b = id('b')
    );
    let lines = parse_transaction(&input).unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1].refname, "refs/x");
    assert_eq!(
        parse_transaction("a b\n"),
        Err(TransactionInputError { line: 1 })
    );
    assert_eq!(
        parse_transaction("a b c d\n"),
        Err(TransactionInputError { line: 1 })
    );
}
