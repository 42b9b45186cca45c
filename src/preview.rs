//! The live preview behind `psxrender view`: a window showing the PS1-resolution frame scaled
//! by an integer factor while the animation plays at 30 fps through the full GTE/GPU path.
//!
//! Design rule: everything that decides *what* to draw — key handling, animation clock, orbit
//! and zoom, the title — lives in [`Viewer`], which has no window and is unit-tested. The minifb
//! loop (feature `preview`) only turns keys into [`Action`]s and shows the frames a
//! [`Session`] renders, so a smoke test can run it under Xvfb for a fixed number of frames.

use std::time::Duration;

use crate::render::{Frame, RenderError, RenderOptions, Renderer};
use crate::scene::{Model, PoseRequest};

/// One PS1 frame: 1/30 s (games animate at 30 fps on a 60 Hz NTSC display).
pub const FRAME_TIME: Duration = Duration::from_nanos(1_000_000_000 / 30);

/// Degrees one arrow-key press orbits the camera.
pub const ORBIT_STEP: f32 = 15.0;

/// Factor one `+`/`-` press changes the camera distance by.
pub const ZOOM_STEP: f32 = 1.25;

/// What a key asks the viewer to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Left arrow: orbit the camera left (yaw −).
    OrbitLeft,
    /// Right arrow: orbit right (yaw +).
    OrbitRight,
    /// Up arrow: orbit up (pitch +).
    OrbitUp,
    /// Down arrow: orbit down (pitch −).
    OrbitDown,
    /// `+`: move closer.
    ZoomIn,
    /// `-`: move away.
    ZoomOut,
    /// Space: pause or resume the animation.
    TogglePause,
    /// `,`: one frame back (pauses).
    StepBack,
    /// `.`: one frame forward (pauses).
    StepForward,
    /// `[`: previous animation.
    PreviousAnimation,
    /// `]`: next animation.
    NextAnimation,
    /// D: dither on/off.
    ToggleDither,
    /// S: save the current frame as PNG.
    Save,
    /// Esc: quit.
    Quit,
}

/// An animation as the viewer cycles through them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clip {
    /// Name for the title.
    pub name: String,
    /// Length in frames (at least 1).
    pub frames: u32,
}

/// The viewer's state: camera, animation clock and toggles. No window in here.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewer {
    /// Animations on offer; empty = rest pose only.
    pub clips: Vec<Clip>,
    /// Index into `clips` (None = rest pose).
    pub clip: Option<usize>,
    /// Current frame within the clip.
    pub frame: u32,
    /// Animation paused.
    pub paused: bool,
    /// Camera yaw in degrees.
    pub yaw: f32,
    /// Camera pitch in degrees, kept within ±89.
    pub pitch: f32,
    /// Multiplier on the auto-framed camera distance (1 = auto).
    pub zoom: f32,
    /// Dithering of gouraud/modulated primitives.
    pub dither: bool,
    /// Time not yet turned into frames.
    pending: Duration,
}

impl Viewer {
    /// A viewer on `clips`, starting at `clip` (or the first clip, or the rest pose), frame
    /// `frame`, with the given camera angles.
    pub fn new(clips: Vec<Clip>, clip: Option<usize>, frame: u32, yaw: f32, pitch: f32) -> Self {
        let clip =
            clip.filter(|&c| c < clips.len())
                .or(if clips.is_empty() { None } else { Some(0) });
        let mut v = Viewer {
            clips,
            clip,
            frame: 0,
            paused: false,
            yaw,
            pitch: pitch.clamp(-89.0, 89.0),
            zoom: 1.0,
            dither: true,
            pending: Duration::ZERO,
        };
        v.frame = frame % v.frame_count();
        v
    }

    /// Frames in the current clip (1 for the rest pose).
    pub fn frame_count(&self) -> u32 {
        self.clip.map_or(1, |c| self.clips[c].frames.max(1))
    }

    /// Name of the current clip, or "rest pose".
    pub fn clip_name(&self) -> &str {
        self.clip
            .map_or("rest pose", |c| self.clips[c].name.as_str())
    }

