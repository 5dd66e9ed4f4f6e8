//! Review probes of `packed.rs` (and of the index membership read beside
//! it): crafted packs, indexes and index files, each answer compared with
//! `git cat-file`'s. Each `closed_*` test failed while the divergence it
//! shows was there (D-R155's review); `holds_*` held from the start.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::*;
use crate::fixture::Fixture;

/// SHA-1 of `bytes` (a pack's or an index's checksum).
fn sha1(bytes: &[u8]) -> Vec<u8> {
    Format::Sha1.id_of(bytes).unwrap()
}

fn hex(raw: &[u8]) -> String {
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// The raw id of the blob `content`.
fn blob_id(content: &[u8]) -> Vec<u8> {
    let mut object = format!("blob {}\0", content.len()).into_bytes();
    object.extend_from_slice(content);
    sha1(&object)
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A pack entry's type-and-size header, as git writes it.
fn header(kind: u8, size: u64) -> Vec<u8> {
    let mut out = vec![(kind << 4) | (size & 0x0f) as u8];
    let mut rest = size >> 4;
    while rest != 0 {
        *out.last_mut().unwrap() |= 0x80;
        out.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    out
}

/// An offset delta's distance, as git writes it.
fn ofs(mut rel: u64) -> Vec<u8> {
    let mut out = vec![(rel & 0x7f) as u8];
    while rel >> 7 != 0 {
        rel = (rel >> 7) - 1;
        out.insert(0, 0x80 | (rel & 0x7f) as u8);
    }
    out
}

/// A whole entry: `kind`, `size`, the delta's base field, `data` deflated.
fn entry(kind: u8, size: usize, base: &[u8], data: &[u8]) -> Vec<u8> {
    let mut e = header(kind, size as u64);
    e.extend_from_slice(base);
    e.extend_from_slice(&zlib(data));
    e
}

/// A version-2 pack of `entries` (claiming `count` objects): its bytes
/// and each entry's offset.
fn pack_of(entries: &[Vec<u8>], count: u32) -> (Vec<u8>, Vec<u64>) {
    let mut pack = b"PACK\0\0\0\x02".to_vec();
    pack.extend_from_slice(&count.to_be_bytes());
    let mut offsets = Vec::new();
    for e in entries {
        offsets.push(pack.len() as u64);
        pack.extend_from_slice(e);
    }
    let trailer = sha1(&pack);
    pack.extend_from_slice(&trailer);
    (pack, offsets)
}

/// A version-2 index of `objects` (name, offset) for the pack `pack`, as
/// git writes it (sorted, fan-out, zero CRCs, large offsets past 2^31).
fn idx_of(objects: &[(Vec<u8>, u64)], pack: &[u8]) -> Vec<u8> {
    let mut sorted = objects.to_vec();
    sorted.sort();
    let mut out = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for b in 0..256usize {
        let n = sorted
            .iter()
            .filter(|(n, _)| usize::from(n[0]) <= b)
            .count();
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
    for (n, _) in &sorted {
        out.extend_from_slice(n);
    }
    out.extend(std::iter::repeat_n(0u8, 4 * sorted.len()));
    let mut large = Vec::new();
    for (_, o) in &sorted {
        if *o < 0x8000_0000 {
            out.extend_from_slice(&(*o as u32).to_be_bytes());
        } else {
            out.extend_from_slice(&(0x8000_0000 | (large.len() / 8) as u32).to_be_bytes());
            large.extend_from_slice(&o.to_be_bytes());
        }
    }
    out.extend_from_slice(&large);
    out.extend_from_slice(&pack[pack.len() - 20..]);
    let sum = sha1(&out);
    out.extend_from_slice(&sum);
    out
}

/// Writes `objects/pack/pack-<name>.{pack,idx}` of the fixture.
fn install(f: &Fixture, name: &str, pack: &[u8], idx: &[u8]) -> PathBuf {
    let dir = f.root().join(".git/objects/pack");
    std::fs::create_dir_all(&dir).unwrap();
    let base = dir.join(format!("pack-{name}"));
    std::fs::write(base.with_extension("pack"), pack).unwrap();
    std::fs::write(base.with_extension("idx"), idx).unwrap();
    base
}

/// A fixture whose only pack holds `entries`, named in the index by
/// `names` (one per entry).
fn crafted(entries: &[Vec<u8>], names: &[Vec<u8>]) -> Fixture {
    let f = Fixture::new().unwrap();
    let (pack, offsets) = pack_of(entries, entries.len() as u32);
    let objects: Vec<_> = names.iter().cloned().zip(offsets).collect();
    install(&f, "crafted", &pack, &idx_of(&objects, &pack));
    f
}

/// The in-process answers for `ids` (the packs opened as for 16 blobs).
fn mine(f: &Fixture, ids: &[&str], cap: usize) -> Option<Vec<Option<Vec<u8>>>> {
    let packs = Packs::open(&f.root().join(".git/objects"), Format::Sha1, 16)?;
    Some(packs.read_blobs(ids, cap))
}

/// What `git cat-file blob` prints, or `None` when it fails.
fn git_blob(f: &Fixture, id: &str) -> Option<Vec<u8>> {
    f.git(&["cat-file", "blob", id]).ok()
}

/// Asserts the in-process answer for `raw` is `None` or git's; returns it.
fn agrees(f: &Fixture, raw: &[u8], cap: usize) -> Option<Vec<u8>> {
    let id = hex(raw);
    let got = mine(f, &[&id], cap).and_then(|mut v| v.pop().flatten());
    if let Some(bytes) = &got {
        assert_eq!(Some(bytes), git_blob(f, &id).as_ref(), "{id}");
    }
    got
}

/// Asserts the in-process answer for `id` is `None` or git's.
fn none_or_gits(f: &Fixture, id: &str) {
    let got = mine(f, &[id], 1 << 20).unwrap().pop().flatten();
    let git = git_blob(f, id);
    assert!(
        got.is_none() || got == git,
        "in-process {got:?}, git {git:?}"
    );
}

const BASE: &[u8] = b"the base blob, long enough to copy from\n";

#[test]
fn holds_crafted_blobs_whole_and_as_deltas() {
    // The builders are right: git itself reads what they write.
    let delta = [40u8, 6, 0x90, 5, 1, b'!'];
    let ofs_delta = entry(6, delta.len(), &ofs(60), &delta);
    let whole = entry(3, BASE.len(), &[], BASE);
    let f = crafted(
        &[whole.clone(), ofs_delta],
        &[blob_id(BASE), blob_id(b"the b!")],
    );
    assert_eq!(BASE.len(), 40);
    // The delta's distance is the base entry's length.
    let dist = whole.len() as u64;
    let g = crafted(
        &[whole.clone(), entry(6, delta.len(), &ofs(dist), &delta)],
        &[blob_id(BASE), blob_id(b"the b!")],
    );
    assert_eq!(agrees(&g, &blob_id(b"the b!"), 1 << 20).unwrap(), b"the b!");
    assert_eq!(agrees(&g, &blob_id(BASE), 1 << 20).unwrap(), BASE);
    // A wrong distance (60 bytes back is before the pack): nothing.
    assert_eq!(agrees(&f, &blob_id(b"the b!"), 1 << 20), None);
    // By id.
    let h = crafted(
        &[whole, entry(7, delta.len(), &blob_id(BASE), &delta)],
        &[blob_id(BASE), blob_id(b"the b!")],
    );
    assert_eq!(agrees(&h, &blob_id(b"the b!"), 1 << 20).unwrap(), b"the b!");
}

#[test]
fn closed_a_bogus_copy_git_reads_first_is_what_git_prints() {
    // git never hashes what it reads from a pack: the copy it reads first
    // (newest pack first) is what `cat-file` prints, even when those bytes
    // are not the object. This reader answers from the first pack the
    // directory lists that names the id, checked by its hash: a true copy
    // there, a bogus one git prefers, and the answers differ.
    let truth = b"the reviewed content\n".to_vec();
    let bogus = b"what git shows instead".to_vec();
    let id = blob_id(&truth);
    let f = Fixture::new().unwrap();
    let (good, _) = pack_of(&[entry(3, truth.len(), &[], &truth)], 1);
    let (bad, _) = pack_of(&[entry(3, bogus.len(), &[], &bogus)], 1);
    let (good_idx, bad_idx) = (
        idx_of(&[(id.clone(), 12)], &good),
        idx_of(&[(id.clone(), 12)], &bad),
    );
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3_600);
    let new = std::time::SystemTime::now() + std::time::Duration::from_secs(3_600);
    let mut seen = Vec::new();
    // Whichever of two names the directory lists first, the bogus pack is
    // the newest (git's first).
    for (g, b) in [("a", "b"), ("b", "a")] {
        let dir = f.root().join(".git/objects/pack");
        let _ = std::fs::remove_dir_all(&dir);
        let gp = install(&f, g, &good, &good_idx).with_extension("pack");
        let bp = install(&f, b, &bad, &bad_idx).with_extension("pack");
        std::fs::File::options()
            .write(true)
            .open(&gp)
            .unwrap()
            .set_modified(old)
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&bp)
            .unwrap()
            .set_modified(new)
            .unwrap();
        let git = git_blob(&f, &hex(&id));
        assert_eq!(
            git.as_deref(),
            Some(&bogus[..]),
            "git prints the bogus copy"
        );
        let got = mine(&f, &[&hex(&id)], 1 << 20).unwrap().pop().flatten();
        seen.push(got.clone());
        if let Some(bytes) = got {
            assert_eq!(Some(bytes), git, "in-process answer differs from git's");
        }
    }
    assert!(seen.iter().all(Option::is_none), "{seen:?}");
}

#[test]
fn closed_packs_git_refuses_are_still_read() {
    // git's `check_packed_git_idx` and `open_packed_git_1` refuse a pack
    // whose index or header is inconsistent: `cat-file` then finds no such
    // object. This reader checks none of these and answers the blob.
    let content = b"a blob only this pack holds\n".to_vec();
    let id = blob_id(&content);
    let (pack, _) = pack_of(&[entry(3, content.len(), &[], &content)], 1);
    let idx = idx_of(&[(id.clone(), 12)], &pack);
    let control = Fixture::new().unwrap();
    install(&control, "x", &pack, &idx);
    assert_eq!(agrees(&control, &id, 1 << 20), Some(content.clone()));
    let fan = |i: usize| 8 + 4 * i;
    let mut variants: Vec<(&str, Vec<u8>, Vec<u8>)> = Vec::new();
    // The fan-out is not monotonic (git: "non-monotonic index").
    let mut v = idx.clone();
    v[fan(0)..fan(0) + 4].copy_from_slice(&7u32.to_be_bytes());
    variants.push(("non-monotonic fan-out", pack.clone(), v));
    // A monotonic fan-out that puts the name in the wrong bucket: git's
    // search of the bucket misses it.
    let mut v = idx.clone();
    for i in 0..255 {
        v[fan(i)..fan(i) + 4].copy_from_slice(&1u32.to_be_bytes());
    }
    variants.push(("fan-out bucket", pack.clone(), v));
    // Bytes after the index's checksum (git: "wrong index file size").
    let mut v = idx.clone();
    v.extend_from_slice(&[0u8; 64]);
    variants.push(("index too long", pack.clone(), v));
    // The index's pack checksum is not the pack's trailer.
    let mut v = idx.clone();
    let at = v.len() - 40;
    v[at] ^= 1;
    variants.push(("pack checksum", pack.clone(), v));
    // The pack's header claims another object count.
    let (p, _) = pack_of(&[entry(3, content.len(), &[], &content)], 2);
    variants.push(("object count", p.clone(), idx_of(&[(id.clone(), 12)], &p)));
    let mut diverged = Vec::new();
    for (what, pack, idx) in variants {
        let f = Fixture::new().unwrap();
        install(&f, "x", &pack, &idx);
        let got = mine(&f, &[&hex(&id)], 1 << 20).and_then(|mut v| v.pop().flatten());
        let git = git_blob(&f, &hex(&id));
        if got.is_some() && got != git {
            diverged.push(format!(
                "{what}: in-process Some, git {:?}",
                git.map(|_| "Some")
            ));
        }
    }
    assert!(diverged.is_empty(), "{diverged:#?}");
}

#[test]
fn closed_a_ref_delta_on_another_packs_base() {
    // git looks a REF_DELTA's base up in the delta's own pack only (a pack
    // on disk is never thin); this reader looks in every pack.
    let delta = [40u8, 6, 0x90, 5, 1, b'!'];
    let target = b"the b!".to_vec();
    let f = Fixture::new().unwrap();
    let (base_pack, _) = pack_of(&[entry(3, BASE.len(), &[], BASE)], 1);
    install(
        &f,
        "base",
        &base_pack,
        &idx_of(&[(blob_id(BASE), 12)], &base_pack),
    );
    let (thin, _) = pack_of(&[entry(7, delta.len(), &blob_id(BASE), &delta)], 1);
    install(&f, "thin", &thin, &idx_of(&[(blob_id(&target), 12)], &thin));
    let id = hex(&blob_id(&target));
    none_or_gits(&f, &id);
}

#[test]
fn closed_a_delta_shorter_than_git_takes() {
    // git's `patch_delta` refuses a delta under 4 bytes; `[0, 0]` (empty
    // source, empty result) applies here to an empty base.
    let f = Fixture::new().unwrap();
    let empty_base = entry(3, 0, &[], b"");
    let dist = empty_base.len() as u64;
    let (pack, offsets) = pack_of(&[empty_base, entry(6, 2, &ofs(dist), &[0, 0])], 2);
    // The delta named as the empty blob, the base under another name.
    let empty = blob_id(b"");
    let mut other = empty.clone();
    other[19] ^= 1;
    let objects = [(other, offsets[0]), (empty.clone(), offsets[1])];
    install(&f, "x", &pack, &idx_of(&objects, &pack));
    let id = hex(&empty);
    // The control: a 4-byte delta of the same base, git reads it.
    let g = Fixture::new().unwrap();
    let e0 = entry(3, 0, &[], b"");
    let d = e0.len() as u64;
    let (p, o) = pack_of(&[e0, entry(6, 4, &ofs(d), &[0, 1, 1, b'x'])], 2);
    let mut other = blob_id(b"x");
    other[19] ^= 1;
    install(
        &g,
        "x",
        &p,
        &idx_of(&[(other, o[0]), (blob_id(b"x"), o[1])], &p),
    );
    assert_eq!(
        git_blob(&g, &hex(&blob_id(b"x"))).as_deref(),
        Some(&b"x"[..])
    );
    assert_eq!(
        agrees(&g, &blob_id(b"x"), 1 << 20).as_deref(),
        Some(&b"x"[..])
    );
    none_or_gits(&f, &id);
}

/// A true blob stored loose, and a pack (not installed) whose one entry
/// is a bogus copy of it: its id and the pack's bytes.
fn loose_truth_and_bogus_pack(f: &Fixture) -> (Vec<u8>, Vec<u8>) {
    let truth = b"loose truth\n";
    f.write("t.txt", truth).unwrap();
    f.git(&["hash-object", "-w", "t.txt"]).unwrap();
    let (bad, _) = pack_of(&[entry(3, 5, &[], b"bogus")], 1);
    (blob_id(truth), bad)
}

#[test]
fn closed_the_loose_reader_answers_what_a_pack_shadows() {
    // git reads the packs before the loose objects; `sized_heads` asks the
    // loose reader first, so a true loose copy answers where git prints a
    // pack's bogus one.
    let f = Fixture::new().unwrap();
    let (id, bad) = loose_truth_and_bogus_pack(&f);
    install(&f, "x", &bad, &idx_of(&[(id.clone(), 12)], &bad));
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let got = repo.loose_blobs(&[&hex(&id)], 1 << 20).pop().flatten();
    let git = git_blob(&f, &hex(&id));
    assert_eq!(git.as_deref(), Some(&b"bogus"[..]));
    assert!(got.is_none() || got == git, "loose {got:?}, git {git:?}");
}

#[test]
fn holds_malformed_entries_answer_nothing_and_never_panic() {
    let id = blob_id(BASE);
    let good = zlib(BASE);
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        // A size far over every cap, in a header git would take.
        ("huge size", [header(3, 1 << 59), good.clone()].concat()),
        ("size varint of 12 bytes", {
            let mut e = vec![0xb0];
            e.extend([0x80; 11]);
            e.push(0);
            e.extend_from_slice(&good);
            e
        }),
        ("no zlib", header(3, BASE.len() as u64)),
        (
            "empty zlib stream",
            [header(3, BASE.len() as u64), zlib(b"")].concat(),
        ),
        ("short stream", [header(3, 41), good.clone()].concat()),
        ("long stream", [header(3, 39), good.clone()].concat()),
        ("truncated stream", {
            let mut e = [header(3, 40), good.clone()].concat();
            e.truncate(e.len() - 3);
            e
        }),
        ("reserved type 5", [header(5, 40), good.clone()].concat()),
        ("type 0", [header(0, 40), good.clone()].concat()),
        ("a tree", entry(2, 40, &[], BASE)),
        ("a commit", entry(1, 40, &[], BASE)),
        ("a tag", entry(4, 40, &[], BASE)),
        (
            "ofs delta to itself",
            entry(6, 6, &ofs(0), &[40, 6, 0x90, 5, 1, b'!']),
        ),
        (
            "ofs delta before the pack",
            entry(6, 6, &ofs(13), &[40, 6, 0x90, 5, 1, b'!']),
        ),
        ("ofs distance overflowing", {
            let mut e = header(6, 6);
            e.extend([0xff; 12]);
            e.push(0x7f);
            e.extend_from_slice(&zlib(&[40, 6, 0x90, 5, 1, b'!']));
            e
        }),
        ("ref delta to itself", entry(7, 4, &id, &[40, 1, 1, b'x'])),
    ];
    // Trailing garbage after a good stream is what git ignores too.
    cases.push((
        "trailing garbage",
        [entry(3, 40, &[], BASE), vec![0xde; 9]].concat(),
    ));
    for (what, e) in cases {
        let f = crafted(&[e], std::slice::from_ref(&id));
        let got = agrees(&f, &id, 1 << 20);
        if what == "trailing garbage" {
            assert_eq!(got.as_deref(), Some(BASE), "{what}");
        } else {
            assert_eq!(got, None, "{what}");
        }
    }
}

#[test]
fn holds_deltas_that_do_not_apply_exactly() {
    let whole = entry(3, 40, &[], BASE);
    let d = whole.len() as u64;
    let target = b"xy".to_vec();
    for delta in [
        vec![40u8, 2, 0x91, 39, 2], // copy past the base
        vec![40u8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // huge copy
        vec![40u8, 2, 0x80],        // copy of 0x10000 bytes
        vec![41u8, 2, 2, b'x', b'y'], // wrong source size
        vec![40u8, 3, 2, b'x', b'y'], // shorter than announced
        vec![40u8, 1, 2, b'x', b'y'], // longer than announced
        vec![40u8, 2, 5, b'x', b'y'], // insert past the end
        vec![40u8, 2, 0, 2, b'x', b'y'], // op 0
        vec![
            40u8, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
        ], // size varint
    ] {
        let f = crafted(
            &[whole.clone(), entry(6, delta.len(), &ofs(d), &delta)],
            &[blob_id(BASE), blob_id(&target)],
        );
        assert_eq!(agrees(&f, &blob_id(&target), 1 << 20), None, "{delta:?}");
    }
}

#[test]
fn holds_ref_delta_cycles_and_long_chains_end() {
    // A -> B -> A by id.
    let (a, b) = (b"cycle a".to_vec(), b"cycle b".to_vec());
    let da = [7u8, 7, 1, b'a'];
    let f = crafted(
        &[
            entry(7, 4, &blob_id(&b), &da),
            entry(7, 4, &blob_id(&a), &[7u8, 7, 1, b'b']),
        ],
        &[blob_id(&a), blob_id(&b)],
    );
    let start = std::time::Instant::now();
    assert_eq!(agrees(&f, &blob_id(&a), 1 << 20), None);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    // A chain of offset deltas one over MAX_DEPTH, each appending a byte;
    // the one at MAX_DEPTH still resolves.
    let mut entries = vec![entry(3, 1, &[], b"0")];
    let mut content = b"0".to_vec();
    let mut names = vec![blob_id(&content)];
    for i in 0..=MAX_DEPTH + 1 {
        let n = content.len();
        let delta = [
            n as u8,
            n as u8 + 1,
            0x90,
            n as u8,
            1,
            b'a' + (i % 26) as u8,
        ];
        let back = entries.last().unwrap().len() as u64;
        entries.push(entry(6, delta.len(), &ofs(back), &delta));
        content.push(delta[5]);
        names.push(blob_id(&content));
    }
    let f = crafted(&entries, &names);
    let depth = |d: usize| agrees(&f, &names[d], 1 << 20);
    assert!(depth(MAX_DEPTH).is_some());
    assert_eq!(depth(MAX_DEPTH + 1), None);
    assert!(git_blob(&f, &hex(&names[MAX_DEPTH + 2])).is_some());
}

#[test]
fn holds_indexes_this_reader_refuses() {
    let content = b"indexed\n".to_vec();
    let id = blob_id(&content);
    let (pack, _) = pack_of(&[entry(3, 8, &[], &content)], 1);
    let mut other = id.clone();
    other[19] ^= 1;
    let (pack2, o2) = pack_of(&[entry(3, 8, &[], &content), entry(3, 8, &[], &content)], 2);
    let two = idx_of(&[(id.clone(), o2[0]), (other, o2[1])], &pack2);
    let n1 = 8 + 1024;
    let mut unsorted = two.clone();
    let (x, y) = (
        unsorted[n1..n1 + 20].to_vec(),
        unsorted[n1 + 20..n1 + 40].to_vec(),
    );
    unsorted[n1..n1 + 20].copy_from_slice(&y);
    unsorted[n1 + 20..n1 + 40].copy_from_slice(&x);
    let mut dup = two.clone();
    dup[n1 + 20..n1 + 40].copy_from_slice(&x);
    let off1 = |idx: &mut Vec<u8>, word: u32| {
        let at = n1 + 20 + 4;
        idx[at..at + 4].copy_from_slice(&word.to_be_bytes());
    };
    let mut past = idx_of(&[(id.clone(), 12)], &pack);
    off1(&mut past, pack.len() as u32);
    let mut into_trailer = idx_of(&[(id.clone(), 12)], &pack);
    off1(&mut into_trailer, pack.len() as u32 - 20);
    let mut large_out = idx_of(&[(id.clone(), 12)], &pack);
    off1(&mut large_out, 0x8000_0000 | 0x7fff_ffff);
    let mut large_zero = idx_of(&[(id.clone(), 12)], &pack);
    off1(&mut large_zero, 0x8000_0000);
    let mut huge_count = idx_of(&[(id.clone(), 12)], &pack);
    huge_count[n1 - 4..n1].copy_from_slice(&u32::MAX.to_be_bytes());
    let mut v1 = idx_of(&[(id.clone(), 12)], &pack);
    v1[7] = 1;
    for (what, p, i) in [
        ("unsorted names", &pack2, unsorted),
        ("duplicate names", &pack2, dup),
        ("offset past the pack", &pack, past),
        ("offset in the trailer", &pack, into_trailer),
        ("large offset out of the file", &pack, large_out),
        ("large offset into the checksums", &pack, large_zero),
        ("count over the cap", &pack, huge_count),
        ("version 1", &pack, v1),
    ] {
        let f = Fixture::new().unwrap();
        install(&f, "x", p, &i);
        let got = mine(&f, &[&hex(&id)], 1 << 20).and_then(|mut v| v.pop().flatten());
        if let Some(bytes) = got {
            panic!(
                "{what}: answered {bytes:?}, git {:?}",
                git_blob(&f, &hex(&id))
            );
        }
    }
}

#[test]
fn holds_what_stands_in_place_of_a_pack() {
    use std::os::unix::fs::symlink;
    let content = b"placed\n".to_vec();
    let id = blob_id(&content);
    let (pack, _) = pack_of(&[entry(3, content.len(), &[], &content)], 1);
    let idx = idx_of(&[(id.clone(), 12)], &pack);
    let none = |f: &Fixture, what: &str| {
        let start = std::time::Instant::now();
        assert!(mine(f, &[&hex(&id)], 1 << 20).is_none(), "{what}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{what}"
        );
    };
    // An index without its pack.
    let f = Fixture::new().unwrap();
    let base = install(&f, "x", &pack, &idx);
    std::fs::remove_file(base.with_extension("pack")).unwrap();
    none(&f, "no pack");
    // A FIFO as the pack, and as the index: never opened.
    let fifo = |p: &Path| probity_testkit::mkfifo(p).unwrap();
    fifo(&base.with_extension("pack"));
    none(&f, "a FIFO pack");
    std::fs::remove_file(base.with_extension("idx")).unwrap();
    fifo(&base.with_extension("idx"));
    none(&f, "a FIFO index");
    // Symbolic links to a good pack and index.
    let g = Fixture::new().unwrap();
    let real = install(&g, "real", &pack, &idx);
    let dir = real.parent().unwrap().to_path_buf();
    std::fs::rename(real.with_extension("pack"), g.root().join("elsewhere.pack")).unwrap();
    symlink(g.root().join("elsewhere.pack"), dir.join("pack-real.pack")).unwrap();
    none(&g, "a linked pack");
    // `objects/pack` a file.
    let h = Fixture::new().unwrap();
    std::fs::remove_dir_all(h.root().join(".git/objects/pack")).unwrap();
    std::fs::write(h.root().join(".git/objects/pack"), b"x").unwrap();
    none(&h, "pack a file");
    // Sidecars git writes beside a pack change nothing.
    let k = Fixture::new().unwrap();
    let b = install(&k, "x", &pack, &idx);
    for ext in ["keep", "promisor", "mtimes", "rev", "bitmap"] {
        std::fs::write(b.with_extension(ext), b"").unwrap();
    }
    assert_eq!(agrees(&k, &id, 1 << 20), Some(content));
}

#[test]
fn holds_the_cap_the_empty_blob_and_a_multi_pack_index() {
    let f = Fixture::new().unwrap();
    let cap = 4096;
    for (name, bytes) in [
        ("empty", vec![]),
        ("at-cap", vec![b'c'; cap]),
        ("over-cap", vec![b'c'; cap + 1]),
        ("delta-over-cap", [vec![b'c'; cap], b"!".to_vec()].concat()),
    ] {
        f.write(name, bytes).unwrap();
    }
    f.commit_all("c").unwrap();
    f.git(&["repack", "-adfq", "--write-midx"]).unwrap();
    let midx = f.root().join(".git/objects/pack/multi-pack-index");
    assert!(midx.exists());
    // git reads a multi-pack index's offsets: the packs are git's then.
    assert!(mine(&f, &[&"0".repeat(40)], cap).is_none());
    std::fs::remove_file(&midx).unwrap();
    let id = |p: &str| {
        let out = f.git(&["rev-parse", &format!("HEAD:{p}")]).unwrap();
        let hex = String::from_utf8(out).unwrap();
        crate::loose::raw_id(Format::Sha1, hex.trim()).unwrap()
    };
    assert_eq!(agrees(&f, &id("empty"), cap).as_deref(), Some(&b""[..]));
    assert_eq!(agrees(&f, &id("at-cap"), cap).map(|b| b.len()), Some(cap));
    assert_eq!(agrees(&f, &id("over-cap"), cap), None);
    assert_eq!(agrees(&f, &id("delta-over-cap"), cap), None);
    assert!(agrees(&f, &id("delta-over-cap"), cap + 1).is_some());
    // The commit and its tree are no blobs.
    for rev in ["HEAD", "HEAD^{tree}"] {
        let out = f.git(&["rev-parse", rev]).unwrap();
        let raw = crate::loose::raw_id(Format::Sha1, String::from_utf8(out).unwrap().trim());
        assert_eq!(agrees(&f, &raw.unwrap(), cap), None, "{rev}");
    }
}

/// `in_index_in_process` (candidate/heads.rs): which of `paths` the
/// user's index holds with an object the store has; `None` for git.
fn index_here(repo: &crate::Repo, paths: &[&str]) -> Option<Vec<String>> {
    let owned: Vec<probity_core::review::RepoPath> = paths
        .iter()
        .filter_map(|p| probity_core::review::RepoPath::parse(*p).ok())
        .collect();
    let refs: Vec<&probity_core::review::RepoPath> = owned.iter().collect();
    let found = repo.in_index_in_process(&refs)?;
    Some(
        paths
            .iter()
            .filter(|p| found.iter().any(|f| f.as_str() == **p))
            .map(|p| (*p).to_string())
            .collect(),
    )
}

/// git's answer: the paths `cat-file --batch-check` finds as `:<stage>:`
/// for some stage; `None` when git fails.
fn index_git(repo: &crate::Repo, paths: &[&str]) -> Option<Vec<String>> {
    let mut found = Vec::new();
    for p in paths {
        let specs: Vec<String> = (0..4).map(|s| format!(":{s}:{p}")).collect();
        let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
        if repo.objects_missing(&refs).ok()?.contains(&false) {
            found.push((*p).to_string());
        }
    }
    Some(found)
}

/// Asserts the in-process membership is `None` or git's; returns it.
fn index_agrees(f: &Fixture, paths: &[&str]) -> Option<Vec<String>> {
    // Only the paths a candidate can name are ever asked.
    let paths: Vec<&str> = paths
        .iter()
        .filter(|p| probity_core::review::RepoPath::parse(**p).is_ok())
        .copied()
        .collect();
    let paths = paths.as_slice();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let mine = index_here(&repo, paths);
    if let Some(m) = &mine {
        assert_eq!(Some(m), index_git(&repo, paths).as_ref(), "{paths:?}");
    }
    mine
}

/// A fixture with an index holding `a.txt`, `a/b.txt`, `A.TXT`, `a b\t.txt`
/// and a UTF-8 name.
fn indexed() -> Fixture {
    let f = Fixture::new().unwrap();
    for p in ["a.txt", "a/b.txt", "A.TXT", "a b\t.txt", "é.txt", "ab"] {
        f.write(p, p).unwrap();
    }
    f.commit_all("c").unwrap();
    f
}

const ASKED: &[&str] = &[
    "a.txt",
    "a/b.txt",
    "A.TXT",
    "a b\t.txt",
    "é.txt",
    "a",
    "a.tx",
    "a.txt/",
    "A.txt",
    "ab",
    "e\u{301}.txt",
    "missing",
];

#[test]
fn closed_an_index_with_a_wrong_checksum_is_read_as_git_reads_it() {
    // Only fsck verifies an index's trailing checksum (git 2.13 on): a
    // flipped byte changes nothing for `cat-file`, nor here.
    let f = indexed();
    assert!(index_agrees(&f, ASKED).is_some());
    let path = f.root().join(".git/index");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let (mine, git) = (index_here(&repo, ASKED), index_git(&repo, ASKED));
    assert!(
        mine.is_none() || mine == git,
        "in-process {mine:?}, git {git:?}"
    );
}

#[test]
fn closed_presence_counts_objects_git_cannot_read() {
    // `Presence::has` takes a name from an index without its pack, and a
    // loose file whatever it holds; git's `--batch-check` finds neither.
    let f = indexed();
    let orphan = blob_id(b"named by an orphan index\n");
    let garbage = blob_id(b"a loose file of garbage\n");
    for (p, id) in [("orphan.txt", &orphan), ("garbage.txt", &garbage)] {
        let info = format!("100644 {}\t{p}\n", hex(id));
        f.repo()
            .unwrap()
            .run_with(["update-index", "--index-info"], &[], Some(info.as_bytes()))
            .unwrap();
    }
    let (pack, _) = pack_of(&[entry(3, 4, &[], b"junk")], 1);
    let base = install(&f, "orphan", &pack, &idx_of(&[(orphan.clone(), 12)], &pack));
    std::fs::remove_file(base.with_extension("pack")).unwrap();
    let h = hex(&garbage);
    let loose = f.root().join(".git/objects").join(&h[..2]);
    std::fs::create_dir_all(&loose).unwrap();
    std::fs::write(loose.join(&h[2..]), b"not zlib").unwrap();
    let mut diverged = Vec::new();
    for p in ["orphan.txt", "garbage.txt"] {
        let repo = f.repo().unwrap();
        repo.object_format().unwrap();
        let (mine, git) = (index_here(&repo, &[p]), index_git(&repo, &[p]));
        if mine.is_some() && mine != git {
            diverged.push(format!("{p}: in-process {mine:?}, git {git:?}"));
        }
    }
    assert!(diverged.is_empty(), "{diverged:#?}");
}

#[test]
fn holds_index_shapes_read_as_git_reads_them() {
    let f = indexed();
    assert!(index_agrees(&f, ASKED).is_some(), "plain");
    for v in ["4", "3", "2"] {
        f.git(&["update-index", "--index-version", v]).unwrap();
        assert!(index_agrees(&f, ASKED).is_some(), "version {v}");
    }
    f.git(&["update-index", "--assume-unchanged", "a.txt"])
        .unwrap();
    f.git(&["update-index", "--skip-worktree", "a/b.txt"])
        .unwrap();
    assert!(index_agrees(&f, ASKED).is_some(), "assume/skip");
    f.git(&["config", "core.ignorecase", "true"]).unwrap();
    assert!(index_agrees(&f, ASKED).is_some(), "ignorecase");
    f.git(&["config", "core.ignorecase", "false"]).unwrap();
    f.git(&["sparse-checkout", "set", "--no-cone", "/a.txt"])
        .unwrap();
    index_agrees(&f, ASKED);
    f.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "a"])
        .unwrap();
    index_agrees(&f, ASKED);
    f.git(&["sparse-checkout", "disable"]).unwrap();
    f.git(&["update-index", "--split-index"]).unwrap();
    f.write("new.txt", "n").unwrap();
    f.git(&["add", "new.txt"]).unwrap();
    assert_eq!(index_agrees(&f, &["new.txt", "a.txt"]), None, "split");
    f.git(&["update-index", "--no-split-index"]).unwrap();
    f.write("ita.txt", "i").unwrap();
    f.git(&["add", "-N", "ita.txt"]).unwrap();
    assert_eq!(index_agrees(&f, &["ita.txt"]), None, "intent to add");
    f.git(&["rm", "-q", "--cached", "ita.txt"]).unwrap();
    // A merge conflict.
    f.commit_all("n").unwrap();
    f.git(&["checkout", "-qb", "side"]).unwrap();
    f.write("m.txt", "side").unwrap();
    f.commit_all("side").unwrap();
    f.git(&["checkout", "-q", "main"]).unwrap();
    f.write("m.txt", "main").unwrap();
    f.commit_all("main").unwrap();
    let merged = f.git(&["merge", "-q", "side"]);
    let unmerged = f.git(&["ls-files", "-u"]).unwrap();
    assert!(!unmerged.is_empty(), "{merged:?}");
    assert_eq!(index_agrees(&f, &["m.txt", "a.txt"]), None, "conflict");
}

