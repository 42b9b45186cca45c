//! Captures in the inspector: a GPU dump or text stream split into frames and commands, replayed
//! from power-on to any frame or any command of a frame, with pictures, pixel history and
//! comparisons — all through [`crate::capture`], the code `replay` and `compare` run.
//!
//! Frames: entry N stops at the (N+1)-th frame mark, as `replay --frame N+1` does (so entry N
//! is what `replay --frames` numbers frame N); words after the last mark (or an input with no
//! mark at all) make one more entry, run to the end as a plain `replay` runs. Commands are
//! numbered as the GPU numbers them (from 0 over the whole input, [`PixelEvent::command`]):
//! the words are split by the GPU's own [`Assembler`], which is told of every GP1 reset as
//! the GPU is.
//!
//! Every request replays from power-on: a GPU cannot be copied, and a prefix that ends on a
//! command boundary is the only valid cut. Thumbnails are made in one pass and kept.
//!
//! [`PixelEvent::command`]: gpu::trace::PixelEvent::command

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use gpu::gp0::assembler::{Assembler, Step};
use gpu::Gpu;
use serde_json::{json, Value};

use crate::capture::compare::{self, Capture};
use crate::capture::display::{self, Picture};
use crate::capture::dump::PacketRef;
use crate::capture::history;
use crate::capture::input::{Input, Place};
use crate::capture::pairs::{self, Outcome, Summary};
use crate::capture::replay;

/// Commands one `/api/capture/commands` answer lists at most (the page asks for more).
pub const MAX_COMMANDS_LISTED: usize = 5_000;
/// Thumbnails kept per capture; later frames have none.
pub const MAX_THUMBNAILS: usize = 1_000;
/// Width of a thumbnail, pixels.
const THUMB_WIDTH: u32 = 128;

/// One frame of a capture (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameEntry {
    /// The frame mark `replay --frame` stops at; `None`: the end of the input.
    pub stop: Option<u64>,
    /// Global index of its first GP0 command.
    pub first_command: u64,
    /// Its GP0 commands.
    pub commands: u64,
}

/// An open capture.
pub struct Session {
    /// The input, read whole (capped as `replay` caps it).
    pub input: Input,
    /// Its frames.
    pub frames: Vec<FrameEntry>,
    /// The dump's warnings (odd packets).
    pub warnings: Vec<String>,
    /// Thumbnails made so far, PNG bytes by frame.
    thumbs: Mutex<BTreeMap<usize, Vec<u8>>>,
}

/// Where a replay stops: after command `cut` of frame `frame` (local index from 0), or at the
/// end of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// Frame entry.
    pub frame: usize,
    /// Commands of the frame to run; `None`: all.
    pub commands: Option<u64>,
}

/// A GP0 command met while walking (the frame's command list).
struct Listed {
    index: u64,
    word: u64,
    at: String,
    title: String,
}

/// Walks an input's packets with a mirror of the GPU's packet assembler: which command each
/// word starts, which frame each packet is in.
struct Walker {
    asm: Assembler,
    /// Commands started so far.
    commands: u64,
    /// GP0 words taken so far.
    words: u64,
    /// Frame marks passed.
    marks: u64,
}

impl Walker {
    fn new() -> Self {
        Walker {
            asm: Assembler::default(),
            commands: 0,
            words: 0,
            marks: 0,
        }
    }

    /// Steps the mirror over `words` (the GP0 packet at `place`), calling `each(start, index,
    /// word_index, packet)` where a command starts: `start` is its word's index in `words`.
    /// `stop_before(index)` ends the walk before that command's first word; the words taken
    /// are returned.
    fn gp0(
        &mut self,
        words: &[u32],
        mut each: impl FnMut(usize, u64, u64, &[u32]),
        stop_before: impl Fn(u64) -> bool,
    ) -> usize {
        let mut at = 0;
        while at < words.len() {
            let start = at;
            let starts = self.asm.idle();
            if starts && stop_before(self.commands) {
                return start;
            }
            let step = self.asm.next(words, &mut at);
            if starts {
                let packet: Vec<u32> = match &step {
                    Step::Packet(r) => words[r.clone()].to_vec(),
                    _ => words[start..at].to_vec(),
                };
                each(start, self.commands, self.words, &packet);
                self.commands += 1;
            }
            self.words += (at - start) as u64;
        }
        at
    }

