//! The text `psxrender info` prints for an M2 model.

use std::fmt::Write;

use super::textures::replaceable_kind;
use super::{animation_name, M2Model, BONE_BILLBOARD};

/// Version, bones, sequences, views/submeshes and textures (resolved or MISSING).
pub fn info(m: &M2Model) -> String {
    let mut s = String::new();
    let era = if m.version >= super::parse::TBC_VERSION {
        "The Burning Crusade"
    } else {
        "vanilla"
    };
    let _ = writeln!(s, "format: M2 version {} ({era})", m.version);
    let _ = writeln!(s, "name: {}", m.name);
    let billboards = m
        .bones
        .iter()
        .filter(|b| b.flags & BONE_BILLBOARD != 0)
        .count();
    let _ = writeln!(s, "bones: {} ({billboards} billboarded)", m.bones.len());
    let _ = writeln!(s, "vertices: {}", m.vertices.len());
    let _ = writeln!(s, "global sequences: {:?} ms", m.global_sequences);
    let _ = writeln!(s, "sequences: {}", m.sequences.len());
    for (i, q) in m.sequences.iter().enumerate() {
        let _ = writeln!(
            s,
            "  [{i}] {:<16} id {:>3}.{:<2} {:>6}-{:<6} ms  {:>5} ms  {} frames",
            animation_name(q.id, q.variation),
            q.id,
            q.variation,
            q.start_ms,
            q.end_ms,
            q.duration_ms(),
            q.frames()
        );
    }
    let _ = writeln!(s, "views: {} (drawing view {})", m.views.len(), m.lod);
    for (i, v) in m.views.iter().enumerate() {
        let _ = writeln!(
            s,
            "  view {i}: {} indices, {} triangles, {} submeshes, {} texture units",
            v.index_count,
            v.triangles.len(),
            v.submeshes.len(),
            v.units.len()
        );
        if i != m.lod {
            continue;
        }
        for (k, sm) in v.submeshes.iter().enumerate() {
            let _ = writeln!(
                s,
                "    submesh {k}: id {}, {} vertices, {} triangles",
                sm.id,
                sm.vertex_count,
                sm.index_count / 3
            );
        }
        for (k, u) in v.units.iter().enumerate() {
            let tex = u.texture.map_or("none".to_string(), |t| t.to_string());
            let _ = writeln!(
                s,
                "    unit {k}: submesh {}, texture {tex}, render flags 0x{:x} blend {}",
                u.submesh, u.render_flags.0, u.render_flags.1
            );
        }
    }
    let _ = writeln!(s, "textures: {}", m.textures.len());
    for (i, t) in m.textures.iter().enumerate() {
        let what = if t.kind == 0 {
            format!("'{}'", t.name)
        } else {
            format!("type {} ({})", t.kind, replaceable_kind(t.kind))
        };
        match &t.resolved {
            Some(p) => {
                let img = &t.texture.image;
                let _ = writeln!(
                    s,
                    "  [{i}] {what} -> {} ({}x{})",
                    p.display(),
                    img.width,
                    img.height
                );
            }
            None => {
                let _ = writeln!(s, "  [{i}] {what} -> MISSING");
            }
        }
    }
    s
}
