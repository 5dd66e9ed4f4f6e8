//! Filter pipeline throughput on a generated corpus of realistic comments
//! and CI logs (not a test; see docs/perf.md). Single-threaded; the
//! parallel figures come from `probity-ports`' `assemble_bench`, which
//! shares this corpus.
//!
//! cargo run --release -p probity-core --example filter_bench [-- MB]
//!
//! The last line is a 64-bit FNV-1a digest of every emitted text, status
//! and finding: two builds that print the same digest emitted the same
//! bytes (a check between builds, not a defence against anyone).

use std::time::Instant;

use probity_core::context::{
    CredentialRegistry, FilterStatus, FilterVersion, Filtered, filter_text,
};

/// The generated corpus (deterministic: a fixed-seed LCG, nothing read
/// from disk).
pub mod corpus {
    /// A small deterministic generator (no randomness crate in core).
    pub struct Lcg(pub u64);

    impl Lcg {
        /// The next value of the sequence.
        pub fn step(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[(self.step() as usize) % xs.len()]
        }
        fn hex(&mut self, n: usize) -> String {
            (0..n)
                .map(|_| b"0123456789abcdef"[(self.step() % 16) as usize] as char)
                .collect()
        }
        fn alnum(&mut self, n: usize) -> String {
            const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            (0..n)
                .map(|_| A[(self.step() as usize) % A.len()] as char)
                .collect()
        }
    }

    const WORDS: &[&str] = &[
        "the",
        "cache",
        "is",
        "invalidated",
        "when",
        "schema",
        "changes",
        "we",
        "should",
        "add",
        "a",
        "test",
        "for",
        "this",
        "path",
        "LGTM",
        "nit:",
        "please",
        "rename",
        "function",
        "error",
        "handling",
        "looks",
        "good",
        "but",
        "consider",
        "timeout",
        "retry",
        "config",
        "token",
        "secret",
        "key",
        "review",
        "merge",
        "branch",
        "build",
        "failed",
        "passes",
        "locally",
        "`Result<T, E>`",
        "**important**",
        "[docs](https://example.invalid/x)",
        "ignore",
        "flaky",
    ];

    /// A review comment of 1 to 4 paragraphs, one in 20 with a token in it.
    pub fn comment(r: &mut Lcg) -> String {
        let mut s = String::new();
        let paras = 1 + r.step() % 4;
        for p in 0..paras {
            let n = 15 + r.step() % 60;
            for i in 0..n {
                if i > 0 {
                    s.push(' ');
                }
                s.push_str(r.pick(WORDS));
            }
            s.push_str(".\n\n");
            if p == 1 && r.step().is_multiple_of(3) {
                s.push_str("```rust\nfn main() {\n    let x = compute(42);\n    println!(\"{x}\");\n}\n```\n\n");
            }
        }
        match r.step() % 40 {
            0 => s.push_str(&format!("Oops: GITHUB_TOKEN=ghp_{}\n", r.alnum(36))),
            1 => s.push_str(&format!(
                "curl -H 'Authorization: Bearer {}'\n",
                r.alnum(40)
            )),
            2 => s.push_str("<!-- reviewers: please check the migration -->\n"),
            3 => s.push_str("Café ﬁle naïve — “quoted” \u{200B}zero\u{200D}width\n"),
            _ => {}
        }
        s
    }

    /// A check log of about `target` bytes, secrets mixed in.
    pub fn log(r: &mut Lcg, target: usize) -> String {
        let mut s = String::with_capacity(target + 256);
        let mut t = 0u64;
        while s.len() < target {
            t += r.step() % 900;
            let ts = format!(
                "2026-09-08T10:{:02}:{:02}.{:03}Z",
                (t / 60000) % 60,
                (t / 1000) % 60,
                t % 1000
            );
            match r.step() % 12 {
                0 => s.push_str(&format!(
                    "{ts} \u{1b}[32m   Compiling\u{1b}[0m probity-{} v0.1.0 (/work/{})\r\n",
                    r.pick(WORDS),
                    r.pick(WORDS)
                )),
                k @ (1 | 2) => {
                    let (color, verdict) = if k == 1 { (32, "ok") } else { (31, "FAILED") };
                    let (module, test) = (r.pick(WORDS), r.pick(WORDS));
                    s.push_str(&format!(
                        "{ts} test {module}::{test} ... \u{1b}[{color}m{verdict}\u{1b}[0m\r\n"
                    ))
                }
                3 => s.push_str(&format!(
                    "{ts} ##[group]Run actions/checkout@{}\n",
                    r.hex(40)
                )),
                4 => s.push_str(&format!(
                    "{ts}   env:\n{ts}     RUST_BACKTRACE: 1\n{ts}     CARGO_TERM_COLOR: always\n"
                )),
                5 => s.push_str(&format!(
                    "{ts} thread 'main' panicked at src/{}.rs:{}:{}:\n",
                    r.pick(WORDS),
                    r.step() % 900,
                    r.step() % 80
                )),
                6 => s.push_str(&format!(
                    "{ts} Downloaded {} v{}.{}.{} ({} KB)\n",
                    r.pick(WORDS),
                    r.step() % 3,
                    r.step() % 40,
                    r.step() % 10,
                    r.step() % 900
                )),
                7 => s.push_str(&format!(
                    "{ts} error[E0{}]: mismatched types --> src/lib.rs:{}:5\n",
                    300 + r.step() % 400,
                    r.step() % 500
                )),
                8 if r.step().is_multiple_of(50) => {
                    s.push_str(&format!("{ts} AWS_SECRET_ACCESS_KEY={}\n", r.alnum(40)))
                }
                9 => s.push_str(&format!(
                    "{ts} Fetching https://index.crates.io/{}/{} ... 200 OK in {}ms\n",
                    r.hex(2),
                    r.pick(WORDS),
                    r.step() % 300
                )),
                _ => s.push_str(&format!(
                    "{ts} {} {} {} {}\n",
                    r.pick(WORDS),
                    r.pick(WORDS),
                    r.pick(WORDS),
                    r.pick(WORDS)
                )),
            }
        }
        s
    }

