//! The render pipeline: a posed model → PS1 fixed point → the emulated GTE → an ordering table →
//! GP0 packets → the emulated GPU → the displayed area as RGB.
//!
//! Design rule: nothing bypasses the emulated chips. The CPU side only does what a game's CPU
//! does — converts data to fixed point, loads GTE registers, issues COP2 commands, reads results,
//! links packets into an ordering table and writes GP0 words. The seam to the GPU is
//! [`gpu::Gpu::gp0_words`]; every frame's words are kept in [`Frame::gp0`] so they can be dumped
//! and replayed.
//!
//! Choices (documented PS1 practice, not hardware facts):
//! - culling: back faces by NCLIP (MAC0 ≥ 0 is a back face; two-sided faces skip the test);
//!   near-plane and oversize polygons are **culled**, not subdivided: a polygon is dropped when any
//!   corner's projection raised FLAG bits 13/14/17/18 (screen X/Y saturated, divide overflow — the
//!   corner is closer than H/2 or behind the camera — or Z saturated), or when its screen bounds
//!   exceed the GPU's 1023×511 limit (which the GPU would refuse anyway);
//! - lighting: one white directional light from the camera's upper left plus ambient, via NCCT /
//!   NCCS (`lighting: false` or FF9's vertex colours skip it);
//! - ordering: see [`ot`].
//! - VRAM: the framebuffer at (0,0) (or the first corner FF9's own images leave free), textures
//!   and CLUTs beside it; see [`crate::texture`].

pub mod camera;
pub mod convert;
mod display;
mod faces;
pub mod gte_stage;
mod lights;
pub mod ot;
pub mod packets;
mod sprites;
pub mod synthetic;

use std::fmt;
use std::sync::Arc;

use gpu::Gpu;
use gte::Gte;

use crate::scene::{FaceTexture, Model, PoseRequest};
use crate::texture::{BlendClass, Rect, TextureCache, TextureDepth, TextureError};
use camera::View;
use convert::ModelSpace;
use display::VramLayout;
use gte_stage::{Environment, Q12};
use ot::{OrderingTable, OT_LEN};
use packets::TexPage;

pub use display::{read_mask, vram_rgb, HEIGHTS, WIDTHS};
pub use sprites::SPRITE_BUDGET;

/// Ambient light level (1.0 = 4096): BK.
pub const AMBIENT: f32 = 0.4;
/// Diffuse light level (LCM column 0).
pub const DIFFUSE: f32 = 0.7;
/// Direction towards the light in camera space (x right, y down, z forward): upper left, in front.
pub const LIGHT_DIR: [f32; 3] = [-0.45, -0.6, -0.66];

/// The background colour when none is asked for (`--bg`'s default).
pub const DEFAULT_BACKGROUND: [u8; 3] = [0x20, 0x20, 0x30];

/// How to render.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Display width, one of [`WIDTHS`].
    pub width: u32,
    /// Display height, one of [`HEIGHTS`].
    pub height: u32,
    /// Background colour (cleared by GP0(02h) each frame).
    pub background: [u8; 3],
    /// Mark drawn pixels (`--bg none`): primitives are drawn with GP0(E6h) "set mask bit" on,
    /// after the clear (which writes mask 0), so VRAM bit 15 is set exactly where the GPU drew,
    /// and [`Frame::alpha`] is read from it. Colours are the same either way.
    pub transparent: bool,
    /// GP0(E1h) dithering.
    pub dither: bool,
    /// Light lit formats through NCCT/NCCS (false = `--unlit`: face colours as given).
    pub lighting: bool,
    /// Texture colour depth.
    pub depth: TextureDepth,
    /// Camera.
    pub view: View,
    /// GPU rasteriser threads (0 = all cores).
    pub threads: usize,
    /// The pose the scale and the auto-framing are computed from (also which textures get
    /// placed): normally the animation and first frame being rendered.
    pub framing: PoseRequest,
    /// Draw the model's particles and ribbons (false = `--no-effects`, mesh only).
    pub effects: bool,
    /// Whose lights: the model's own when it has any, or always the default rig.
    pub lights: LightChoice,
    /// Look through the model's own camera N instead of [`RenderOptions::view`]'s orbit.
    pub camera: Option<usize>,
    /// Where textures already in PS1 form are kept between processes (`--cache DIR`); `None`
    /// converts every texture afresh. The pictures are the same either way.
    pub texture_cache: Option<Arc<TextureCache>>,
}

