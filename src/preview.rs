//! The live preview behind `psxrender view`: a window showing the PS1-resolution frame at an
//! integer scale while the animation plays at 30 fps through the full GTE/GPU path.
//!
//! Design rules:
//! - One framing rule. A [`Session`] renders every state with a renderer built from exactly the
//!   options the render command would use for it (its start state: the command's own options),
//!   so the first picture is byte-identical to `psxrender MODEL OUT.png` with the same options,
//!   and an orbit step equals that command with `--yaw` moved by the step. Only playing frames
//!   and zooming keep the renderer: the camera stays fitted to the frame the animation started
//!   at (as `--frames A..B` fits frame A), and zoom scales that fitted distance.
//! - Everything that decides *what* is shown — key handling, the animation clock, orbit and zoom,
//!   the title, the scale and centring in the window — is windowless and unit-tested
//!   ([`Viewer`], [`Session`], [`window_scale`], [`compose`]). The minifb loop (feature
//!   `preview`) only turns keys into [`Action`]s and puts composed frames on screen, so a test
//!   can run it under Xvfb and compare the window's pixels with the render command's PNG.

use std::time::Duration;

use crate::render::{Frame, RenderError, RenderOptions, Renderer};
use crate::scene::{Model, PoseRequest};

/// One PS1 frame: 1/30 s (games animate at 30 fps on a 60 Hz NTSC display).
pub const FRAME_TIME: Duration = Duration::from_nanos(1_000_000_000 / 30);

/// Degrees one arrow-key press orbits the camera.
pub const ORBIT_STEP: f32 = 15.0;

/// Factor one `+`/`-` press changes the camera distance by.
pub const ZOOM_STEP: f32 = 1.25;

/// Most `+`/`-` presses counted either way: 1.25^13 ≈ 18× the fitted distance, or 1/18 of it.
pub const MAX_ZOOM_STEPS: i32 = 13;

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
    /// The frame of the clip the camera is fitted to: the start frame, or 0 for a clip chosen
    /// later (playing and stepping keep it, so the camera holds still).
    pub framing: u32,
    /// Animation paused.
    pub paused: bool,
    /// Camera yaw in degrees.
    pub yaw: f32,
    /// Camera pitch in degrees, kept within ±89.
    pub pitch: f32,
    /// `-` presses less `+` presses: the camera distance is the fitted one times
    /// [`ZOOM_STEP`] to this power (0 = exactly the render command's distance).
    pub zoom_steps: i32,
    /// Dithering of gouraud/modulated primitives.
    pub dither: bool,
    /// Time not yet turned into frames.
    pending: Duration,
}

impl Viewer {
    /// A viewer on `clips`, starting at `clip` (or the first clip, or the rest pose), frame
    /// `frame`, with the given camera angles. The start frame is kept as given, past the clip's
    /// end too (the model wraps it, as for the render command's `--frame`); playing and
    /// stepping wrap it into the clip.
    pub fn new(clips: Vec<Clip>, clip: Option<usize>, frame: u32, yaw: f32, pitch: f32) -> Self {
        let clip =
            clip.filter(|&c| c < clips.len())
                .or(if clips.is_empty() { None } else { Some(0) });
        Viewer {
            clips,
            clip,
            frame,
            framing: frame,
            paused: false,
            yaw,
            pitch: pitch.clamp(-89.0, 89.0),
            zoom_steps: 0,
            dither: true,
            pending: Duration::ZERO,
        }
    }

