//! The object reader's answers, kept for the run (issue 24).
//!
//! The server hook asked `cat-file` the same questions again and again: for
//! a push of 100 reviewed commits, 4,849 requests of which 607 differed
//! (the notes commit's `info` alone 1,200 times), each a round trip on the
//! pipe and two wake-ups. An answer about an object named by its content
//! cannot change: a spec that is a full object id (its length learnt from
//! git's own answers, so an abbreviation is never taken for one) alone,
//! followed by a path (`:`), or peeled to a type (`^{tree}`, ...), and
//! holds no reflog selector (`@{`), names the same object in every later
//! read of the run (replace refs are off: `GIT_NO_REPLACE_OBJECTS`;
//! ancestry, `~` and `^N`, is left out: a deepened shallow clone or a
//! graft changes it). Such answers are kept within a bound on
//! entries and bytes; past it, answers are asked of git as before.
//!
//! A missing answer is kept only where it cannot change: a path or suffix
//! under an object git was seen to have (`X:path` absent from a tree `X`
//! that exists is absent for good, as git keeps an object's descendants
//! with it). The reader asks `info X` in the same round trip when it has
//! not seen `X` ([`Memo::witness`]); a missing `X` itself, or anything
//! under an object not seen, is asked again (it may arrive: a start's
//! quarantine moves into the store).

use std::collections::{HashMap, HashSet};

use super::{Answer, ObjectInfo};

/// At most this many specs are kept.
const MAX_ENTRIES: usize = 1 << 16;
/// At most this many bytes of object contents are kept in all.
const MAX_BYTES: usize = 16 << 20;
/// An object's contents longer than this are not kept (its header is).
const MAX_OBJECT: usize = 1 << 20;

/// What is kept of one answer: the header, and for a `contents` answer the
/// leading bytes read and whether they are the whole object.
#[derive(Debug)]
struct Kept {
    info: ObjectInfo,
    body: Option<(Vec<u8>, bool)>,
}

/// The kept answers (see the module).
#[derive(Debug, Default)]
pub(super) struct Memo {
    /// The length of a full object id in this repository, from the first
    /// answer (every answer names its object by its full id).
    hex_len: Option<usize>,
    answers: HashMap<String, Kept>,
    /// Specs under a present object that git answered missing.
    absent: HashSet<String>,
    /// Full ids of objects git was seen to have.
    present: HashSet<String>,
    bytes: usize,
}

/// Whether `spec` names an object by its content: a full id (`hex_len`
/// hex digits) alone, followed by a path (`:`; no reflog selector
/// anywhere), or peeled to a type (`^{tree}`, `^{commit}`, `^{blob}`,
/// `^{tag}`, `^{object}`, `^{}`). Ancestry (`~`, `^N`) is not: a shallow
/// clone deepened, or a graft, changes what it names.
fn named_by_content(spec: &str, hex_len: usize) -> bool {
    const PEELS: [&str; 6] = [
        "^{tree}",
        "^{commit}",
        "^{blob}",
        "^{tag}",
        "^{object}",
        "^{}",
    ];
    let run = spec.bytes().take_while(u8::is_ascii_hexdigit).count();
    let rest = spec.get(run..).unwrap_or_default();
    run == hex_len
        && (rest.is_empty() || rest.starts_with(':') || PEELS.contains(&rest))
        && !spec.contains("@{")
}

impl Memo {
    /// The kept answer to `contents` (`with_body`, at most `cap` bytes) or
    /// `info` for `spec`, if one answers it: `Some(None)` for an object
    /// known to be missing.
    pub(super) fn answer(&self, spec: &str, with_body: bool, cap: usize) -> Option<Option<Answer>> {
        if self.absent.contains(spec) {
            return Some(None);
        }
        self.found(spec, with_body, cap).map(Some)
    }

