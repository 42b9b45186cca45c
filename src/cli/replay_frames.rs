//! `psxrender replay INPUT --frames A..B`: every frame of a capture in one pass
//! ([`psxrender::capture::sequence`]) to numbered PNGs (`--display DIR/`, `--vram DIR/`) and/or
//! an animated GIF (`--gif OUT.gif`), with a progress bar on a terminal.

use std::io::IsTerminal;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use psxrender::capture::compressed::MaxDecoded;
use psxrender::capture::crop::{self, Crop};
use psxrender::capture::display::{self, Picture};
use psxrender::capture::replay;
use psxrender::capture::sequence::{self, PlayError};
use psxrender::output::plan::{OutputPlan, Refusal};
use psxrender::output::{save_png_rgb, AtomicFile};

use super::{EXIT_BAD_INPUT, EXIT_WRITE_FAILED};

/// Where the pictures of each frame go.
pub struct Outputs<'a> {
    /// Directory of the displayed pictures.
    pub display: Option<&'a Path>,
    /// Directory of whole-VRAM pictures.
    pub vram: Option<&'a Path>,
    /// The animated GIF of the displayed pictures.
    pub gif: Option<&'a Path>,
    /// How the displayed pictures are framed.
    pub crop: Crop,
}

/// An output that failed: which file, why.
struct WriteError(PathBuf, String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}: {}", self.0.display(), self.1)
    }
}

/// Plays `input` (a compressed one decoding to at most what `max` allows) and writes frames
/// `range` to `out`.
pub fn run(
    input: &Path,
    range: Range<u32>,
    threads: usize,
    max: MaxDecoded,
    out: &Outputs,
) -> ExitCode {
    if out.display.is_none() && out.vram.is_none() && out.gif.is_none() {
        eprintln!("error: --frames writes --display DIR, --vram DIR or --gif FILE: give one");
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    let range = u64::from(range.start)..u64::from(range.end);
    if let Err(e) = check_outputs(input, &range, out) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_WRITE_FAILED);
    }
    let mut opened = match sequence::open(input, max) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    for dir in [out.display, out.vram].into_iter().flatten() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot make directory {}: {e}", dir.display());
            return ExitCode::from(EXIT_WRITE_FAILED);
        }
    }
    let mut gif = match out.gif.map(GifOut::create).transpose() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_WRITE_FAILED);
        }
    };
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(range.end)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut gpu = replay::new_gpu(&replay::Options {
        threads,
        ..Default::default()
    });
    let mut written = 0u64;
    let shot = |n: u64, gpu: &mut gpu::Gpu| -> Result<(), WriteError> {
        let shown = gpu.display();
        let (h, v) = gpu.display_ranges();
        let vram = gpu.vram();
        let pic = crop::shown(vram, &shown, h, v, out.crop);
        if let Some(dir) = out.display {
            save(&sequence::numbered(dir, n, "png"), &pic)?;
        }
        if let Some(dir) = out.vram {
            save(
                &sequence::numbered(dir, n, "png"),
                &display::vram_picture(vram),
            )?;
        }
        if let Some(g) = &mut gif {
            g.frame(&pic, shown.pal)?;
        }
        written += 1;
        Ok(())
    };
    let played = sequence::play(&mut opened.packets, &mut gpu, range.clone(), shot, |m| {
        bar.set_position(m)
    });
    bar.finish_and_clear();
    for w in opened.packets.take_warnings() {
        eprintln!("warning: {}: {w}", input.display());
    }
    match played {
        Ok(()) => {}
        Err(e @ PlayError::Output(_)) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_WRITE_FAILED);
        }
        Err(e) => {
            eprintln!("error: {}: {e}", input.display());
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    }
    let packed = match opened.compression {
        Some(c) => format!(" ({}-compressed)", c.name()),
        None => String::new(),
    };
    outln!(
        "{}{packed}: frames {}..{}: {written} pictures",
        input.display(),
        range.start,
        range.end
    );
    for (what, dir) in [("display", out.display), ("VRAM", out.vram)] {
        if let Some(dir) = dir {
            outln!("wrote {written} {what} PNGs to {}", dir.display());
        }
    }
    if let (Some(g), Some(path)) = (gif, out.gif) {
        if let Err(e) = g.finish() {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_WRITE_FAILED);
        }
        outln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

/// Every file the run writes, checked before it starts ([`OutputPlan`]): `--display` and
/// `--vram` naming one folder would write each frame twice, `--gif` could name a frame.
fn check_outputs(input: &Path, range: &Range<u64>, out: &Outputs) -> Result<(), Refusal> {
    let mut plan = OutputPlan::new();
    plan.input(input, "INPUT")?;
    for (dir, what) in [(out.display, "--display"), (out.vram, "--vram")] {
        for n in range.clone() {
            if let Some(dir) = dir {
                plan.output(
                    &sequence::numbered(dir, n, "png"),
                    format!("{what}, frame {n}"),
                )?;
            }
        }
    }
    if let Some(gif) = out.gif {
        plan.output(gif, "--gif")?;
    }
    Ok(())
}

