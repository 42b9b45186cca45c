//! The format-neutral scene: what every loader hands the renderer for one posed frame.
//!
//! Conventions every loader converts to:
//! - right-handed model space, **+Y up**, the model's front facing **+Z** (a camera at yaw 0
//!   looks from +Z toward the origin); units are the file's own — the renderer picks the scale
//!   that makes the posed model fit int16 GTE space;
//! - faces wind **counter-clockwise** seen from their front;
//! - frame N of an animation is the pose at N/30 s from its start (FF9: its N-th stored frame),
//!   wrapping past the end.

mod extras;
mod image;
mod memo;

pub use extras::{append_faces, EffectMesh, Effects, ModelCamera, ModelLight, ModelLights, Sprite};
pub use image::{SourceId, TextureImage};
pub use memo::{Moment, MomentMemo};

/// An 8-bit RGBA image, row-major, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` pixels.
    pub pixels: Vec<[u8; 4]>,
}

/// How a face mixes with what is behind it, in the model's own terms. The renderer maps these
/// onto the PS1's four semi-transparency modes and transparent texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Blend {
    /// Solid.
    #[default]
    Opaque,
    /// Solid, but texels with alpha below one half are not drawn (punch-through).
    Cutout,
    /// Alpha blending: drawn semi-transparent (PS1 mode 0, B/2+F/2) where texel alpha is partial.
    Alpha,
    /// Additive (PS1 mode 1, B+F).
    Additive,
    /// Subtractive (PS1 mode 2, B−F).
    Subtractive,
    /// Quarter additive (PS1 mode 3, B+F/4).
    AddQuarter,
}

/// A texture a face samples.
#[derive(Clone, Debug, PartialEq)]
pub enum FaceTexture {
    /// Untextured: drawn in the corners' colours.
    None,
    /// An RGBA texture from [`PosedMesh::textures`]; `uv` per corner, 0..1 across the image
    /// (top-left origin), values outside wrap.
    Image {
        /// Index into [`PosedMesh::textures`].
        texture: usize,
        /// Texture coordinates per corner (only the first 3 used for a triangle).
        uv: [[f32; 2]; 4],
    },
    /// Already in VRAM terms (FF9): sent to the GPU as the game would.
    Vram {
        /// GP0 texpage attribute (polygon word 2's high half).
        tpage: u16,
        /// GP0 CLUT attribute (polygon word 1's high half).
        clut: u16,
        /// Texel coordinates inside the page, per corner.
        uv: [[u8; 2]; 4],
    },
}

/// One triangle or quad.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// Vertex indices into [`PosedMesh::vertices`]; for a quad in PS1 order (0,1,2 then 1,2,3
    /// form its triangles: i.e. a "Z" pattern, not a ring).
    pub vertices: [u32; 4],
    /// 3 or 4.
    pub corners: u8,
    /// Per-corner colour, 128 = neutral (PS1 modulation 1.0). Lit formats leave 128 and let the
    /// renderer's lighting scale it.
    pub colors: [[u8; 3]; 4],
    /// What it samples.
    pub texture: FaceTexture,
    /// How it blends.
    pub blend: Blend,
    /// Drawn from both sides (no back-face culling).
    pub two_sided: bool,
}

/// One vertex after posing.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Vertex {
    /// Position in model space.
    pub position: [f32; 3],
    /// Unit normal in model space (zero when the format has none).
    pub normal: [f32; 3],
}

/// A rectangle of VRAM halfwords to upload as-is (FF9 TIMs, at their own coordinates).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VramImage {
    /// Left edge in halfwords.
    pub x: u16,
    /// Top edge in lines.
    pub y: u16,
    /// Width in halfwords.
    pub width: u16,
    /// Height in lines.
    pub height: u16,
    /// `width * height` halfwords, row-major.
    pub data: Vec<u16>,
}

