//! Sprite sheets: rendered frames laid out in one grid picture, with a JSON index of each
//! cell's rectangle, frame, time and camera yaw (what a game's sprite loader reads).
//!
//! Layout: without yaw steps, frames fill the grid row by row; with N yaw steps (a turntable),
//! row `r` is the camera at yaw `YAW + r·360/N` and column `c` the `c`-th frame. Cells left
//! over are the background colour, or transparent when the frames have alpha.

use serde::Serialize;

use crate::render::Frame;

/// Frames per second of the animation clock (frame N is at N/30 s).
pub const FPS: u32 = 30;
/// Largest sheet side, in pixels.
pub const MAX_SIDE: u32 = 32_768;
/// Largest sheet, in pixels (256 MiB as RGBA).
pub const MAX_PIXELS: u64 = 64 << 20;

/// The grid asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SheetSize {
    /// Near-square (frames only), or frames × yaw steps.
    Auto,
    /// Columns × rows.
    Grid(u32, u32),
}

/// The grid chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Columns.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Cell width (the frame width).
    pub cell_width: u32,
    /// Cell height.
    pub cell_height: u32,
}

impl Layout {
    /// The grid for `frames` frames at each of `angles` camera angles (1 = no turntable) in
    /// cells of `cell` pixels; an error says why the size asked for cannot hold them.
    pub fn new(
        size: SheetSize,
        frames: u32,
        angles: u32,
        cell: (u32, u32),
    ) -> Result<Layout, String> {
        let (columns, rows) = match (size, angles) {
            (SheetSize::Auto, 1) => {
                let c = (frames as f64).sqrt().ceil().max(1.0) as u32;
                (c, frames.div_ceil(c))
            }
            (SheetSize::Auto, a) => (frames, a),
            (SheetSize::Grid(c, r), 1) => {
                if u64::from(c) * u64::from(r) < u64::from(frames) {
                    return Err(format!(
                        "a {c}x{r} sheet holds {} cells, not {frames} frames",
                        c * r
                    ));
                }
                (c, r)
            }
            (SheetSize::Grid(c, r), a) => {
                if c < frames || r < a {
                    return Err(format!(
                        "with --yaw-steps {a} the sheet needs {frames} columns (frames) and {a} rows (angles); {c}x{r} is too small"
                    ));
                }
                (c, r)
            }
        };
        let (w, h) = (
            u64::from(columns) * u64::from(cell.0),
            u64::from(rows) * u64::from(cell.1),
        );
        if w > u64::from(MAX_SIDE) || h > u64::from(MAX_SIDE) || w * h > MAX_PIXELS {
            return Err(format!(
                "a {columns}x{rows} sheet of {}x{} frames is {w}x{h} pixels; at most {MAX_SIDE} a side and {MAX_PIXELS} pixels",
                cell.0, cell.1
            ));
        }
        Ok(Layout {
            columns,
            rows,
            cell_width: cell.0,
            cell_height: cell.1,
        })
    }

    /// Sheet width in pixels.
    pub fn width(&self) -> u32 {
        self.columns * self.cell_width
    }

    /// Sheet height in pixels.
    pub fn height(&self) -> u32 {
        self.rows * self.cell_height
    }

    /// The (column, row) of the `i`-th frame at angle `angle`.
    pub fn cell(&self, i: u32, angle: u32, angles: u32) -> (u32, u32) {
        if angles > 1 {
            (i, angle)
        } else {
            (i % self.columns, i / self.columns)
        }
    }
}

/// One cell of the sheet, as the JSON index lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Left edge in the sheet, pixels.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// Column.
    pub column: u32,
    /// Row.
    pub row: u32,
    /// Frame number rendered (30 fps).
    pub frame: u32,
    /// Its time from the animation's start, seconds (frame / 30).
    pub time_s: f64,
    /// Camera yaw, degrees.
    pub yaw: f32,
}

/// The JSON index written beside the sheet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Index {
    /// The sheet image's file name.
    pub image: String,
    /// Sheet width.
    pub width: u32,
    /// Sheet height.
    pub height: u32,
    /// The grid.
    #[serde(flatten)]
    pub layout: Layout,
    /// Animation clock, frames per second.
    pub fps: u32,
    /// The model file.
    pub model: String,
    /// The animation's name, if the model has one.
    pub animation: Option<String>,
    /// Camera pitch, degrees.
    pub pitch: f32,
    /// Camera distance (model units), the same for every cell.
    pub distance: f32,
    /// Whether the sheet has alpha (`--bg none`).
    pub transparent: bool,
    /// Every cell that holds a frame, row by row.
    pub cells: Vec<Cell>,
}

