//! What `psxrender info` says about an FF9 model: one [`Facts`] structure, printed as text
//! ([`std::fmt::Display`]) and as JSON (serde) so both always carry the same facts.

use std::fmt;

use serde::Serialize;

use super::cluster::ChunkLayout;
use super::{FF9Model, PolyKind, TexPage};
use crate::scene::Model;

/// One bone.
#[derive(Serialize)]
pub struct Bone {
    /// Parent bone (`None` for the root).
    pub parent: Option<u8>,
    /// Length.
    pub length: u32,
}

/// Polygon counts per class: A quad, A tri, B quad, B tri, C quad, C tri.
#[derive(Serialize)]
pub struct PolyCount {
    /// Class ("A quad" …).
    pub class: &'static str,
    /// Polygons.
    pub count: usize,
}

/// One polygon group.
#[derive(Serialize)]
pub struct Group {
    /// Vertices.
    pub vertices: usize,
    /// UV pairs.
    pub uvs: usize,
    /// The header's offset words.
    pub offset: [i16; 3],
    /// Polygons per class.
    pub polygons: Vec<PolyCount>,
}

/// A VRAM rectangle.
#[derive(Serialize)]
pub struct Rect {
    /// Left, halfwords.
    pub x: u16,
    /// Top line.
    pub y: u16,
    /// Width, halfwords.
    pub w: u16,
    /// Height, lines.
    pub h: u16,
}

/// One chunk header of the cluster.
#[derive(Serialize)]
pub struct Chunk {
    /// Nesting depth (0 = the file's own cluster).
    pub depth: u32,
    /// Chunk type.
    pub kind: u8,
    /// Absolute offset.
    pub offset: u64,
    /// `false`: no chunk header, the old bare 0x12 layout (one 0xDC object at `offset`).
    pub typed: bool,
    /// Object ids, in order.
    pub ids: Vec<u16>,
    /// Absolute offset of each object.
    pub objects: Vec<u64>,
    /// Absolute offset of the chunk's end.
    pub end: u64,
}

/// One TIM.
#[derive(Serialize)]
pub struct Tim {
    /// Object id in the cluster (`None` = a file given with `--tim`).
    pub id: Option<u16>,
    /// Bits per pixel.
    pub bpp: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Image rectangle in VRAM.
    pub image: Rect,
    /// CLUT rectangle in VRAM.
    pub clut: Option<Rect>,
}

/// One material (0x12 record entry).
#[derive(Serialize)]
pub struct Material {
    /// TPage word.
    pub tpage: u16,
    /// Texture page X, Y.
    pub page: [u16; 2],
    /// Depth in bits (4, 8, 15).
    pub depth: u32,
    /// CLUT word.
    pub clut: u16,
    /// CLUT X, Y.
    pub clut_xy: [u16; 2],
    /// Texture-window offset.
    pub window: [i16; 2],
    /// The TIM block the page's texels come from (`None` = MISSING).
    pub texels_from: Option<String>,
    /// The TIM block the CLUT comes from (`None` = MISSING; unused at 15bpp).
    pub palette_from: Option<String>,
}

/// The 0x12 record of the model.
#[derive(Serialize)]
pub struct Materials {
    /// Model object id.
    pub model_id: u16,
    /// Default animation object id.
    pub default_animation: Option<u16>,
    /// Whether the texture-window offsets are added to UVs (field and world models).
    pub window_added: bool,
    /// Materials.
    pub materials: Vec<Material>,
}

/// One animation.
#[derive(Serialize)]
pub struct Animation {
    /// Name.
    pub name: String,
    /// Stored frames.
    pub frames: u32,
    /// Whether it is the default one.
    pub default: bool,
}

/// Everything `info` says about an FF9 model.
#[derive(Serialize)]
pub struct Facts {
    /// "FF9".
    pub format: &'static str,
    /// Where the model came from (cluster, model number; or bare).
    pub source: String,
    /// The model's kind (field, world, battle, weapon).
    pub kind: String,
    /// Whether the kind was guessed (no `--ff9-kind`).
    pub kind_guessed: bool,
    /// The cluster's chunk headers, nested ones included (empty for a bare model).
    pub chunks: Vec<Chunk>,
    /// The header's position words.
    pub position: [i16; 3],
    /// Bones.
    pub bones: Vec<Bone>,
    /// Groups.
    pub groups: Vec<Group>,
    /// Polygons per class over all groups.
    pub polygons: Vec<PolyCount>,
    /// TIMs.
    pub tims: Vec<Tim>,
    /// The 0x12 record, if any.
    pub materials: Option<Materials>,
    /// Animations.
    pub animations: Vec<Animation>,
}