    fn found(&self, spec: &str, with_body: bool, cap: usize) -> Option<Answer> {
        let kept = self.answers.get(spec)?;
        if !with_body {
            return Some((kept.info.clone(), Vec::new(), false));
        }
        let (bytes, whole) = kept.body.as_ref()?;
        let size = usize::try_from(kept.info.size).ok()?;
        if *whole || cap <= bytes.len() {
            let keep = size.min(cap);
            let head = bytes.get(..keep)?.to_vec();
            return Some((kept.info.clone(), head, keep == size));
        }
        None
    }

    /// The object whose presence would make a missing answer to `spec`
    /// final, when it is not known yet: the full id `spec` starts with.
    pub(super) fn witness<'s>(&self, spec: &'s str) -> Option<&'s str> {
        let hex_len = self.hex_len?;
        let id = spec.get(..hex_len)?;
        (spec.len() > hex_len && named_by_content(spec, hex_len) && !self.present.contains(id))
            .then_some(id)
    }

    /// Keeps git's `answer` to `spec` if it names an object by its content
    /// (a missing one only under an object seen present) and the bounds
    /// allow.
    pub(super) fn keep(&mut self, spec: &str, answer: Option<&Answer>, with_body: bool) {
        let room = self.answers.len() + self.absent.len() + self.present.len() < MAX_ENTRIES;
        let Some((info, head, whole)) = answer else {
            let Some(hex_len) = self.hex_len else { return };
            if room
                && spec.len() > hex_len
                && named_by_content(spec, hex_len)
                && spec
                    .get(..hex_len)
                    .is_some_and(|id| self.present.contains(id))
            {
                self.absent.insert(spec.to_string());
            }
            return;
        };
        let hex_len = *self.hex_len.get_or_insert(info.oid.len());
        if !named_by_content(spec, hex_len) || info.oid.len() != hex_len {
            return;
        }
        if room && let Some(id) = spec.get(..hex_len) {
            self.present.insert(id.to_string());
        }
        let body = (with_body && head.len() <= MAX_OBJECT && self.bytes + head.len() <= MAX_BYTES)
            .then(|| (head.clone(), *whole));
        let adds = body.as_ref().map_or(0, |(b, _)| b.len());
        match self.answers.get_mut(spec) {
            // A header kept before, now with contents; or more contents
            // than kept.
            Some(k) => {
                let longer = match (&k.body, &body) {
                    (None, Some(_)) => true,
                    (Some((old, old_whole)), Some((new, _))) => !old_whole && new.len() > old.len(),
                    _ => false,
                };
                if longer {
                    self.bytes = self.bytes - k.body.as_ref().map_or(0, |(b, _)| b.len()) + adds;
                    k.body = body;
                }
            }
            None if room => {
                self.bytes += adds;
                self.answers.insert(
                    spec.to_string(),
                    Kept {
                        info: info.clone(),
                        body,
                    },
                );
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef01234567";

    fn info(size: u64) -> ObjectInfo {
        ObjectInfo {
            oid: "89abcdef0123456789abcdef0123456789abcdef".into(),
            kind: "blob".into(),
            size,
        }
    }

    #[test]
    fn only_specs_named_by_content_are_kept() {
        for spec in [
            ID.to_string(),
            format!("{ID}:src/a.rs"),
            format!("{ID}^{{tree}}"),
            format!("{ID}^{{commit}}"),
            format!("{ID}^{{}}"),
        ] {
            assert!(named_by_content(&spec, 40), "{spec}");
        }
        for spec in [
            "HEAD".to_string(),
            "refs/notes/probity:ab".to_string(),
            ID[..39].to_string(),
            format!("{ID}0"),
            format!("{ID}@{{1}}"),
            format!("{ID}:a@{{1}}"),
            format!("main:{ID}"),
            format!("{ID}..HEAD"),
            format!("{ID}~3"),
            format!("{ID}^"),
            format!("{ID}^2"),
            format!("{ID}^{{tree}}x"),
            format!("{ID}^{{/fix}}"),
        ] {
            assert!(!named_by_content(&spec, 40), "{spec}");
        }
        // A 40-digit run in a SHA-256 repository is an abbreviation.
        assert!(!named_by_content(ID, 64));
    }

    #[test]
    fn a_kept_answer_answers_within_what_was_read() {
        let mut m = Memo::default();
        m.keep("HEAD", Some(&(info(5), b"hello".to_vec(), true)), true);
        assert!(m.found("HEAD", false, 0).is_none(), "a ref may move");
        m.keep(ID, Some(&(info(5), b"hel".to_vec(), false)), true);
        assert_eq!(m.found(ID, true, 2), Some((info(5), b"he".to_vec(), false)));
        assert_eq!(
            m.found(ID, true, 3),
            Some((info(5), b"hel".to_vec(), false))
        );
        assert_eq!(m.found(ID, true, 4), None, "more than was read");
        assert_eq!(m.found(ID, false, 0), Some((info(5), Vec::new(), false)));
        // The whole object, read later, answers any cap.
        m.keep(ID, Some(&(info(5), b"hello".to_vec(), true)), true);
        assert_eq!(
            m.found(ID, true, 9),
            Some((info(5), b"hello".to_vec(), true))
        );
        assert_eq!(
            m.found(ID, true, 5),
            Some((info(5), b"hello".to_vec(), true))
        );
        assert_eq!(
            m.found(ID, true, 4),
            Some((info(5), b"hell".to_vec(), false))
        );
        assert_eq!(m.bytes, 5);
        // A header alone answers `info`, never `contents`.
        let other = format!("{ID}:x");
        m.keep(&other, Some(&(info(5), Vec::new(), false)), false);
        assert!(m.found(&other, false, 0).is_some());
        assert!(m.found(&other, true, 0).is_none());
    }

    #[test]
    fn a_missing_answer_is_kept_only_under_an_object_seen_present() {
        let mut m = Memo::default();
        let under = format!("{ID}:a.txt");
        // Before any answer, the length of an id is not known.
        assert_eq!(m.witness(&under), None);
        m.keep(&under, None, false);
        assert_eq!(m.answer(&under, false, 0), None);
        m.keep("HEAD", Some(&(info(5), Vec::new(), false)), false);
        assert_eq!(m.witness(&under), Some(ID));
        assert_eq!(m.witness(ID), None, "an id is its own witness");
        m.keep(&under, None, false);
        assert_eq!(m.answer(&under, false, 0), None, "{ID} not seen");
        m.keep(ID, None, false);
        assert_eq!(m.answer(ID, false, 0), None, "a missing object may arrive");
        m.keep(ID, Some(&(info(5), Vec::new(), false)), false);
        assert_eq!(m.witness(&under), None);
        m.keep(&under, None, false);
        assert_eq!(m.answer(&under, false, 0), Some(None));
        assert_eq!(m.answer(&under, true, 9), Some(None));
        // Under a ref, nothing is kept.
        m.keep("HEAD:b.txt", None, false);
        assert_eq!(m.answer("HEAD:b.txt", false, 0), None);
    }

    #[test]
    fn the_bounds_hold() {
        let mut m = Memo::default();
        let big = vec![0u8; MAX_OBJECT + 1];
        m.keep(ID, Some(&(info(big.len() as u64), big, true)), true);
        assert!(m.found(ID, true, 1).is_none(), "too long to keep");
        assert!(m.found(ID, false, 0).is_some(), "its header is kept");
        assert_eq!(m.bytes, 0);
        let mut m = Memo::default();
        for i in 0..(MAX_BYTES / MAX_OBJECT + 1) {
            let spec = format!("{ID}:{i}");
            let body = vec![0u8; MAX_OBJECT];
            m.keep(&spec, Some(&(info(MAX_OBJECT as u64), body, true)), true);
        }
        assert!(m.bytes <= MAX_BYTES);
    }

    /// On a real repository: every answer is git's (a fresh reader's),
    /// an answer about an object named by its content is not asked again,
    /// anything else is, and a missing object is found once written.
    #[test]
    fn kept_answers_are_gits_and_only_those_are_not_asked_again() {
        let f = crate::fixture::Fixture::committed(&[("a.txt", "hello\n")], "base").unwrap();
        let repo = f.repo().unwrap();
        let text = |out: Vec<u8>| String::from_utf8(out).unwrap().trim().to_string();
        let head = text(f.git(&["rev-parse", "HEAD"]).unwrap());
        let specs = [
            head.clone(),
            format!("{head}:a.txt"),
            format!("{head}^{{tree}}"),
            "HEAD".to_string(),
            "HEAD:a.txt".to_string(),
            format!("{head}:missing.txt"),
        ];
        let first: Vec<_> = specs.iter().map(|s| repo.object_info(s).unwrap()).collect();
        let asked = repo.object_requests();
        let again: Vec<_> = specs.iter().map(|s| repo.object_info(s).unwrap()).collect();
        assert_eq!(first, again);
        assert_eq!(repo.object_requests(), asked + 2, "HEAD and HEAD:a.txt");
        let fresh = f.repo().unwrap();
        for (s, a) in specs.iter().zip(&first) {
            assert_eq!(fresh.object_info(s).unwrap(), *a, "{s}");
        }
        assert!(first[5].is_none());

        // Contents: a kept head answers within what was read.
        let blob = format!("{head}:a.txt");
        let asked = repo.object_requests();
        let two = repo.object_head(&blob, 2).unwrap().unwrap();
        assert_eq!((two.1.as_slice(), two.2), (&b"he"[..], false));
        let whole = repo.object_head(&blob, 100).unwrap().unwrap();
        assert_eq!((whole.1.as_slice(), whole.2), (&b"hello\n"[..], true));
        assert_eq!(
            repo.object_requests(),
            asked + 2,
            "the longer read asks git"
        );
        assert_eq!(repo.object_head(&blob, 3).unwrap().unwrap().1, b"hel");
        assert_eq!(
            repo.object_heads(&[blob.as_str()], 6).unwrap(),
            vec![(b"hello\n".to_vec(), true)]
        );
        assert_eq!(repo.object_requests(), asked + 2);

        // A path under a tree not seen yet: the tree is asked beside it,
        // once; its absence is then kept.
        let tree = first[2].as_ref().unwrap().oid.clone();
        let asked = repo.object_requests();
        assert_eq!(repo.object_info(&format!("{tree}:nope")).unwrap(), None);
        assert_eq!(repo.object_requests(), asked + 2);
        assert_eq!(repo.object_info(&format!("{tree}:nope")).unwrap(), None);
        assert_eq!(
            repo.object_info(&format!("{tree}:a.txt")).unwrap(),
            first[1]
        );
        assert_eq!(repo.object_requests(), asked + 3);

        // A missing object is asked until git has it, and so is a path
        // under it.
        f.write("later.txt", "later\n").unwrap();
        let id = text(f.git(&["hash-object", "later.txt"]).unwrap());
        let other = crate::fixture::Fixture::committed(
            &[("a.txt", "hello\n"), ("later.txt", "later\n")],
            "other",
        )
        .unwrap();
        let later_tree = text(other.git(&["rev-parse", "HEAD^{tree}"]).unwrap());
        let under = format!("{later_tree}:later.txt");
        assert_eq!(repo.object_info(&id).unwrap(), None);
        assert_eq!(repo.object_info(&under).unwrap(), None);
        f.git(&["add", "later.txt"]).unwrap();
        assert_eq!(text(f.git(&["write-tree"]).unwrap()), later_tree);
        let found = repo.object_info(&id).unwrap().unwrap();
        assert_eq!((found.kind.as_str(), found.size), ("blob", 6));
        assert_eq!(repo.object_info(&under).unwrap().unwrap().oid, id);
    }
}
