//! `stampede sweep --shard I/N`: the parts of a grid, joined as the README joins them,
//! are the single-machine output byte for byte; bad parts exit 2 naming `--shard`.

use std::path::PathBuf;
use std::process::Command;

use super::stampede;

/// A grid with both scenario engines' kinds of cost: 3 strategies × 4 client counts.
const GRID: [&str; 10] = [
    "sweep",
    "--scenario",
    "aws-occ",
    "--strategy",
    "none,full,decorrelated",
    "--clients",
    "10..40:10",
    "--runs",
    "3",
    "--seed=5",
];

fn sweep(extra: &[&str]) -> Vec<u8> {
    let out = stampede(&[&GRID[..], extra].concat());
    assert!(
        out.status.success(),
        "{extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The README's join: `paste -d '\n'` reads the parts' lines round-robin, `awk` keeps
/// the first header and drops the other parts' headers and the blank lines that `paste`
/// writes for parts that ran out of rows.
const JOIN: &str = r#"paste -d '\n' "$@" | awk -v n=$# 'NR == 1 || (NR > n && NF)'"#;

#[test]
#[cfg(unix)]
fn the_parts_joined_are_the_whole() {
    let whole = sweep(&[]);
    assert_eq!(sweep(&["--shard", "1/1"]), whole);
    let dir = std::env::temp_dir().join(format!("stampede-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 12 points: 4 parts of 3 rows, 5 of 3 or 2, and more parts than points.
    for n in [4, 5, 13] {
        let files: Vec<PathBuf> = (1..=n)
            .map(|i| {
                let part = sweep(&["--shard", &format!("{i}/{n}")]);
                // Every part is a CSV of its own, with the header.
                assert!(part.starts_with(b"scenario,strategy,clients,runs,"));
                let path = dir.join(format!("part-{i}.csv"));
                std::fs::write(&path, part).unwrap();
                path
            })
            .collect();
        let joined = Command::new("sh")
            .arg("-c")
            .arg(JOIN)
            .arg("join")
            .args(&files)
            .output()
            .expect("sh runs");
        assert!(joined.status.success());
        assert!(
            joined.stdout == whole,
            "{n} parts:\n{}\nwhole:\n{}",
            String::from_utf8_lossy(&joined.stdout),
            String::from_utf8_lossy(&whole)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_part_holds_every_nth_row() {
    let whole = String::from_utf8(sweep(&[])).unwrap();
    let rows: Vec<&str> = whole.lines().collect();
    let part = String::from_utf8(sweep(&["--shard", "2/5"])).unwrap();
    // Header, then points 1, 6, 11 (0-based) of the whole: rows 2, 7, 12 (1-based).
    let want: Vec<&str> = [0, 2, 7, 12].iter().map(|&r| rows[r]).collect();
    assert_eq!(part.lines().collect::<Vec<_>>(), want);
}

#[test]
fn bad_parts_exit_2_naming_the_flag() {
    for bad in [
        "0/3",
        "4/3",
        "1/0",
        "3",
        "a/b",
        "1/2/3",
        "-1/3",
        "1/1000001",
        "",
    ] {
        let out = stampede(&["sweep", "--clients", "10", "--shard", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.starts_with("stampede: ") && err.contains("--shard") && err.contains("I/N"),
            "{bad}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
        assert!(out.stdout.is_empty());
    }
}