fn counts(f: impl Fn(PolyKind, bool) -> usize) -> Vec<PolyCount> {
    PolyKind::ORDER
        .iter()
        .map(|&(kind, quad)| PolyCount {
            class: kind.label(quad),
            count: f(kind, quad),
        })
        .collect()
}

impl Facts {
    /// The facts of `model`.
    pub fn of(model: &FF9Model) -> Facts {
        let m = &model.mesh;
        let (kind, kind_guessed) = model.kind;
        Facts {
            format: super::FORMAT,
            source: model.source.clone(),
            kind: kind.to_string(),
            kind_guessed,
            chunks: model
                .chunks
                .iter()
                .map(|c| Chunk {
                    depth: c.depth,
                    kind: c.kind,
                    offset: c.offset,
                    typed: c.layout == ChunkLayout::Typed,
                    ids: c.ids.clone(),
                    objects: c.objects.clone(),
                    end: c.end,
                })
                .collect(),
            position: m.position,
            bones: m
                .bones
                .iter()
                .enumerate()
                .map(|(i, b)| Bone {
                    parent: (i > 0).then_some(b.parent),
                    length: b.length,
                })
                .collect(),
            groups: m
                .groups
                .iter()
                .map(|g| Group {
                    vertices: g.vertices.len(),
                    uvs: g.uvs.len(),
                    offset: g.offset,
                    polygons: counts(|k, q| g.count(k, q)),
                })
                .collect(),
            polygons: counts(|k, q| m.groups.iter().map(|g| g.count(k, q)).sum()),
            tims: model.tims.iter().map(|(id, t)| Tim::of(*id, t)).collect(),
            materials: model
                .materials
                .as_ref()
                .map(|mm| Materials::of(model, mm, kind.uses_material_records())),
            animations: model
                .animations()
                .into_iter()
                .enumerate()
                .map(|(i, a)| Animation {
                    name: a.name,
                    frames: a.frames,
                    default: Some(i) == model.default_animation,
                })
                .collect(),
        }
    }
}

impl Tim {
    fn of(id: Option<u16>, t: &super::Tim) -> Tim {
        Tim {
            id,
            bpp: t.depth.bpp(),
            width: t.pixel_width(),
            height: u32::from(t.image.height),
            image: Rect {
                x: t.image.x,
                y: t.image.y,
                w: t.image.width,
                h: t.image.height,
            },
            clut: t.clut.as_ref().map(|c| Rect {
                x: c.x,
                y: c.y,
                w: c.width,
                h: c.height,
            }),
        }
    }
}

impl Materials {
    /// The 0x12 record `mm` of `model`: each material's fields and the TIM blocks its texels
    /// and palette come from.
    fn of(model: &FF9Model, mm: &super::ModelMaterials, window_added: bool) -> Materials {
        Materials {
            model_id: mm.model_id,
            default_animation: mm.default_animation,
            window_added,
            materials: mm
                .materials
                .iter()
                .map(|mat| {
                    let tp = TexPage(mat.tpage.0 & 0xFFDF);
                    Material {
                        tpage: mat.tpage.0,
                        page: [mat.tpage.x(), mat.tpage.y()],
                        depth: [4, 8, 15, 15][usize::from(mat.tpage.depth())],
                        clut: mat.clut.0,
                        clut_xy: [mat.clut.x(), mat.clut.y()],
                        window: mat.window,
                        texels_from: model
                            .uploads
                            .texels(tp, [0, 0, 255, 255])
                            .map(|u| u.to_string()),
                        palette_from: model
                            .uploads
                            .palette(mat.clut, tp.depth())
                            .flatten()
                            .map(|u| u.to_string()),
                    }
                })
                .collect(),
        }
    }
}

fn join(c: &[PolyCount]) -> String {
    c.iter()
        .map(|p| format!("{} {}", p.class, p.count))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Facts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "FF9 model: {}", self.source)?;
        // A guessed kind is field exactly when a 0x12 record was found.
        let why = match (self.kind_guessed, self.materials.is_some()) {
            (false, _) => "from --ff9-kind",
            (true, true) => "guessed from the 0x12 record; world models follow the same rules",
            (true, false) => "guessed: no 0x12 record; a weapon needs --ff9-kind weapon",
        };
        writeln!(f, "kind: {} ({why})", self.kind)?;
        self.fmt_chunks(f)?;
        self.fmt_mesh(f)?;
        self.fmt_tims(f)?;
        self.fmt_materials(f)?;
        writeln!(f, "animations: {}", self.animations.len())?;
        for (i, a) in self.animations.iter().enumerate() {
            let default = if a.default { " (default)" } else { "" };
            writeln!(f, "  {i}: {}, {} frames{default}", a.name, a.frames)?;
        }
        Ok(())
    }
}