    /// Applies a key's action. Returns false for [`Action::Quit`]; `Save` is the caller's job.
    pub fn apply(&mut self, action: Action) -> bool {
        let n = self.frame_count();
        match action {
            Action::OrbitLeft => self.yaw = wrap_degrees(self.yaw - ORBIT_STEP),
            Action::OrbitRight => self.yaw = wrap_degrees(self.yaw + ORBIT_STEP),
            Action::OrbitUp => self.pitch = (self.pitch + ORBIT_STEP).min(89.0),
            Action::OrbitDown => self.pitch = (self.pitch - ORBIT_STEP).max(-89.0),
            Action::ZoomIn => self.zoom = (self.zoom / ZOOM_STEP).max(0.05),
            Action::ZoomOut => self.zoom = (self.zoom * ZOOM_STEP).min(20.0),
            Action::TogglePause => {
                self.paused = !self.paused;
                self.pending = Duration::ZERO;
            }
            Action::StepBack => {
                self.paused = true;
                self.frame = (self.frame + n - 1) % n;
            }
            Action::StepForward => {
                self.paused = true;
                self.frame = (self.frame + 1) % n;
            }
            Action::PreviousAnimation | Action::NextAnimation => {
                if !self.clips.is_empty() {
                    let len = self.clips.len();
                    let cur = self.clip.unwrap_or(0);
                    let next = if action == Action::NextAnimation {
                        (cur + 1) % len
                    } else {
                        (cur + len - 1) % len
                    };
                    self.clip = Some(next);
                    self.frame = 0;
                    self.pending = Duration::ZERO;
                }
            }
            Action::ToggleDither => self.dither = !self.dither,
            Action::Save => {}
            Action::Quit => return false,
        }
        true
    }

    /// Advances the animation clock by `elapsed` wall time: one frame per 1/30 s, never more
    /// than a second's worth at once (a stalled window does not fast-forward). Returns true when
    /// the frame changed.
    pub fn tick(&mut self, elapsed: Duration) -> bool {
        if self.paused {
            return false;
        }
        self.pending += elapsed.min(Duration::from_secs(1));
        let steps = (self.pending.as_nanos() / FRAME_TIME.as_nanos()) as u32;
        if steps == 0 {
            return false;
        }
        self.pending -= FRAME_TIME * steps;
        let before = self.frame;
        self.frame = (self.frame + steps) % self.frame_count();
        self.frame != before
    }

    /// The window title: model, animation, frame and the last frame's render time.
    pub fn title(&self, model: &str, ms_per_frame: f64) -> String {
        format!(
            "psxrender — {model} — {} — frame {}/{}{} — {ms_per_frame:.1} ms/frame",
            self.clip_name(),
            self.frame,
            self.frame_count(),
            if self.paused { " (paused)" } else { "" },
        )
    }
}

fn wrap_degrees(d: f32) -> f32 {
    let w = d.rem_euclid(360.0);
    if w > 180.0 {
        w - 360.0
    } else {
        w
    }
}

/// 8-bit RGB rows → minifb's 0RGB words.
pub fn rgb_to_0rgb(rgb: &[u8]) -> Vec<u32> {
    rgb.chunks_exact(3)
        .map(|p| u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]))
        .collect()
}

/// The largest integer scale (1..=4) at which a `w`×`h` frame fits a `max_w`×`max_h` screen.
pub fn integer_scale(w: u32, h: u32, max_w: u32, max_h: u32) -> u32 {
    (1..=4)
        .rev()
        .find(|&s| w * s <= max_w && h * s <= max_h)
        .unwrap_or(1)
}

/// A viewer driving a renderer: turns the viewer's state into frames through the full
/// pose → GTE → ordering table → GP0 → GPU path. No window; [`run_window`] shows its frames.
pub struct Session<'m> {
    model: &'m dyn Model,
    base: RenderOptions,
    viewer: Viewer,
    renderer: Renderer<'m>,
    /// (clip, dither) the renderer was built for.
    built_for: (Option<usize>, bool),
    /// Camera distance that fits the model, before zoom.
    fitted: f32,
}

impl<'m> Session<'m> {
    /// A session on `model` with `base` options, starting at animation `clip`, frame `frame`.
    pub fn new(
        model: &'m dyn Model,
        base: RenderOptions,
        clip: Option<usize>,
        frame: u32,
    ) -> Result<Self, RenderError> {
        let clips = model
            .animations()
            .into_iter()
            .map(|a| Clip {
                name: a.name,
                frames: a.frames.max(1),
            })
            .collect();
        let viewer = Viewer::new(clips, clip, frame, base.view.yaw, base.view.pitch);
        let (renderer, fitted) = build(model, &base, &viewer)?;
        Ok(Session {
            model,
            built_for: (viewer.clip, viewer.dither),
            base,
            viewer,
            renderer,
            fitted,
        })
    }

