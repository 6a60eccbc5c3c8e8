//! The fuzz checks: one file per target, each a `check(data: &[u8])` that decodes the
//! fuzzer's bytes into an input and asserts the properties its module docs list.
//!
//! One copy, two callers: the cargo-fuzz targets in `fuzz/fuzz_targets/` (nightly) and
//! the stable replay tests (`crates/stampede/tests/fuzz_corpus.rs`,
//! `crates/stampede-cli/tests/fuzz_corpus.rs`), which run every file of
//! `fuzz/corpus/<target>/` (and `fuzz/regressions/<target>/`) through the same function, so
//! a regression fails `make test`.
//! Both include this folder with `#[path]`; it needs nothing but the core crate (the CLI's
//! duration parser is passed in).

pub mod classify;
pub mod duration;
pub mod http_date;
pub mod input;
pub mod pushback;
pub mod retry_after;
pub mod settings;
pub mod sim;
pub mod status_set;

use std::path::{Path, PathBuf};

/// The checked-in inputs of `target`, seen from a crate two levels below the root (where
/// the replay tests live): its corpus, `fuzz/corpus/<target>/`, which `cargo fuzz cmin`
/// rewrites, and the inputs of bugs it found, `fuzz/regressions/<target>/`, kept by name.
pub fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for kind in ["corpus", "regressions"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        files.extend(entries.map(|entry| entry.expect("a directory entry").path()));
    }
    files.sort();
    files
}

/// Runs every checked-in input of `target` through `check`; a failure names the file.
///
/// No inputs fails too: a replay that checks nothing must not pass.
pub fn replay(target: &str, check: impl Fn(&[u8])) {
    let files = inputs(target);
    assert!(
        !files.is_empty(),
        "{target}: no corpus in fuzz/corpus/{target}"
    );
    for file in &files {
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&data)));
        if outcome.is_err() {
            panic!("{target}: {} fails its check (see above)", file.display());
        }
    }
}
