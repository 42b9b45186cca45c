//! The text layer of ASCII MDL: lines with words, read in place, and the values on them.
//!
//! A line ends at LF, CR or CRLF (exporters write all three). A line is its offset and a slice of
//! the text, its words split when asked for, so reading a file allocates nothing per line or
//! word (a file of millions of one-word lines costs only what its nodes hold). Errors carry the
//! byte offset of the offending word; [`line_col`] turns it into the line and column a text
//! editor shows, only when a message needs it.

use std::borrow::Cow;

use super::FORMAT;
use crate::formats::error::{LoadError, Result};
use crate::read::text::quote;

/// Whether `b` ends a line. Most bytes are above `\r`, so one comparison settles them: the
/// line scans visit every byte of the file.
fn is_line_end(b: u8) -> bool {
    b <= b'\r' && (b == b'\n' || b == b'\r')
}

/// The 1-based line and column (in characters) of byte `off` of `text`; CRLF counts as one
/// line end.
pub(super) fn line_col(text: &str, off: u64) -> (usize, usize) {
    let off = (off as usize).min(text.len());
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut start = 0;
    for (i, &b) in bytes[..off].iter().enumerate() {
        let crlf = b == b'\r' && bytes.get(i + 1) == Some(&b'\n');
        if is_line_end(b) && !crlf {
            line += 1;
            start = i + 1;
        }
    }
    let col = text
        .get(start..off)
        .map_or(off - start, |s| s.chars().count());
    (line, col + 1)
}

/// One line that has words: where it starts, and its text (without its newline).
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    /// Byte offset of the line's start in the file.
    pub(super) off: u64,
    /// The line, without its line end.
    pub(super) text: &'a str,
}

impl<'a> Line<'a> {
    /// Its words, split as [`Words`] does.
    pub(super) fn words(&self) -> impl Iterator<Item = &'a str> {
        Words::new(self.text).map(|(w, _)| w)
    }

    /// Word `i`, if it has one.
    pub(super) fn word(&self, i: usize) -> Option<&'a str> {
        self.words().nth(i)
    }

    /// Word `i` with the byte offset where it starts in the file.
    pub(super) fn word_at(&self, i: usize) -> Option<(u64, &'a str)> {
        let w = self.word(i)?;
        Some((
            self.off + (w.as_ptr() as usize - self.text.as_ptr() as usize) as u64,
            w,
        ))
    }

    /// Byte offset of the end of the line's last word (where a missing value would go).
    fn end_off(&self) -> u64 {
        self.off + self.text.trim_end().len() as u64
    }

    /// Its first word (the keyword, or a list row's first value).
    pub(super) fn key(&self) -> &'a str {
        self.word(0).unwrap_or("")
    }
}

/// The lines of a text that have words, in order, read in place.
pub(super) struct Lines<'a> {
    text: &'a str,
    /// Where the next line is looked for.
    words: Words<'a>,
    /// The next line, when [`Lines::peek`] has read it.
    peeked: Option<Line<'a>>,
    /// A counted list's rows, read ahead to check its count (kept for its room).
    ahead: Vec<Line<'a>>,
}

/// Most rows of a counted list read ahead before its rows are read: past it, the lines left
/// are counted instead, so checking a count holds at most this many lines.
const AHEAD: usize = 1 << 16;

/// What a byte is to [`each_word`].
#[derive(Clone, Copy, PartialEq)]
enum Byte {
    /// Part of a word (a continuation byte of a character included).
    Word,
    /// ASCII white space other than a newline.
    Space,
    /// `\n` or `\r`, which end a line (CRLF is two line ends around no words).
    Newline,
    /// `#`, which starts a comment.
    Hash,
    /// The first byte of a non-ASCII character, which may be white space.
    Wide,
}