    /// The viewer state.
    pub fn viewer(&self) -> &Viewer {
        &self.viewer
    }

    /// Applies a key's action (false = quit).
    pub fn apply(&mut self, action: Action) -> bool {
        self.viewer.apply(action)
    }

    /// Advances the animation clock (true = the frame changed).
    pub fn tick(&mut self, elapsed: Duration) -> bool {
        self.viewer.tick(elapsed)
    }

    /// Renders the viewer's current state. A new animation or dither setting rebuilds the
    /// renderer (new framing pose, new GP0(E1h) state); camera moves only move the camera.
    pub fn frame(&mut self) -> Result<Frame, RenderError> {
        if self.built_for != (self.viewer.clip, self.viewer.dither) {
            let (renderer, fitted) = build(self.model, &self.base, &self.viewer)?;
            self.renderer = renderer;
            self.fitted = fitted;
            self.built_for = (self.viewer.clip, self.viewer.dither);
        }
        let mut view = self.base.view;
        view.yaw = self.viewer.yaw;
        view.pitch = self.viewer.pitch;
        view.distance = Some(self.fitted * self.viewer.zoom);
        self.renderer.set_view(view);
        self.renderer.render(&PoseRequest {
            animation: self.viewer.clip,
            frame: self.viewer.frame,
            camera: None,
        })
    }
}

/// A renderer for the viewer's clip and dither setting, and the distance that fits the model.
fn build<'m>(
    model: &'m dyn Model,
    base: &RenderOptions,
    viewer: &Viewer,
) -> Result<(Renderer<'m>, f32), RenderError> {
    let mut opts = base.clone();
    opts.dither = viewer.dither;
    opts.framing = PoseRequest {
        animation: viewer.clip,
        frame: 0,
        camera: None,
    };
    let user_distance = opts.view.distance;
    opts.view.distance = None;
    let renderer = Renderer::new(model, &opts)?;
    let fitted = user_distance
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(renderer.distance());
    Ok((renderer, fitted))
}

/// Window options for [`run_window`].
#[derive(Clone, Debug)]
pub struct WindowConfig {
    /// Model name for the title and saved files.
    pub name: String,
    /// Integer scale factor of the PS1 frame on screen (1–4).
    pub scale: u32,
    /// Quit after this many shown frames (scripted runs, smoke tests).
    pub exit_after: Option<u64>,
    /// Where S saves PNGs.
    pub save_dir: std::path::PathBuf,
}

/// Shows `session` in a window until Esc, the window closing, or `exit_after` frames. Returns
/// the number of frames shown.
#[cfg(feature = "preview")]
pub fn run_window(session: &mut Session<'_>, cfg: &WindowConfig) -> Result<u64, String> {
    use minifb::{KeyRepeat, Window, WindowOptions};
    use std::time::Instant;

    let scale = cfg.scale.clamp(1, 4) as usize;
    let mut frame = session.frame().map_err(|e| e.to_string())?;
    let (w, h) = (frame.width as usize, frame.height as usize);
    let mut window = Window::new(
        &session.viewer.title(&cfg.name, 0.0),
        w * scale,
        h * scale,
        WindowOptions::default(),
    )
    .map_err(|e| format!("cannot open a window: {e}"))?;
    window.set_target_fps(60);
    let mut buffer = scaled(&frame.rgb, w, h, scale);
    let mut shown = 0u64;
    let mut last = Instant::now();
    while window.is_open() {
        let mut dirty = false;
        let mut actions: Vec<Action> = window
            .get_keys_pressed(KeyRepeat::Yes)
            .into_iter()
            .filter_map(action_for)
            .collect();
        actions.dedup();
        for action in actions {
            match action {
                Action::Quit => return Ok(shown),
                Action::Save => save_frame(&frame, &session.viewer, cfg),
                a => {
                    session.apply(a);
                    dirty = true;
                }
            }
        }
        let now = Instant::now();
        dirty |= session.tick(now - last);
        last = now;
        if dirty {
            let start = Instant::now();
            frame = session.frame().map_err(|e| e.to_string())?;
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            buffer = scaled(&frame.rgb, w, h, scale);
            window.set_title(&session.viewer.title(&cfg.name, ms));
        }
        window
            .update_with_buffer(&buffer, w * scale, h * scale)
            .map_err(|e| format!("window update failed: {e}"))?;
        shown += 1;
        if cfg.exit_after.is_some_and(|n| shown >= n) {
            break;
        }
    }
    Ok(shown)
}

