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

mod node;

use super::mdl::{is_null_name, Animation, Mdl};
use crate::formats::error::{LoadError, Result};
use node::parse_nodes;

/// Format name in errors.
pub const FORMAT: &str = "NWN ASCII MDL";
/// Most nodes per geometry.
pub const MAX_NODES: usize = 4096;

struct Line<'a> {
    off: u64,
    words: Vec<&'a str>,
}

struct Lines<'s, 'a> {
    lines: &'s [Line<'a>],
    pos: usize,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    {
        let mut lines = Vec::new();
        let mut off = 0u64;
        for raw in text.split_inclusive('\n') {
            let trimmed = raw.trim_start();
            // `#part-number N` is the one comment that carries data.
            let content = if trimmed.starts_with("#part-number") {
                &trimmed[1..]
            } else {
                raw.split('#').next().unwrap_or("")
            };
            let words: Vec<&str> = content.split_whitespace().collect();
            if !words.is_empty() {
                lines.push(Line { off, words });
            }
            off += raw.len() as u64;
        }
        lines
    }
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
    let all = split_lines(&text);
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
