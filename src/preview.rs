//! The live preview behind `psxrender view`: a window showing the PS1-resolution frame scaled
//! by an integer factor while the animation plays at 30 fps through the full GTE/GPU path.
//!
//! Design rule: everything that decides *what* to draw — key handling, animation clock, orbit
//! and zoom, the title — lives in [`Viewer`], which has no window and is unit-tested. The minifb
//! loop (feature `preview`) only turns keys into [`Action`]s and shows the frames a
//! [`FrameSource`] produces, so a smoke test can run it under Xvfb for a fixed number of frames.

use std::time::Duration;

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
}
