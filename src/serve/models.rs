//! Models in the inspector: loaded once and kept (a few at a time), each picture rendered from
//! a render command line the server builds from the page's settings. The command line is
//! turned into renderer options by the [`Frontend`] — the CLI's own parser
//! — so the picture is the one that command writes, and the page shows the line.
//!
//! Only typed, checked values go into a command line (numbers, a size from the PS1 modes, a
//! colour, an animation by index): nothing a request sends is passed on as text.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::formats::LoadOptions;
use crate::render::camera::{DEFAULT_PITCH, DEFAULT_YAW};
use crate::render::{default_animation, Frame, Renderer, HEIGHTS, WIDTHS};
use crate::scene::Model;

use super::query::Query;
use super::Frontend;

/// Models kept loaded at once; the least recently used is dropped first.
pub const MAX_MODELS: usize = 4;
/// Most frames one save may render.
pub const MAX_SAVE_FRAMES: u32 = 2_000;

/// A loaded model, shared by the requests that draw it.
pub type Shared = Arc<dyn Model>;

/// The models loaded, most recently used last.
#[derive(Default)]
pub struct Cache {
    kept: Mutex<VecDeque<(PathBuf, Shared)>>,
}

impl Cache {
    /// The model at `path` (canonical), loaded on first use.
    pub fn get(&self, path: &Path) -> Result<Shared, String> {
        let found = {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            let at = kept.iter().position(|(p, _)| p == path);
            at.and_then(|i| kept.remove(i))
                .inspect(|e| kept.push_back(e.clone()))
        };
        if let Some((_, m)) = found {
            return Ok(m);
        }
        // Loaded outside the lock: a large model must not hold up the others.
        let model: Shared = Arc::from(
            crate::detect::load(path, &LoadOptions::default()).map_err(|e| e.to_string())?,
        );
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|(p, _)| p != path);
        kept.push_back((path.to_path_buf(), model.clone()));
        while kept.len() > MAX_MODELS {
            kept.pop_front();
        }
        Ok(model)
    }
}

/// What the page needs to know of a model: its animations and the default view.
pub fn facts(model: &dyn Model) -> Value {
    let anims: Vec<Value> = model
        .animations()
        .into_iter()
        .map(|a| json!({ "name": a.name, "frames": a.frames, "duration_ms": a.duration_ms }))
        .collect();
    let (yaw, pitch) = model
        .preferred_view()
        .unwrap_or((DEFAULT_YAW, DEFAULT_PITCH));
    json!({
        "format": model.format(),
        "animations": anims,
        "default_animation": default_animation(model),
        "yaw": yaw,
        "pitch": pitch,
        "cameras": model.camera_count(),
        "fps": crate::sheet::FPS,
        "warnings": model.warnings(),
        "notes": model.notes(),
        "sizes": { "widths": WIDTHS, "heights": HEIGHTS },
    })
}

/// The settings of a picture, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    animation: Option<usize>,
    frame: u32,
    yaw: Option<f32>,
    pitch: Option<f32>,
    distance: Option<f32>,
    size: (u32, u32),
    bg: String,
    dither: bool,
    effects: bool,
}

impl View {
    /// Reads `anim`, `frame`, `yaw`, `pitch`, `distance`, `size`, `bg`, `dither`, `effects`
    /// from `q`, checked against `model`.
    pub fn from_query(q: &Query, model: &dyn Model) -> Result<View, String> {
        let count = model.animations().len();
        let animation = match q.get("anim") {
            None | Some("") => default_animation(model),
            Some(_) => {
                let i: usize = q.number("anim", 0, u64::MAX)? as usize;
                if i >= count {
                    return Err(format!("anim={i}: the model has {count} animations"));
                }
                Some(i)
            }
        };
        let angle = |name: &str| -> Result<Option<f32>, String> {
            q.get(name)
                .filter(|s| !s.is_empty())
                .map(|_| q.float(name, -1e6, 1e6))
                .transpose()
        };
        let distance = q
            .get("distance")
            .filter(|s| !s.is_empty())
            .map(|_| q.float("distance", 1e-6, 1e9))
            .transpose()?;
        let size = match q.get("size") {
            None | Some("") => (320, 240),
            Some(s) => {
                let (w, h) = s.split_once('x').ok_or("size=WxH")?;
                let (w, h) = (w.parse().unwrap_or(0), h.parse().unwrap_or(0));
                if !WIDTHS.contains(&w) || !HEIGHTS.contains(&h) {
                    return Err(format!("size={s} is not a PS1 mode"));
                }
                (w, h)
            }
        };
        let bg = match q.get("bg") {
            None | Some("") => "202030".to_string(),
            Some("none") => "none".to_string(),
            Some(c) if c.len() == 6 && c.bytes().all(|b| b.is_ascii_hexdigit()) => {
                c.to_ascii_lowercase()
            }
            Some(c) => return Err(format!("bg={c}: RRGGBB hex or none")),
        };
        Ok(View {
            animation,
            frame: q.number("frame", 0, u64::from(u32::MAX))? as u32,
            yaw: angle("yaw")?,
            pitch: angle("pitch")?,
            distance,
            size,
            bg,
            dither: q.flag("dither", true)?,
            effects: q.flag("effects", true)?,
        })
    }