/// Which lights the GTE is loaded with (`--lights model|rig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LightChoice {
    /// The model's light nodes when it has any (up to three directional lights from its
    /// centre, its ambient as the background colour), else the rig.
    #[default]
    Model,
    /// The default rig: one white light from the camera's upper left plus ambient.
    Rig,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 320,
            height: 240,
            background: DEFAULT_BACKGROUND,
            transparent: false,
            dither: true,
            lighting: true,
            depth: TextureDepth::Auto,
            view: View::default(),
            threads: 0,
            framing: PoseRequest::default(),
            effects: true,
            lights: LightChoice::Model,
            camera: None,
            texture_cache: None,
        }
    }
}

/// Why a model could not be rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenderError {
    /// The size is not a PS1 display mode.
    BadSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The model's textures could not be put in PS1 form (VRAM full, a malformed image).
    Texture(TextureError),
    /// The model's own VRAM images leave no room for the framebuffer.
    NoFramebufferRoom,
    /// `--camera N` names a camera the model does not have.
    NoCamera {
        /// Asked for.
        index: usize,
        /// Cameras the model has.
        count: usize,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::BadSize { width, height } => write!(
                f,
                "{width}x{height} is not a PS1 display mode (widths 256/320/368/512/640, heights 240/480)"
            ),
            RenderError::Texture(e) => e.fmt(f),
            RenderError::NoFramebufferRoom => write!(
                f,
                "the model's VRAM images cover every place the framebuffer could go"
            ),
            RenderError::NoCamera { index, count } => write!(
                f,
                "--camera {index}: the model has {count} camera{} (see `psxrender info`)",
                if *count == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for RenderError {}

impl From<TextureError> for RenderError {
    fn from(e: TextureError) -> Self {
        RenderError::Texture(e)
    }
}

/// Counts for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Polygons written to the GPU.
    pub drawn: u32,
    /// Dropped by NCLIP (back faces).
    pub back_faces: u32,
    /// Dropped at the near plane / for saturated or oversize projections.
    pub clipped: u32,
    /// Faces with a vertex index out of range or fewer than 3 corners.
    pub invalid: u32,
    /// Vertices that saturated converting to int16.
    pub clamped_vertices: u32,
    /// Effect sprites written to the GPU.
    pub sprites: u32,
    /// Effect sprites past the frame's [`SPRITE_BUDGET`], not drawn.
    pub sprites_over_budget: u32,
}

/// One rendered frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Displayed width.
    pub width: u32,
    /// Displayed height.
    pub height: u32,
    /// The displayed area, 8-bit RGB, row-major.
    pub rgb: Vec<u8>,
    /// With [`RenderOptions::transparent`]: per pixel 255 where a primitive drew (VRAM mask
    /// bit set), 0 where only the clear did; `None` otherwise.
    pub alpha: Option<Vec<u8>>,
    /// Every GP0 word of the frame (drawing environment, clear, the ordering table).
    pub gp0: Vec<u32>,
    /// Counts.
    pub stats: FrameStats,
}

/// Per-model work done once: scale, framing, VRAM layout and uploads.
#[derive(Debug)]
struct Prepared {
    space: ModelSpace,
    framing_points: Vec<[f32; 3]>,
    vram: VramLayout,
}

/// Renders frames of one model. Holds its own GTE and GPU; textures are uploaded once.
pub struct Renderer<'m> {
    model: &'m dyn Model,
    opts: RenderOptions,
    prep: Arc<Prepared>,
    distance: f32,
    gte: Gte,
    gpu: Gpu,
    ot: OrderingTable,
}