/// Paints `frame` into an RGBA sheet of `layout` at (`column`, `row`).
pub fn paint(sheet: &mut [u8], layout: &Layout, column: u32, row: u32, frame: &Frame) {
    let (cw, ch) = (layout.cell_width as usize, layout.cell_height as usize);
    let stride = layout.width() as usize * 4;
    let rgba = frame.rgba();
    let (fw, fh) = (frame.width as usize, frame.height as usize);
    for y in 0..ch.min(fh) {
        let dst = (row as usize * ch + y) * stride + column as usize * cw * 4;
        let src = y * fw * 4;
        let n = cw.min(fw) * 4;
        sheet[dst..dst + n].copy_from_slice(&rgba[src..src + n]);
    }
}

/// An empty RGBA sheet: `background`, opaque, or transparent black when `transparent`.
pub fn blank(layout: &Layout, background: [u8; 3], transparent: bool) -> Vec<u8> {
    let px = if transparent {
        [0, 0, 0, 0]
    } else {
        [background[0], background[1], background[2], 255]
    };
    px.repeat(layout.width() as usize * layout.height() as usize)
}

/// RGBA without its alpha channel, packed in place (a sheet can be 256 MiB: no second copy).
/// Pixels move a block at a time through a small buffer: a block's RGB lands at or before
/// where its RGBA was, so nothing unread is overwritten.
pub fn into_rgb(mut rgba: Vec<u8>) -> Vec<u8> {
    const BLOCK: usize = 4096;
    let n = rgba.len() / 4;
    let mut tmp = [0u8; BLOCK * 3];
    let mut first = 0;
    while first < n {
        let count = BLOCK.min(n - first);
        let src = &rgba[first * 4..(first + count) * 4];
        for (d, s) in tmp.chunks_exact_mut(3).zip(src.chunks_exact(4)) {
            d.copy_from_slice(&s[..3]);
        }
        rgba[first * 3..(first + count) * 3].copy_from_slice(&tmp[..count * 3]);
        first += count;
    }
    rgba.truncate(3 * n);
    rgba.shrink_to_fit();
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let l = Layout::new(SheetSize::Auto, 12, 1, (320, 240)).unwrap();
        assert_eq!((l.columns, l.rows), (4, 3));
        assert_eq!(l.cell(5, 0, 1), (1, 1));
        let l = Layout::new(SheetSize::Auto, 12, 8, (320, 240)).unwrap();
        assert_eq!(
            (l.columns, l.rows, l.width(), l.height()),
            (12, 8, 3840, 1920)
        );
        assert_eq!(l.cell(5, 3, 8), (5, 3));
        assert_eq!(Layout::new(SheetSize::Auto, 10, 1, (8, 8)).unwrap().rows, 3);
        assert!(Layout::new(SheetSize::Grid(3, 3), 10, 1, (8, 8)).is_err());
        assert!(Layout::new(SheetSize::Grid(12, 7), 12, 8, (8, 8)).is_err());
        assert!(Layout::new(SheetSize::Grid(10000, 1), 10000, 1, (640, 480)).is_err());
    }

    #[test]
    fn paint_puts_the_frame_in_its_cell() {
        let l = Layout::new(SheetSize::Grid(2, 1), 2, 1, (2, 1)).unwrap();
        let mut s = blank(&l, [9, 9, 9], true);
        let f = Frame {
            width: 2,
            height: 1,
            rgb: vec![1, 2, 3, 4, 5, 6],
            alpha: Some(vec![255, 0]),
            gp0: Vec::new(),
            stats: Default::default(),
        };
        paint(&mut s, &l, 1, 0, &f);
        assert_eq!(s, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 255, 4, 5, 6, 0]);
        assert_eq!(into_rgb(s), [0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6]);
        // Across blocks.
        let big: Vec<u8> = (0..10_000u32 * 4).map(|i| (i % 251) as u8).collect();
        let want: Vec<u8> = big.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        assert_eq!(into_rgb(big), want);
    }
}
