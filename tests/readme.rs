//! The README's shell examples run as written, and every link in the README and `docs/`
//! resolves.
//!
//! Every ```` ```sh ```` and ```` ```console ```` block of README.md is run, in README order, by
//! `sh` in one scratch directory whose `../shared` is the real one (so paths read as they do
//! from the repository root), with the `psxrender` under test first on `PATH`:
//! - a `sh` line is a command (a trailing `\` continues it); it must exit 0;
//! - a `console` block is `$ command` lines, each followed by the output the README shows.
//!   Those lines must be real: each appears, in order, among the lines the command printed
//!   (stdout and stderr together), so the README may leave lines out (marked `…`) but never
//!   show one psxrender does not print. The command must exit 0, or N when it ends with the
//!   comment `# exit N`.
//!
//! `cargo run --release -- ARGS` is run as `psxrender ARGS` (the binary under test); the other
//! cargo commands the README shows (`cargo test`, `cargo build`, `cargo bench`) build or run this
//! very suite and are not run from inside it. A block that names `../shared` needs the shared
//! data: without it the block is skipped with a printed reason (and with `CI=true` the test
//! fails, see `tests/common`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Lines README.md may have at most (a newcomer's ten minutes; design notes go in `docs/`).
const README_MAX_LINES: usize = 300;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One command of a block and what the README says it prints and returns.
#[derive(Debug)]
struct Example {
    /// README line the command starts on (1-based).
    line: usize,
    command: String,
    /// Output lines shown under a `console` command (none for `sh`).
    shown: Vec<String>,
    exit: i32,
}

/// A fenced block to run: its commands, and whether it reads `../shared`.
#[derive(Debug)]
struct Block {
    line: usize,
    examples: Vec<Example>,
    needs_shared: bool,
}

/// The exit code a `# exit N` comment at the end of a command asks for (else 0).
fn expected_exit(command: &str) -> i32 {
    command
        .rsplit_once("# exit ")
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or(0)
}

/// The `sh` and `console` blocks of a Markdown text.
fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let lang = lines[i].trim().strip_prefix("```").map(str::trim);
        let Some(lang @ ("sh" | "console")) = lang else {
            i += 1;
            continue;
        };
        let start = i + 1;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != "```" {
            body.push((i + 1, lines[i]));
            i += 1;
        }
        i += 1;
        let needs_shared = body.iter().any(|(_, l)| l.contains("../shared"));
        let mut examples: Vec<Example> = Vec::new();
        let mut continued = false;
        for (n, l) in body {
            if continued {
                let e = examples.last_mut().unwrap();
                e.command.push('\n');
                e.command.push_str(l);
                continued = l.ends_with('\\');
                e.exit = expected_exit(&e.command);
                continue;
            }
            let command = match lang {
                "sh" if !l.trim().is_empty() && !l.trim_start().starts_with('#') => l,
                "console" => match l.strip_prefix("$ ") {
                    Some(c) => c,
                    None => {
                        if let Some(e) = examples.last_mut() {
                            e.shown.push(l.trim_end().to_string());
                        }
                        continue;
                    }
                },
                _ => continue,
            };
            continued = command.ends_with('\\');
            examples.push(Example {
                line: n,
                command: command.to_string(),
                shown: Vec::new(),
                exit: expected_exit(command),
            });
        }
        out.push(Block {
            line: start,
            examples,
            needs_shared,
        });
    }
    out
}

/// What the test runs for a README command, or `None` for cargo commands that build or run
/// this suite.
fn runnable(command: &str) -> Option<String> {
    let c = command.trim_start();
    if let Some(args) = c.strip_prefix("cargo run --release -- ") {
        return Some(format!("psxrender {args}"));
    }
    match c.starts_with("cargo ") {
        true => None,
        false => Some(c.to_string()),
    }
}

/// Whether `shown` lines appear in order among `printed` (a `…` line stands for lines left
/// out); on failure, the first shown line not found.
fn shown_in_order<'a>(shown: &'a [String], printed: &str) -> Result<(), &'a str> {
    let mut printed = printed.lines().map(str::trim_end);
    for want in shown.iter().filter(|l| l.trim() != "…" && !l.is_empty()) {
        if !printed.by_ref().any(|got| got == want) {
            return Err(want);
        }
    }
    Ok(())
}

/// The scratch directory (`…/readme/work`, its `../shared` the real one) and a `PATH` with the
/// psxrender under test first.
#[cfg(unix)]
fn sandbox(shared: Option<&Path>) -> (PathBuf, String) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme");
    let work = root.join("work");
    let bin = root.join("bin");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("psxrender");
    let _ = std::fs::remove_file(&exe);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_psxrender"), &exe).unwrap();
    if let Some(shared) = shared {
        let link = root.join("shared");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(shared.canonicalize().unwrap(), &link).unwrap();
    }
    let path = std::env::var("PATH").unwrap_or_default();
    (work, format!("{}:{path}", bin.display()))
}

