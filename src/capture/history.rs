//! Pixel history as text: what `psxrender replay --history X,Y` prints for each command that
//! touched a watched VRAM halfword ([`gpu::trace::PixelEvent`]).

use std::fmt::Write;

use gpu::gp0::decode::{decode, Gp0Command, PolyFlags, RawVertex};
use gpu::gp0::fields::{Clut, ColorWord, MaskSetting, TexPage, TexWindow, TextureDepth};
use gpu::trace::{Part, PixelEvent};
use gpu::{fill_rect, transfer_size, transfer_xy};
use gpu::{Outcome, TexelSource};

/// The history of one halfword: a header line, then a block per event. `locate` turns a GP0
/// word index into a place in the input (`line 12`, `byte 0x40`).
pub fn report(
    (x, y): (u16, u16),
    events: &[&PixelEvent],
    locate: impl Fn(u64) -> Option<String>,
) -> String {
    let mut out = String::new();
    let n = events.len();
    let _ = writeln!(
        out,
        "pixel ({x},{y}): {n} command{} touched it",
        if n == 1 { "" } else { "s" }
    );
    for e in events {
        out.push_str(&event(e, locate(e.word)));
    }
    out
}

/// One event: where the command is, what it is, the state it ran with, and the pixel.
fn event(e: &PixelEvent, at: Option<String>) -> String {
    let mut s = String::new();
    let at = at.map_or(String::new(), |a| format!(", {a}"));
    let cmd = decode(&e.words);
    let _ = writeln!(
        s,
        "  command {} (GP0 word {}{at}): {}",
        e.command,
        e.word,
        title(&e.words, &cmd, e.part)
    );
    if let Some(v) = vertices(&cmd, e.part) {
        let _ = writeln!(s, "    {v}");
    }
    let st = &e.state;
    let page = TexPage(st.draw_mode);
    if textured(&cmd) {
        let clut = match &cmd {
            Gp0Command::Polygon { verts, .. } => Clut(verts[0].tex.attr()),
            Gp0Command::Rect { vert, .. } => Clut(vert.tex.attr()),
            _ => Clut(0),
        };
        let depth = page.depth();
        let clut = match depth {
            TextureDepth::Direct15 => String::new(),
            _ => format!(", CLUT ({},{})", clut.x(), clut.y()),
        };
        let win = TexWindow(st.tex_window);
        let window = match (win.u_and_or(), win.v_and_or()) {
            ((0xff, 0), (0xff, 0)) => String::new(),
            ((ua, uo), (va, vo)) => format!(", window U&{ua:02x}|{uo:02x} V&{va:02x}|{vo:02x}"),
        };
        let _ = writeln!(
            s,
            "    texture: page ({},{}) {}{clut}{window}",
            page.base_x(),
            page.base_y(),
            depth_name(depth)
        );
    }
    if is_primitive(&cmd) {
        let [x0, y0, x1, y1] = st.area;
        let blend = if semi(&cmd) {
            format!(", blend {}", blend_name(page))
        } else {
            String::new()
        };
        let mask = MaskSetting(st.mask);
        let _ = writeln!(
            s,
            "    state: offset ({},{}), area ({x0},{y0})-({x1},{y1}){blend}, dither {}, mask set {} check {}",
            st.offset.0,
            st.offset.1,
            if page.dither() { "on" } else { "off" },
            u8::from(mask.set()),
            u8::from(mask.check())
        );
    }
    let mut pixel = String::from("    pixel:");
    if let Some(h) = &e.hit {
        let [r, g, b] = h.interp.rgb;
        if let Some((u, v)) = h.interp.uv {
            let _ = write!(pixel, " uv ({u},{v})");
        }
        if let Some(t) = h.texel {
            let _ = write!(pixel, " texel {t:04x}{},", texel_source(e.texel_source));
        }
        let _ = write!(pixel, " rgb ({r},{g},{b}) dither {}", h.interp.dither);
        pixel.push(',');
    }
    let what = match e.outcome {
        Outcome::Written => "written",
        Outcome::Transparent => "not written (transparent texel)",
        Outcome::Masked => "not written (mask bit set, checked)",
    };
    let _ = writeln!(pixel, " {:04x} -> {:04x} {what}", e.before, e.after);
    s.push_str(&pixel);
    if !e.agrees() {
        let want = e.hit.map_or(0, |h| h.value);
        let _ = writeln!(
            s,
            "    warning: the primitive computes {want:04x} for this pixel on its own \
             but the GPU wrote {:04x} (please report)",
            e.after
        );
    }
    s
}

/// Where a texel came from: ` from VRAM`, ` from the texture cache (filled by command N)`.
fn texel_source(source: Option<TexelSource>) -> String {
    match source {
        None => String::new(),
        Some(TexelSource::Vram) => " from VRAM (texture cache miss)".into(),
        Some(TexelSource::Cache { filled: Some(c) }) => {
            format!(" from the texture cache (entry filled by command {c})")
        }
        Some(TexelSource::Cache { filled: None }) => {
            " from the texture cache (entry filled before the history began)".into()
        }
    }
}