/// Each byte's class, looked up once per byte: the scan visits every byte of the file.
const BYTES: [Byte; 256] = {
    let mut t = [Byte::Word; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'\n' | b'\r' => Byte::Newline,
            b'\t' | 0x0b | 0x0c | b' ' => Byte::Space,
            b'#' => Byte::Hash,
            0xc0..=0xff => Byte::Wide,
            _ => Byte::Word,
        };
        b += 1;
    }
    t
};

/// The words of a text in order, each with whether it is its line's first. Words are separated
/// by white space (`char::is_whitespace`, as `str::split_whitespace`); a line's words end at its
/// first `#`, except that a line starting `#part-number` (after white space), the one comment
/// that carries data, is read whole, from `part-number` on.
#[derive(Clone)]
struct Words<'a> {
    text: &'a str,
    i: usize,
    /// Per line: no word yet, nothing but white space yet, and whether `#` ends the words.
    first: bool,
    blank: bool,
    hash_ends: bool,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Self {
        Words {
            text,
            i: 0,
            first: true,
            blank: true,
            hash_ends: true,
        }
    }

    /// The length of the white-space character at `i` (a `Wide` byte), or 0.
    fn wide_space(&self, i: usize) -> usize {
        match self.text[i..].chars().next() {
            Some(c) if c.is_whitespace() => c.len_utf8(),
            _ => 0,
        }
    }

    /// Goes on from byte `at`, a newline or the end of the text.
    fn resume_at(&mut self, at: usize) {
        self.i = at;
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = (&'a str, bool);

    fn next(&mut self) -> Option<(&'a str, bool)> {
        let bytes = self.text.as_bytes();
        while self.i < bytes.len() {
            let i = self.i;
            match BYTES[bytes[i] as usize] {
                Byte::Newline => {
                    (self.first, self.blank, self.hash_ends) = (true, true, true);
                    self.i += 1;
                    continue;
                }
                Byte::Space => {
                    self.i += 1;
                    continue;
                }
                Byte::Wide if self.wide_space(i) > 0 => {
                    self.i += self.wide_space(i);
                    continue;
                }
                Byte::Hash if self.hash_ends => {
                    if self.blank && bytes[i..].starts_with(b"#part-number") {
                        self.hash_ends = false;
                        self.i += 1;
                    } else {
                        self.i = (bytes[i..].iter().position(|&b| is_line_end(b)))
                            .map_or(bytes.len(), |n| i + n);
                        continue;
                    }
                }
                _ => {}
            }
            self.blank = false;
            let start = self.i;
            while self.i < bytes.len() {
                match BYTES[bytes[self.i] as usize] {
                    Byte::Word => self.i += 1,
                    Byte::Hash if !self.hash_ends => self.i += 1,
                    Byte::Wide if self.wide_space(self.i) == 0 => self.i += 1,
                    _ => break,
                }
            }
            let first = std::mem::replace(&mut self.first, false);
            return Some((&self.text[start..self.i], first));
        }
        None
    }
}

impl<'a> Lines<'a> {
    /// The lines of `text`.
    pub(super) fn new(text: &'a str) -> Self {
        Lines {
            text,
            words: Words::new(text),
            peeked: None,
            ahead: Vec::new(),
        }
    }

    /// Reads the next line with words: the line of the next word, which is always a line's
    /// first, as the rest of each line is skipped.
    fn scan(&mut self) -> Option<Line<'a>> {
        let (w, _) = self.words.next()?;
        let bytes = self.text.as_bytes();
        let at = w.as_ptr() as usize - self.text.as_ptr() as usize;
        let start = bytes[..at]
            .iter()
            .rposition(|&b| is_line_end(b))
            .map_or(0, |n| n + 1);
        let end =
            (bytes[at..].iter().position(|&b| is_line_end(b))).map_or(bytes.len(), |n| at + n);
        self.words.resume_at(end);
        Some(Line {
            off: start as u64,
            text: &self.text[start..end],
        })
    }

    pub(super) fn next(&mut self) -> Option<Line<'a>> {
        self.peeked.take().or_else(|| self.scan())
    }

    pub(super) fn peek(&mut self) -> Option<Line<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.scan();
        }
        self.peeked
    }

    /// The lines with words not yet taken, counted when asked (a file's lines are not
    /// counted unless a list's count needs it).
    pub(super) fn remaining(&self) -> usize {
        let mut rest = Lines {
            peeked: None,
            ahead: Vec::new(),
            words: self.words.clone(),
            ..*self
        };
        usize::from(self.peeked.is_some()) + std::iter::from_fn(|| rest.scan()).count()
    }

    /// Takes `count` data rows (or the rows up to `endlist` when `count` is `None`) and calls
    /// `row` on each in order: every row of the list is taken unless `row` fails.
    pub(super) fn each_row(
        &mut self,
        count: Option<usize>,
        at: u64,
        mut row: impl FnMut(Line<'a>) -> Result<()>,
    ) -> Result<()> {
        match count {
            Some(n) => {
                // The count is checked before any row is read: up to AHEAD rows are read
                // ahead (each line is then split once), the lines past them counted only for a
                // longer list.
                let mut ahead = std::mem::take(&mut self.ahead);
                ahead.clear();
                while ahead.len() < n.min(AHEAD) {
                    let Some(l) = self.next() else { break };
                    ahead.push(l);
                }
                let left = if ahead.len() < n.min(AHEAD) {
                    ahead.len()
                } else if n > AHEAD {
                    ahead.len() + self.remaining()
                } else {
                    n
                };
                if n > left {
                    return Err(LoadError::invalid(
                        FORMAT,
                        at,
                        format!("list of {n} rows but only {left} lines remain"),
                    ));
                }
                for &l in &ahead {
                    row(l)?;
                }
                for _ in ahead.len()..n {
                    row(self.next().expect("counted among the lines left"))?;
                }
                self.ahead = ahead;
            }
            None => loop {
                let Some(l) = self.next() else {
                    return Err(LoadError::invalid(FORMAT, at, "list without endlist"));
                };
                if l.key().eq_ignore_ascii_case("endlist") {
                    break;
                }
                row(l)?;
            },
        }
        Ok(())
    }

    /// Takes the rows of a `…key` list as [`Lines::each_row`] does, except that a counted list
    /// also ends at the first line that does not start with a number: exporters write a count
    /// with fewer rows (`detonatekey 1` followed by `endnode`), which rollnw reads as a shorter
    /// list.
    pub(super) fn each_key_row(
        &mut self,
        count: Option<usize>,
        at: u64,
        mut row: impl FnMut(Line<'a>) -> Result<()>,
    ) -> Result<()> {
        let Some(n) = count else {
            return self.each_row(None, at, row);
        };
        for _ in 0..n {
            match self.peek() {
                Some(l) if is_numeric(l.key()) => row(self.next().expect("peeked"))?,
                _ => break,
            }
        }
        Ok(())
    }
}

/// Value `i` of a line as a number; errors point at the word (or the line's end when missing).
pub(super) fn num(l: &Line, i: usize) -> Result<f32> {
    let w = l.word(i).ok_or_else(|| missing(l, i))?;
    parse_num(l, w)
}

/// Values `from..from + N` of a line as numbers, its words split once; the same values and
/// errors as [`num`] on each index in turn.
pub(super) fn nums<const N: usize>(l: &Line, from: usize) -> Result<[f32; N]> {
    let mut out = [0.0; N];
    let mut at = 0;
    each_num(l, from, N, |v| {
        out[at] = v;
        at += 1;
    })?;
    Ok(out)
}

/// Values `from..from + n` of a line as numbers, given to `f` in order, its words split once
/// (a row's words are read left to right, not re-split for each value); the errors are those of
/// [`num`] on each index in turn.
pub(super) fn each_num(l: &Line, from: usize, n: usize, mut f: impl FnMut(f32)) -> Result<()> {
    let mut words = l.words().skip(from);
    for i in from..from + n {
        let w = words.next().ok_or_else(|| missing(l, i))?;
        f(parse_num(l, w)?);
    }
    Ok(())
}

/// The error for a line without value `i`: at the end of its last word.
fn missing(l: &Line, i: usize) -> LoadError {
    LoadError::invalid(
        FORMAT,
        l.end_off(),
        format!("{}: value {i} missing", quote(l.key())),
    )
}

/// `w` as `str::parse::<f32>` reads it, whole numbers of up to 7 digits (face rows' indices)
/// summed directly: below 2^24, each is an f32 exactly, so the same bits.
fn to_f32(w: &str) -> std::result::Result<f32, std::num::ParseFloatError> {
    let b = w.as_bytes();
    if (1..=7).contains(&b.len()) && b.iter().all(u8::is_ascii_digit) {
        let n = b.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
        return Ok(n as f32);
    }
    w.parse::<f32>()
}

/// Word `w` of line `l` as a number; the error points at the word.
fn parse_num(l: &Line, w: &str) -> Result<f32> {
    // The word's offset is worked out only for an error: this runs for every value of a file.
    to_f32(w).map_err(|_| {
        let off = l.off + (w.as_ptr() as usize - l.text.as_ptr() as usize) as u64;
        LoadError::invalid(FORMAT, off, format!("{} is not a number", quote(w)))
    })
}

/// A list keyword's row count (word 1), or `None` when the list is ended by `endlist`.
pub(super) fn count(l: &Line) -> Result<Option<usize>> {
    match l.word_at(1) {
        None => Ok(None),
        Some((off, w)) => w.parse::<usize>().map(Some).map_err(|_| {
            LoadError::invalid(FORMAT, off, format!("{} is not a row count", quote(w)))
        }),
    }
}

/// `w` in ASCII lower case, borrowed when it already is (as most keywords are): every line's
/// keyword is matched in lower case.
pub(super) fn lower(w: &str) -> Cow<'_, str> {
    if w.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(w.to_ascii_lowercase())
    } else {
        Cow::Borrowed(w)
    }
}

