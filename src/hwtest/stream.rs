//! The plain-text GPU streams of `hwtests/FORMAT.md`: `gp0 HEX`, `gp1 HEX`, `frame`, and the
//! probe-file records `case NAME`, `probe X Y HEX TAG`, `probe-ne X Y HEX TAG`, `end`.
//! `#` starts a comment; blank lines are ignored; keywords this parser does not know are
//! skipped (so any text stream replays), but a known keyword with bad operands is an error.

use crate::read::{ErrorKind, LoadError, Result};

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
///
/// Lines of the form `gp0 HEX` / `gp1 HEX` in ASCII (spaces or tabs around the words, an
/// optional comment or further words after them) are read by `gp_word` straight from the
/// bytes: streams are millions of such lines, and splitting each into `&str` words and parsing
/// with `from_str_radix` cost four times as much. Every other line, and every such line the
/// fast reader does not take, goes through `parse_line`, which is the definition of the
/// format; the fast reader accepts a subset of it and gives the same item.
pub fn parse(text: &str) -> Result<Vec<Line>> {
    let mut out = Vec::with_capacity(likely_lines(text));
    each_line(text, |l| out.push(l))?;
    Ok(out)
}

/// A guess at how many items `text` holds, to reserve for them once: its GP0 lines are 13
/// bytes (`gp0 XXXXXXXX\n`). Reserved room that is never filled is address space, not memory.
pub fn likely_lines(text: &str) -> usize {
    text.len() / 12 + 1
}

/// [`parse`], handing each item to `f` in order instead of collecting them.
#[inline]
pub fn each_line(text: &str, mut f: impl FnMut(Line)) -> Result<()> {
    try_each_line(text, |l| {
        f(l);
        Ok(())
    })
}

/// [`each_line`] with a handler that can stop the reading: its first error is returned.
#[inline]
pub fn try_each_line(text: &str, mut f: impl FnMut(Line) -> Result<()>) -> Result<()> {
    let bytes = text.as_bytes();
    // A UTF-8 byte-order mark is not part of the first line (offsets stay the file's).
    let mut start = bytes.len() - crate::read::text::strip_bom(bytes).len();
    let mut line_no = 0;
    while start < bytes.len() {
        line_no += 1;
        let (item, next) = match gp_word(bytes, start) {
            Some(fast) => (Some(fast.0), fast.1),
            None => {
                let next = bytes[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| start + n + 1);
                (parse_line(&text[start..next], line_no, start)?, next)
            }
        };
        if let Some(item) = item {
            f(Line {
                line: line_no,
                offset: start,
                item,
            })?;
        }
        start = next;
    }
    Ok(())
}

/// Value of each byte as a hex digit; [`NOT_HEX`] for other bytes.
const HEX: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};
const NOT_HEX: u8 = 0xff;

/// The common line `gp0 HEX` / `gp1 HEX` starting at byte `start`: its item and where the next
/// line starts. `None` when the line is anything else or is written in a way left to
/// [`parse_line`] (other whitespace than space and tab before the word's end, a `+`, more than
/// 8 digits, a bad digit, a missing word): that function then gives the item or the error.
#[inline]
fn gp_word(bytes: &[u8], start: usize) -> Option<(Item, usize)> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut i = start;
    while i < bytes.len() && blank(bytes[i]) {
        i += 1;
    }
    let port = match bytes.get(i..i + 4)? {
        [b'g', b'p', b'0', b] if blank(*b) => 0,
        [b'g', b'p', b'1', b] if blank(*b) => 1,
        _ => return None,
    };
    i += 4;
    while i < bytes.len() && blank(bytes[i]) {
        i += 1;
    }
    let digits = i;
    let mut word = 0u32;
    while i < bytes.len() && i - digits < 8 {
        let d = HEX[bytes[i] as usize];
        if d == NOT_HEX {
            break;
        }
        word = word << 4 | d as u32;
        i += 1;
    }
    if i == digits {
        return None;
    }
    // The word must end here: the line's end, whitespace before more words, or a comment.
    let next = match bytes.get(i) {
        None => i,
        Some(b'\n') => i + 1,
        Some(&b) if blank(b) || b == b'\r' || b == b'#' => bytes[i..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| i + n + 1),
        Some(_) => return None,
    };
    Some((
        if port == 0 {
            Item::Gp0(word)
        } else {
            Item::Gp1(word)
        },
        next,
    ))
}

