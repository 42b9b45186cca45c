//! GTE hardware vectors (`hwtests/FORMAT.md` §2): parse the `case`/`in`/`set`/`cmd`/`out`/
//! `expect`/`end` text files and replay them through the emulated [`gte::Gte`], reporting every
//! mismatching register by its psx-spx name.
//!
//! Each case starts from a zeroed GTE ([`gte::Gte::new`]); steps run in file order. `in` writes
//! r0..r63 in index order (with their side effects), `set` one register, `cmd` executes a
//! COP2 word (`cmd none` nothing), `out` compares all 64 read-backs, `expect` one masked read.

use std::fmt;
use std::path::Path;

use gte::{Gte, REG_NAMES};

use crate::read::{read_file, ErrorKind, LoadError, Result};

const FORMAT: &str = "GTE vectors";
/// Most cases accepted in one file (the largest known file has 1150).
pub const MAX_CASES: usize = 100_000;
/// Most steps accepted in one case.
pub const MAX_STEPS: usize = 10_000;

/// One line of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `in`: write r0..r63 in index order.
    In(Box<[u32; 64]>),
    /// `set REG HEX`: write one register (0..31 MTC2, 32..63 CTC2).
    Set {
        /// Register 0..63.
        reg: usize,
        /// Value written.
        value: u32,
    },
    /// `cmd HEX` / `cmd none`.
    Cmd(Option<u32>),
    /// `out`: all 64 registers must read back as given.
    Out(Box<[u32; 64]>),
    /// `expect REG HEX [mask HEX]`: `(read & mask) == (value & mask)`.
    Expect {
        /// Register 0..63.
        reg: usize,
        /// Expected value.
        value: u32,
        /// Bits compared.
        mask: u32,
    },
}

/// A step with the 1-based line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLine {
    /// Line number (1-based).
    pub line: usize,
    /// What the line does.
    pub step: Step,
}

/// One `case … end` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The case id (first word after `case`).
    pub id: String,
    /// The operation name(s) (`RTPS`, `NONE`, `A+B`), as written.
    pub op: String,
    /// Line of the `case` keyword.
    pub line: usize,
    /// The steps, in file order.
    pub steps: Vec<StepLine>,
}

/// A register that read back wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Register 0..63.
    pub reg: usize,
    /// What the emulated GTE read back.
    pub got: u32,
    /// What the hardware read back.
    pub expected: u32,
    /// Bits compared.
    pub mask: u32,
    /// The `out`/`expect` line.
    pub line: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<8} (r{:<2}) got {:08x} expected {:08x}",
            REG_NAMES[self.reg], self.reg, self.got, self.expected
        )?;
        if self.mask != u32::MAX {
            write!(f, " mask {:08x}", self.mask)?;
        }
        write!(
            f,
            " (xor {:08x}, line {})",
            (self.got ^ self.expected) & self.mask,
            self.line
        )
    }
}

/// Parses a whole vector file.
pub fn parse(text: &str) -> Result<Vec<Case>> {
    let mut cases: Vec<Case> = Vec::new();
    let mut open: Option<Case> = None;
    let mut offset = 0u64;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let (line, start) = (i + 1, offset);
        offset += raw.len() as u64;
        let content = raw.split('#').next().unwrap_or("").trim();
        let mut words = content.split_whitespace();
        let Some(keyword) = words.next() else {
            continue;
        };
        let bad = |msg: String| LoadError::invalid(FORMAT, start, format!("line {line}: {msg}"));
        let hex = |w: Option<&str>, what: &str| -> Result<u32> {
            let w = w.ok_or_else(|| bad(format!("{keyword}: missing {what}")))?;
            u32::from_str_radix(w, 16).map_err(|_| bad(format!("{what} '{w}' is not hex")))
        };
        let reg = |w: Option<&str>| -> Result<usize> {
            let w = w.ok_or_else(|| bad(format!("{keyword}: missing register")))?;
            w.parse::<usize>()
                .ok()
                .filter(|&r| r < 64)
                .ok_or_else(|| bad(format!("register '{w}' is not 0..63")))
        };
        if keyword == "case" {
            if open.is_some() {
                return Err(bad("case inside a case (missing end)".into()));
            }
            if cases.len() >= MAX_CASES {
                return Err(LoadError::new(
                    FORMAT,
                    start,
                    ErrorKind::CountTooLarge {
                        what: "cases",
                        count: cases.len() as u64 + 1,
                        max: MAX_CASES as u64,
                    },
                ));
            }
            let id = words.next().ok_or_else(|| bad("case needs an id".into()))?;
            open = Some(Case {
                id: id.to_string(),
                op: words.next().unwrap_or("").to_string(),
                line,
                steps: Vec::new(),
            });
            continue;
        }
        let Some(case) = open.as_mut() else {
            return Err(bad(format!("'{keyword}' outside a case")));
        };
        let step = match keyword {
            "end" => {
                cases.extend(open.take());
                continue;
            }
            "in" | "out" => {
                let mut regs = Box::new([0u32; 64]);
                for r in regs.iter_mut() {
                    *r = hex(words.next(), "register value")?;
                }
                if words.next().is_some() {
                    return Err(bad(format!("{keyword} has more than 64 values")));
                }
                if keyword == "in" {
                    Step::In(regs)
                } else {
                    Step::Out(regs)
                }
            }
            "set" => Step::Set {
                reg: reg(words.next())?,
                value: hex(words.next(), "value")?,
            },
            "cmd" => match words.next() {
                Some("none") => Step::Cmd(None),
                w => Step::Cmd(Some(hex(w, "command word")?)),
            },
            "expect" => {
                let reg = reg(words.next())?;
                let value = hex(words.next(), "value")?;
                let mask = match words.next() {
                    None => u32::MAX,
                    Some("mask") => hex(words.next(), "mask")?,
                    Some(w) => return Err(bad(format!("expected 'mask', found '{w}'"))),
                };
                Step::Expect { reg, value, mask }
            }
            _ => return Err(bad(format!("unknown keyword '{keyword}'"))),
        };
        if case.steps.len() >= MAX_STEPS {
            return Err(LoadError::new(
                FORMAT,
                start,
                ErrorKind::CountTooLarge {
                    what: "steps in a case",
                    count: case.steps.len() as u64 + 1,
                    max: MAX_STEPS as u64,
                },
            ));
        }
        case.steps.push(StepLine { line, step });
    }
    if let Some(case) = open {
        return Err(LoadError::invalid(
            FORMAT,
            offset,
            format!("case {} (line {}) has no end", case.id, case.line),
        ));
    }
    if cases.is_empty() {
        // A file that checks nothing must not read as passing.
        return Err(LoadError::invalid(
            FORMAT,
            0,
            "no `case` blocks: nothing to check (is this a GTE vector file?)",
        ));
    }
    Ok(cases)
}