#[cfg(unix)]
#[test]
fn readme_shell_examples_run_as_written() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = blocks(&text);
    // ../shared, whose samples and hwtests the README reads; None (blocks skipped, printed)
    // when the build found it missing.
    let shared = match cfg!(no_shared) {
        true => None,
        false => {
            common::shared("hwtests");
            Some(common::shared("samples").parent().unwrap().to_path_buf())
        }
    };
    let (work, path) = sandbox(shared.as_deref());
    let (mut ran, mut skipped, mut failures) = (0, 0, Vec::new());
    for b in &blocks {
        if b.needs_shared && shared.is_none() {
            println!("README line {}: block skipped (needs ../shared)", b.line);
            skipped += 1;
            continue;
        }
        for e in &b.examples {
            let Some(cmd) = runnable(&e.command) else {
                println!("README line {}: not run here: {}", e.line, e.command);
                continue;
            };
            let o = Command::new("sh")
                .arg("-c")
                .arg(format!("{{\n{cmd}\n}} 2>&1"))
                .current_dir(&work)
                .env("PATH", &path)
                .output()
                .unwrap();
            let printed = String::from_utf8_lossy(&o.stdout);
            ran += 1;
            let code = o.status.code();
            if code != Some(e.exit) {
                failures.push(format!(
                    "README line {}: `{cmd}` exited {code:?}, expected {}:\n{printed}",
                    e.line, e.exit
                ));
            } else if let Err(missing) = shown_in_order(&e.shown, &printed) {
                failures.push(format!(
                    "README line {}: `{cmd}` did not print (in this order) the line\n  {missing}\nit printed:\n{printed}",
                    e.line
                ));
            }
            assert!(!printed.contains("panicked"), "{cmd}:\n{printed}");
        }
    }
    println!(
        "{ran} README commands run from {} blocks, {skipped} blocks skipped",
        blocks.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
    if shared.is_some() {
        assert!(ran >= 20, "only {ran} README commands ran");
    }
}

#[test]
fn readme_fits_in_ten_minutes() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(
        n <= README_MAX_LINES,
        "README.md has {n} lines (at most {README_MAX_LINES}); move design notes to docs/"
    );
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && l.starts_with('#') {
            out.push(anchor(l.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of `](target)` links in a Markdown text, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, l) in text.lines().enumerate() {
        let mut rest = l;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(j) = rest.find(')') {
                out.push((n + 1, rest[..j].to_string()));
                rest = &rest[j..];
            }
        }
    }
    out
}

/// Every relative link (and `#anchor`) in README.md and docs/*.md points at a file (and a
/// heading) that exists.
#[test]
fn readme_and_docs_links_resolve() {
    let mut files = vec![repo().join("README.md")];
    for e in std::fs::read_dir(repo().join("docs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path());
        }
    }
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, frag) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let dest = match path {
                "" => f.clone(),
                p => f.parent().unwrap().join(p),
            };
            checked += 1;
            let here = format!("{}:{line}: {target}", f.display());
            if !dest.exists() {
                bad.push(format!("{here}: no such file"));
                continue;
            }
            if let Some(frag) = frag {
                let t = std::fs::read_to_string(&dest).unwrap_or_default();
                if !anchors(&t).iter().any(|a| a == frag) {
                    bad.push(format!("{here}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(checked >= 10, "only {checked} links checked");
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

/// The parser this test relies on: continuations, shown output, exit comments.
#[test]
fn blocks_are_read_as_commands_and_output() {
    let md = "text\n```console\n$ psxrender a \\\n    b\none\n…\ntwo\n$ psxrender c  # exit 1\n```\n\
              ```sh\n# comment\npsxrender d ../shared/x\n\ncargo test --workspace\n```\n```rust\nx\n```\n";
    let b = blocks(md);
    assert_eq!(b.len(), 2);
    assert!(!b[0].needs_shared && b[1].needs_shared);
    let e = &b[0].examples;
    assert_eq!(e[0].command, "psxrender a \\\n    b");
    assert_eq!(e[0].shown, ["one", "…", "two"]);
    assert_eq!((e[1].exit, e[1].line), (1, 8));
    let cmds: Vec<Option<String>> = b[1].examples.iter().map(|e| runnable(&e.command)).collect();
    assert_eq!(cmds, [Some("psxrender d ../shared/x".to_string()), None]);
    assert!(shown_in_order(&e[0].shown, "one\nextra\ntwo\n").is_ok());
    assert_eq!(shown_in_order(&e[0].shown, "two\none\n"), Err("two"));
    assert_eq!(
        anchor("FF9 (Final Fantasy IX, PS1)"),
        "ff9-final-fantasy-ix-ps1"
    );
}
