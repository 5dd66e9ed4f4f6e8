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

/// [`check_transaction`] with the notes ref at `current` and `b`
/// descending from `a` only when the pair is in `descent`.
fn check(
    lines: &[TransactionLine<'_>],
    current: Option<char>,
    descent: &[(char, char)],
) -> Verdict {
    let descent: Vec<(CommitId, CommitId)> =
        descent.iter().map(|(a, b)| (id(*a), id(*b))).collect();
    check_transaction(
        &judged(),
        lines,
        || Ok(current.map(id)),
        |a, b| Ok(descent.contains(&(a.clone(), b.clone()))),
    )
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
    // The notes ref is not read: the transaction sets it.
    let verdict = check_transaction(
        &judged(),
        &lines,
        || Err("read".to_string()),
        |_, _| Err("descent".to_string()),
    );
    assert_eq!(verdict, Ok(Ok(())));
}

#[test]
fn a_judged_update_alone_needs_the_notes_in_place_or_descended_from() {
    let (a, b) = (id('a'), id('b'));
    let main = [line(a.as_str(), b.as_str(), "refs/heads/main")];
    // In place: the push's notes landed first.
    assert_eq!(check(&main, Some('2'), &[]), Ok(Ok(())));
    // Another push's notes after them, a fast-forward.
    assert_eq!(check(&main, Some('3'), &[('2', '3')]), Ok(Ok(())));
    // Not landed (later in the push) or lost to a race.
    for (current, found) in [(Some('1'), Some(id('1'))), (None, None)] {
        assert_eq!(
            check(&main, current, &[]),
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
    assert!(matches!(check(&target, Some('1'), &[]), Ok(Err(_))));
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
            |_, _| Err("descent".to_string()),
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
        assert!(matches!(check(&lines, Some('2'), &[]), Ok(Err(_))), "{new}");
    }
}

#[test]
fn an_observation_error_is_the_callers() {
    let (a, b) = (id('a'), id('b'));
    let main = [line(a.as_str(), b.as_str(), "refs/heads/main")];
    let verdict = check_transaction(&judged(), &main, || Err("unreadable"), |_, _| Ok(true));
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
