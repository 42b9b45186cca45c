//! ASCII MDL parser (`#MAXMODEL ASCII`): the text form NWN's model compiler reads.
//!
//! Recognised: `newmodel`, `setsupermodel`, `classification`, `setanimationscale`,
//! `beginmodelgeom … endmodelgeom` with `node TYPE NAME … endnode` blocks (`parent`, `position`,
//! `orientation` (axis + angle in radians), `scale`, `bitmap`/`texture0..3`, `diffuse`, `render`,
//! `transparencyhint`, `verts`, `tverts`, `faces` (`v0 v1 v2 group t0 t1 t2 material`),
//! `weights` (bone name / weight pairs), `POSITIONkey`/`orientationkey`/`scalekey` with a row
//! count or ended by `endlist`, `…bezierkey`), and `newanim NAME MODEL … doneanim` blocks
//! (`length`, `transtime`, `animroot`, `event`, nodes). Unknown keywords and the data rows of
//! unknown list keywords are skipped. Errors name the byte offset of the offending line.
//!
//! The text is read in place, line by line: a line is its offset and a slice of the text, its
//! words split when asked for, so reading a file allocates nothing per line or word (a file of
//! millions of one-word lines costs only what its nodes hold).

mod node;

use super::mdl::{is_null_name, Animation, Mdl};
use crate::formats::error::{LoadError, Result};
use node::parse_nodes;

/// Format name in errors.
pub const FORMAT: &str = "NWN ASCII MDL";
/// Most nodes per geometry.
pub const MAX_NODES: usize = 4096;

/// One line that has words: where it starts, and its text (without its newline).
#[derive(Clone, Copy)]
struct Line<'a> {
    off: u64,
    text: &'a str,
}

impl<'a> Line<'a> {
    /// Its words, split as [`Words`] does.
    fn words(&self) -> impl Iterator<Item = &'a str> {
        Words::new(self.text).map(|(w, _)| w)
    }

    /// Word `i`, if it has one.
    fn word(&self, i: usize) -> Option<&'a str> {
        self.words().nth(i)
    }

    /// Its first word (the keyword, or a list row's first value).
    fn key(&self) -> &'a str {
        self.word(0).unwrap_or("")
    }
}

/// The lines of a text that have words, in order, read in place.
struct Lines<'a> {
    text: &'a str,
    /// Where the next line is looked for.
    words: Words<'a>,
    /// The next line, when [`Lines::peek`] has read it.
    peeked: Option<Line<'a>>,
    /// Lines with words not yet taken.
    left: usize,
}

/// What a byte is to [`each_word`].
#[derive(Clone, Copy, PartialEq)]
enum Byte {
    /// Part of a word (a continuation byte of a character included).
    Word,
    /// ASCII white space other than a newline.
    Space,
    /// `\n`, which ends a line.
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
            b'\n' => Byte::Newline,
            b'\t' | 0x0b | 0x0c | b'\r' | b' ' => Byte::Space,
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
                        self.i = (bytes[i..].iter().position(|&b| b == b'\n'))
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
    /// The lines of `text` (counted first, for [`Lines::remaining`]).
    fn new(text: &'a str) -> Self {
        let fresh = || Lines {
            text,
            words: Words::new(text),
            peeked: None,
            left: 0,
        };
        let mut counting = fresh();
        let left = std::iter::from_fn(|| counting.scan()).count();
        Lines { left, ..fresh() }
    }