    /// The corpus of `total_mb` MiB: about a fifth review comments, the
    /// rest CI logs of 256 KiB to 2 MiB.
    pub fn generate(total_mb: usize) -> (Vec<String>, Vec<String>) {
        let target = total_mb * 1024 * 1024;
        let mut r = Lcg(0x5eed_c0de);
        let (mut comments, mut logs) = (Vec::new(), Vec::new());
        let (mut cbytes, mut lbytes) = (0usize, 0usize);
        while cbytes < target / 5 {
            let c = comment(&mut r);
            cbytes += c.len();
            comments.push(c);
        }
        while cbytes + lbytes < target {
            let size = 256 * 1024 + (r.step() as usize % (1792 * 1024));
            let l = log(&mut r, size);
            lbytes += l.len();
            logs.push(l);
        }
        (comments, logs)
    }
}

/// FNV-1a, 64 bits.
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Folds `bytes` into the digest.
    pub fn update(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Folds one filter outcome into the digest of everything emitted.
pub fn digest_outcome(h: &mut Fnv, out: &Filtered) {
    h.update(&(out.text.len() as u64).to_le_bytes());
    h.update(out.text.as_bytes());
    h.update(out.summary.status.as_str().as_bytes());
    for (code, n) in out.summary.findings.iter() {
        h.update(code.as_bytes());
        h.update(&n.to_le_bytes());
    }
    h.update(b"\n");
}

/// The bounds the benchmark filters with: comments as record bodies, logs
/// as check logs.
pub const COMMENT_BOUND: u64 = 64 * 1024;
/// See [`COMMENT_BOUND`].
pub const LOG_BOUND: u64 = 4 * 1024 * 1024;

fn main() {
    let total_mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    // The filter version: the current one, or the one the second argument
    // names (`cargo run ... -- 50 probity-filter/4`).
    let version = match std::env::args().nth(2) {
        Some(v) => FilterVersion::parse(&v).expect("a supported filter version"),
        None => FilterVersion::CURRENT,
    };
    println!("filter version {}", version.as_str());
    let (comments, logs) = corpus::generate(total_mb);
    let creds = CredentialRegistry::new(&["probity-bench-credential-0001".to_owned()])
        .expect("registry")
        .with_version(version);
    // Warm the detector engine outside the timing.
    filter_text(&creds, "warm up", 64).expect("engine");

    let mut digest = Fnv::default();
    let mut run = |name: &str, docs: &[String], bound: u64| {
        let bytes: usize = docs.iter().map(String::len).sum();
        let start = Instant::now();
        let outs: Vec<Filtered> = docs
            .iter()
            .map(|d| filter_text(&creds, d, bound).expect("filter"))
            .collect();
        let secs = start.elapsed().as_secs_f64();
        let mut statuses = [0usize; 4];
        for out in &outs {
            statuses[out.summary.status as usize] += 1;
            digest_outcome(&mut digest, out);
        }
        let mb = bytes as f64 / (1024.0 * 1024.0);
        println!(
            "{name:<9} {:>5} docs {mb:>7.1} MiB {secs:>7.2} s {:>8.1} MiB/s  (unchanged {}, modified {}, truncated {}, rejected {})",
            docs.len(),
            mb / secs,
            statuses[FilterStatus::Unchanged as usize],
            statuses[FilterStatus::Modified as usize],
            statuses[FilterStatus::Truncated as usize],
            statuses[FilterStatus::Rejected as usize],
        );
        (bytes, secs)
    };
    let (cb, cs) = run("comments", &comments, COMMENT_BOUND);
    let (lb, ls) = run("ci-logs", &logs, LOG_BOUND);
    let mb = (cb + lb) as f64 / (1024.0 * 1024.0);
    println!(
        "total     {mb:>18.1} MiB {:>7.2} s {:>8.1} MiB/s",
        cs + ls,
        mb / (cs + ls)
    );
    println!("output digest {:016x}", digest.0);
}
