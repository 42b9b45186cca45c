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
//! The text is read into one list of its words, each line a run of that list: a line costs a
//! fixed number of bytes and no allocation of its own, however many lines a file has.

mod node;

use super::mdl::{is_null_name, Animation, Mdl};
use crate::formats::error::{LoadError, Result};
use node::parse_nodes;

/// Format name in errors.
pub const FORMAT: &str = "NWN ASCII MDL";
/// Most nodes per geometry.
pub const MAX_NODES: usize = 4096;

/// One line that has words: where it starts, and its words (a run of the file's word list).
struct Line<'a> {
    off: u64,
    words: &'a [&'a str],
}

struct Lines<'s, 'a> {
    lines: &'s [Line<'a>],
    pos: usize,
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

/// Calls `f(word, first)` for each word of `text` in order, `first` on a line's first word.
/// Words are separated by white space (`char::is_whitespace`, as `str::split_whitespace`); a
/// line's words end at its first `#`, except that a line starting `#part-number` (after white
/// space), the one comment that carries data, is read whole, from `part-number` on.
fn each_word<'a>(text: &'a str, mut f: impl FnMut(&'a str, bool)) {
    let bytes = text.as_bytes();
    // The length of the white-space character at `i` (a `Wide` byte), or 0.
    let wide_space = |i: usize| match text[i..].chars().next() {
        Some(c) if c.is_whitespace() => c.len_utf8(),
        _ => 0,
    };
    let mut i = 0;
    // Per line: no word yet, nothing but white space yet, and whether `#` ends the words.
    let (mut first, mut blank, mut hash_ends) = (true, true, true);
    while i < bytes.len() {
        match BYTES[bytes[i] as usize] {
            Byte::Newline => {
                (first, blank, hash_ends) = (true, true, true);
                i += 1;
                continue;
            }
            Byte::Space => {
                i += 1;
                continue;
            }
            Byte::Wide if wide_space(i) > 0 => {
                i += wide_space(i);
                continue;
            }
            Byte::Hash if hash_ends => {
                if blank && bytes[i..].starts_with(b"#part-number") {
                    hash_ends = false;
                    i += 1;
                } else {
                    i = bytes[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(bytes.len(), |n| i + n);
                    continue;
                }
            }
            _ => {}
        }
        blank = false;
        let start = i;
        while i < bytes.len() {
            match BYTES[bytes[i] as usize] {
                Byte::Word => i += 1,
                Byte::Hash if !hash_ends => i += 1,
                Byte::Wide if wide_space(i) == 0 => i += 1,
                _ => break,
            }
        }
        f(&text[start..i], first);
        first = false;
    }
}

/// Every word of `text`, in order, in one list (lines then refer to runs of it, so a file needs
/// no list per line), and how many lines have words. Counted first, allocated once at its size.
fn words(text: &str) -> (Vec<&str>, usize) {
    let (mut words, mut lines) = (0, 0);
    each_word(text, |_, first| {
        words += 1;
        lines += usize::from(first);
    });
    let mut list = Vec::with_capacity(words);
    each_word(text, |w, _| list.push(w));
    (list, lines)
}

/// The `count` lines of `text` that have words, each holding its run of `words` (the list
/// [`words`] made of `text`).
fn split_lines<'a>(text: &str, words: &'a [&'a str], count: usize) -> Vec<Line<'a>> {
    // Each word is a slice of `text`: a new line begins at a word when the text between it and
    // the word before holds a newline, and starts just past the last such newline.
    let bytes = text.as_bytes();
    let at = |w: &str| w.as_ptr() as usize - text.as_ptr() as usize;
    let mut lines = Vec::with_capacity(count);
    let mut gap_start = 0;
    for (k, w) in words.iter().enumerate() {
        let start = at(w);
        let newline = bytes[gap_start..start].iter().rposition(|&b| b == b'\n');
        match (newline, lines.last_mut()) {
            (None, Some(Line { words: run, .. })) => *run = &words[k - run.len()..=k],
            (n, _) => lines.push(Line {
                off: n.map_or(0, |n| gap_start + n + 1) as u64,
                words: &words[k..=k],
            }),
        }
        gap_start = start + w.len();
    }
    lines
}

impl<'s, 'a> Lines<'s, 'a> {
    fn next(&mut self) -> Option<&'s Line<'a>> {
        let l = self.lines.get(self.pos);
        self.pos += 1;
        l
    }

    fn peek(&self) -> Option<&'s Line<'a>> {
        self.lines.get(self.pos)
    }

    fn remaining(&self) -> usize {
        self.lines.len().saturating_sub(self.pos)
    }

    /// `count` data rows (or up to `endlist` when `count` is `None`).
    fn rows(&mut self, count: Option<usize>, at: u64) -> Result<Vec<&'s Line<'a>>> {
        let mut out = Vec::new();
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
                    let i = self.pos;
                    self.pos += 1;
                    out.push(i);
                }
            }
            None => loop {
                let Some(l) = self.lines.get(self.pos) else {
                    return Err(LoadError::invalid(FORMAT, at, "list without endlist"));
                };
                self.pos += 1;
                if l.words[0].eq_ignore_ascii_case("endlist") {
                    break;
                }
                out.push(self.pos - 1);
            },
        }
        Ok(out.into_iter().map(|i| &self.lines[i]).collect())
    }
}

