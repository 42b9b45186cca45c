//! `psxrender serve`: a local web inspector for models and captures. A page (plain HTML, CSS
//! and JavaScript modules embedded in the binary, [`assets`]) over a JSON API under `/api/`
//! (docs/serve.md), every picture rendered here by the pipeline the commands run.
//!
//! The server is hyper's HTTP/1 implementation on a small tokio runtime: connections are
//! cheap tasks, request heads are capped in size and count and must arrive in time. Work
//! (loading, rendering, replaying) runs on blocking threads, at most [`WORKERS`] at once; a
//! request that cannot get a worker within [`BUSY_WAIT`] is answered 503.
//!
//! Safety, for a server any page the user's browser opens can reach (`http`): it binds the
//! loopback address unless told otherwise, refuses requests whose `Host` is not its own
//! address (DNS rebinding) and cross-site requests, reads only below the PATHs it was given and
//! its upload folder ([`roots`]), and caps uploads, bodies, heads and concurrent work. A
//! request that fails is an error in the page; the server goes on.
//!
//! - [`roots`]: which files a request may name; [`query`]: parameters, checked;
//! - [`models`]: models loaded once, pictures through the render command's own options;
//! - [`captures`]: captures by frame and command, pictures, history and comparisons;
//! - [`jobs`]: saves written by the render command itself; [`uploads`]: the run's temporary
//!   space; `api`: the routes; `http`: guards, limits and answers.

mod api;
pub mod assets;
pub mod captures;
mod http;
pub mod jobs;
pub mod models;
pub mod query;
pub mod roots;
pub mod uploads;

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::render::RenderOptions;
use crate::scene::{Model, PoseRequest};

/// Requests doing work (loading, rendering, replaying) at once.
pub const WORKERS: usize = 2;
/// How long a request waits for a worker before it is answered 503.
pub const BUSY_WAIT: Duration = Duration::from_secs(2);
/// Connections served at once; more wait to be accepted.
pub const MAX_CONNECTIONS: usize = 256;
/// Captures kept open at once (the least recently used is closed first).
pub const MAX_CAPTURES: usize = 4;

/// What the command line gives the server: it turns a render command line into the options
/// and pose the render command would use, so a picture in the page is that command's.
pub trait Frontend: Send + Sync {
    /// `args` are what follows `psxrender MODEL` (checked values only); `model` is loaded.
    fn render_request(
        &self,
        args: &[String],
        model: &dyn Model,
    ) -> Result<(RenderOptions, PoseRequest), String>;
}

/// How to serve.
pub struct Config {
    /// Models, captures and folders of them to offer.
    pub paths: Vec<PathBuf>,
    /// The address to listen on (loopback unless the user widens it).
    pub listen: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// The `psxrender` binary saves run.
    pub exe: PathBuf,
    /// The command line's render options.
    pub frontend: Arc<dyn Frontend>,
}

/// Everything the requests share.
pub(crate) struct State {
    roots: roots::Roots,
    models: models::Cache,
    captures: Mutex<VecDeque<(PathBuf, Arc<captures::Session>)>>,
    /// The last measured render time of each model, for save estimates.
    frame_times: Mutex<HashMap<PathBuf, Duration>>,
    jobs: jobs::Jobs,
    frontend: Arc<dyn Frontend>,
    /// `Host` values this server answers to.
    hosts: Vec<String>,
    // Dropped last: the folder goes once nothing uses it.
    temp: uploads::TempSpace,
}

impl State {
    /// The capture at `path` (canonical), opened on first use and kept.
    fn capture(&self, path: &Path) -> Result<Arc<captures::Session>, String> {
        let lock = || self.captures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, s)) = lock().iter().find(|(p, _)| p == path) {
            return Ok(s.clone());
        }
        let session = Arc::new(captures::Session::open(path)?);
        let mut kept = lock();
        kept.retain(|(p, _)| p != path);
        kept.push_back((path.to_path_buf(), session.clone()));
        while kept.len() > MAX_CAPTURES {
            kept.pop_front();
        }
        Ok(session)
    }
}

/// A bound server, not yet serving.
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    state: Arc<State>,
}

impl Server {
    /// Checks the PATHs, makes the run's temporary folder and binds the address.
    pub fn bind(config: Config) -> Result<Server, String> {
        let temp = uploads::TempSpace::create()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let roots = roots::Roots::new(&config.paths, Some(&temp.uploads()))?;
        let listener = TcpListener::bind((config.listen, config.port))
            .map_err(|e| format!("cannot listen on {}:{}: {e}", config.listen, config.port))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let jobs = jobs::Jobs::new(temp.saves(), config.exe);
        let state = State {
            roots,
            models: models::Cache::default(),
            captures: Mutex::new(VecDeque::new()),
            frame_times: Mutex::new(HashMap::new()),
            jobs,
            frontend: config.frontend,
            hosts: http::allowed_hosts(addr),
            temp,
        };
        Ok(Server {
            listener,
            addr,
            state: Arc::new(state),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address: `http://127.0.0.1:PORT/` (`[::1]` for IPv6).
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The run's temporary folder (removed when [`Server::run`] returns).
    pub fn temp_dir(&self) -> PathBuf {
        self.state.temp.path().to_path_buf()
    }

    /// Serves until interrupted (Ctrl-C, SIGTERM); then ends running saves and removes the
    /// temporary folder.
    pub fn run(self) -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(WORKERS + 2)
            .build()
            .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
        let state = self.state.clone();
        let result = runtime.block_on(http::serve(self.listener, state.clone()));
        state.jobs.stop_all();
        // Work still running holds `state`; the folder goes with the last holder, or here.
        runtime.shutdown_timeout(Duration::from_secs(5));
        // Work still running past that holds `state`, so its drop may come too late (or
        // never, as the process ends): the folder goes now.
        let _ = std::fs::remove_dir_all(state.temp.path());
        drop(state);
        result
    }
}

/// `pixels` (RGB, or RGBA when `alpha`) as PNG bytes, by the encoder the commands write with.
pub fn encode_png(width: u32, height: u32, pixels: &[u8], alpha: bool) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    let colour = if alpha {
        image::ExtendedColorType::Rgba8
    } else {
        image::ExtendedColorType::Rgb8
    };
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(pixels, width, height, colour)
        .map_err(|e| format!("cannot encode PNG: {e}"))?;
    Ok(out)
}

/// An RGB picture as PNG bytes.
pub(crate) fn png(p: &crate::capture::display::Picture) -> Result<Vec<u8>, String> {
    encode_png(p.width, p.height, &p.rgb, false)
}