/// Replays one case from a zeroed GTE; returns every mismatching read, in order.
pub fn run_case(case: &Case) -> Vec<Mismatch> {
    let mut gte = Gte::new();
    let mut bad = Vec::new();
    for StepLine { line, step } in &case.steps {
        let mut check = |gte: &Gte, reg: usize, expected: u32, mask: u32| {
            let got = gte.read_reg(reg);
            if (got ^ expected) & mask != 0 {
                bad.push(Mismatch {
                    reg,
                    got,
                    expected,
                    mask,
                    line: *line,
                });
            }
        };
        match step {
            Step::In(regs) => gte.write_all(regs),
            Step::Set { reg, value } => gte.write_reg(*reg, *value),
            Step::Cmd(Some(word)) => gte.execute(*word),
            Step::Cmd(None) => {}
            Step::Out(regs) => {
                for (reg, &v) in regs.iter().enumerate() {
                    check(&gte, reg, v, u32::MAX);
                }
            }
            Step::Expect { reg, value, mask } => check(&gte, *reg, *value, *mask),
        }
    }
    bad
}

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// Case id.
    pub id: String,
    /// Operation name(s).
    pub op: String,
    /// Every wrong read (empty = pass).
    pub mismatches: Vec<Mismatch>,
}

/// The outcome of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// Every case, in file order.
    pub cases: Vec<CaseResult>,
}

impl FileReport {
    /// Cases without mismatches.
    pub fn passed(&self) -> usize {
        self.cases
            .iter()
            .filter(|c| c.mismatches.is_empty())
            .count()
    }
    /// Cases with mismatches.
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }
    /// Every failing case with each wrong register on its own line (psx-spx name, hex).
    pub fn failures(&self) -> String {
        let mut s = String::new();
        for c in self.cases.iter().filter(|c| !c.mismatches.is_empty()) {
            s += &format!(
                "case {} {}: {} register(s) wrong\n",
                c.id,
                c.op,
                c.mismatches.len()
            );
            for m in &c.mismatches {
                s += &format!("  {m}\n");
            }
        }
        s
    }
}

/// Runs every case of parsed `cases`.
pub fn run_cases(cases: &[Case]) -> FileReport {
    FileReport {
        cases: cases
            .iter()
            .map(|c| CaseResult {
                id: c.id.clone(),
                op: c.op.clone(),
                mismatches: run_case(c),
            })
            .collect(),
    }
}

/// Reads, parses and runs a vector file.
pub fn run_file(path: &Path) -> Result<FileReport> {
    let bytes = read_file(path, FORMAT)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        LoadError::invalid(FORMAT, e.valid_up_to() as u64, "not UTF-8 text").in_file(path)
    })?;
    let cases = parse(text).map_err(|e| e.in_file(path))?;
    Ok(run_cases(&cases))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_by_name() {
        let text = "# c\ncase 1 NCLIP\nset 12 00000000\nset 13 00000010 # x=16\nset 14 00100000\n\
                    cmd 4a001406\nexpect 24 00000100\nexpect 24 00000000 mask 0000ff00\nend\n";
        let cases = parse(text).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].steps.len(), 6);
        let report = run_cases(&cases);
        assert_eq!(report.passed(), 0, "{}", report.failures());
        let m = &report.cases[0].mismatches;
        assert_eq!(m.len(), 1, "{}", report.failures());
        assert_eq!((m[0].reg, m[0].got, m[0].expected), (24, 0x100, 0));
        assert!(report.failures().contains("MAC0"), "{}", report.failures());
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        for (text, needle) in [
            ("case 1 X\nset 64 0\nend\n", "0..63"),
            ("case 1 X\nin 0 0\nend\n", "missing"),
            ("set 1 0\n", "outside"),
            ("case 1 X\ncmd zz\nend\n", "not hex"),
            ("case 1 X\n", "no end"),
            ("case 1 X\nfoo\nend\n", "unknown"),
            ("# only a comment\n", "no `case` blocks"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.to_string().contains(needle), "{text:?}: {e}");
        }
    }
}