    /// The factor on the fitted camera distance (1 = the render command's framing).
    pub fn zoom(&self) -> f32 {
        ZOOM_STEP.powi(self.zoom_steps)
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
            Action::ZoomIn => self.zoom_steps = (self.zoom_steps - 1).max(-MAX_ZOOM_STEPS),
            Action::ZoomOut => self.zoom_steps = (self.zoom_steps + 1).min(MAX_ZOOM_STEPS),
            Action::TogglePause => {
                self.paused = !self.paused;
                self.pending = Duration::ZERO;
            }
            Action::StepBack => {
                self.paused = true;
                self.frame = advance(self.frame, -1, n);
            }
            Action::StepForward => {
                self.paused = true;
                self.frame = advance(self.frame, 1, n);
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
                    self.framing = 0;
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
        self.frame = advance(self.frame, i64::from(steps), self.frame_count());
        self.frame != before
    }

    /// The window title: model, animation, frame and the last frame's render time.
    pub fn title(&self, model: &str, ms_per_frame: f64) -> String {
        format!(
            "psxrender — {model} — {} — frame {}/{}{} — {ms_per_frame:.1} ms/frame",
            self.clip_name(),
            self.frame % self.frame_count(),
            self.frame_count(),
            if self.paused { " (paused)" } else { "" },
        )
    }
}

/// `frame` moved `by` frames within a clip of `n` frames, wrapping both ways.
fn advance(frame: u32, by: i64, n: u32) -> u32 {
    // In i64 a u32 frame plus a u32 step cannot overflow; the result is below n.
    (i64::from(frame) + by).rem_euclid(i64::from(n.max(1))) as u32
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
    /// The render command's options for the start state.
    start: RenderOptions,
    viewer: Viewer,
    renderer: Renderer<'m>,
    /// The options the renderer was built with.
    built: RenderOptions,
    /// The renderer's camera distance as built (fitted, or the asked `--distance`).
    fitted: f32,
    /// The zoom steps the renderer's camera was last set for.
    zoomed: i32,
}

impl<'m> Session<'m> {
    /// A session on `model` starting from `start`: the options the render command uses for
    /// the same command line (`start.framing` names the animation and frame to start at).
    pub fn new(model: &'m dyn Model, start: RenderOptions) -> Result<Self, RenderError> {
        let clips = model
            .animations()
            .into_iter()
            .map(|a| Clip {
                name: a.name,
                frames: a.frames.max(1),
            })
            .collect();
        let mut viewer = Viewer::new(
            clips,
            start.framing.animation,
            start.framing.frame,
            start.view.yaw,
            start.view.pitch,
        );
        viewer.dither = start.dither;
        // The start options themselves, unless they name an animation the model lacks (the
        // viewer then starts at its first, or the rest pose).
        let built = options_for(&start, &viewer);
        let renderer = Renderer::new(model, &built)?;
        Ok(Session {
            model,
            fitted: renderer.distance(),
            renderer,
            built,
            start,
            viewer,
            zoomed: 0,
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

    /// The render command's options for the viewer's state, before zoom: the start options
    /// with the viewer's animation, fitted frame, camera angles and dither.
    pub fn options(&self) -> RenderOptions {
        options_for(&self.start, &self.viewer)
    }

    /// The camera distance the current frame is drawn at: the render command's (fitted, or
    /// the asked one) times the zoom.
    pub fn distance(&self) -> f32 {
        self.renderer.distance()
    }

    /// Renders the viewer's current state. A change of animation, camera angle or dither builds
    /// a new renderer from [`Session::options`], exactly as the render command builds its own,
    /// so the camera is fitted by the same rule; playing frames and zooming reuse it.
    pub fn frame(&mut self) -> Result<Frame, RenderError> {
        let opts = self.options();
        if opts != self.built {
            self.renderer = Renderer::new(self.model, &opts)?;
            self.fitted = self.renderer.distance();
            self.built = opts;
            self.zoomed = 0;
        }
        if self.zoomed != self.viewer.zoom_steps {
            let mut view = self.built.view;
            if self.viewer.zoom_steps != 0 {
                // As `--distance` with this value: the same framing pose, a given distance.
                view.distance = Some(self.fitted * self.viewer.zoom());
            }
            self.renderer.set_view(view);
            self.zoomed = self.viewer.zoom_steps;
        }
        self.renderer.render(&PoseRequest {
            animation: self.viewer.clip,
            frame: self.viewer.frame,
            camera: None,
        })
    }
}

/// `start` with the viewer's animation, fitted frame, camera angles and dither.
fn options_for(start: &RenderOptions, v: &Viewer) -> RenderOptions {
    let mut opts = start.clone();
    opts.view.yaw = v.yaw;
    opts.view.pitch = v.pitch;
    opts.dither = v.dither;
    opts.framing = PoseRequest {
        animation: v.clip,
        frame: v.framing,
        camera: None,
    };
    opts
}

/// The scale a window opens at: the asked one (default: the largest that fits), never more
/// than fits the screen when its size is known ([`integer_scale`]: at most 4). Without a
/// screen size (no X server to ask) the asked scale, or 2.
pub fn window_scale(w: u32, h: u32, asked: Option<u32>, screen: Option<(u32, u32)>) -> u32 {
    let fits = screen.map(|(sw, sh)| integer_scale(w, h, sw, sh));
    match (asked.map(|a| a.clamp(1, 4)), fits) {
        (Some(a), Some(f)) => a.min(f),
        (Some(a), None) => a,
        (None, Some(f)) => f,
        (None, None) => 2,
    }
}

/// What a `win_w`×`win_h` window shows of a `w`×`h` RGB8 frame: the frame at the largest
/// integer scale that fits the window (at most `max_scale`), every pixel repeated — no
/// smoothing — and centred, the rest `border` (0RGB). A window smaller than the frame shows
/// its centre.
pub fn compose(
    rgb: &[u8],
    (w, h): (usize, usize),
    (win_w, win_h): (usize, usize),
    max_scale: u32,
    border: u32,
) -> Vec<u32> {
    let src = rgb_to_0rgb(rgb);
    let fit = integer_scale(w as u32, h as u32, win_w as u32, win_h as u32);
    let s = fit.min(max_scale).max(1) as usize;
    // Where the scaled frame's top-left lands (negative: cut on both sides alike).
    let x0 = (win_w as isize - (w * s) as isize) / 2;
    let y0 = (win_h as isize - (h * s) as isize) / 2;
    let mut out = vec![border; win_w * win_h];
    for (y, line) in out.chunks_exact_mut(win_w.max(1)).enumerate() {
        let fy = y as isize - y0;
        if fy < 0 || fy >= (h * s) as isize {
            continue;
        }
        let row = &src[(fy as usize / s) * w..][..w];
        for (x, px) in line.iter_mut().enumerate() {
            let fx = x as isize - x0;
            if fx >= 0 && fx < (w * s) as isize {
                *px = row[fx as usize / s];
            }
        }
    }
    out
}

/// The screen's size in pixels as the X server on `DISPLAY` reports it (the root window's size),
/// `None` without one (a Wayland-only session); and the connection that asked, to be kept until
/// the window is open: an X server resets when its last client leaves (Xvfb under `xvfb-run`
/// does), and a window opened during the reset fails.
#[cfg(all(feature = "preview", target_os = "linux"))]
fn screen_size() -> (Option<(u32, u32)>, Option<impl Sized>) {
    use x11rb::connection::Connection;
    use x11rb::rust_connection::RustConnection;
    let Ok((conn, screen)) = RustConnection::connect(None) else {
        return (None, None);
    };
    let size = conn.setup().roots.get(screen).map(|root| {
        (
            u32::from(root.width_in_pixels),
            u32::from(root.height_in_pixels),
        )
    });
    (size, Some(conn))
}

/// The screen's size in pixels: not known on this system.
#[cfg(all(feature = "preview", not(target_os = "linux")))]
fn screen_size() -> (Option<(u32, u32)>, Option<()>) {
    (None, None)
}

/// Window options for [`run_window`].
#[derive(Clone, Debug)]
pub struct WindowConfig {
    /// Model name for the title.
    pub name: String,
    /// Integer scale asked for (1–4); `None` = the largest that fits the screen. Either way
    /// never more than fits the screen ([`window_scale`]).
    pub scale: Option<u32>,
    /// Quit after this many shown frames (scripted runs, tests).
    pub exit_after: Option<u64>,
}

/// Shows `session` in a window until Esc, the window closing, or `exit_after` frames; S calls
/// `save` with the frame on screen. Returns the number of frames shown.
#[cfg(feature = "preview")]
pub fn run_window(
    session: &mut Session<'_>,
    cfg: &WindowConfig,
    save: &mut dyn FnMut(&Session<'_>, &Frame),
) -> Result<u64, String> {
    use minifb::{KeyRepeat, ScaleMode, Window, WindowOptions};
    use std::time::Instant;

    let begun = Instant::now();
    let mut frame = session.frame().map_err(|e| e.to_string())?;
    let first_ms = begun.elapsed().as_secs_f64() * 1000.0;
    let size = (frame.width as usize, frame.height as usize);
    let (screen, asker) = screen_size();
    let scale = window_scale(frame.width, frame.height, cfg.scale, screen);
    eprintln!("{}", scale_note(size, scale, cfg.scale, screen));
    let bg = session.options().background;
    let border = u32::from(bg[0]) << 16 | u32::from(bg[1]) << 8 | u32::from(bg[2]);
    let opts = WindowOptions {
        resize: true,
        // The buffer is always the window's size, composed by `compose`: shown 1:1.
        scale_mode: ScaleMode::UpperLeft,
        ..WindowOptions::default()
    };
    let s = scale as usize;
    let mut window = Window::new(
        &session.viewer.title(&cfg.name, first_ms),
        size.0 * s,
        size.1 * s,
        opts,
    )
    .map_err(|e| format!("cannot open a window: {e}"))?;
    drop(asker);
    window.set_target_fps(60);
    let taps = Taps::default();
    window.set_input_callback(Box::new(taps.clone()));
    let mut shown = 0u64;
    let mut last = Instant::now();
    let mut drawn_for = None;
    let mut buffer = Vec::new();
    while window.is_open() {
        let mut dirty = false;
        // Keys pressed since the last frame, then those held long enough to repeat; each key
        // acts at most once a frame.
        let mut keys = taps.take();
        keys.extend(window.get_keys_pressed(KeyRepeat::Yes));
        let mut seen = Vec::new();
        keys.retain(|k| {
            !seen.contains(k) && {
                seen.push(*k);
                true
            }
        });
        let mut actions: Vec<Action> = keys.into_iter().filter_map(action_for).collect();
        actions.dedup();
        for action in actions {
            match action {
                Action::Quit => return Ok(shown),
                Action::Save => save(session, &frame),
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
            window.set_title(&session.viewer.title(&cfg.name, ms));
            drawn_for = None;
        }
        // A resized window shows the frame at the largest integer scale that fits it, up to
        // the scale that fits the screen.
        let win = window.get_size();
        if win.0 == 0 || win.1 == 0 {
            // Nothing to draw into (a window shrunk away): keys and closing still count.
            window.update();
        } else {
            if drawn_for != Some(win) {
                buffer = compose(&frame.rgb, size, win, scale, border);
                drawn_for = Some(win);
            }
            window
                .update_with_buffer(&buffer, win.0, win.1)
                .map_err(|e| format!("window update failed: {e}"))?;
        }
        shown += 1;
        if cfg.exit_after.is_some_and(|n| shown >= n) {
            break;
        }
    }
    Ok(shown)
}

/// Every key press the window reports, however short: minifb's own key state only sees a key
/// still down at the next frame, so a tap shorter than a frame (a quick typist, a scripted
/// `xdotool key`) would be lost.
#[cfg(feature = "preview")]
#[derive(Clone, Default)]
struct Taps(std::rc::Rc<std::cell::RefCell<Vec<minifb::Key>>>);

#[cfg(feature = "preview")]
impl Taps {
    /// The keys pressed since the last call, in order.
    fn take(&self) -> Vec<minifb::Key> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

#[cfg(feature = "preview")]
impl minifb::InputCallback for Taps {
    fn add_char(&mut self, _: u32) {}

    fn set_key_state(&mut self, key: minifb::Key, down: bool) {
        if down {
            self.0.borrow_mut().push(key);
        }
    }
}

/// The line saying at what scale the frame is shown, and why when it is not the asked one.
pub fn scale_note(
    (w, h): (usize, usize),
    scale: u32,
    asked: Option<u32>,
    screen: Option<(u32, u32)>,
) -> String {
    let shown = format!(
        "{w}x{h} shown at {scale}x ({}x{})",
        w * scale as usize,
        h * scale as usize
    );
    match (asked, screen) {
        (Some(a), Some((sw, sh))) if a > scale => {
            format!("{shown}: {a}x would not fit the {sw}x{sh} screen")
        }
        (None, Some((sw, sh))) => format!("{shown}, the largest that fits the {sw}x{sh} screen"),
        (None, None) => format!("{shown} (screen size unknown; --scale picks another)"),
        _ => shown,
    }
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
        assert_eq!(
            (v.frame, v.framing),
            (5, 5),
            "start frame kept as given (the model wraps it, as for --frame)"
        );
        assert!(v.title("m", 0.0).contains("frame 1/4"));
        assert!(v.apply(Action::StepBack));
        assert!(v.paused);
        assert_eq!(v.frame, 0);
        v.apply(Action::StepBack);
        assert_eq!((v.frame, v.framing), (3, 5), "stepping keeps the framing");
        assert!(
            !v.tick(Duration::from_secs(1)),
            "paused clock does not move"
        );
        v.apply(Action::NextAnimation);
        assert_eq!((v.clip, v.frame, v.framing), (Some(0), 0, 0));
        v.apply(Action::PreviousAnimation);
        assert_eq!(v.clip, Some(1));
        v.apply(Action::TogglePause);
        assert!(!v.paused);
        assert!(!v.apply(Action::Quit));
        let mut huge = Viewer::new(
            vec![Clip {
                name: "long".into(),
                frames: u32::MAX,
            }],
            None,
            u32::MAX - 1,
            0.0,
            0.0,
        );
        huge.apply(Action::StepForward);
        assert_eq!(huge.frame, 0, "wraps without overflow");
        huge.apply(Action::StepBack);
        assert_eq!(huge.frame, u32::MAX - 1);
    }

    #[test]
    fn camera_keys_orbit_zoom_and_clamp() {
        let mut v = Viewer::new(Vec::new(), None, 7, 170.0, 80.0);
        assert_eq!((v.frame_count(), v.clip_name()), (1, "rest pose"));
        v.apply(Action::OrbitRight);
        assert_eq!(v.yaw, -175.0);
        v.apply(Action::OrbitUp);
        assert_eq!(v.pitch, 89.0);
        v.apply(Action::ZoomIn);
        assert!(v.zoom() < 1.0);
        v.apply(Action::ZoomOut);
        assert_eq!((v.zoom_steps, v.zoom()), (0, 1.0), "back to exactly 1");
        for _ in 0..40 {
            v.apply(Action::ZoomOut);
        }
        assert_eq!(v.zoom_steps, MAX_ZOOM_STEPS);
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
        // The default is the largest scale that fits the screen; an asked one is kept to it.
        assert_eq!(window_scale(320, 240, None, Some((800, 600))), 2);
        assert_eq!(window_scale(320, 240, None, Some((1600, 1200))), 4);
        assert_eq!(window_scale(320, 240, Some(4), Some((800, 600))), 2);
        assert_eq!(window_scale(320, 240, Some(1), Some((1600, 1200))), 1);
        assert_eq!(window_scale(320, 240, Some(3), None), 3);
        assert_eq!(window_scale(320, 240, None, None), 2);
        assert_eq!(
            scale_note((320, 240), 2, Some(4), Some((800, 600))),
            "320x240 shown at 2x (640x480): 4x would not fit the 800x600 screen"
        );
    }

    #[test]
    fn compose_repeats_pixels_and_centres() {
        // 2x1 frame: pixels 1 and 2.
        let rgb = [1, 0, 0, 2, 0, 0];
        let (a, b) = (0x10000, 0x20000);
        assert_eq!(
            compose(&rgb, (2, 1), (4, 2), 4, 9),
            vec![a, a, b, b, a, a, b, b],
            "exactly 2x: the window is the scaled frame"
        );
        assert_eq!(
            compose(&rgb, (2, 1), (7, 3), 4, 9),
            vec![
                9, 9, 9, 9, 9, 9, 9, //
                9, 9, 9, 9, 9, 9, 9, //
                9, 9, 9, 9, 9, 9, 9, //
            ]
            .iter()
            .enumerate()
            .map(|(i, &p)| match i {
                // Scale 3 fits 7x3: 6x3 at column 0 (7-6)/2 = 0.
                0..=2 | 7..=9 | 14..=16 => a,
                3..=5 | 10..=12 | 17..=19 => b,
                _ => p,
            })
            .collect::<Vec<u32>>(),
            "scale 3, the spare column on the right"
        );
        assert_eq!(
            compose(&rgb, (2, 1), (6, 4), 2, 9),
            vec![
                9, 9, 9, 9, 9, 9, //
                9, a, a, b, b, 9, //
                9, a, a, b, b, 9, //
                9, 9, 9, 9, 9, 9, //
            ],
            "capped at the screen's scale 2, centred"
        );
        assert_eq!(
            compose(&[1, 0, 0, 2, 0, 0, 3, 0, 0], (3, 1), (1, 1), 4, 9),
            vec![b],
            "a window smaller than the frame shows its centre"
        );
    }

    fn demo() -> crate::formats::ff9::FF9Model {
        use crate::formats::{ff9, LoadOptions};
        ff9::load(
            std::path::Path::new("demo"),
            &ff9::demo_character(),
            &LoadOptions::default(),
        )
        .unwrap()
    }

    /// The render command's options for the demo's animation at `frame`.
    fn start_at(frame: u32) -> RenderOptions {
        RenderOptions {
            threads: 1,
            framing: PoseRequest {
                animation: Some(0),
                frame,
                camera: None,
            },
            ..RenderOptions::default()
        }
    }

    /// What a renderer built from `opts` draws for `animation`, `frame`.
    fn direct(model: &dyn Model, opts: &RenderOptions, frame: u32) -> Vec<u8> {
        let mut r = Renderer::new(model, opts).unwrap();
        r.render(&PoseRequest {
            animation: opts.framing.animation,
            frame,
            camera: None,
        })
        .unwrap()
        .rgb
    }

    #[test]
    fn session_frames_are_the_renderers_for_the_same_options() {
        let model = demo();
        let start = start_at(2);
        let mut s = Session::new(&model, start.clone()).unwrap();
        assert_eq!(s.options(), start, "the start state is the start options");
        let first = s.frame().unwrap();
        assert_eq!(first.rgb, direct(&model, &start, 2), "first frame");
        // Playing keeps the camera fitted to the start frame (as --frames 2..).
        assert!(s.tick(FRAME_TIME * 3));
        assert_eq!(s.viewer().frame, 5);
        let later = s.frame().unwrap();
        assert_ne!(later.rgb, first.rgb, "frame 5 differs from frame 2");
        assert_eq!(later.rgb, direct(&model, &start, 5));
        // An orbit step is the render command with --yaw moved by the step.
        s.apply(Action::TogglePause);
        s.apply(Action::OrbitRight);
        let mut turned = start.clone();
        turned.view.yaw += ORBIT_STEP;
        assert_eq!(s.frame().unwrap().rgb, direct(&model, &turned, 5), "orbit");
        // Zoom is --distance at the fitted distance times the zoom.
        let fitted = s.distance();
        s.apply(Action::ZoomOut);
        let mut zoomed = turned.clone();
        zoomed.view.distance = Some(fitted * ZOOM_STEP);
        let far = s.frame().unwrap();
        assert_eq!(s.distance(), fitted * ZOOM_STEP);
        assert_eq!(far.rgb, direct(&model, &zoomed, 5), "zoom");
        s.apply(Action::ZoomIn);
        assert_eq!(
            s.frame().unwrap().rgb,
            direct(&model, &turned, 5),
            "unzoomed"
        );
        // Dither off is --dither off; on again restores the picture.
        s.apply(Action::ToggleDither);
        let mut flat = turned.clone();
        flat.dither = false;
        let undithered = s.frame().unwrap();
        assert_eq!(undithered.rgb, direct(&model, &flat, 5), "dither off");
        assert_ne!(undithered.rgb, far.rgb);
        s.apply(Action::ToggleDither);
        assert_eq!(s.frame().unwrap().rgb, direct(&model, &turned, 5));
    }

    #[test]
    fn a_chosen_clip_is_framed_at_its_first_frame() {
        let model = demo(); // one 10-frame animation: `]` comes back to it at frame 0
        let start = start_at(4);
        let mut s = Session::new(&model, start.clone()).unwrap();
        s.apply(Action::NextAnimation);
        let mut again = start.clone();
        again.framing.frame = 0;
        assert_eq!(s.options(), again);
        assert_eq!(s.frame().unwrap().rgb, direct(&model, &again, 0));
    }
}