    /// The render options after the model, as a command line (without program and model).
    pub fn args(&self, model: &dyn Model) -> Vec<String> {
        let mut a = vec![format!("--frame={}", self.frame)];
        // An animation is always the default one or one by index (from_query).
        if let Some(i) = self
            .animation
            .filter(|&i| Some(i) != default_animation(model))
        {
            a.push(format!("--anim={i}"));
        }
        if let Some(y) = self.yaw {
            a.push(format!("--yaw={y}"));
        }
        if let Some(p) = self.pitch {
            a.push(format!("--pitch={p}"));
        }
        if let Some(d) = self.distance {
            a.push(format!("--distance={d}"));
        }
        if self.size != (320, 240) {
            a.push(format!("--size={}x{}", self.size.0, self.size.1));
        }
        if self.bg != "202030" {
            a.push(format!("--bg={}", self.bg));
        }
        if !self.dither {
            a.push("--dither=off".into());
        }
        if !self.effects {
            a.push("--no-effects".into());
        }
        a
    }

    /// Frames a save renders from `q`: `frames=A..B` (at most [`MAX_SAVE_FRAMES`]).
    pub fn frames(q: &Query) -> Result<(u32, u32), String> {
        let s = q.get("frames").ok_or("frames=A..B is needed")?;
        let (a, b) = s.split_once("..").ok_or("frames=A..B")?;
        let (a, b): (u32, u32) = (
            a.parse().map_err(|_| "frames=A..B: A is not a number")?,
            b.parse().map_err(|_| "frames=A..B: B is not a number")?,
        );
        if b <= a || b - a > MAX_SAVE_FRAMES {
            return Err(format!(
                "frames={s}: a range of 1 to {MAX_SAVE_FRAMES} frames"
            ));
        }
        Ok((a, b))
    }
}

/// `psxrender MODEL ARGS…` as a shell would take it (arguments quoted where needed).
pub fn command_line(model: &Path, out: Option<&str>, args: &[String]) -> String {
    let mut line = vec![
        "psxrender".to_string(),
        shell_quote(&model.to_string_lossy()),
    ];
    line.extend(out.map(shell_quote));
    line.extend(args.iter().map(|a| shell_quote(a)));
    line.join(" ")
}

/// `s` quoted for a POSIX shell when it holds anything but safe characters.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Renders `view` of `model` as the render command would: options from the command line
/// through the frontend, then the renderer. The frame, the command line and the camera
/// distance the renderer used (fitted unless given).
pub fn render(
    frontend: &dyn Frontend,
    model: &dyn Model,
    shown: &Path,
    view: &View,
) -> Result<(Frame, String, f32), String> {
    let args = view.args(model);
    let (opts, request) = frontend.render_request(&args, model)?;
    let failed = |e: crate::render::RenderError| format!("{}: {e}", shown.display());
    let mut renderer = Renderer::new(model, &opts).map_err(failed)?;
    let frame = renderer.render(&request).map_err(failed)?;
    Ok((frame, command_line(shown, None, &args), renderer.distance()))
}

/// The PNG the render command writes for `frame`: RGBA with `--bg none`, else RGB.
pub fn frame_png(frame: &Frame) -> Result<Vec<u8>, String> {
    match &frame.alpha {
        Some(_) => super::encode_png(frame.width, frame.height, &frame.rgba(), true),
        None => super::encode_png(frame.width, frame.height, &frame.rgb, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        assert_eq!(shell_quote("a b.m2"), "'a b.m2'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("--yaw=-35.5"), "--yaw=-35.5");
        assert_eq!(
            command_line(Path::new("m/R.m2"), Some("o.png"), &["--frame=3".into()]),
            "psxrender m/R.m2 o.png --frame=3"
        );
    }
}