#[test]
fn holds_an_index_that_is_missing_or_no_file() {
    let f = indexed();
    let path = f.root().join(".git/index");
    std::fs::remove_file(&path).unwrap();
    index_agrees(&f, ASKED);
    std::fs::create_dir(&path).unwrap();
    index_agrees(&f, ASKED);
    std::fs::remove_dir(&path).unwrap();
    probity_testkit::mkfifo(&path).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let start = std::time::Instant::now();
    assert_eq!(index_here(&repo, ASKED), None);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

/// A pack index named `.idx` (second review): git reads it as the index of
/// a pack named `.pack`, where `Path::extension` sees no extension. A
/// bogus copy there is what git prints; the loose reader and the packs
/// now leave the store to git.
#[test]
fn closed_a_pack_index_named_only_idx_is_gits() {
    let f = Fixture::new().unwrap();
    let (id, bad) = loose_truth_and_bogus_pack(&f);
    let dir = f.root().join(".git/objects/pack");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".pack"), &bad).unwrap();
    std::fs::write(dir.join(".idx"), idx_of(&[(id.clone(), 12)], &bad)).unwrap();
    assert_eq!(git_blob(&f, &hex(&id)).as_deref(), Some(&b"bogus"[..]));
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let got = repo.loose_blobs(&[&hex(&id)], 1 << 20).pop().flatten();
    assert_eq!(got, None, "the loose copy is shadowed");
    assert!(mine(&f, &[&hex(&id)], 1 << 20).is_none());
}

/// An incremental multi-pack index (`pack/multi-pack-index.d`, second
/// review) names its own offsets as a single one does: git's.
#[test]
fn closed_an_incremental_multi_pack_index_is_gits() {
    let f = Fixture::new().unwrap();
    f.write("a.txt", "a\n").unwrap();
    f.commit_all("c").unwrap();
    f.git(&["repack", "-adq"]).unwrap();
    let chain = f.root().join(".git/objects/pack/multi-pack-index.d");
    std::fs::create_dir_all(&chain).unwrap();
    std::fs::write(chain.join("multi-pack-index-chain"), "").unwrap();
    assert!(mine(&f, &[&"0".repeat(40)], 1 << 20).is_none());
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let id = String::from_utf8(f.git(&["rev-parse", "HEAD:a.txt"]).unwrap()).unwrap();
    std::fs::remove_dir_all(&chain).unwrap();
    assert!(mine(&f, &[id.trim()], 1 << 20).is_some());
}