    /// A GP1 word: resets drop the packet under way, as the GPU's do.
    fn gp1(&mut self, word: u32) {
        let c = gpu::gp1::command(word);
        if c == gpu::gp1::cmd::RESET || c == gpu::gp1::cmd::RESET_COMMANDS {
            self.asm.reset();
        }
    }
}

impl Session {
    /// Opens `path` (dump or text stream, plain or compressed) and indexes its frames without
    /// drawing.
    pub fn open(path: &Path) -> Result<Session, String> {
        let input = Input::load(path).map_err(|e| e.to_string())?;
        let warnings = match &input {
            Input::Dump(d) => d.warnings.clone(),
            _ => Vec::new(),
        };
        let mut frames = Vec::new();
        let mut w = Walker::new();
        let mut first = 0;
        let mut trailing = false;
        for (_, packet) in input.packets() {
            match packet {
                PacketRef::Gp0(words) => {
                    w.gp0(words, |_, _, _, _| {}, |_| false);
                    trailing = true;
                }
                PacketRef::Gp1(words) => words.iter().for_each(|&x| w.gp1(x)),
                PacketRef::VSync(_) => {
                    w.marks += 1;
                    frames.push(FrameEntry {
                        stop: Some(w.marks),
                        first_command: first,
                        commands: w.commands - first,
                    });
                    first = w.commands;
                    trailing = false;
                }
                _ => {}
            }
        }
        if trailing || frames.is_empty() {
            frames.push(FrameEntry {
                stop: None,
                first_command: first,
                commands: w.commands - first,
            });
        }
        Ok(Session {
            input,
            frames,
            warnings,
            thumbs: Mutex::new(BTreeMap::new()),
        })
    }

    fn entry(&self, frame: usize) -> Result<&FrameEntry, String> {
        self.frames.get(frame).ok_or_else(|| {
            format!(
                "frame {frame} asked for, but the capture has {} (from 0)",
                self.frames.len()
            )
        })
    }

    /// The facts the page shows: format, frames, summary.
    pub fn facts(&self) -> Value {
        let frames: Vec<Value> = self
            .frames
            .iter()
            .map(|f| json!({ "stop": f.stop, "first_command": f.first_command, "commands": f.commands }))
            .collect();
        json!({
            "summary": self.input.summary(),
            "compression": self.input.compression().map(|c| c.name()),
            "frames": frames,
            "warnings": self.warnings,
        })
    }

    /// Replays from power-on to `p`, recording the history of `watch`; the GPU with
    /// everything drawn.
    pub fn replay(&self, p: Point, watch: &[(u16, u16)]) -> Result<Gpu, String> {
        let entry = self.entry(p.frame)?.clone();
        let end = p
            .commands
            .map(|c| entry.first_command + c.min(entry.commands));
        let mut gpu = replay::new_gpu(&replay::Options {
            watch: watch.to_vec(),
            ..Default::default()
        });
        let mut w = Walker::new();
        for (_, packet) in self.input.packets() {
            match packet {
                PacketRef::Gp0(words) => {
                    let taken = w.gp0(words, |_, _, _, _| {}, |i| end == Some(i));
                    gpu.gp0_words(&words[..taken]);
                    if taken < words.len() {
                        break;
                    }
                }
                PacketRef::Gp1(words) => {
                    for &x in words {
                        w.gp1(x);
                        gpu.gp1(x);
                    }
                }
                PacketRef::VSync(_) => {
                    w.marks += 1;
                    if entry.stop == Some(w.marks) {
                        break;
                    }
                }
                other => {
                    replay::apply(&mut gpu, &other.to_packet());
                }
            }
        }
        gpu.vram();
        Ok(gpu)
    }