impl Facts {
    /// The cluster's chunk headers, nested ones indented (nothing for a bare model).
    fn fmt_chunks(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.chunks.is_empty() {
            writeln!(f, "cluster chunks: {}", self.chunks.len())?;
        }
        for c in &self.chunks {
            let indent = "  ".repeat(c.depth as usize + 1);
            if c.typed {
                let ids: Vec<String> = c.ids.iter().map(u16::to_string).collect();
                let at: Vec<String> = c.objects.iter().map(|o| format!("0x{o:x}")).collect();
                writeln!(
                    f,
                    "{indent}chunk 0x{:02x} at 0x{:x}: {} object(s), ids [{}], at [{}], end 0x{:x}",
                    c.kind,
                    c.offset,
                    c.ids.len(),
                    ids.join(", "),
                    at.join(", "),
                    c.end
                )?;
            } else {
                writeln!(
                    f,
                    "{indent}chunk 0x{:02x} at 0x{:x}: no chunk header (old bare layout), 0xDC \
                     object at 0x{:x}",
                    c.kind, c.offset, c.offset
                )?;
            }
        }
        Ok(())
    }

    /// The type-0x02 model: header position, bones, groups and polygon counts.
    fn fmt_mesh(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.position;
        writeln!(f, "header position: {} {} {}", p[0], p[1], p[2])?;
        writeln!(f, "bones: {}", self.bones.len())?;
        for (i, b) in self.bones.iter().enumerate() {
            let parent = b
                .parent
                .map_or("root".to_string(), |p| format!("parent {p}"));
            writeln!(f, "  bone {i}: {parent}, length {}", b.length)?;
        }
        writeln!(f, "groups: {}", self.groups.len())?;
        for (i, g) in self.groups.iter().enumerate() {
            writeln!(
                f,
                "  group {i}: {} vertices, {} UVs, offset {:?}; {}",
                g.vertices,
                g.uvs,
                g.offset,
                join(&g.polygons)
            )?;
        }
        writeln!(
            f,
            "polygons: {} ({}; B/C layouts reconstructed)",
            self.polygons.iter().map(|p| p.count).sum::<usize>(),
            join(&self.polygons)
        )
    }

    fn fmt_tims(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "TIMs: {}", self.tims.len())?;
        for (i, t) in self.tims.iter().enumerate() {
            let id = t.id.map_or("file".to_string(), |id| format!("id {id}"));
            write!(
                f,
                "  TIM {i} ({id}): {}bpp {}x{} px, image VRAM ({},{}) {}x{} halfwords",
                t.bpp, t.width, t.height, t.image.x, t.image.y, t.image.w, t.image.h
            )?;
            match &t.clut {
                Some(c) => writeln!(f, ", CLUT VRAM ({},{}) {}x{}", c.x, c.y, c.w, c.h)?,
                None => writeln!(f, ", no CLUT block")?,
            }
        }
        Ok(())
    }

    /// The 0x12 record: each material's TPage and CLUT, and where its texels come from.
    fn fmt_materials(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(mm) = &self.materials else {
            return if self.tims.is_empty() {
                writeln!(f, "materials: none")
            } else {
                writeln!(f, "materials: none (material index = TIM index)")
            };
        };
        let anim = mm
            .default_animation
            .map_or("none".to_string(), |a| a.to_string());
        writeln!(
            f,
            "materials (0x12, model id {}, default animation {anim}): {}",
            mm.model_id,
            mm.materials.len()
        )?;
        let use_window = if mm.window_added {
            "added to UVs"
        } else {
            "unused"
        };
        for (i, m) in mm.materials.iter().enumerate() {
            let texels = m.texels_from.as_deref().unwrap_or("MISSING");
            let palette = match (m.depth, &m.palette_from) {
                (15, _) => "none (15bpp)",
                (_, Some(p)) => p,
                (_, None) => "MISSING",
            };
            writeln!(
                f,
                "  material {i}: TPage 0x{:04x} (page {},{} depth {}), CLUT 0x{:04x} \
                 ({},{}), window {:?} {use_window}\n    texels from {texels}, palette \
                 from {palette}",
                m.tpage,
                m.page[0],
                m.page[1],
                m.depth,
                m.clut,
                m.clut_xy[0],
                m.clut_xy[1],
                m.window
            )?;
        }
        Ok(())
    }
}