/// The viewer's key bindings.
#[cfg(feature = "preview")]
fn action_for(key: minifb::Key) -> Option<Action> {
    use minifb::Key;
    Some(match key {
        Key::Left => Action::OrbitLeft,
        Key::Right => Action::OrbitRight,
        Key::Up => Action::OrbitUp,
        Key::Down => Action::OrbitDown,
        Key::Equal | Key::NumPadPlus => Action::ZoomIn,
        Key::Minus | Key::NumPadMinus => Action::ZoomOut,
        Key::Space => Action::TogglePause,
        Key::Comma => Action::StepBack,
        Key::Period => Action::StepForward,
        Key::LeftBracket => Action::PreviousAnimation,
        Key::RightBracket => Action::NextAnimation,
        Key::D => Action::ToggleDither,
        Key::S => Action::Save,
        Key::Escape => Action::Quit,
        _ => return None,
    })
}

#[cfg(feature = "preview")]
fn save_frame(frame: &Frame, viewer: &Viewer, cfg: &WindowConfig) {
    let path = cfg.save_dir.join(save_name(&cfg.name, viewer));
    match crate::output::save_png_rgb(&path, frame.width, frame.height, &frame.rgb) {
        Ok(()) => eprintln!("saved {}", path.display()),
        Err(e) => eprintln!("error: cannot write {}: {e}", path.display()),
    }
}

/// File name S saves to: model, animation and frame, made safe for file systems.
pub fn save_name(model: &str, viewer: &Viewer) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "{}-{}-{:04}.png",
        clean(model),
        clean(viewer.clip_name()),
        viewer.frame
    )
}