fn num(l: &Line, i: usize) -> Result<f32> {
    let w = l.words.get(i).ok_or_else(|| {
        LoadError::invalid(
            FORMAT,
            l.off,
            format!("'{}': value {i} missing", l.words[0]),
        )
    })?;
    w.parse::<f32>()
        .map_err(|_| LoadError::invalid(FORMAT, l.off, format!("'{w}' is not a number")))
}

fn nums(l: &Line, from: usize, n: usize) -> Result<Vec<f32>> {
    (from..from + n).map(|i| num(l, i)).collect()
}

fn count(l: &Line) -> Result<Option<usize>> {
    match l.words.get(1) {
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
    let (words, count) = words(&text);
    let all = split_lines(&text, &words, count);
    let mut lines = Lines {
        lines: &all,
        pos: 0,
    };
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
        let key = l.words[0].to_ascii_lowercase();
        let off = l.off;
        let arg = |i: usize| l.words.get(i).copied().unwrap_or("").to_string();
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
                let s = num(l, 1)?;
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

fn parse_anim(lines: &mut Lines<'_, '_>, anim: &mut Animation, at: u64) -> Result<()> {
    // Header lines up to the first node, then nodes until doneanim.
    loop {
        let Some(l) = lines.peek() else {
            return Err(LoadError::invalid(FORMAT, at, "newanim without doneanim"));
        };
        let key = l.words[0].to_ascii_lowercase();
        match key.as_str() {
            "length" => anim.length = num(l, 1)?.max(0.0),
            "transtime" => anim.transtime = num(l, 1)?,
            "animroot" => anim.root = l.words.get(1).copied().unwrap_or("").to_string(),
            "event" => anim.events.push((
                num(l, 1)?,
                l.words.get(2).copied().unwrap_or("").to_string(),
            )),
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

    /// Lines as a list per line: the definition [`split_lines`] must match.
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
        let (words, count) = words(text);
        let lines = split_lines(text, &words, count);
        let owned = |l: &Line| l.words.iter().map(|w| w.to_string()).collect();
        lines.iter().map(|l| (l.off, owned(l))).collect()
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
    fn words_are_one_list_allocated_at_its_size() {
        // A line per word: no list per line, and neither list grown past what it holds.
        let text = "newmodel m\nbeginmodelgeom m\n".to_string() + &"x\n".repeat(10_000);
        let (words, count) = words(&text);
        let lines = split_lines(&text, &words, count);
        assert_eq!(lines.len(), 10_002);
        assert_eq!(lines.capacity(), lines.len());
        assert_eq!(words.len(), 10_004);
        assert_eq!(words.capacity(), words.len());
        let list = words.as_ptr_range();
        for l in &lines {
            assert!(list.contains(&l.words.as_ptr()));
        }
        let e = parse(text.as_bytes(), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("block without endmodelgeom"), "{e}");
    }
}