impl<'m> Renderer<'m> {
    /// Prepares `model`: poses `opts.framing`, picks the scale and camera distance, converts and
    /// places the textures, and uploads them to a fresh GPU.
    pub fn new(model: &'m dyn Model, opts: &RenderOptions) -> Result<Self, RenderError> {
        if !WIDTHS.contains(&opts.width) || !HEIGHTS.contains(&opts.height) {
            return Err(RenderError::BadSize {
                width: opts.width,
                height: opts.height,
            });
        }
        if let Some(index) = opts.camera {
            let count = model.camera_count();
            if index >= count {
                return Err(RenderError::NoCamera { index, count });
            }
        }
        let mut framing = opts.framing.clone();
        framing.camera = Some(opts.view.pose_camera());
        let mesh = model.pose(&framing);
        // The emitters' positions frame the model with or without `--no-effects`, so both draw
        // the same picture but for the particles; only drawn effects take VRAM.
        let mut effects = model.effects(&framing);
        if !opts.effects {
            effects.uses.clear();
        }
        let framing_points: Vec<[f32; 3]> = mesh
            .vertices
            .iter()
            .map(|v| v.position)
            .chain(effects.reach.iter().copied())
            .collect();
        let space = ModelSpace::fit(&framing_points);
        let uses: Vec<(usize, BlendClass)> = mesh
            .faces
            .iter()
            .filter_map(|f| match f.texture {
                FaceTexture::Image { texture, .. } => Some((texture, f.blend.into())),
                _ => None,
            })
            .chain(effects.uses.iter().map(|&(t, b)| (t, b.into())))
            .collect();
        let vram = VramLayout::new(opts, &mesh, &uses)?;
        let prep = Prepared {
            space,
            framing_points,
            vram,
        };
        Ok(Self::with_prepared(model, opts.clone(), Arc::new(prep)))
    }

    fn with_prepared(model: &'m dyn Model, opts: RenderOptions, prep: Arc<Prepared>) -> Self {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(opts.threads));
        for &w in &prep.vram.gp1_setup {
            gpu.gp1(w);
        }
        gpu.gp0_words(&prep.vram.upload);
        let mut r = Renderer {
            model,
            opts,
            prep,
            distance: 1.0,
            gte: Gte::new(),
            gpu,
            ot: OrderingTable::new(),
        };
        r.set_view(r.opts.view);
        r
    }