    /// The commands of `frame` from its `from`-th on (at most [`MAX_COMMANDS_LISTED`]), each
    /// with its global index, first GP0 word, place in the input and the history's title.
    pub fn commands(&self, frame: usize, from: u64) -> Result<Value, String> {
        let entry = self.entry(frame)?.clone();
        let lo = entry.first_command + from.min(entry.commands);
        let hi = (lo + MAX_COMMANDS_LISTED as u64).min(entry.first_command + entry.commands);
        let mut listed: Vec<Listed> = Vec::new();
        let mut w = Walker::new();
        'packets: for (place, packet) in self.input.packets() {
            match packet {
                PacketRef::Gp0(words) => {
                    let taken = w.gp0(
                        words,
                        |start, index, word, packet| {
                            if (lo..hi).contains(&index) {
                                listed.push(Listed {
                                    index,
                                    word,
                                    at: place_of(place, start),
                                    title: history::command_title(packet),
                                });
                            }
                        },
                        |i| i >= hi,
                    );
                    if taken < words.len() {
                        break 'packets;
                    }
                }
                PacketRef::Gp1(words) => words.iter().for_each(|&x| w.gp1(x)),
                _ => {}
            }
        }
        let list: Vec<Value> = listed
            .into_iter()
            .map(|c| {
                json!({ "index": c.index, "local": c.index - entry.first_command, "word": c.word, "at": c.at, "title": c.title })
            })
            .collect();
        Ok(json!({
            "frame": frame,
            "from": lo - entry.first_command,
            "total": entry.commands,
            "commands": list,
        }))
    }

    /// The picture the TV shows at `p`, and the display set-up.
    pub fn display(&self, p: Point) -> Result<(Picture, gpu::Display), String> {
        let mut gpu = self.replay(p, &[])?;
        let d = gpu.display();
        Ok((display::shown(gpu.vram(), &d), d))
    }

    /// The whole VRAM at `p`: 1024×512 in 15-bit, or the bytes read as 24-bit (682×512).
    pub fn vram(&self, p: Point, depth24: bool) -> Result<Picture, String> {
        let mut gpu = self.replay(p, &[])?;
        let vram = gpu.vram();
        if !depth24 {
            return Ok(display::vram_picture(vram));
        }
        let whole = gpu::Display {
            x: 0,
            y: 0,
            width: (gpu::VRAM_WIDTH * 2 / 3) as u16,
            height: gpu::VRAM_HEIGHT as u16,
            depth24: true,
            enabled: true,
            mode_width: 640,
            interlaced480: false,
            pal: false,
        };
        Ok(display::cut(vram, &whole))
    }

    /// The pixel history of VRAM halfword (`x`, `y`) up to `p`, in `replay --history --json`'s
    /// form.
    pub fn history(&self, p: Point, (x, y): (u16, u16)) -> Result<Value, String> {
        let mut gpu = self.replay(p, &[(x, y)])?;
        let events = gpu.history().to_vec();
        let mine: Vec<_> = events.iter().filter(|e| (e.x, e.y) == (x, y)).collect();
        Ok(history::json((x, y), &mine, |w| self.input.locate_gp0(w)))
    }

    /// The thumbnail of `frame` (PNG): made, with every earlier frame's, in one pass from
    /// power-on the first time any is asked for past those made.
    pub fn thumbnail(&self, frame: usize) -> Result<Vec<u8>, String> {
        self.entry(frame)?;
        if frame >= MAX_THUMBNAILS {
            return Err(format!(
                "frames past {MAX_THUMBNAILS} have no thumbnails (open the frame itself)"
            ));
        }
        if let Some(t) = self.lock_thumbs().get(&frame) {
            return Ok(t.clone());
        }
        self.each_frame(frame, |i, pic| {
            let png = super::png(&shrink(pic, THUMB_WIDTH))?;
            self.lock_thumbs().insert(i, png);
            Ok(())
        })?;
        self.lock_thumbs()
            .get(&frame)
            .cloned()
            .ok_or_else(|| format!("frame {frame} made no thumbnail"))
    }

    fn lock_thumbs(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, Vec<u8>>> {
        self.thumbs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Plays from power-on, handing `each` the picture the TV shows at the end of every frame
    /// up to `last`, in order.
    fn each_frame(
        &self,
        last: usize,
        mut each: impl FnMut(usize, &Picture) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut gpu = replay::new_gpu(&replay::Options::default());
        let mut frame = 0;
        let mut shot = |gpu: &mut Gpu, frame: usize| {
            let d = gpu.display();
            each(frame, &display::shown(gpu.vram(), &d))
        };
        for (_, packet) in self.input.packets() {
            if replay::apply(&mut gpu, &packet.to_packet()) {
                shot(&mut gpu, frame)?;
                frame += 1;
                if frame > last {
                    return Ok(());
                }
            }
        }
        if frame <= last && frame < self.frames.len() {
            shot(&mut gpu, frame)?;
        }
        Ok(())
    }

    /// The capture compared with `against`: one picture (with frame `frame`), or a folder of
    /// numbered ones (frame by frame, as `compare DIR DIR` pairs them: entry N with the
    /// picture numbered N). Returns the counts and the first differing frame.
    pub fn compare(&self, frame: usize, against: &Path) -> Result<Value, String> {
        let opts = compare::Options::default();
        if !against.is_dir() {
            let theirs = Capture::load(against).map_err(|e| e.to_string())?;
            let (ours, _) = self.display(Point {
                frame,
                commands: None,
            })?;
            let report = compare_pictures(&ours, theirs, &opts)?;
            let mut summary = Summary::default();
            summary.add(frame as u64, &Outcome::Compared(report.clone()));
            return Ok(json!({
                "mode": "picture",
                "frames": [frame_json(frame as u64, &Outcome::Compared(report))],
                "summary": summary_json(&summary),
            }));
        }
        let files = pictures_in(against)?;
        let mut results: BTreeMap<u64, Outcome> = BTreeMap::new();
        let last = self.frames.len() - 1;
        self.each_frame(last, |i, ours| {
            let n = i as u64;
            let outcome = match files.get(&n) {
                Some(f) => {
                    let theirs = Capture::load(f).map_err(|e| e.to_string())?;
                    Outcome::Compared(compare_pictures(ours, theirs, &opts)?)
                }
                None => Outcome::OnlyInA,
            };
            results.insert(n, outcome);
            Ok(())
        })?;
        for &n in files.keys() {
            results.entry(n).or_insert(Outcome::OnlyInB);
        }
        let mut summary = Summary::default();
        let mut frames = Vec::new();
        for (n, o) in &results {
            summary.add(*n, o);
            frames.push(frame_json(*n, o));
        }
        Ok(json!({
            "mode": "folder",
            "frames": frames,
            "summary": summary_json(&summary),
        }))
    }

    /// The difference picture of frame `frame` against `picture` (`compare --diff`'s).
    pub fn diff(&self, frame: usize, picture: &Path) -> Result<Picture, String> {
        let theirs = Capture::load(picture).map_err(|e| e.to_string())?;
        let (ours, _) = self.display(Point {
            frame,
            commands: None,
        })?;
        let ours = Capture::from_rgb(ours.width, ours.height, &ours.rgb);
        let aligned = compare::align(ours, theirs).map_err(|e| e.to_string())?;
        let opts = compare::Options::default();
        Ok(compare::diff_image(&aligned.a, &aligned.b, &opts))
    }
}

/// The numbered pictures of folder `dir` (as `compare DIR` pairs them), leaving out any that
/// lead outside it (symlinks): a folder inside the served paths must not read beyond them.
pub fn pictures_in(dir: &Path) -> Result<BTreeMap<u64, std::path::PathBuf>, String> {
    let mut files = pairs::list(dir).map_err(|e| e.to_string())?;
    files.retain(|_, f| f.canonicalize().is_ok_and(|r| r.starts_with(dir)));
    Ok(files)
}

/// Where word `k` of the packet at `place` is (`line 12`, `byte 0x40`).
fn place_of(place: Place, k: usize) -> String {
    place.word(k as u64)
}

fn compare_pictures(
    ours: &Picture,
    theirs: Capture,
    opts: &compare::Options,
) -> Result<compare::Report, String> {
    let ours = Capture::from_rgb(ours.width, ours.height, &ours.rgb);
    let aligned = compare::align(ours, theirs).map_err(|e| e.to_string())?;
    Ok(compare::compare(&aligned.a, &aligned.b, opts))
}

fn frame_json(n: u64, o: &Outcome) -> Value {
    match o {
        Outcome::Compared(r) => json!({
            "frame": n,
            "outcome": if r.passed() { "equal" } else { "different" },
            "differing": r.compared - r.within_tolerance,
            "compared": r.compared,
            "max_channel_error": r.max_channel_error,
            "bbox": r.bbox.map(|b| [b.x, b.y, b.w, b.h]),
            "line": pairs::line(n, o),
        }),
        Outcome::OnlyInA => {
            json!({ "frame": n, "outcome": "only_in_capture", "line": pairs::line(n, o) })
        }
        Outcome::OnlyInB => {
            json!({ "frame": n, "outcome": "only_in_pictures", "line": pairs::line(n, o) })
        }
    }
}

fn summary_json(s: &Summary) -> Value {
    json!({
        "compared": s.compared,
        "equal": s.equal,
        "unpaired": s.unpaired,
        "first_differing_frame": s.first_difference,
        "first_unpaired_frame": s.first_unpaired,
        "worst": s.worst.map(|(n, bad, err)| json!({ "frame": n, "differing": bad, "max_channel_error": err })),
        "text": s.to_string(),
    })
}

/// `pic` scaled down to `width` pixels wide by sampling (no smoothing: a thumbnail of PS1
/// pixels, not a filtered image).
fn shrink(pic: &Picture, width: u32) -> Picture {
    if pic.width <= width || pic.width == 0 {
        return pic.clone();
    }
    let height = (pic.height * width / pic.width).max(1);
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        let sy = y * pic.height / height;
        for x in 0..width {
            let sx = x * pic.width / width;
            let i = ((sy * pic.width + sx) * 3) as usize;
            rgb.extend_from_slice(&pic.rgb[i..i + 3]);
        }
    }
    Picture { width, height, rgb }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream of two frames: a fill, a frame mark, two fills, a mark, and a trailing fill.
    const STREAM: &[u8] = b"gp0 020000ff\ngp0 00000000\ngp0 00010010\nframe\n\
gp0 0200ff00\ngp0 00000000\ngp0 00010010\ngp0 02ff0000\ngp0 00000000\ngp0 00010010\nframe\n\
gp0 02ffffff\ngp0 00000000\ngp0 00010010\n";

    fn session() -> Session {
        let dir = std::env::temp_dir().join(format!("psxrender-serve-cap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("two.txt");
        std::fs::write(&p, STREAM).unwrap();
        // The session holds the input read whole: the file can go at once.
        let s = Session::open(&p).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        s
    }

    #[test]
    fn frames_and_commands_are_indexed_as_replay_numbers_them() {
        let s = session();
        assert_eq!(
            s.frames,
            [
                FrameEntry {
                    stop: Some(1),
                    first_command: 0,
                    commands: 1
                },
                FrameEntry {
                    stop: Some(2),
                    first_command: 1,
                    commands: 2
                },
                FrameEntry {
                    stop: None,
                    first_command: 3,
                    commands: 1
                },
            ]
        );
        let c = s.commands(1, 0).unwrap();
        assert_eq!(c["total"], 2);
        assert_eq!(c["commands"][1]["index"], 2);
        assert_eq!(c["commands"][1]["at"], "line 8");
        assert!(c["commands"][1]["title"]
            .as_str()
            .unwrap()
            .starts_with("02h fill"));
    }

    #[test]
    fn a_replay_stops_after_the_command_asked_for() {
        let s = session();
        let at = |frame, commands| {
            let mut g = s.replay(Point { frame, commands }, &[]).unwrap();
            g.vram()[0]
        };
        assert_eq!(at(0, None), 0x001f);
        assert_eq!(at(1, Some(0)), 0x001f, "before the frame's first command");
        assert_eq!(at(1, Some(1)), 0x03e0);
        assert_eq!(at(1, None), 0x7c00);
        assert_eq!(at(2, None), 0x7fff);
        assert!(s
            .replay(
                Point {
                    frame: 3,
                    commands: None
                },
                &[]
            )
            .is_err());
        let h = s
            .history(
                Point {
                    frame: 1,
                    commands: None,
                },
                (0, 0),
            )
            .unwrap();
        assert_eq!(h["events"].as_array().unwrap().len(), 3, "{h}");
        assert_eq!(h["events"][2]["after"], "7c00");
    }
}
