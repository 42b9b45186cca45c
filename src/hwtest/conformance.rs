//! Probe-file conformance runs: each case of a `gpu-probes` file (`hwtests/FORMAT.md` §1) is
//! replayed from power-on through the emulated GPU and its VRAM probes are checked.
//!
//! Counting: a case is `hw` when it has at least one `hw` probe; it passes when every `hw`
//! probe matches. `todo` probes (values upstream has not confirmed on hardware) are counted
//! apart and never fail a run.

use std::path::Path;
use std::sync::Arc;

use gpu::Gpu;

use crate::hwtest::stream::{each_case, Case, Item, Probe};
use crate::read::{LoadError, Result};

/// One probe that did not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Case name, shared by the case's mismatches.
    pub case: Arc<str>,
    /// The probe.
    pub probe: Probe,
    /// The halfword found in VRAM.
    pub got: u16,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.probe;
        write!(
            f,
            "{}: ({}, {}) expected {}{:04x}, got {:04x}{}",
            self.case,
            p.x,
            p.y,
            if p.not_equal { "not " } else { "" },
            p.value,
            self.got,
            if p.confirmed { "" } else { " [todo]" }
        )
    }
}

/// Results of one probe file (or any set of cases).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// `hw` cases whose every `hw` probe matched.
    pub passed: usize,
    /// `hw` cases with at least one wrong `hw` probe.
    pub failed: usize,
    /// `todo` probes that matched.
    pub todo_passed: usize,
    /// `todo` probes that did not match.
    pub todo_failed: usize,
    /// Every wrong probe, `todo` ones included, in file order.
    pub mismatches: Vec<Mismatch>,
}

impl Report {
    /// Adds another report's counts and mismatches.
    pub fn merge(&mut self, other: Report) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.todo_passed += other.todo_passed;
        self.todo_failed += other.todo_failed;
        self.mismatches.extend(other.mismatches);
    }
}

/// Feeds the GP0/GP1 items of a stream to `gpu` (`frame` and probe records do nothing).
pub fn replay(gpu: &mut Gpu, items: &[Item]) {
    for item in items {
        match item {
            Item::Gp0(w) => gpu.gp0(*w),
            Item::Gp1(w) => gpu.gp1(*w),
            _ => {}
        }
    }
}

/// Runs one case on a fresh GPU with `threads` rasteriser threads (0 = all, 1 = serial).
pub fn run_case(case: &Case, threads: usize) -> Report {
    let mut gpu = Gpu::new();
    gpu.set_threads(gpu::Threads::from_count(threads));
    // A case is a few primitives: every batch is drawn in bands, so threaded runs test them.
    gpu.set_parallel_min_load(0);
    replay(&mut gpu, &case.stream);
    let vram = gpu.vram();
    let mut r = Report::default();
    let mut hw = false;
    let mut ok = true;
    let mut name: Option<Arc<str>> = None;
    for p in &case.probes {
        let got = vram[p.y as usize * gpu::VRAM_WIDTH + p.x as usize];
        let pass = (got == p.value) != p.not_equal;
        if p.confirmed {
            hw = true;
            ok &= pass;
        } else if pass {
            r.todo_passed += 1;
        } else {
            r.todo_failed += 1;
        }
        if !pass {
            r.mismatches.push(Mismatch {
                case: name
                    .get_or_insert_with(|| Arc::from(case.name.as_str()))
                    .clone(),
                probe: p.clone(),
                got,
            });
        }
    }
    if hw {
        if ok {
            r.passed += 1;
        } else {
            r.failed += 1;
        }
    }
    r
}

/// Runs every case of probe-file text. The whole text is read once first, so a file with an
/// error anywhere costs no replay; then each case is run as it is read again, so a run holds one
/// case at a time. A case without probes checks nothing and is not replayed.
pub fn run_text(text: &str, threads: usize) -> Result<Report> {
    let mut any = false;
    each_case(text, |_| any = true)?;
    if !any {
        // A file that checks nothing must not read as passing.
        return Err(LoadError::invalid(
            "probe file",
            0,
            "no `case` blocks: nothing to check (is this a probe file?)",
        ));
    }
    let mut total = Report::default();
    each_case(text, |c| {
        if !c.probes.is_empty() {
            total.merge(run_case(&c, threads));
        }
    })?;
    Ok(total)
}

/// Reads and runs a probe file.
pub fn run_file(path: &Path, threads: usize) -> Result<Report> {
    let bytes = crate::read::read_file(path, "probe")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        LoadError::invalid(
            "probe file",
            e.utf8_error().valid_up_to() as u64,
            "not UTF-8",
        )
        .in_file(path)
    })?;
    run_text(&text, threads).map_err(|e| e.in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_hw_and_todo_apart() {
        let text = "case a\ngp0 020000f8\ngp0 00000000\ngp0 00010010\nprobe 0 0 001f hw\nprobe 1 0 0000 todo\nend\n\
                    case b\ngp0 020000f8\ngp0 00000000\ngp0 00010010\nprobe 0 0 0000 hw\nend\n";
        let r = run_text(text, 1).unwrap();
        assert_eq!(
            (r.passed, r.failed, r.todo_passed, r.todo_failed),
            (1, 1, 0, 1)
        );
        assert_eq!(r.mismatches.len(), 2);
        assert_eq!(r.mismatches[1].got, 0x001f);
    }

    #[test]
    fn a_case_name_is_held_once_however_many_probes_fail() {
        let text = format!(
            "case {}\ngp0 020000f8\ngp0 00000000\ngp0 00010010\n{}end\n",
            "n".repeat(200),
            "probe 0 0 0000 hw\n".repeat(1000)
        );
        let r = run_text(&text, 1).unwrap();
        assert_eq!(r.mismatches.len(), 1000);
        let first = &r.mismatches[0].case;
        assert!(r.mismatches.iter().all(|m| Arc::ptr_eq(&m.case, first)));
    }

    #[test]
    fn files_without_probes_still_need_a_case() {
        assert!(run_text("gp0 0\n", 1).is_err());
        let r = run_text(&"case 1/x\nend\n".repeat(1000), 1).unwrap();
        assert_eq!(r, Report::default());
    }
}