    /// Reads the next line with words: the line of the next word, which is always a line's
    /// first, as the rest of each line is skipped.
    fn scan(&mut self) -> Option<Line<'a>> {
        let (w, _) = self.words.next()?;
        let bytes = self.text.as_bytes();
        let at = w.as_ptr() as usize - self.text.as_ptr() as usize;
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let end = (bytes[at..].iter().position(|&b| b == b'\n')).map_or(bytes.len(), |n| at + n);
        self.words.resume_at(end);
        Some(Line {
            off: start as u64,
            text: &self.text[start..end],
        })
    }

    fn next(&mut self) -> Option<Line<'a>> {
        let l = self.peeked.take().or_else(|| self.scan())?;
        self.left -= 1;
        Some(l)
    }

    fn peek(&mut self) -> Option<Line<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.scan();
        }
        self.peeked
    }

    fn remaining(&self) -> usize {
        self.left
    }

    /// Takes `count` data rows (or the rows up to `endlist` when `count` is `None`) and calls
    /// `row` on each in order: every row of the list is taken unless `row` fails.
    fn each_row(
        &mut self,
        count: Option<usize>,
        at: u64,
        mut row: impl FnMut(Line<'a>) -> Result<()>,
    ) -> Result<()> {
        match count {
            Some(n) => {
                if n > self.remaining() {
                    return Err(LoadError::invalid(
                        FORMAT,
                        at,
                        format!(
                            "list of {n} rows but only {} lines remain",
                            self.remaining()
                        ),
                    ));
                }
                for _ in 0..n {
                    row(self.next().expect("counted among the lines left"))?;
                }
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
}

fn num(l: &Line, i: usize) -> Result<f32> {
    let w = l.word(i).ok_or_else(|| {
        LoadError::invalid(FORMAT, l.off, format!("'{}': value {i} missing", l.key()))
    })?;
    w.parse::<f32>()
        .map_err(|_| LoadError::invalid(FORMAT, l.off, format!("'{w}' is not a number")))
}

fn nums(l: &Line, from: usize, n: usize) -> Result<Vec<f32>> {
    (from..from + n).map(|i| num(l, i)).collect()
}

fn count(l: &Line) -> Result<Option<usize>> {
    match l.word(1) {
        None => Ok(None),
        Some(w) => w
            .parse::<usize>()
            .map(Some)
            .map_err(|_| LoadError::invalid(FORMAT, l.off, format!("'{w}' is not a row count"))),
    }
}

fn is_numeric(w: &str) -> bool {
    w.parse::<f32>().is_ok()
}

/// Parses an ASCII MDL; recoverable problems go to `warnings`.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl> {
    let text = String::from_utf8_lossy(data);
    let mut lines = Lines::new(&text);
    let mut mdl = Mdl {
        name: String::new(),
        supermodel: None,
        classification: 0,
        animation_scale: 1.0,
        header_node_count: 0,
        nodes: Vec::new(),
        animations: Vec::new(),
        ascii: true,
    };
    let mut saw_geometry = false;
    while let Some(l) = lines.next() {
        let key = l.key().to_ascii_lowercase();
        let off = l.off;
        let arg = |i: usize| l.word(i).unwrap_or("").to_string();
        match key.as_str() {
            "newmodel" => mdl.name = arg(1),
            "setsupermodel" => {
                let s = arg(2);
                mdl.supermodel = (!is_null_name(&s)).then_some(s);
            }
            "classification" => {
                mdl.classification = match arg(1).to_ascii_lowercase().as_str() {
                    "effect" => 1,
                    "tile" => 2,
                    "character" => 4,
                    "door" => 8,
                    _ => 0,
                }
            }
            "setanimationscale" => {
                let s = num(&l, 1)?;
                if s.is_finite() && s > 0.0 {
                    mdl.animation_scale = s;
                }
            }
            "beginmodelgeom" => {
                mdl.nodes = parse_nodes(&mut lines, "endmodelgeom", off, warnings)?;
                saw_geometry = true;
            }
            "newanim" => {
                let name = arg(1);
                let mut anim = Animation {
                    name,
                    length: 0.0,
                    transtime: 0.25,
                    root: String::new(),
                    events: Vec::new(),
                    nodes: Vec::new(),
                };
                parse_anim(&mut lines, &mut anim, off)?;
                mdl.animations.push(anim);
            }
            _ => {}
        }
    }
    if !saw_geometry {
        return Err(LoadError::invalid(FORMAT, 0, "no beginmodelgeom block"));
    }
    if mdl.nodes.is_empty() {
        return Err(LoadError::invalid(FORMAT, 0, "model geometry has no nodes"));
    }
    mdl.header_node_count = mdl.nodes.len() as u32;
    Ok(mdl)
}

fn parse_anim(lines: &mut Lines<'_>, anim: &mut Animation, at: u64) -> Result<()> {
    // Header lines up to the first node, then nodes until doneanim.
    loop {
        let Some(l) = lines.peek() else {
            return Err(LoadError::invalid(FORMAT, at, "newanim without doneanim"));
        };
        let key = l.key().to_ascii_lowercase();
        let l = &l;
        match key.as_str() {
            "length" => anim.length = num(l, 1)?.max(0.0),
            "transtime" => anim.transtime = num(l, 1)?,
            "animroot" => anim.root = l.word(1).unwrap_or("").to_string(),
            "event" => anim
                .events
                .push((num(l, 1)?, l.word(2).unwrap_or("").to_string())),
            "node" | "doneanim" => break,
            _ => {}
        }
        lines.next();
    }
    // Animation nodes are matched to the model by name; their parent links do not matter, so
    // problems with them are not reported.
    anim.nodes = parse_nodes(lines, "doneanim", at, &mut Vec::new())?;
    if !anim.length.is_finite() {
        anim.length = 0.0;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as a list per line: the definition [`Lines`] must match.
    fn split_slowly(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut lines = Vec::new();
        let mut off = 0u64;
        for raw in text.split_inclusive('\n') {
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
                "#", "#part-number", "part-number", " ", "\t", "\r", "\n", "\u{b}", "\u{a0}",
                "\u{2003}", "\u{85}", "é", "x", "12", "endnode", "##",
            ]), 0..40)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(split(&text), split_slowly(&text), "{:?}", text);
        }
    }

    #[test]
    fn lines_are_read_in_place() {
        // A line per word: each line a slice of the text, not a copy; peeking takes nothing.
        let text = "newmodel m\nbeginmodelgeom m\n".to_string() + &"x\n".repeat(10_000);
        let mut lines = Lines::new(&text);
        assert_eq!(lines.remaining(), 10_002);
        let peeked = lines.peek().unwrap();
        assert_eq!((peeked.off, peeked.key()), (0, "newmodel"));
        assert_eq!(lines.remaining(), 10_002);
        let range = text.as_bytes().as_ptr_range();
        while let Some(l) = lines.next() {
            assert!(range.contains(&l.text.as_ptr()));
            assert_eq!(&text[l.off as usize..][..l.text.len()], l.text);
        }
        let e = parse(text.as_bytes(), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("block without endmodelgeom"), "{e}");
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
}