/// `3Ah polygon: gouraud quad, semi-transparent; triangle 2 (v1 v2 v3)`.
fn title(words: &[u32], cmd: &Gp0Command, part: Part) -> String {
    let op = words.first().map_or(0, |&w| ColorWord(w).command());
    let what = match cmd {
        Gp0Command::Polygon { flags, .. } => format!(
            "polygon: {}{}",
            shape(flags, if flags.quad { "quad" } else { "triangle" }),
            match part {
                Part::Triangle(0) => "; triangle 1 of 2 (v0 v1 v2)",
                Part::Triangle(_) => "; triangle 2 of 2 (v1 v2 v3)",
                _ => "",
            }
        ),
        Gp0Command::Line { flags, .. } => {
            let kind = if flags.quad { "polyline" } else { "line" };
            // Bits 0 and 2 mean nothing for lines.
            let flags = &PolyFlags {
                textured: false,
                raw: false,
                ..*flags
            };
            let seg = match part {
                Part::Segment(k) => format!("; segment {} (v{k} to v{})", k + 1, k + 1),
                _ => String::new(),
            };
            format!("{}{seg}", shape(flags, kind))
        }
        Gp0Command::Rect {
            flags, size, wh, ..
        } => {
            let (w, h) = size.size(*wh);
            shape(flags, &format!("rectangle {w}x{h}"))
        }
        Gp0Command::Fill { color, xy, wh } => {
            let (x, y, w, h) = fill_rect(*xy, *wh);
            format!("fill ({x},{y}) {w}x{h} with {:04x}", color.to_bgr555())
        }
        Gp0Command::Copy { src, dst, wh } => {
            let ((sx, sy), (dx, dy)) = (transfer_xy(*src), transfer_xy(*dst));
            let (w, h) = transfer_size(*wh);
            format!("VRAM copy ({sx},{sy}) to ({dx},{dy}) {w}x{h}")
        }
        Gp0Command::CpuToVram { xy, wh } => {
            let ((x, y), (w, h)) = (transfer_xy(*xy), transfer_size(*wh));
            format!("CPU to VRAM ({x},{y}) {w}x{h}")
        }
        other => format!("{other:?}"),
    };
    format!("{op:02X}h {what}")
}

/// `gouraud textured (raw) quad, semi-transparent`.
fn shape(f: &PolyFlags, noun: &str) -> String {
    let mut s = String::new();
    if f.gouraud {
        s.push_str("gouraud ");
    }
    if f.textured {
        s.push_str(if f.raw { "raw-textured " } else { "textured " });
    }
    s.push_str(noun);
    s.push_str(if f.semi {
        ", semi-transparent"
    } else {
        ", opaque"
    });
    s
}

/// The primitive's vertices as sent (before the drawing offset), one per `|`.
fn vertices(cmd: &Gp0Command, part: Part) -> Option<String> {
    let one = |k: usize, v: &RawVertex, flags: &PolyFlags| {
        let mut s = format!(
            "v{k} ({},{}) rgb ({},{},{})",
            v.pos.x(),
            v.pos.y(),
            v.color.r(),
            v.color.g(),
            v.color.b()
        );
        if flags.textured {
            let _ = write!(s, " uv ({},{})", v.tex.u(), v.tex.v());
        }
        s
    };
    let list: Vec<String> = match cmd {
        Gp0Command::Polygon { flags, verts } => {
            let n = if flags.quad { 4 } else { 3 };
            verts[..n]
                .iter()
                .enumerate()
                .map(|(k, v)| one(k, v, flags))
                .collect()
        }
        Gp0Command::Line { verts, .. } => {
            let flags = &PolyFlags {
                textured: false,
                ..PolyFlags::from_opcode(0x40)
            };
            // A segment's event holds its own two vertices (see `PixelEvent::words`).
            let first = match part {
                Part::Segment(k) => k as usize,
                _ => 0,
            };
            verts
                .iter()
                .take(2)
                .enumerate()
                .map(|(i, v)| one(first + i, v, flags))
                .collect()
        }
        Gp0Command::Rect { flags, vert, .. } => vec![one(0, vert, flags)],
        _ => return None,
    };
    Some(list.join(" | "))
}

fn is_primitive(cmd: &Gp0Command) -> bool {
    matches!(
        cmd,
        Gp0Command::Polygon { .. } | Gp0Command::Line { .. } | Gp0Command::Rect { .. }
    )
}

fn textured(cmd: &Gp0Command) -> bool {
    match cmd {
        Gp0Command::Polygon { flags, .. } | Gp0Command::Rect { flags, .. } => flags.textured,
        _ => false,
    }
}