/// One line (`raw`, its newline included) numbered `line_no` starting at byte `start`: its
/// item, `None` for blank, comment-only and unknown-keyword lines.
fn parse_line(raw: &str, line_no: usize, start: usize) -> Result<Option<Item>> {
    use crate::read::text::quote;
    let content = raw.split('#').next().unwrap_or("").trim();
    let mut words = content.split_whitespace();
    let Some(keyword) = words.next() else {
        return Ok(None);
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
                .map_err(|_| bad(format!("{} is not a hex word", quote(hex))))?;
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
                    .ok_or_else(|| bad(format!("bad coordinate {}", quote(s))))
            };
            Item::Probe(Probe {
                x: num(fields[0], 1023)?,
                y: num(fields[1], 511)?,
                value: u16::from_str_radix(fields[2], 16)
                    .map_err(|_| bad(format!("{} is not a hex halfword", quote(fields[2]))))?,
                not_equal: keyword == "probe-ne",
                confirmed: fields.get(3).is_none_or(|t| *t != "todo"),
                line: line_no,
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(item))
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

/// Most cases one probe file may hold. Each case with probes is replayed on a GPU fresh from
/// power-on, its whole VRAM allocated and cleared, so the count bounds a run's time; the
/// upstream suites' files hold tens of cases.
pub const MAX_CASES: usize = 10_000;
/// Longest case name, bytes: names are `phase/test_name`, and every mismatch is reported with
/// its case's name, so a long name would be repeated once per failing probe.
pub const MAX_NAME: usize = 256;

/// Groups a parsed probe file into cases. Probes are evaluated after the case's last word (the
/// files put every probe after it).
pub fn cases(lines: &[Line]) -> Result<Vec<Case>> {
    let mut out = Vec::new();
    let mut cases = Grouping::default();
    for l in lines {
        cases.push(l.clone(), &mut |c| out.push(c))?;
    }
    out.extend(cases.current);
    Ok(out)
}

/// [`parse`] and [`cases`] in one pass, handing each case to `f` as soon as it ends (at `end`,
/// the next `case` or the end of the text): a caller that runs and drops each case holds one at
/// a time, however long the file.
pub fn each_case(text: &str, mut f: impl FnMut(Case)) -> Result<()> {
    let mut cases = Grouping::default();
    try_each_line(text, |l| cases.push(l, &mut f))?;
    if let Some(c) = cases.current {
        f(c);
    }
    Ok(())
}

/// Lines gathered into cases: the case being read and how many have begun.
#[derive(Default)]
struct Grouping {
    current: Option<Case>,
    begun: usize,
}

impl Grouping {
    /// Adds one line; a case it ends goes to `done`.
    fn push(&mut self, l: Line, done: &mut impl FnMut(Case)) -> Result<()> {
        let at = l.offset as u64;
        match l.item {
            Item::Case(name) => {
                if let Some(c) = self.current.take() {
                    done(c);
                }
                let too_large = |what, count: usize, max: usize| {
                    LoadError::new(
                        "probe file",
                        at,
                        ErrorKind::CountTooLarge {
                            what,
                            count: count as u64,
                            max: max as u64,
                        },
                    )
                };
                if self.begun >= MAX_CASES {
                    return Err(too_large("cases", self.begun + 1, MAX_CASES));
                }
                if name.len() > MAX_NAME {
                    return Err(too_large("case name bytes", name.len(), MAX_NAME));
                }
                self.begun += 1;
                self.current = Some(Case {
                    name,
                    stream: Vec::new(),
                    probes: Vec::new(),
                });
            }
            Item::End => {
                if let Some(c) = self.current.take() {
                    done(c);
                }
            }
            item => {
                let c = self.current.as_mut().ok_or_else(|| {
                    LoadError::invalid("probe file", at, format!("line {}: outside a case", l.line))
                })?;
                match item {
                    Item::Probe(p) => c.probes.push(p),
                    other => c.stream.push(other),
                }
            }
        }
        Ok(())
    }
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

    /// [`parse`] with every line through [`parse_line`]: the format's definition.
    fn parse_slowly(text: &str) -> Result<Vec<Line>> {
        let mut out = Vec::new();
        let mut offset = 0;
        for (i, raw) in text.split_inclusive('\n').enumerate() {
            if let Some(item) = parse_line(raw, i + 1, offset)? {
                out.push(Line {
                    line: i + 1,
                    offset,
                    item,
                });
            }
            offset += raw.len();
        }
        Ok(out)
    }

    #[test]
    fn fast_words_read_as_the_format_says() {
        for text in [
            "gp0 e1000400\n",
            "gp0 e1000400",
            "  gp1\t\t0 # c\n",
            "gp0 12\r\n",
            "gp0 12\r34\n",
            "gp0 12#c\ngp0 #12\n",
            "gp0 12 extra words\n",
            "gp0 000000001\n",
            "gp0 100000000\n",
            "gp0 +1f\n",
            "gp0 -1\n",
            "gp0 12g\n",
            "gp0\n12\n",
            "gp0",
            "gp0 ",
            "gp0 12\u{b}x\n",
            "gp0\u{a0}12\n",
            "\u{a0}gp0 12\n",
            "gp0 FFffFFff\n\n\ngp1 0",
            "gp00 1\nxgp0 1\n",
        ] {
            let fast = parse(text);
            let slow = parse_slowly(text);
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    proptest::proptest! {
        /// Lines made of the pieces the fast reader looks at parse as the format says.
        #[test]
        fn fast_and_slow_readers_agree(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "gp0", "gp1", "gp", " ", "\t", "\r", "\n", "#", "0", "9", "a", "F", "g", "+",
                "12345678", "\u{b}", "\u{a0}", "frame", "end", "x",
            ]), 0..40)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(parse(&text), parse_slowly(&text), "{:?}", text);
        }
    }

    #[test]
    fn bad_operands_name_the_line() {
        let e = parse("gp0 e1000400\ngp0 zz\n").unwrap_err();
        assert_eq!(e.offset, 13);
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(parse("probe 1024 0 0000 hw").is_err());
    }

    #[test]
    fn cases_are_handed_over_one_at_a_time_as_they_end() {
        let text = "case 1/a\ngp0 e1000400\nprobe 0 0 0000 hw\nend\ngp1 0 # outside\n";
        assert!(each_case(text, |_| {}).is_err());
        let text = "case 1/a\ngp0 e1000400\nprobe 0 0 0000 hw\ncase 1/b\nframe\nend\ncase 1/c\n";
        let mut seen = Vec::new();
        each_case(text, |c| seen.push(c)).unwrap();
        assert_eq!(seen, cases(&parse(text).unwrap()).unwrap());
        let names: Vec<_> = seen.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["1/a", "1/b", "1/c"]);
    }

    #[test]
    fn case_count_and_name_length_are_capped_at_the_case_line() {
        let case = "case 1/x\nend\n";
        let text = case.repeat(MAX_CASES + 1);
        let mut handed = 0;
        let e = each_case(&text, |_| handed += 1).unwrap_err();
        assert_eq!(handed, MAX_CASES);
        assert_eq!(e.offset, (MAX_CASES * case.len()) as u64);
        assert!(
            matches!(e.kind, ErrorKind::CountTooLarge { count, max, .. }
                if count == MAX_CASES as u64 + 1 && max == MAX_CASES as u64),
            "{e}"
        );
        assert!(cases(&parse(&text).unwrap()).is_err());
        each_case(&case.repeat(MAX_CASES), |_| {}).unwrap();

        let long = format!("end\ncase {}\nend\n", "n".repeat(MAX_NAME + 1));
        let e = each_case(&long, |_| {}).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
        each_case(&format!("case {}\n", "n".repeat(MAX_NAME)), |_| {}).unwrap();
    }
}