/// RGB8 → 0RGB words, each pixel repeated `scale`×`scale`.
pub fn scaled(rgb: &[u8], w: usize, h: usize, scale: usize) -> Vec<u32> {
    let src = rgb_to_0rgb(rgb);
    let mut out = Vec::with_capacity(w * h * scale * scale);
    for row in src.chunks_exact(w).take(h) {
        let line: Vec<u32> = row
            .iter()
            .flat_map(|&p| std::iter::repeat_n(p, scale))
            .collect();
        for _ in 0..scale {
            out.extend_from_slice(&line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clips() -> Vec<Clip> {
        vec![
            Clip {
                name: "walk".into(),
                frames: 10,
            },
            Clip {
                name: "run".into(),
                frames: 4,
            },
        ]
    }

    #[test]
    fn clock_plays_at_30_fps_and_wraps() {
        let mut v = Viewer::new(clips(), None, 0, 0.0, 0.0);
        assert_eq!(v.clip_name(), "walk");
        assert!(!v.tick(Duration::from_millis(20)));
        assert!(v.tick(Duration::from_millis(20)));
        assert_eq!(v.frame, 1);
        v.tick(Duration::from_millis(300)); // 9 frames' worth, plus the 6.7 ms left over
        assert_eq!(v.frame, 0, "10-frame clip wraps");
        v.tick(Duration::from_secs(60));
        assert_eq!(
            v.frame, 0,
            "a stall advances at most one second (30 frames)"
        );
    }

    #[test]
    fn keys_step_pause_and_switch_clips() {
        let mut v = Viewer::new(clips(), Some(1), 5, 0.0, 0.0);
        assert_eq!(v.frame, 1, "start frame wraps into the clip");
        assert!(v.apply(Action::StepBack));
        assert!(v.paused);
        assert_eq!(v.frame, 0);
        v.apply(Action::StepBack);
        assert_eq!(v.frame, 3);
        assert!(
            !v.tick(Duration::from_secs(1)),
            "paused clock does not move"
        );
        v.apply(Action::NextAnimation);
        assert_eq!((v.clip, v.frame), (Some(0), 0));
        v.apply(Action::PreviousAnimation);
        assert_eq!(v.clip, Some(1));
        v.apply(Action::TogglePause);
        assert!(!v.paused);
        assert!(!v.apply(Action::Quit));
    }

    #[test]
    fn camera_keys_orbit_zoom_and_clamp() {
        let mut v = Viewer::new(Vec::new(), None, 7, 170.0, 80.0);
        assert_eq!(
            (v.frame, v.frame_count(), v.clip_name()),
            (0, 1, "rest pose")
        );
        v.apply(Action::OrbitRight);
        assert_eq!(v.yaw, -175.0);
        v.apply(Action::OrbitUp);
        assert_eq!(v.pitch, 89.0);
        v.apply(Action::ZoomIn);
        assert!(v.zoom < 1.0);
        v.apply(Action::ToggleDither);
        assert!(!v.dither);
        v.apply(Action::NextAnimation);
        assert_eq!(v.clip, None, "no clips: stays in rest pose");
        assert!(v
            .title("m", 1.25)
            .contains("rest pose — frame 0/1 — 1.2 ms"));
    }

    #[test]
    fn pixels_and_scale() {
        assert_eq!(rgb_to_0rgb(&[1, 2, 3, 255, 0, 0]), vec![0x010203, 0xff0000]);
        assert_eq!(integer_scale(320, 240, 1920, 1080), 4);
        assert_eq!(integer_scale(640, 480, 1920, 1080), 2);
        assert_eq!(integer_scale(640, 480, 100, 100), 1);
    }

    #[test]
    fn scaling_repeats_pixels() {
        let out = scaled(&[1, 0, 0, 2, 0, 0], 2, 1, 2);
        assert_eq!(
            out,
            vec![0x10000, 0x10000, 0x20000, 0x20000, 0x10000, 0x10000, 0x20000, 0x20000]
        );
    }

    #[test]
    fn session_frames_follow_the_viewer() {
        use crate::formats::{ff9, LoadOptions};
        let model = ff9::load(
            std::path::Path::new("demo"),
            &ff9::demo_character(),
            &LoadOptions::default(),
        )
        .unwrap();
        let opts = RenderOptions {
            threads: 1,
            ..RenderOptions::default()
        };
        let mut s = Session::new(&model, opts.clone(), None, 0).unwrap();
        let first = s.frame().unwrap();
        assert_eq!(
            (first.width, first.height, first.rgb.len()),
            (320, 240, 320 * 240 * 3)
        );
        // The viewer's first frame is exactly what the renderer draws for the same request.
        let mut direct = Renderer::new(
            &model,
            &RenderOptions {
                framing: PoseRequest {
                    animation: s.viewer().clip,
                    frame: 0,
                    camera: None,
                },
                ..opts.clone()
            },
        )
        .unwrap();
        let fitted = direct.distance();
        direct.set_view(crate::render::camera::View {
            distance: Some(fitted),
            ..opts.view
        });
        let req = PoseRequest {
            animation: s.viewer().clip,
            frame: 0,
            camera: None,
        };
        assert_eq!(direct.render(&req).unwrap().rgb, first.rgb);
        // Time moves the animation, keys move the camera and toggle dither: all change pixels.
        assert!(s.tick(FRAME_TIME * 3));
        let later = s.frame().unwrap();
        assert_ne!(later.rgb, first.rgb, "frame 3 differs from frame 0");
        s.apply(Action::TogglePause);
        s.apply(Action::OrbitLeft);
        assert_ne!(
            s.frame().unwrap().rgb,
            later.rgb,
            "orbiting changes the picture"
        );
        let before = s.frame().unwrap();
        s.apply(Action::ToggleDither);
        assert_ne!(
            s.frame().unwrap().rgb,
            before.rgb,
            "dither off changes the picture"
        );
        s.apply(Action::ToggleDither);
        assert_eq!(
            s.frame().unwrap().rgb,
            before.rgb,
            "and back on restores it"
        );
        s.apply(Action::ZoomOut);
        assert_ne!(s.frame().unwrap().rgb, before.rgb);
        assert_eq!(
            save_name("a b", s.viewer()),
            "a_b-".to_string()
                + &s.viewer()
                    .clip_name()
                    .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
                + &format!("-{:04}.png", s.viewer().frame)
        );
    }
}
