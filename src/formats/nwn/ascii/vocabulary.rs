//! The words of a node block that psxrender does not draw from: flags spelled as rollnw reads
//! them, the properties exporters write that are known and skipped, the lists whose rows are
//! skipped with them, and the report of properties no one here knows.
//!
//! Rule: a property the loader does not know is skipped with a warning naming its line, never
//! a refusal. A known property is skipped silently: NWmax, NWNU, MAXMODEL and the game's own
//! exporter write material, lighting-editor and tool fields (`specular`, `wirecolor`,
//! `tilefade`, …) that change nothing psxrender draws.

use super::text::{is_numeric, line_col, num, Line};
use super::FORMAT;
use crate::formats::error::{LoadError, Result};
use crate::read::text::quote;

/// Value `i` of a line read as a flag the way rollnw reads booleans: `t`, `true`, `y`, `yes`,
/// `1` and `f`, `false`, `n`, `no`, `0`, any case; any other number is true when not zero (the
/// game's compiler writes `0` and `1`, some exporters `1.0`). NWmax, NWNU and MAXMODEL write
/// emitter flags as words (`affectedByWind false`).
pub(super) fn flag(l: &Line, i: usize) -> Result<bool> {
    const TRUE: [&str; 5] = ["t", "true", "y", "yes", "1"];
    const FALSE: [&str; 5] = ["f", "false", "n", "no", "0"];
    if let Some((off, w)) = l.word_at(i) {
        if TRUE.iter().any(|t| w.eq_ignore_ascii_case(t)) {
            return Ok(true);
        }
        if FALSE.iter().any(|t| w.eq_ignore_ascii_case(t)) {
            return Ok(false);
        }
        if !is_numeric(w) {
            return Err(LoadError::invalid(
                FORMAT,
                off,
                format!(
                    "{} is not a flag (true/false, yes/no, t/f, y/n or a number)",
                    quote(w)
                ),
            ));
        }
    }
    Ok(num(l, i)? != 0.0)
}

/// Node properties (lower case) that are known and skipped: they hold nothing psxrender draws.
const IGNORED: &[&str] = &[
    // Some exporters close a counted list with `endlist` too.
    "endlist",
    // Mesh material and editor fields.
    "ambient",
    "specular",
    "shininess",
    "selfillumcolor",
    "wirecolor",
    "center",
    "gizmo",
    "shadow",
    "beaming",
    "tilefade",
    "rotatetexture",
    "inheritcolor",
    "materialname",
    "renderhint",
    "lightmapped",
    "bitmap2",
    "dirt_enabled",
    "dirt_texture",
    "dirt_coordspace",
    "dirt_worldspace",
    "hologram_donotdraw",
    "showdispl",
    "displtype",
    "danglymesh",
    "tightness",
    "period",
    "displacement",
    "alpha",
    "scale",
    "sampleperiod",
    "clipu",
    "clipv",
    "clipw",
    "cliph",
    "detonate",
    // Light fields.
    "color",
    "radius",
    "multiplier",
    "fadinglight",
    "affectdynamic",
    "ndynamictype",
    "isdynamic",
    "lensflares",
    "generateflare",
    "negativelight",
    "flareradius",
    "lightpriority",
    "ambientonly",
    // Emitter fields without a controller.
    "deadspace",
    "blastradius",
    "blastlength",
    "twosidedtex",
    "opacity",
    "p2p_type",
    "update_sel",
    "render_sel",
    "blend_sel",
    "spawntype_sel",
    "lockaxes",
    "texture",
    "chunkname",
    "update",
    "render",
    "blend",
    "xgrid",
    "ygrid",
    "spawntype",
    "loop",
    "renderorder",
    "lightningsubdiv",
    // Reference nodes.
    "refmodel",
    "reattachable",
    // Mesh fields read on mesh nodes only.
    "bitmap",
    "texture0",
    "texture1",
    "texture2",
    "texture3",
    "diffuse",
    "transparencyhint",
    // Walkmesh tree: its first box on the keyword's line, the rest as rows of numbers.
    "aabb",
];