    /// A second renderer for the same model sharing the prepared textures (for rendering frames
    /// in parallel), with its own GTE and GPU.
    pub fn fork(&self) -> Renderer<'m> {
        self.template().renderer(self.opts.threads)
    }

    /// What it takes to make more renderers of this model on other threads (shares the
    /// prepared textures; `Sync`, unlike a renderer with its GPU).
    pub fn template(&self) -> Template<'m> {
        Template {
            model: self.model,
            opts: self.opts.clone(),
            prep: self.prep.clone(),
        }
    }

    /// Moves the camera (a `None` distance refits the framing pose).
    pub fn set_view(&mut self, view: View) {
        self.opts.view = view;
        self.distance = match view.distance {
            Some(d) if d.is_finite() && d > 0.0 => d,
            _ => view.fit_distance(
                self.prep.space.origin,
                &self.prep.framing_points,
                self.opts.width,
                self.opts.height,
            ),
        };
    }

    /// The options in force.
    pub fn options(&self) -> &RenderOptions {
        &self.opts
    }

    /// GTE units per model unit (the per-model scale).
    pub fn scale(&self) -> f32 {
        self.prep.space.scale
    }

    /// Camera distance in model units (fitted or as asked).
    pub fn distance(&self) -> f32 {
        self.distance
    }

    /// How many times every texture was halved to fit in VRAM.
    pub fn texture_shrink(&self) -> u32 {
        self.prep.vram.textures.shrink
    }

    /// The GP1 words that set up the display (reset, mode, start, ranges, enable).
    pub fn gp1_setup(&self) -> &[u32] {
        &self.prep.vram.gp1_setup
    }

    /// The GP0 words that upload every texture, CLUT and model VRAM image (a dump's "VRAM
    /// restore").
    pub fn upload_gp0(&self) -> &[u32] {
        &self.prep.vram.upload
    }

    /// VRAM as it stands before any frame is drawn: the display set up and every texture, CLUT
    /// and model image uploaded (a dump's VRAM restore, see
    /// [`crate::capture::dump::frame_dump`]).
    pub fn initial_vram(&self) -> Vec<u16> {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(1));
        for &w in &self.prep.vram.gp1_setup {
            gpu.gp1(w);
        }
        gpu.gp0_words(&self.prep.vram.upload);
        gpu.vram().to_vec()
    }

    /// The model being rendered.
    pub fn model(&self) -> &'m dyn Model {
        self.model
    }

    /// The framebuffer rectangle in VRAM.
    pub fn framebuffer(&self) -> Rect {
        self.prep.vram.framebuffer
    }

    /// The emulated GPU (for `--vram`).
    pub fn gpu(&mut self) -> &mut Gpu {
        &mut self.gpu
    }

    /// Renders one pose.
    pub fn render(&mut self, request: &PoseRequest) -> Result<Frame, RenderError> {
        let mut req = request.clone();
        let eye = self.eye(request);
        req.camera = Some(match &eye {
            Some(e) => camera::pose_basis(camera::look_at(e.position, e.target)),
            None => self.opts.view.pose_camera(),
        });
        let mut mesh = self.model.pose(&req);
        let effects = self.opts.effects.then(|| self.model.effects(&req));
        // Mesh particles are faces like the model's own, drawn after them.
        if let Some(fx) = &effects {
            let m = &fx.mesh;
            let into = (&mut mesh.vertices, &mut mesh.faces);
            crate::scene::append_faces(into, m.vertices.iter().copied(), &m.faces);
        }
        let env = self.environment(&req, eye);
        env.load(&mut self.gte);
        self.ot.clear();
        let mut stats = self.build_ot(&mesh);
        if let Some(fx) = &effects {
            self.draw_sprites(&fx.sprites, &mut stats);
        }
        let fb = self.prep.vram.framebuffer;
        let mut gp0 = Vec::with_capacity(16 + self.ot.len() * 13);
        gp0.push(packets::draw_mode(TexPage::default(), self.opts.dither));
        gp0.push(packets::texture_window(0, 0, 0, 0));
        gp0.extend(packets::draw_area(
            fb.x,
            fb.y,
            fb.x + fb.w - 1,
            fb.y + fb.h - 1,
        ));
        gp0.push(packets::draw_offset(fb.x as i16, fb.y as i16));
        // GP0(02h) ignores the mask setting and writes bit 15 = 0; every primitive drawn after
        // a "set mask bit" GP0(E6h) writes bit 15 = 1 (its check bit stays off, so nothing
        // drawn is refused and the colours do not change).
        gp0.push(packets::mask_setting(self.opts.transparent, false));
        packets::fill(&mut gp0, fb.x, fb.y, fb.w, fb.h, self.opts.background);
        self.ot.drain_into(&mut gp0);
        self.gpu.gp0_words(&gp0);
        // The picture is what the display shows (the same read-out as `replay --display`):
        // the GP1 set-up made the framebuffer the display area.
        let picture = self.gpu.picture();
        debug_assert_eq!(
            (picture.width, picture.height),
            (u32::from(fb.w), u32::from(fb.h))
        );
        let alpha = self
            .opts
            .transparent
            .then(|| read_mask(self.gpu.vram(), fb));
        Ok(Frame {
            width: picture.width,
            height: picture.height,
            rgb: picture.rgb,
            alpha,
            gp0,
            stats,
        })
    }

    /// The model's own camera for this frame, when `--camera` asked for one.
    fn eye(&self, request: &PoseRequest) -> Option<crate::scene::ModelCamera> {
        self.opts
            .camera
            .and_then(|i| self.model.camera(i, request))
            .filter(|e| e.position != e.target)
    }

    fn environment(
        &self,
        req: &PoseRequest,
        eye: Option<crate::scene::ModelCamera>,
    ) -> Environment {
        let s = self.prep.space.scale;
        let origin = self.prep.space.origin;
        let (basis, tr, h) = match eye {
            // TR = RT·(origin − eye)·scale puts the eye at the camera-space origin.
            Some(e) => {
                let b = camera::look_at(e.position, e.target);
                let d = crate::math::sub3(origin, e.position);
                let tr = b.map(|row| {
                    (crate::math::dot3(row, d) * s)
                        .round()
                        .clamp(i32::MIN as f32, i32::MAX as f32) as i32
                });
                let view = camera::View {
                    fov: e.fov,
                    ..self.opts.view
                };
                (b, tr, view.h(self.opts.width, self.opts.height))
            }
            None => {
                let dist = (self.distance * s).round().clamp(0.0, i32::MAX as f32) as i32;
                (
                    self.opts.view.basis(),
                    [0, 0, dist],
                    self.opts.view.h(self.opts.width, self.opts.height),
                )
            }
        };
        let rt = basis.map(|row| row.map(Q12::from_f32));
        let zfar = (tr[2].max(0) as f32 + self.prep.space.radius * s).max(1.0);
        let zsf = |n: f32| {
            (OT_LEN as f32 * 4096.0 / (n * zfar))
                .round()
                .clamp(1.0, 32767.0) as i16
        };
        let model_lights = match self.opts.lights {
            LightChoice::Model => self.model.lights(req),
            LightChoice::Rig => None,
        };
        let (llm, lcm, bk) = match model_lights {
            Some(l) => lights::from_model(&l, origin),
            None => lights::rig(&basis),
        };
        Environment {
            rt,
            tr,
            llm,
            lcm,
            bk,
            of: [
                (self.opts.width as i32 / 2) << 16,
                (self.opts.height as i32 / 2) << 16,
            ],
            h,
            zsf3: zsf(3.0),
            zsf4: zsf(4.0),
        }
    }
}