fn save(path: &Path, pic: &Picture) -> Result<(), WriteError> {
    save_png_rgb(path, pic.width, pic.height, &pic.rgb)
        .map_err(|e| WriteError(path.to_path_buf(), e.to_string()))
}

/// An animated GIF written frame by frame to a temporary file, renamed into place at the end.
/// Each picture is shown as long as the TV showed it: one field (1/50 s PAL, 1/60 s NTSC) per
/// frame mark, and identical pictures in a row merged into one GIF frame. Delays are placed on
/// GIF's 1/100 s grid by rounding the running time, so they do not drift; a frame shorter than
/// 2/100 s is given 2/100 s (browsers show shorter delays as 1/10 s).
struct GifOut {
    path: PathBuf,
    encoder: Option<gif::Encoder<AtomicFile>>,
    /// The first frame's size: later frames are cut or padded to it (a GIF has one size).
    size: (u16, u16),
    resized: bool,
    /// The picture waiting to be written (shown until `now`).
    pending: Option<Vec<u8>>,
    /// The running time, seconds, and the time already written, in 1/100 s.
    now: f64,
    written_cs: u64,
}

impl GifOut {
    fn create(path: &Path) -> Result<GifOut, WriteError> {
        Ok(GifOut {
            path: path.to_path_buf(),
            encoder: None,
            size: (0, 0),
            resized: false,
            pending: None,
            now: 0.0,
            written_cs: 0,
        })
    }

    fn fail(&self, e: impl std::fmt::Display) -> WriteError {
        WriteError(self.path.clone(), e.to_string())
    }

    /// Adds the picture shown for one field of a PAL (`pal`) or NTSC display.
    fn frame(&mut self, pic: &Picture, pal: bool) -> Result<(), WriteError> {
        if self.encoder.is_none() {
            let size = (pic.width.min(0xFFFF) as u16, pic.height.min(0xFFFF) as u16);
            let file = AtomicFile::create(&self.path).map_err(|e| self.fail(e))?;
            let mut enc = gif::Encoder::new(file, size.0, size.1, &[]).map_err(|e| self.fail(e))?;
            enc.set_repeat(gif::Repeat::Infinite)
                .map_err(|e| self.fail(e))?;
            self.encoder = Some(enc);
            self.size = size;
        }
        let rgb = self.fit(pic);
        let field = if pal { 1.0 / 50.0 } else { 1001.0 / 60000.0 };
        match &self.pending {
            Some(prev) if *prev == rgb => {}
            _ => {
                self.flush()?;
                self.pending = Some(rgb);
            }
        }
        self.now += field;
        Ok(())
    }

    /// `pic` cut or padded (black) to the GIF's size.
    fn fit(&mut self, pic: &Picture) -> Vec<u8> {
        let (w, h) = (usize::from(self.size.0), usize::from(self.size.1));
        if (w, h) == (pic.width as usize, pic.height as usize) {
            return pic.rgb.clone();
        }
        if !self.resized {
            self.resized = true;
            eprintln!(
                "warning: {}: the display size changed to {}x{}; the GIF keeps {w}x{h}",
                self.path.display(),
                pic.width,
                pic.height
            );
        }
        let mut rgb = vec![0u8; w * h * 3];
        let cols = w.min(pic.width as usize) * 3;
        for y in 0..h.min(pic.height as usize) {
            let s = y * pic.width as usize * 3;
            rgb[y * w * 3..][..cols].copy_from_slice(&pic.rgb[s..s + cols]);
        }
        rgb
    }

    /// Writes the pending picture, shown until now.
    fn flush(&mut self) -> Result<(), WriteError> {
        let Some(rgb) = self.pending.take() else {
            return Ok(());
        };
        let end_cs = ((self.now * 100.0).round() as u64).max(self.written_cs + 2);
        let mut frame = gif::Frame::from_rgb_speed(self.size.0, self.size.1, &rgb, 10);
        frame.delay = (end_cs - self.written_cs).min(u64::from(u16::MAX)) as u16;
        self.written_cs = end_cs;
        let result = match &mut self.encoder {
            Some(enc) => enc.write_frame(&frame),
            None => Ok(()),
        };
        result.map_err(|e| self.fail(e))
    }

    fn finish(mut self) -> Result<(), WriteError> {
        self.flush()?;
        let Some(enc) = self.encoder.take() else {
            return Err(self.fail("no frames"));
        };
        let file = enc.into_inner().map_err(|e| self.fail(e))?;
        file.commit().map_err(|e| self.fail(e))
    }
}
