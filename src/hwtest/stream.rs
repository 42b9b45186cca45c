//! The plain-text GPU streams of `hwtests/FORMAT.md`: `gp0 HEX`, `gp1 HEX`, `frame`, and the
//! probe-file records `case NAME`, `probe X Y HEX TAG`, `probe-ne X Y HEX TAG`, `end`.
//! `#` starts a comment; blank lines are ignored; keywords this parser does not know are
//! skipped (so any text stream replays), but a known keyword with bad operands is an error.

use crate::formats::{LoadError, Result};

/// One meaningful line of a stream or probe file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A word for GP0.
    Gp0(u32),
    /// A word for GP1.
    Gp1(u32),
    /// End of one frame (VSync).
    Frame,
    /// Start of a probe case.
    Case(String),
    /// A VRAM check.
    Probe(Probe),
    /// End of a probe case.
    End,
}

/// A check of one VRAM halfword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// VRAM x (0..1023).
    pub x: u16,
    /// VRAM y (0..511).
    pub y: u16,
    /// The expected halfword, mask bit included.
    pub value: u16,
    /// `probe-ne`: the halfword must differ from `value`.
    pub not_equal: bool,
    /// `hw` (confirmed on a console) or `todo` (not yet confirmed).
    pub confirmed: bool,
    /// 1-based line number in the file.
    pub line: usize,
}

/// An item with the 1-based line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Line number (1-based).
    pub line: usize,
    /// Byte offset of the line's start.
    pub offset: usize,
    /// What the line says.
    pub item: Item,
}

/// Parses a whole text stream or probe file.
pub fn parse(text: &str) -> Result<Vec<Line>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = i + 1;
        let start = offset;
        offset += raw.len();
        let content = raw.split('#').next().unwrap_or("").trim();
        let mut words = content.split_whitespace();
        let Some(keyword) = words.next() else {
            continue;
        };
        let bad = |msg: String| {
            LoadError::invalid("GPU stream", start as u64, format!("line {line_no}: {msg}"))
        };
        let item = match keyword {
            "gp0" | "gp1" => {
                let hex = words
                    .next()
                    .ok_or_else(|| bad(format!("{keyword} needs a word")))?;
                let word = u32::from_str_radix(hex, 16)
                    .map_err(|_| bad(format!("'{hex}' is not a hex word")))?;
                if keyword == "gp0" {
                    Item::Gp0(word)
                } else {
                    Item::Gp1(word)
                }
            }
            "frame" => Item::Frame,
            "end" => Item::End,
            "case" => Item::Case(words.collect::<Vec<_>>().join(" ")),
            "probe" | "probe-ne" => {
                let fields: Vec<&str> = words.collect();
                if fields.len() < 3 {
                    return Err(bad(format!("{keyword} needs X Y HEX [hw|todo]")));
                }
                let num = |s: &str, max: u16| {
                    s.parse::<u16>()
                        .ok()
                        .filter(|&v| v <= max)
                        .ok_or_else(|| bad(format!("bad coordinate '{s}'")))
                };
                Item::Probe(Probe {
                    x: num(fields[0], 1023)?,
                    y: num(fields[1], 511)?,
                    value: u16::from_str_radix(fields[2], 16)
                        .map_err(|_| bad(format!("'{}' is not a hex halfword", fields[2])))?,
                    not_equal: keyword == "probe-ne",
                    confirmed: fields.get(3).is_none_or(|t| *t != "todo"),
                    line: line_no,
                })
            }
            _ => continue,
        };
        out.push(Line {
            line: line_no,
            offset: start,
            item,
        });
    }
    Ok(out)
}

/// One probe case: its name, its GP0/GP1 words in order, and its checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// `phase/test_name`.
    pub name: String,
    /// The stream, from reset (only `Gp0`/`Gp1`/`Frame` items).
    pub stream: Vec<Item>,
    /// The checks, evaluated after the whole stream.
    pub probes: Vec<Probe>,
}

/// Groups a parsed probe file into cases. Probes are evaluated after the case's last word (the
/// files put every probe after it).
pub fn cases(lines: &[Line]) -> Result<Vec<Case>> {
    let mut out: Vec<Case> = Vec::new();
    let mut current: Option<Case> = None;
    for l in lines {
        match &l.item {
            Item::Case(name) => {
                if let Some(c) = current.take() {
                    out.push(c);
                }
                current = Some(Case {
                    name: name.clone(),
                    stream: Vec::new(),
                    probes: Vec::new(),
                });
            }
            Item::End => {
                if let Some(c) = current.take() {
                    out.push(c);
                }
            }
            item => {
                let c = current.as_mut().ok_or_else(|| {
                    LoadError::invalid(
                        "probe file",
                        l.offset as u64,
                        format!("line {}: outside a case", l.line),
                    )
                })?;
                match item {
                    Item::Probe(p) => c.probes.push(p.clone()),
                    other => c.stream.push(other.clone()),
                }
            }
        }
    }
    out.extend(current);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_streams_and_probes() {
        let text = "# c\ncase 1/a\ngp1 00000000\ngp0 e1000400 # tail\n\nframe\nprobe 3 4 801f hw\nprobe-ne 1 2 dead todo\nend\nfoo bar\n";
        let lines = parse(text).unwrap();
        assert_eq!(lines.len(), 7);
        assert_eq!(lines[2].item, Item::Gp0(0xe100_0400));
        assert_eq!(lines[2].line, 4);
        let cs = cases(&lines).unwrap();
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].name, "1/a");
        assert_eq!(
            cs[0].stream,
            vec![Item::Gp1(0), Item::Gp0(0xe100_0400), Item::Frame]
        );
        assert_eq!(cs[0].probes.len(), 2);
        assert!(cs[0].probes[0].confirmed && !cs[0].probes[1].confirmed);
        assert!(cs[0].probes[1].not_equal);
    }

    #[test]
    fn bad_operands_name_the_line() {
        let e = parse("gp0 e1000400\ngp0 zz\n").unwrap_err();
        assert_eq!(e.offset, 13);
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(parse("probe 1024 0 0000 hw").is_err());
    }
}
