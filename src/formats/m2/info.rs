//! What `psxrender info` says about an M2 model: one [`Facts`] structure, printed as text
//! ([`std::fmt::Display`]) and as JSON (serde) so both always carry the same facts.

use std::fmt;

use serde::Serialize;

use super::textures::{file_name, replaceable_kind};
use super::{animation_name, M2Model, TextureSource, BONE_BILLBOARD};

/// One animation sequence.
#[derive(Serialize)]
pub struct Sequence {
    /// Index (what `--anim N` takes).
    pub index: usize,
    /// Name (`Stand`, `Stand.1`).
    pub name: String,
    /// AnimationData id.
    pub id: u16,
    /// Variation.
    pub variation: u16,
    /// Start on the shared timeline, ms.
    pub start_ms: u32,
    /// End, ms.
    pub end_ms: u32,
    /// Length, ms.
    pub duration_ms: u32,
    /// Length in frames at 30 fps.
    pub frames: u32,
}

/// A submesh of the drawn view.
#[derive(Serialize)]
pub struct Submesh {
    /// Mesh part id.
    pub id: u16,
    /// Vertices.
    pub vertices: u32,
    /// Triangles.
    pub triangles: u32,
}

/// A texture unit of the drawn view.
#[derive(Serialize)]
pub struct Unit {
    /// Submesh it draws.
    pub submesh: usize,
    /// Texture index, if textured.
    pub texture: Option<usize>,
    /// Render flags.
    pub render_flags: u16,
    /// Blend mode.
    pub blend: u16,
}

/// One view (level of detail).
#[derive(Serialize)]
pub struct View {
    /// Length of its index list.
    pub indices: u64,
    /// Triangles.
    pub triangles: usize,
    /// Submesh count.
    pub submesh_count: usize,
    /// Texture unit count.
    pub unit_count: usize,
    /// Submeshes (the drawn view only).
    pub submeshes: Option<Vec<Submesh>>,
    /// Texture units (the drawn view only).
    pub units: Option<Vec<Unit>>,
}

/// One texture the model names.
#[derive(Serialize)]
pub struct Texture {
    /// Index.
    pub index: usize,
    /// Type (0 = file named in the model, 11-13 creature skins, …).
    pub kind: u32,
    /// What the type means.
    pub kind_name: &'static str,
    /// Name stored in the model (empty for replaceable ones).
    pub name: String,
    /// The file used, `None` = MISSING (drawn as a checkerboard).
    pub file: Option<String>,
    /// "model", "--texture" or "skin search".
    pub source: &'static str,
    /// Where the file was found: "beside", "tree root", "--texture-dir", "--texture" or
    /// "missing".
    pub found: &'static str,
    /// Decoded size (of the file, or of the checkerboard).
    pub width: u32,
    /// Decoded height.
    pub height: u32,
}

/// One creature skin found beside the model.
#[derive(Serialize)]
pub struct Skin {
    /// Number (what `--skin N` takes).
    pub index: usize,
    /// The file.
    pub file: String,
    /// Whether a creature-skin texture of the model uses it.
    pub in_use: bool,
}

/// One creature display of the model (from the asset tree's CreatureDisplayInfo).
#[derive(Serialize)]
pub struct Display {
    /// Display id (what `--display ID` takes).
    pub id: u32,
    /// Skin1-3 as the table names them (empty when unused).
    pub skins: Vec<String>,
    /// Each skin's file beside the model, `None` when empty or missing.
    pub files: Vec<Option<String>>,
    /// Whether it is the one drawn.
    pub in_use: bool,
}

