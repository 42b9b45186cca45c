//! ASCII MDL parser (`#MAXMODEL ASCII`): the text form NWN's model compiler reads.
//!
//! Recognised: `newmodel`, `setsupermodel`, `classification`, `setanimationscale`,
//! `beginmodelgeom … endmodelgeom` with `node TYPE NAME … endnode` blocks (`parent`, `position`,
//! `orientation` (axis + angle in radians), `scale`, `bitmap`/`texture0..3`, `diffuse`, `render`,
//! `transparencyhint`, `verts`, `tverts`, `faces` (`v0 v1 v2 group t0 t1 t2 material`),
//! `weights` (bone name / weight pairs), `POSITIONkey`/`orientationkey`/`scalekey` with a row
//! count or ended by `endlist`, `…bezierkey`), and `newanim NAME MODEL … doneanim` blocks
//! (`length`, `transtime`, `animroot`, `event`, nodes). Flags are read as rollnw reads them
//! (`vocabulary`); a node property no one here knows is skipped with a warning naming its
//! line; unknown top-level and animation-header lines, and the data rows of unknown list
//! keywords, are skipped. Errors name the line, the column and the byte offset of the offending
//! word.
//!
//! Layers: `text` (lines and values) → `vocabulary` (which words mean what) → `node`
//! (node blocks) → this file (the model and its animations).

mod node;
mod text;
mod vocabulary;

use super::mdl::{is_null_name, Animation, Mdl};
use crate::formats::error::{ErrorKind, LoadError, Result};
use node::parse_nodes;
use text::{line_col, lower, num, Lines};
use vocabulary::Unknowns;

/// Format name in errors.
pub const FORMAT: &str = "NWN ASCII MDL";
/// Most nodes per geometry.
pub const MAX_NODES: usize = 4096;

/// Parses an ASCII MDL; recoverable problems go to `warnings`.
pub fn parse(data: &[u8], warnings: &mut Vec<String>) -> Result<Mdl> {
    // Checked as UTF-8 first, which is much faster than the lossy scan on the valid text
    // nearly every file is; the same text either way.
    let text = match std::str::from_utf8(data) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(data),
    };
    let mut unknowns = Unknowns::default();
    let mdl = parse_text(&text, warnings, &mut unknowns).map_err(|e| at_line(e, &text))?;
    unknowns.report(&text, warnings);
    Ok(mdl)
}

/// `e` with the line and column of its offset put before its message.
fn at_line(mut e: LoadError, text: &str) -> LoadError {
    if let ErrorKind::Invalid(msg) = &e.kind {
        let (line, col) = line_col(text, e.offset);
        e.kind = ErrorKind::Invalid(format!("line {line}, column {col}: {msg}"));
    }
    e
}

fn parse_text(text: &str, warnings: &mut Vec<String>, unknowns: &mut Unknowns) -> Result<Mdl> {
    let mut lines = Lines::new(text);
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
        let key = lower(l.key());
        let off = l.off;
        let arg = |i: usize| l.word(i).unwrap_or("").to_string();
        match &*key {
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
                mdl.nodes = parse_nodes(&mut lines, "endmodelgeom", off, warnings, unknowns)?;
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
                parse_anim(&mut lines, &mut anim, off, unknowns)?;
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

fn parse_anim(
    lines: &mut Lines<'_>,
    anim: &mut Animation,
    at: u64,
    unknowns: &mut Unknowns,
) -> Result<()> {
    // Header lines up to the first node, then nodes until doneanim.
    loop {
        let Some(l) = lines.peek() else {
            return Err(LoadError::invalid(FORMAT, at, "newanim without doneanim"));
        };
        let key = lower(l.key());
        let l = &l;
        match &*key {
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
    // problems with them are not reported (unknown properties are).
    anim.nodes = parse_nodes(lines, "doneanim", at, &mut Vec::new(), unknowns)?;
    if !anim.length.is_finite() {
        anim.length = 0.0;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// One model with CRLF, CR-only and LF line ends, an unknown property, word flags and a
    /// key list that declares a row it does not have.
    #[test]
    fn exporters_spellings_are_read() {
        let model = |nl: &str| {
            [
                "newmodel t",
                "beginmodelgeom t",
                "node emitter e",
                "  parent NULL",
                "  affectedByWind false",
                "  Random TRUE",
                "  frobnicate 3",
                "  frobnicate 4",
                "endnode",
                "endmodelgeom t",
                "newanim a t",
                "  length 1",
                "node emitter e",
                "  detonatekey 1",
                "",
                "endnode",
                "doneanim a t",
                "donemodel t",
                "",
            ]
            .join(nl)
        };
        for nl in ["\n", "\r\n", "\r"] {
            let mut w = Vec::new();
            let m = parse(model(nl).as_bytes(), &mut w).unwrap();
            let off = model(nl).find("frob").unwrap() - 2;
            assert_eq!(
                w,
                [format!(
                    "line 7 (byte 0x{off:x}): unknown property 'frobnicate' skipped (and on 1 \
                     more line)"
                )],
                "{nl:?}"
            );
            let crate::formats::nwn::mdl::NodeDetail::Emitter { flags, .. } = m.nodes[0].detail
            else {
                panic!("not an emitter");
            };
            use crate::formats::nwn::mdl::EmitterFlags;
            assert_eq!(flags & EmitterFlags::AFFECTED_BY_WIND, 0);
            assert_ne!(flags & EmitterFlags::RANDOM, 0);
            assert_eq!(m.animations.len(), 1);
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let text = "newmodel t\r\nbeginmodelgeom t\rnode trimesh m\n  verts 1\n    0 é x\n";
        let e = parse(text.as_bytes(), &mut Vec::new()).unwrap_err();
        assert_eq!(e.offset, text.find('é').unwrap() as u64);
        assert_eq!(
            e.to_string(),
            format!(
                "NWN ASCII MDL: line 5, column 7: 'é' is not a number at byte 0x{:x}",
                text.find('é').unwrap()
            )
        );
    }
}