/// Whether a word reads as a number (a data row's first value).
pub(super) fn is_numeric(w: &str) -> bool {
    to_f32(w).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as a list per line: the definition [`Lines`] must match.
    fn split_slowly(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut lines = Vec::new();
        let mut off = 0u64;
        for raw in text.split_inclusive(['\n', '\r']) {
            let trimmed = raw.trim_start();
            let content = if trimmed.starts_with("#part-number") {
                &trimmed[1..]
            } else {
                raw.split('#').next().unwrap_or("")
            };
            let words: Vec<String> = content.split_whitespace().map(String::from).collect();
            if !words.is_empty() {
                lines.push((off, words));
            }
            off += raw.len() as u64;
        }
        lines
    }

    fn split(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut lines = Lines::new(text);
        let counted = lines.remaining();
        let mut out = Vec::new();
        while let Some(l) = lines.next() {
            out.push((l.off, l.words().map(String::from).collect()));
            assert_eq!(lines.remaining(), counted - out.len());
        }
        assert_eq!(out.len(), counted, "{text:?}");
        out
    }

    #[test]
    fn lines_split_as_the_format_says() {
        for text in [
            "",
            "\n\n",
            "node dummy a\n  parent NULL\nendnode",
            "a b # c d\n# whole line\n  #part-number 3\n#part-number\t4 # x\n",
            "x #part-number 5\n  # part-number 6\n",
            "v 1\r\n\r\n\t2 3\u{b}4\u{a0}5\u{3000}6\n",
            "a\rb c\r\rd\r\n#part-number 2\r3",
            "tail without newline  ",
            "#\n#\n##part-number 1\n",
        ] {
            assert_eq!(split(text), split_slowly(text), "{text:?}");
        }
    }

    proptest::proptest! {
        /// Lines made of the pieces the splitter looks at split as the format says.
        #[test]
        fn split_and_slow_split_agree(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "#", "#part-number", "part-number", " ", "\t", "\r", "\n", "\r\n", "\u{b}", "\u{a0}",
                "\u{2003}", "\u{85}", "é", "x", "12", "endnode", "##",
            ]), 0..40)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(split(&text), split_slowly(&text), "{:?}", text);
        }
    }

    proptest::proptest! {
        /// Numbers read with the whole-number shortcut are the bits `str::parse` gives.
        #[test]
        fn numbers_read_as_str_parse_reads_them(
            w in "[0-9]{1,9}|[-+]?[0-9]{0,8}(\\.[0-9]{0,6})?(e[-+]?[0-9]{1,2})?|0x1|inf|nan|"
        ) {
            let want = w.parse::<f32>().map(f32::to_bits).ok();
            proptest::prop_assert_eq!(to_f32(&w).map(f32::to_bits).ok(), want, "{:?}", w);
        }
    }

    #[test]
    fn whole_numbers_read_exactly() {
        for n in (0..10_000_000u32)
            .step_by(9_973)
            .chain([0, 9, 16_777_215, 9_999_999])
        {
            for w in [n.to_string(), format!("{n:07}")] {
                assert_eq!(
                    to_f32(&w).map(f32::to_bits),
                    w.parse::<f32>().map(f32::to_bits),
                    "{w}"
                );
            }
        }
    }

    /// A list's rows are all taken whether or not its keyword is read, and a list without
    /// `endlist` is refused at its keyword's line.
    #[test]
    fn lists_take_all_their_rows() {
        let mut lines = Lines::new("a\n1\n2\nendlist\nb\n3\n");
        lines.next();
        lines.each_row(None, 0, |_| Ok(())).unwrap();
        assert_eq!(lines.next().unwrap().key(), "b");
        let e = lines.each_row(Some(2), 8, |_| Ok(())).unwrap_err();
        assert!(
            e.to_string()
                .contains("list of 2 rows but only 1 lines remain"),
            "{e}"
        );
        let e = lines.each_row(None, 8, |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("list without endlist"), "{e}");
    }

    /// A count past the rows read ahead is checked against the lines counted beyond them.
    #[test]
    fn long_lists_are_checked_whole() {
        let text = "1\n".repeat(AHEAD + 5) + "end\n";
        for (n, fits) in [(AHEAD + 6, true), (AHEAD + 7, false), (AHEAD - 1, true)] {
            let mut lines = Lines::new(&text);
            let mut rows = 0;
            let got = lines.each_row(Some(n), 0, |_| {
                rows += 1;
                Ok(())
            });
            if fits {
                assert!(got.is_ok(), "{n}");
                assert_eq!((rows, lines.remaining()), (n, AHEAD + 6 - n));
            } else {
                let e = got.unwrap_err().to_string();
                let want = format!("list of {n} rows but only {} lines remain", AHEAD + 6);
                assert!(e.contains(&want), "{e}");
                assert_eq!(rows, 0);
            }
        }
    }

    #[test]
    fn key_lists_end_at_a_word() {
        let mut lines = Lines::new("detonatekey 1\nendnode\npositionkey 2\n0 1 2 3\nendnode\n");
        lines.next();
        let mut rows = 0;
        lines
            .each_key_row(Some(1), 0, |_| {
                rows += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!((rows, lines.next().unwrap().key()), (0, "endnode"));
        lines.next();
        lines
            .each_key_row(Some(2), 0, |_| {
                rows += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!((rows, lines.next().unwrap().key()), (1, "endnode"));
    }

    #[test]
    fn lines_and_columns_count_crlf_once() {
        let text = "ab\r\ncd\reé\nf";
        for (off, want) in [
            (0, (1, 1)),
            (4, (2, 1)),
            (5, (2, 2)),
            (7, (3, 1)),
            (8, (3, 2)),
            (10, (3, 3)),
            (11, (4, 1)),
        ] {
            assert_eq!(line_col(text, off), want, "{off}");
        }
    }
}