/// The animation a bare `--frame N` animates: the first idle-looking one (`Stand`, `pause*`,
/// `idle*`, case-insensitive), else the first; `None` when the model has none.
pub fn default_animation(model: &dyn Model) -> Option<usize> {
    let anims = model.animations();
    let idle = |n: &str| {
        let n = n.to_ascii_lowercase();
        n == "stand" || n.starts_with("pause") || n.starts_with("idle")
    };
    anims
        .iter()
        .position(|a| idle(&a.name))
        .or((!anims.is_empty()).then_some(0))
}

/// A recipe for renderers of one prepared model (see [`Renderer::template`]).
pub struct Template<'m> {
    model: &'m dyn Model,
    opts: RenderOptions,
    prep: Arc<Prepared>,
}

impl<'m> Template<'m> {
    /// A fresh renderer (own GTE and GPU, textures uploaded) with `threads` GPU threads.
    pub fn renderer(&self, threads: usize) -> Renderer<'m> {
        let mut opts = self.opts.clone();
        opts.threads = threads;
        Renderer::with_prepared(self.model, opts, self.prep.clone())
    }
}

/// PS1 semi-transparency mode for a blend, `None` = opaque.
impl Frame {
    /// The picture as 8-bit RGBA: [`Frame::alpha`] when the frame has one, else opaque.
    pub fn rgba(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.rgb.len() / 3 * 4);
        for (i, p) in self.rgb.chunks_exact(3).enumerate() {
            let a = self.alpha.as_ref().map_or(255, |a| a[i]);
            out.extend([p[0], p[1], p[2], a]);
        }
        out
    }
}

#[cfg(test)]
mod tests;