/// Everything `info` says about an M2 model.
#[derive(Serialize)]
pub struct Facts {
    /// "M2".
    pub format: &'static str,
    /// Version number.
    pub version: u32,
    /// "vanilla" or "The Burning Crusade".
    pub era: &'static str,
    /// Name stored in the model.
    pub name: String,
    /// Bones.
    pub bones: usize,
    /// Of them, billboarded.
    pub billboarded_bones: usize,
    /// Vertices.
    pub vertices: usize,
    /// Global sequence lengths, ms.
    pub global_sequences_ms: Vec<u32>,
    /// Animation sequences.
    pub sequences: Vec<Sequence>,
    /// The view drawn.
    pub drawn_view: usize,
    /// Views.
    pub views: Vec<View>,
    /// Textures.
    pub textures: Vec<Texture>,
    /// The file-name prefix the skin search looks for.
    pub skin_prefix: String,
    /// Creature skins found beside the model (and in `--texture-dir`), in name order, or in
    /// likeness order when none is named after the model.
    pub skins: Vec<Skin>,
    /// Whether `skins` are the likeness rule's.
    pub skins_by_likeness: bool,
    /// The model's creature displays in its asset tree's tables.
    pub displays: Vec<Display>,
    /// Particle emitters, with their values at time 0 of the first sequence.
    pub particle_emitters: Vec<crate::effects::Summary>,
    /// Ribbon emitters.
    pub ribbons: Vec<String>,
    /// Texture animations: which tracks each keys.
    pub texture_animations: Vec<String>,
    /// Cameras (`--camera N`).
    pub cameras: Vec<String>,
}

impl Facts {
    /// The facts of `m`.
    pub fn of(m: &M2Model) -> Facts {
        let era = if m.version >= super::parse::TBC_VERSION {
            "The Burning Crusade"
        } else {
            "vanilla"
        };
        Facts {
            format: super::FORMAT,
            version: m.version,
            era,
            name: m.name.clone(),
            bones: m.bones.len(),
            billboarded_bones: m
                .bones
                .iter()
                .filter(|b| b.flags & BONE_BILLBOARD != 0)
                .count(),
            vertices: m.vertices.len(),
            global_sequences_ms: m.global_sequences.clone(),
            sequences: sequences(m),
            drawn_view: m.lod,
            views: views(m),
            textures: textures(m),
            skin_prefix: super::textures::skin_prefixes(&m.path).join("*.blp, "),
            skins: skins(m),
            skins_by_likeness: m.skins.by_likeness,
            displays: displays(m),
            particle_emitters: particle_emitters(m),
            ribbons: ribbons(m),
            texture_animations: texture_animations(m),
            cameras: cameras(m),
        }
    }
}

fn sequences(m: &M2Model) -> Vec<Sequence> {
    m.sequences
        .iter()
        .enumerate()
        .map(|(index, q)| Sequence {
            index,
            name: animation_name(q.id, q.variation),
            id: q.id,
            variation: q.variation,
            start_ms: q.start_ms,
            end_ms: q.end_ms,
            duration_ms: q.duration_ms(),
            frames: q.frames(),
        })
        .collect()
}

/// Every view; submeshes and texture units of the drawn one only.
fn views(m: &M2Model) -> Vec<View> {
    m.views
        .iter()
        .enumerate()
        .map(|(i, v)| View {
            indices: v.index_count,
            triangles: v.triangles.len(),
            submesh_count: v.submeshes.len(),
            unit_count: v.units.len(),
            submeshes: (i == m.lod).then(|| {
                v.submeshes
                    .iter()
                    .map(|sm| Submesh {
                        id: sm.id,
                        vertices: sm.vertex_count,
                        triangles: sm.index_count / 3,
                    })
                    .collect()
            }),
            units: (i == m.lod).then(|| {
                v.units
                    .iter()
                    .map(|u| Unit {
                        submesh: u.submesh,
                        texture: u.texture,
                        render_flags: u.render_flags.0,
                        blend: u.render_flags.1,
                    })
                    .collect()
            }),
        })
        .collect()
}