/// List keywords with a row count that are not read where they stand (any list on a node
/// without a mesh; the rest everywhere): their rows, which may start with a word (a material or
/// bone name) rather than a number, are skipped with them.
const IGNORED_LISTS: &[&str] = &[
    "verts",
    "tverts",
    "faces",
    "weights",
    "constraints",
    "multimaterial",
    "texturenames",
    "animverts",
    "animtverts",
    "colors",
    "normals",
    "tangents",
    "texindices1",
    "texindices2",
    "texindices3",
    "tverts1",
    "tverts2",
    "tverts3",
    "flaresizes",
    "flarepositions",
    "flarecolorshifts",
];

/// What an unread node keyword (lower case) is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unread {
    /// Known; the line alone is skipped.
    Known,
    /// Known list; its rows are skipped with it.
    KnownList,
    /// Not a word psxrender knows.
    Unknown,
}

/// What the unread keyword `key` (lower case) is.
pub(super) fn unread(key: &str) -> Unread {
    if IGNORED_LISTS.contains(&key) {
        Unread::KnownList
    } else if IGNORED.contains(&key) || super::super::mdl::emitter_controller(key).is_some() {
        Unread::Known
    } else {
        Unread::Unknown
    }
}

/// Most distinct unknown properties reported one by one.
const LISTED: usize = 8;

/// The unknown properties of one file: each word once, with its first line and how many lines
/// hold it, so a file of thousands of odd lines gives a few warnings.
#[derive(Default)]
pub(super) struct Unknowns {
    /// (word, byte offset of its first line, lines holding it), in order of first appearance.
    seen: Vec<(String, u64, usize)>,
    /// Lines holding words past the first [`LISTED`].
    more_lines: usize,
}

impl Unknowns {
    /// Notes the unknown property `word` on the line at byte `off`.
    pub(super) fn note(&mut self, word: &str, off: u64) {
        if let Some(e) = self
            .seen
            .iter_mut()
            .find(|e| e.0.eq_ignore_ascii_case(word))
        {
            e.2 += 1;
        } else if self.seen.len() < LISTED {
            self.seen.push((word.to_string(), off, 1));
        } else {
            self.more_lines += 1;
        }
    }

    /// One warning per unknown word, naming its first line (found in `text`).
    pub(super) fn report(self, text: &str, warnings: &mut Vec<String>) {
        for (word, off, n) in self.seen {
            let (line, _) = line_col(text, off);
            let more = match n {
                1 => String::new(),
                2 => " (and on 1 more line)".to_string(),
                n => format!(" (and on {} more lines)", n - 1),
            };
            warnings.push(format!(
                "line {line} (byte 0x{off:x}): unknown property {} skipped{more}",
                quote(&word)
            ));
        }
        if self.more_lines > 0 {
            warnings.push(format!(
                "{} more lines hold other unknown properties; skipped",
                self.more_lines
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::Lines;
    use super::*;

    #[test]
    fn flags_read_as_rollnw_reads_booleans() {
        let text = "x true TRUE t Y yes 1 false F n NO 0 0.0 2 maybe";
        let mut lines = Lines::new(text);
        let l = lines.next().unwrap();
        let got: Vec<bool> = (1..=13).map(|i| flag(&l, i).unwrap()).collect();
        let want = [
            true, true, true, true, true, true, false, false, false, false, false, false,
        ];
        assert_eq!(&got[..12], &want);
        assert!(got[12]);
        let e = flag(&l, 14).unwrap_err();
        assert!(e.to_string().contains("'maybe' is not a flag"), "{e}");
        assert_eq!(e.offset, text.find("maybe").unwrap() as u64);
    }

    #[test]
    fn unknown_properties_are_counted_once_each() {
        let mut u = Unknowns::default();
        u.note("frob", 2);
        u.note("FROB", 4);
        for i in 0..20 {
            u.note(&format!("w{i}"), 6);
        }
        let mut w = Vec::new();
        u.report("a\nb\nc\nd\n", &mut w);
        assert_eq!(w.len(), LISTED + 1, "{w:?}");
        assert_eq!(
            w[0],
            "line 2 (byte 0x2): unknown property 'frob' skipped (and on 1 more line)"
        );
        assert_eq!(
            w[LISTED],
            "13 more lines hold other unknown properties; skipped"
        );
        assert_eq!(unread("specular"), Unread::Known);
        assert_eq!(unread("birthrate"), Unread::Known);
        assert_eq!(unread("multimaterial"), Unread::KnownList);
        assert_eq!(unread("frob"), Unread::Unknown);
    }
}