/// Whether the renderer lights the faces or takes their colours as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Shading {
    /// Light with the normals (NWN, M2).
    #[default]
    Lit,
    /// Vertex colours as given (FF9).
    VertexColors,
}

/// Everything the renderer needs for one frame of one model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PosedMesh {
    /// Posed vertices.
    pub vertices: Vec<Vertex>,
    /// Faces, in the model's own order.
    pub faces: Vec<Face>,
    /// Textures referenced by [`FaceTexture::Image`].
    pub textures: Vec<Texture>,
    /// VRAM uploads referenced by [`FaceTexture::Vram`].
    pub vram_images: Vec<VramImage>,
    /// How to shade.
    pub shading: Shading,
}

/// A named texture image.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Name as the model gives it (resref, path).
    pub name: String,
    /// The image (decoded now or on first use); a loader that could not find the file puts a
    /// visible fallback here. Shared, not owned: a model keeps its textures and every pose
    /// hands out the same image (an 8192² texture is 256 MiB, and frames rendered in parallel
    /// each pose the model).
    pub image: TextureImage,
}

/// One animation a model offers.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationInfo {
    /// Name (NWN), "id.variation" name (M2), or "anim N" (FF9).
    pub name: String,
    /// Length in frames at 30 fps (FF9: stored frames).
    pub frames: u32,
    /// Length in milliseconds.
    pub duration_ms: u32,
}

/// What to pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoseRequest {
    /// Index into the model's animations; `None` = rest pose (or the format's fallback).
    pub animation: Option<usize>,
    /// Frame number (30 fps).
    pub frame: u32,
    /// Camera orientation, rows = camera right, up, forward in model space; billboards face it.
    pub camera: Option<[[f32; 3]; 3]>,
}

/// A loaded model of any format.
pub trait Model: Send + Sync {
    /// Format name ("FF9", "NWN MDL", "M2").
    fn format(&self) -> &'static str;
    /// Animations on offer, in the order `PoseRequest::animation` indexes.
    fn animations(&self) -> Vec<AnimationInfo>;
    /// Finds an animation by name (case-insensitive) or decimal index.
    fn find_animation(&self, selector: &str) -> Option<usize> {
        let anims = self.animations();
        anims
            .iter()
            .position(|a| a.name.eq_ignore_ascii_case(selector))
            .or_else(|| selector.parse::<usize>().ok().filter(|&i| i < anims.len()))
    }
    /// The mesh posed as asked.
    fn pose(&self, request: &PoseRequest) -> PosedMesh;
    /// The particles and ribbons of the same frame (textures index [`PosedMesh::textures`] of
    /// the same request's pose). A pure function of the request: see [`crate::effects`].
    fn effects(&self, _request: &PoseRequest) -> Effects {
        Effects::default()
    }
    /// How many cameras the model carries (`--camera N`).
    fn camera_count(&self) -> usize {
        0
    }
    /// Camera `index` at the request's frame.
    fn camera(&self, _index: usize, _request: &PoseRequest) -> Option<ModelCamera> {
        None
    }
    /// The lights the model carries at the request's frame, `None` when it has none.
    fn lights(&self, _request: &PoseRequest) -> Option<ModelLights> {
        None
    }
    /// The human-readable description `psxrender info` prints.
    fn info(&self) -> String;
    /// The same facts as [`Model::info`] as a JSON object (`psxrender info --json`), with at
    /// least `"format"`.
    fn facts(&self) -> serde_json::Value;
    /// Problems met while loading (missing textures, supermodels, …), one line each.
    fn warnings(&self) -> Vec<String>;
    /// Choices the loader made that the user should know of (which skin it took), one line
    /// each.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The (yaw, pitch) in degrees this model is meant to be seen from, when the user gives
    /// none; `None` = the renderer's 3/4 front view. NWN tiles, for one, are built for a camera
    /// south of them looking down, and hide their far side behind black "void" faces.
    fn preferred_view(&self) -> Option<(f32, f32)> {
        None
    }
}