fn textures(m: &M2Model) -> Vec<Texture> {
    m.textures
        .iter()
        .enumerate()
        .map(|(index, t)| Texture {
            index,
            kind: t.kind,
            kind_name: replaceable_kind(t.kind),
            name: t.name.clone(),
            file: t.resolved.as_ref().map(|p| p.display().to_string()),
            source: match t.source {
                TextureSource::Model => "model",
                TextureSource::Given => "--texture",
                TextureSource::Skin(_) => "skin search",
                TextureSource::Display(_) => "creature display",
            },
            found: t.place.label(),
            width: t.texture.image.width,
            height: t.texture.image.height,
        })
        .collect()
}

fn displays(m: &M2Model) -> Vec<Display> {
    let Some(d) = &m.skins.displays else {
        return Vec::new();
    };
    let drawn = m.textures.iter().find_map(|t| match t.source {
        TextureSource::Display(id) => Some(id),
        _ => None,
    });
    d.list
        .iter()
        .map(|x| Display {
            id: x.row.id,
            skins: x.row.skins.to_vec(),
            files: (x.files.iter())
                .map(|f| f.as_ref().map(|p| p.display().to_string()))
                .collect(),
            in_use: drawn == Some(x.row.id),
        })
        .collect()
}

fn skins(m: &M2Model) -> Vec<Skin> {
    m.skins
        .candidates
        .iter()
        .enumerate()
        .map(|(index, p)| Skin {
            index,
            file: p.display().to_string(),
            in_use: m
                .textures
                .iter()
                .any(|t| t.source == TextureSource::Skin(index)),
        })
        .collect()
}

fn particle_emitters(m: &M2Model) -> Vec<crate::effects::Summary> {
    let names: Vec<String> = m.textures.iter().map(|t| t.texture.name.clone()).collect();
    m.emitter_defs
        .iter()
        .zip(&m.extras.particles)
        .map(|(def, e)| {
            let src = super::effects::M2Emitter::new(m, e, None);
            crate::effects::Summary::of(def, &src, &names)
        })
        .collect()
}

fn ribbons(m: &M2Model) -> Vec<String> {
    m.extras
        .ribbons
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "ribbon {i}: bone {}, texture {:?}, {} edges/s living {} s, gravity {}, {}x{} cells",
                r.bone, r.texture, r.edges_per_second, r.edge_lifetime, r.gravity, r.tiles[1], r.tiles[0]
            )
        })
        .collect()
}

fn texture_animations(m: &M2Model) -> Vec<String> {
    m.extras
        .texture_anims
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let keys = |n: usize, what: &str| (n > 0).then(|| format!("{what} ({n} keys)"));
            let parts: Vec<String> = [
                keys(a.translation.values.len(), "translation"),
                keys(a.rotation.values.len(), "rotation"),
                keys(a.scaling.values.len(), "scaling"),
            ]
            .into_iter()
            .flatten()
            .collect();
            let keyed = if parts.is_empty() {
                "no keys".into()
            } else {
                parts.join(", ")
            };
            format!("texture animation {i}: {keyed}")
        })
        .collect()
}

fn cameras(m: &M2Model) -> Vec<String> {
    m.extras
        .cameras
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "camera {i}: type {}, fov {:.1}°, position {:?}, target {:?}",
                c.kind,
                c.fov.to_degrees(),
                c.position_base,
                c.target_base
            )
        })
        .collect()
}

