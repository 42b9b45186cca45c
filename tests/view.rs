//! The preview window under a real X server (Xvfb): what the window shows, read back with
//! `xwd`, is the render command's PNG at the window's integer scale — at the start, and after an
//! orbit key typed with `xdotool` — and S saves that picture at 1x under the render command's
//! name. The frame logic itself is tested without a window in `src/preview.rs` and
//! `src/cli/view.rs`.
//!
//! Needs `xvfb-run` (xvfb, xauth), `xwd` (x11-apps) and `xdotool`: `.ci/run` installs them.
//! Without them these tests are ignored, saying so; with `CI=true` they run and fail
//! (`build.rs`). Keys are typed with xdotool rather than a scripted-keys option of the viewer
//! so the test goes through the same X key events and key bindings a user's keyboard does.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_psxrender");

/// How long a window may take to show the expected picture (a loaded machine is slow, a wrong
/// picture never matches).
const PATIENCE: Duration = Duration::from_secs(60);

/// One X server at a time: two `xvfb-run -a` starting together can pick the same display.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A private X server from `xvfb-run`, alive until dropped.
struct XServer {
    _turn: MutexGuard<'static, ()>,
    child: Child,
    stdin: Option<ChildStdin>,
    display: String,
    xauthority: String,
}

impl XServer {
    /// Starts Xvfb with one `WxHx24` screen. xvfb-run picks a free display and an auth file and
    /// runs a shell that prints both, then waits for its input to close.
    fn start(screen: &str) -> XServer {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut child = Command::new("xvfb-run")
            .args(["-a", "-s", &format!("-screen 0 {screen}x24")])
            .args(["sh", "-c", r#"echo "$DISPLAY $XAUTHORITY"; read _"#])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run xvfb-run");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (display, xauthority) = line
            .trim()
            .split_once(' ')
            .unwrap_or_else(|| panic!("xvfb-run printed {line:?}"));
        XServer {
            _turn: turn,
            stdin: child.stdin.take(),
            child,
            display: display.to_string(),
            xauthority: xauthority.to_string(),
        }
    }

    /// `program` with this server as its display.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("DISPLAY", &self.display)
            .env("XAUTHORITY", &self.xauthority)
            .env_remove("WAYLAND_DISPLAY");
        c
    }

    /// Runs `program args` on this display; its standard output.
    fn run(&self, program: &str, args: &[&str]) -> Vec<u8> {
        let out = self.command(program).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }
}

impl Drop for XServer {
    fn drop(&mut self) {
        // Closing the shell's input ends it, and xvfb-run then stops the server.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// An RGB8 picture.
#[derive(PartialEq)]
struct Picture {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Picture {
    fn png(path: &Path) -> Picture {
        let img = image::open(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .to_rgb8();
        Picture {
            width: img.width(),
            height: img.height(),
            rgb: img.into_raw(),
        }
    }

    /// Every pixel repeated `s`x`s`.
    fn scaled(&self, s: u32) -> Picture {
        let (w, s) = (self.width as usize, s as usize);
        let mut rgb = Vec::with_capacity(self.rgb.len() * s * s);
        for row in self.rgb.chunks_exact(w * 3) {
            let line: Vec<u8> = row.chunks_exact(3).flat_map(|p| p.repeat(s)).collect();
            for _ in 0..s {
                rgb.extend_from_slice(&line);
            }
        }
        Picture {
            width: self.width * s as u32,
            height: self.height * s as u32,
            rgb,
        }
    }

    /// An XWD window dump (X11 `XWDFileHeader`: 25 big-endian 32-bit fields, the window
    /// name, the colour map, then the pixels) of a 24-bit TrueColor ZPixmap at 32 bits a pixel.
    fn xwd(data: &[u8]) -> Picture {
        let field = |i: usize| u32::from_be_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
        let (header_size, format, bpp) = (field(0) as usize, field(2), field(11));
        assert_eq!((format, bpp), (2, 32), "a ZPixmap at 32 bits a pixel");
        let (width, height, lsb_first, line) = (field(4), field(5), field(7) == 0, field(12));
        let masks = [field(14), field(15), field(16)];
        let pixels = header_size + field(19) as usize * 12;
        let mut rgb = Vec::with_capacity((width * height * 3) as usize);
        for y in 0..height as usize {
            let row = &data[pixels + y * line as usize..];
            for x in 0..width as usize {
                let b: [u8; 4] = row[x * 4..x * 4 + 4].try_into().unwrap();
                let p = if lsb_first {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b)
                };
                rgb.extend(masks.map(|m| ((p & m) >> m.trailing_zeros()) as u8));
            }
        }
        Picture { width, height, rgb }
    }

    /// How many pixels differ from `other` (all, when the sizes differ).
    fn differing(&self, other: &Picture) -> usize {
        if (self.width, self.height) != (other.width, other.height) {
            return (self.width * self.height) as usize;
        }
        let pairs = self.rgb.chunks(3).zip(other.rgb.chunks(3));
        pairs.filter(|(a, b)| a != b).count()
    }
}

/// A fresh directory under `target/view-test/`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/view-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `psxrender MODEL OUT.png ARGS`: the render command's picture.
fn render(model: &Path, out: &Path, args: &[&str]) -> Picture {
    let status = Command::new(BIN)
        .arg(model)
        .arg(out)
        .args(args)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "render {} {args:?}", model.display());
    Picture::png(out)
}

/// Polls the window's picture until it is `expected`; on a timeout saves the last one beside
/// `dir`'s other files and fails naming it.
fn wait_for_picture(x: &XServer, window: &str, expected: &Picture, dir: &Path, what: &str) {
    let start = Instant::now();
    loop {
        let shot = Picture::xwd(&x.run("xwd", &["-silent", "-id", window]));
        if shot == *expected {
            return;
        }
        if start.elapsed() > PATIENCE {
            let path = dir.join(format!("{what}.window.png"));
            image::save_buffer(
                &path,
                &shot.rgb,
                shot.width,
                shot.height,
                image::ExtendedColorType::Rgb8,
            )
            .unwrap();
            panic!(
                "{what}: after {PATIENCE:?} the window ({}x{}) still differs from the render \
                 command's picture ({}x{}) in {} pixels; it showed {}",
                shot.width,
                shot.height,
                expected.width,
                expected.height,
                shot.differing(expected),
                path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The id of the window whose name starts with `psxrender`, once `viewer` shows it.
fn window_id(x: &XServer, viewer: &mut Child) -> String {
    let start = Instant::now();
    loop {
        if viewer.try_wait().unwrap().is_some() {
            let mut said = String::new();
            let _ = std::io::Read::read_to_string(viewer.stderr.as_mut().unwrap(), &mut said);
            panic!("the viewer ended without showing a window: {said}");
        }
        let out = x
            .command("xdotool")
            .args(["search", "--onlyvisible", "--name", "^psxrender"])
            .output()
            .unwrap();
        let ids = String::from_utf8_lossy(&out.stdout);
        if let Some(id) = ids.split_whitespace().next() {
            return id.to_string();
        }
        assert!(start.elapsed() < PATIENCE, "no psxrender window appeared");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits for `child` to end by itself; its exit status and standard error.
fn finish(child: Child) -> (std::process::ExitStatus, String) {
    let start = Instant::now();
    let mut child = child;
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("the viewer did not exit");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(
    no_xvfb,
    ignore = "needs xvfb-run, xwd and xdotool (apt-get install xvfb xauth x11-apps xdotool)"
)]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2/Rabbit2.m2")]
#[cfg_attr(not(feature = "preview"), ignore = "needs the `preview` feature")]
fn window_shows_the_render_commands_picture_and_orbits_from_it() {
    let rabbit = common::shared("samples/m2/Rabbit2.m2");
    let dir = scratch("rabbit");
    let start = render(&rabbit, &dir.join("start.png"), &[]);
    let yaw = psxrender::render::camera::DEFAULT_YAW + psxrender::preview::ORBIT_STEP;
    let orbit = render(
        &rabbit,
        &dir.join("orbit.png"),
        &["--yaw", &yaw.to_string()],
    );
    assert_ne!(start.rgb, orbit.rgb, "an orbit step changes the picture");

    // 800x600: 2x (640x480) is the largest scale that fits, so it is the default.
    let x = XServer::start("800x600");
    let mut viewer = x
        .command(BIN)
        .arg("view")
        .arg(&rabbit)
        .args(["--paused", "--exit-after", "3600"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let window = window_id(&x, &mut viewer);
    wait_for_picture(&x, &window, &start.scaled(2), &dir, "start");

    x.run("xdotool", &["key", "--window", &window, "Right"]);
    wait_for_picture(&x, &window, &orbit.scaled(2), &dir, "orbit");

    // S saves the frame on screen at 1x, named as `--frames 0..=0` names frame 0.
    x.run("xdotool", &["key", "--window", &window, "s"]);
    let saved = dir.join("Rabbit2.psx_0000.png");
    let begun = Instant::now();
    while !saved.exists() {
        assert!(begun.elapsed() < PATIENCE, "S saved no {}", saved.display());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        Picture::png(&saved) == orbit,
        "S saved what the window shows, at 1x"
    );

    x.run("xdotool", &["key", "--window", &window, "Escape"]);
    let (status, stderr) = finish(viewer);
    assert!(status.success(), "view failed: {stderr}");
    for said in [
        "320x240 shown at 2x (640x480), the largest that fits the 800x600 screen",
        "Rabbit2: showed ",
    ] {
        assert!(stderr.contains(said), "{said:?} not in: {stderr}");
    }
    // The render command with the options S named writes the same picture, under that name.
    let named = stderr
        .lines()
        .find_map(|l| l.strip_prefix("wrote Rabbit2.psx_0000.png (as the render command with "))
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or_else(|| panic!("S said nothing of what it wrote: {stderr}"));
    assert!(
        named.ends_with(&format!("--frames 0..=0 --yaw {yaw} --pitch 15")),
        "{named}"
    );
    let again = dir.join("again");
    std::fs::create_dir(&again).unwrap();
    let status = Command::new(BIN)
        .arg(&rabbit)
        .args(named.split(' '))
        .current_dir(&again)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "psxrender Rabbit2.m2 {named}");
    assert!(Picture::png(&again.join("Rabbit2.psx_0000.png")) == orbit);
}

#[test]
#[cfg_attr(
    no_xvfb,
    ignore = "needs xvfb-run, xwd and xdotool (apt-get install xvfb xauth x11-apps xdotool)"
)]
#[cfg_attr(not(feature = "preview"), ignore = "needs the `preview` feature")]
fn window_animates_and_exits_after_n_frames_never_larger_than_the_screen() {
    let x = XServer::start("800x600");
    let out = x
        .command(BIN)
        .args(["view", "--demo", "--exit-after", "12", "--scale", "4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "view failed: {stderr}");
    assert!(stderr.contains("demo: showed 12 frames"), "{stderr}");
    assert!(
        stderr.contains("320x240 shown at 2x (640x480): 4x would not fit the 800x600 screen"),
        "{stderr}"
    );
}

#[test]
fn view_reports_bad_input_without_a_window() {
    let out = Command::new(BIN)
        .args(["view", "/nonexistent/model.mdl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/model.mdl"));
    let out = Command::new(BIN)
        .args(["view", "--demo", "--frames", "0..4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--frames names files to write"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
