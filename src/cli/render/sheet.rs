//! `--frames A..B --sheet COLSxROWS|auto [--yaw-steps N]`: one sprite-sheet PNG of the frames
//! (a turntable with yaw steps) and a JSON index beside it (`OUT.json`).
//!
//! Every camera angle gets a renderer of its own, built as a plain render at that `--yaw`
//! would be (framing, scale and textures from the first frame), so a cell is the very picture
//! `psxrender MODEL OUT.png --frames A..B --yaw Y --distance D` writes for that frame, with D
//! and Y as the index lists them. The distance is one for all angles: the user's, else the
//! largest of the angles' fitted distances, so the model keeps its size from row to row.

use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;

use psxrender::render::camera::View;
use psxrender::render::{Renderer, Template};
use psxrender::scene::{Model, PoseRequest};
use psxrender::sheet::{blank, into_rgb, paint, Cell, Index, Layout, SheetSize, FPS};

use super::super::{write_failed, EXIT_BAD_INPUT};
use super::{camera_angles, RenderArgs};

fn bad(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

/// Renders the sheet of `range` (animation `animation` of `model`) into `out` and its index.
pub fn render(
    model: &dyn Model,
    source: &Path,
    animation: Option<usize>,
    range: Range<u32>,
    size: SheetSize,
    out: &Path,
    args: &RenderArgs,
) -> Result<(), ExitCode> {
    let frames = range.len() as u32;
    let layout = Layout::new(size, frames, args.yaw_steps.unwrap_or(1), args.size).map_err(bad)?;
    let angles = Angles::new(model, source, animation, args)?;
    let (sheet, cells) = paint_cells(&angles, &layout, &range, animation, args)?;
    let transparent = args.bg.transparent;
    let (w, h) = (layout.width(), layout.height());
    let written = if transparent {
        psxrender::output::save_png_rgba(out, w, h, &sheet)
    } else {
        psxrender::output::save_png_rgb(out, w, h, &into_rgb(sheet))
    };
    written.map_err(|e| write_failed(out, e))?;
    let index = Index {
        image: out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        width: w,
        height: h,
        layout,
        fps: FPS,
        model: source.display().to_string(),
        animation: animation.and_then(|a| model.animations().get(a).map(|x| x.name.clone())),
        pitch: angles.pitch,
        distance: angles.distance,
        transparent,
        cells,
    };
    let json_path = index_path(out);
    let json = serde_json::to_vec_pretty(&index).map_err(|e| write_failed(&json_path, e))?;
    psxrender::output::write_atomic(&json_path, &json).map_err(|e| write_failed(&json_path, e))?;
    eprintln!(
        "sheet {}: {} frames x {} angle(s) at camera distance {:.3} in a {}x{} grid ({w}x{h} px), index {}",
        out.display(),
        frames,
        angles.count,
        angles.distance,
        index.layout.columns,
        index.layout.rows,
        json_path.display()
    );
    eprintln!("wrote {} and {}", out.display(), json_path.display());
    Ok(())
}

/// The sheet's cameras: one renderer template per yaw step, built as a plain render at that
/// yaw would be, all at one distance.
struct Angles<'m> {
    /// One per angle, in yaw order.
    templates: Vec<Template<'m>>,
    /// Yaw of the first angle, degrees.
    base_yaw: f32,
    /// Pitch of every angle, degrees.
    pitch: f32,
    /// The user's distance, else the largest fitted one.
    distance: f32,
    /// How many angles (`--yaw-steps`, default 1).
    count: u32,
}

impl<'m> Angles<'m> {
    fn new(
        model: &'m dyn Model,
        source: &Path,
        animation: Option<usize>,
        args: &RenderArgs,
    ) -> Result<Self, ExitCode> {
        let count = args.yaw_steps.unwrap_or(1);
        let (base_yaw, pitch) = if count > 1 {
            (
                args.yaw.unwrap_or(0.0),
                camera_angles(None, args.pitch, model).1,
            )
        } else {
            camera_angles(args.yaw, args.pitch, model)
        };
        let mut angles = Angles {
            templates: Vec::with_capacity(count as usize),
            base_yaw,
            pitch,
            distance: 0.0,
            count,
        };
        let mut renderers = Vec::with_capacity(count as usize);
        for a in 0..count {
            let mut opts = args.options(model, animation);
            opts.view.yaw = angles.yaw(a);
            opts.view.pitch = pitch;
            let r = Renderer::new(model, &opts)
                .map_err(|e| bad(format!("{}: {e}", source.display())))?;
            renderers.push(r);
        }
        angles.distance = args.distance.unwrap_or_else(|| {
            renderers
                .iter()
                .map(|r| r.distance())
                .fold(0.0f32, f32::max)
        });
        for r in &mut renderers {
            let view = View {
                distance: Some(angles.distance),
                ..r.options().view
            };
            r.set_view(view);
            angles.templates.push(r.template());
        }
        Ok(angles)
    }

    /// Yaw of angle `a`, degrees.
    fn yaw(&self, a: u32) -> f32 {
        self.base_yaw + a as f32 * 360.0 / self.count as f32
    }
}

/// Renders every (angle, frame) cell on `args.threads` threads and paints each into the sheet
/// as it arrives (the sheet is the only picture held whole); the cells in row order.
fn paint_cells(
    angles: &Angles,
    layout: &Layout,
    range: &Range<u32>,
    animation: Option<usize>,
    args: &RenderArgs,
) -> Result<(Vec<u8>, Vec<Cell>), ExitCode> {
    let (count, frames) = (angles.count, range.len() as u32);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| bad(format!("cannot start threads: {e}")))?;
    let mut sheet = blank(layout, args.bg.colour, args.bg.transparent);
    let mut cells = Vec::with_capacity((count * frames) as usize);
    super::stream::in_order(
        &pool,
        count * frames,
        // One renderer per angle per worker, reused from frame to frame.
        || -> Vec<Option<Renderer>> { (0..count).map(|_| None).collect() },
        |rs, k| {
            let (a, i) = (k / frames, k % frames);
            let r = rs[a as usize].get_or_insert_with(|| angles.templates[a as usize].renderer(1));
            let n = range.start + i;
            let req = PoseRequest {
                animation,
                frame: n,
                camera: None,
            };
            r.render(&req).map_err(|e| bad(format!("frame {n}: {e}")))
        },
        |k, frame| {
            let (a, i) = (k / frames, k % frames);
            let (column, row) = layout.cell(i, a, count);
            paint(&mut sheet, layout, column, row, &frame);
            let n = range.start + i;
            cells.push(Cell {
                x: column * layout.cell_width,
                y: row * layout.cell_height,
                w: layout.cell_width,
                h: layout.cell_height,
                column,
                row,
                frame: n,
                time_s: f64::from(n) / f64::from(FPS),
                yaw: angles.yaw(a),
            });
            Ok(())
        },
    )?;
    cells.sort_by_key(|c| (c.row, c.column));
    Ok((sheet, cells))
}

/// The JSON index written beside sheet `out`: `OUT.json`.
pub(crate) fn index_path(out: &Path) -> std::path::PathBuf {
    out.with_extension("json")
}