impl Facts {
    /// The views, with the drawn one's submeshes and texture units.
    fn write_views(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "views: {} (drawing view {})",
            self.views.len(),
            self.drawn_view
        )?;
        for (i, v) in self.views.iter().enumerate() {
            writeln!(
                f,
                "  view {i}: {} indices, {} triangles, {} submeshes, {} texture units",
                v.indices, v.triangles, v.submesh_count, v.unit_count
            )?;
            for (k, sm) in v.submeshes.iter().flatten().enumerate() {
                writeln!(
                    f,
                    "    submesh {k}: id {}, {} vertices, {} triangles",
                    sm.id, sm.vertices, sm.triangles
                )?;
            }
            for (k, u) in v.units.iter().flatten().enumerate() {
                let tex = u.texture.map_or("none".to_string(), |t| t.to_string());
                writeln!(
                    f,
                    "    unit {k}: submesh {}, texture {tex}, render flags 0x{:x} blend {}",
                    u.submesh, u.render_flags, u.blend
                )?;
            }
        }
        Ok(())
    }

    /// Each texture, the file it came from and where that was found.
    fn write_textures(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "textures: {}", self.textures.len())?;
        for t in &self.textures {
            let what = if t.kind == 0 {
                format!("'{}'", t.name)
            } else {
                format!("type {} ({})", t.kind, t.kind_name)
            };
            match &t.file {
                Some(p) => {
                    let how = match t.source {
                        "skin search" => " [skin search]",
                        "creature display" => " [creature display]",
                        _ => "",
                    };
                    writeln!(
                        f,
                        "  [{}] {what} -> {p} ({}x{}) [{}]{how}",
                        t.index, t.width, t.height, t.found
                    )?;
                }
                None => writeln!(f, "  [{}] {what} -> MISSING", t.index)?,
            }
        }
        Ok(())
    }

    /// The creature displays (when the tree has tables) and the skins found beside the model.
    fn write_skins(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.displays.is_empty() {
            writeln!(
                f,
                "creature displays (CreatureDisplayInfo; --display ID picks one): {}",
                self.displays.len()
            )?;
            for d in &self.displays {
                let skins: Vec<String> = (d.skins.iter().zip(&d.files))
                    .filter(|(s, _)| !s.is_empty())
                    .map(|(s, f)| match f {
                        Some(_) => s.clone(),
                        None => format!("{s} (MISSING)"),
                    })
                    .collect();
                writeln!(
                    f,
                    "  {}: {}{}",
                    d.id,
                    skins.join(", "),
                    if d.in_use { " (in use)" } else { "" }
                )?;
            }
        }
        let rule = if self.skins_by_likeness {
            "none named after the model: the BLPs beside it most like its name".to_string()
        } else {
            format!("{}*.blp beside the model", self.skin_prefix)
        };
        writeln!(
            f,
            "skins ({rule}; --skin NAME|N picks one): {}",
            self.skins.len()
        )?;
        for s in &self.skins {
            let name = file_name(std::path::Path::new(&s.file));
            writeln!(
                f,
                "  {}: {name}{}",
                s.index,
                if s.in_use { " (in use)" } else { "" }
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Facts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format: M2 version {} ({})", self.version, self.era)?;
        writeln!(f, "name: {}", self.name)?;
        writeln!(
            f,
            "bones: {} ({} billboarded)",
            self.bones, self.billboarded_bones
        )?;
        writeln!(f, "vertices: {}", self.vertices)?;
        writeln!(f, "global sequences: {:?} ms", self.global_sequences_ms)?;
        writeln!(f, "sequences: {}", self.sequences.len())?;
        for q in &self.sequences {
            writeln!(
                f,
                "  [{}] {:<16} id {:>3}.{:<2} {:>6}-{:<6} ms  {:>5} ms  {} frames",
                q.index, q.name, q.id, q.variation, q.start_ms, q.end_ms, q.duration_ms, q.frames
            )?;
        }
        self.write_views(f)?;
        self.write_textures(f)?;
        self.write_skins(f)?;
        writeln!(f, "particle emitters: {}", self.particle_emitters.len())?;
        for e in &self.particle_emitters {
            writeln!(f, "  {e}")?;
        }
        for (what, list) in [
            ("ribbon emitters", &self.ribbons),
            ("texture animations", &self.texture_animations),
            ("cameras", &self.cameras),
        ] {
            writeln!(f, "{what}: {}", list.len())?;
            for line in list {
                writeln!(f, "  {line}")?;
            }
        }
        Ok(())
    }
}