fn semi(cmd: &Gp0Command) -> bool {
    match cmd {
        Gp0Command::Polygon { flags, .. }
        | Gp0Command::Line { flags, .. }
        | Gp0Command::Rect { flags, .. } => flags.semi,
        _ => false,
    }
}

fn depth_name(d: TextureDepth) -> &'static str {
    match d {
        TextureDepth::Clut4 => "4bpp",
        TextureDepth::Clut8 => "8bpp",
        TextureDepth::Direct15 => "15bpp",
    }
}

fn blend_name(page: TexPage) -> &'static str {
    use gpu::gp0::fields::BlendMode::*;
    match page.blend_mode() {
        Average => "B/2+F/2",
        Add => "B+F",
        Subtract => "B-F",
        AddQuarter => "B+F/4",
    }
}

/// The stable JSON form of a pixel history (`replay --history X,Y --json`, and the server's
/// `/api/capture/history`): one object per watched halfword, each event with its fields
/// spelled out and, as `text`, the very block [`report`] prints for it. docs/serve.md lists
/// every field; a field is only ever added, never renamed or retyped.
pub fn json(
    (x, y): (u16, u16),
    events: &[&PixelEvent],
    locate: impl Fn(u64) -> Option<String>,
) -> serde_json::Value {
    let list: Vec<serde_json::Value> = events
        .iter()
        .map(|e| event_json(e, locate(e.word)))
        .collect();
    serde_json::json!({ "x": x, "y": y, "events": list })
}

/// Halfwords and words as fixed-width lower-case hex, as the text form prints them.
fn hex4(v: u16) -> String {
    format!("{v:04x}")
}

/// One event as JSON (see [`json`]).
fn event_json(e: &PixelEvent, at: Option<String>) -> serde_json::Value {
    use serde_json::{json, Value};
    let cmd = decode(&e.words);
    let st = &e.state;
    let page = TexPage(st.draw_mode);
    let texture = if textured(&cmd) {
        let attr = match &cmd {
            Gp0Command::Polygon { verts, .. } => verts[0].tex.attr(),
            Gp0Command::Rect { vert, .. } => vert.tex.attr(),
            _ => 0,
        };
        let depth = page.depth();
        let clut = (depth != TextureDepth::Direct15).then(|| {
            let c = Clut(attr);
            [c.x(), c.y()]
        });
        let win = TexWindow(st.tex_window);
        let ((ua, uo), (va, vo)) = (win.u_and_or(), win.v_and_or());
        json!({
            "page": [page.base_x(), page.base_y()],
            "depth": depth_name(depth),
            "clut": clut,
            "window": { "u_and": ua, "u_or": uo, "v_and": va, "v_or": vo },
        })
    } else {
        Value::Null
    };
    let state = if is_primitive(&cmd) {
        let mask = MaskSetting(st.mask);
        json!({
            "offset": [st.offset.0, st.offset.1],
            "area": st.area,
            "blend": semi(&cmd).then(|| blend_name(page)),
            "dither": page.dither(),
            "mask_set": mask.set(),
            "mask_check": mask.check(),
        })
    } else {
        Value::Null
    };
    let pixel = e.hit.map(|h| {
        json!({
            "rgb": h.interp.rgb,
            "uv": h.interp.uv.map(|(u, v)| [u, v]),
            "dither": h.interp.dither,
            "texel": h.texel.map(hex4),
            "value": hex4(h.value),
        })
    });
    let source = match e.texel_source {
        None => Value::Null,
        Some(TexelSource::Vram) => json!({ "from": "vram" }),
        Some(TexelSource::Cache { filled }) => json!({ "from": "cache", "filled_by": filled }),
    };
    let part = match e.part {
        Part::Whole => json!({ "kind": "whole" }),
        Part::Triangle(t) => json!({ "kind": "triangle", "index": t }),
        Part::Segment(s) => json!({ "kind": "segment", "index": s }),
        Part::Upload => json!({ "kind": "upload" }),
    };
    let outcome = match e.outcome {
        Outcome::Written => "written",
        Outcome::Transparent => "transparent",
        Outcome::Masked => "masked",
    };
    json!({
        "command": e.command,
        "word": e.word,
        "at": at.clone(),
        "title": title(&e.words, &cmd, e.part),
        "part": part,
        "words": e.words.iter().map(|w| format!("{w:08x}")).collect::<Vec<_>>(),
        "vertices": vertices(&cmd, e.part),
        "texture": texture,
        "state": state,
        "pixel": pixel,
        "texel_source": source,
        "before": hex4(e.before),
        "after": hex4(e.after),
        "outcome": outcome,
        "agrees": e.agrees(),
        "text": event(e, at),
    })
}

/// A GP0 command's one-line description as the history prints it (`3Ch polygon: gouraud
/// textured quad, opaque`), for command lists: the same words, the same words out.
pub fn command_title(words: &[u32]) -> String {
    title(words, &decode(words), Part::Whole)
}
