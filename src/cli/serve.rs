//! `psxrender serve [PATH...]`: the local web inspector ([`psxrender::serve`]).

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args as ClapArgs, Parser};

use psxrender::render::{default_animation, RenderOptions};
use psxrender::scene::{Model, PoseRequest};
use psxrender::serve::{Config, Frontend, Server};

use super::EXIT_BAD_INPUT;

/// Inspect models and captures in the browser: a local web server (127.0.0.1; port 0 picks
/// one) with a page that turns, animates and saves models and steps through captures command
/// by command, VRAM and pixel history included. Every picture is rendered by psxrender here.
/// Stop it with Ctrl-C. docs/serve.md describes the page and its JSON API.
/// Example: `psxrender serve ../shared/samples --port 8080 --open`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Models, captures (.psxgpu, .zst, .xz, GP0 text streams), pictures, or folders of them.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8068, value_name = "N")]
    pub port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Address to listen on. The default serves this machine only; another address lets
    /// other machines read every file under PATH (a warning says so).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub listen: IpAddr,
}

/// A render command line as the render command parses it.
#[derive(Parser, Debug)]
#[command(name = "psxrender", no_binary_name = false)]
struct RenderLine {
    #[command(flatten)]
    render: super::render::Args,
}

/// The render command's own reading of a command line.
struct Cli;

impl Frontend for Cli {
    fn render_request(
        &self,
        args: &[String],
        model: &dyn Model,
    ) -> Result<(RenderOptions, PoseRequest), String> {
        let line = ["psxrender", "MODEL"]
            .into_iter()
            .map(String::from)
            .chain(args.iter().cloned());
        let parsed = RenderLine::try_parse_from(line).map_err(|e| e.to_string())?;
        let r = parsed.render.render;
        let animation = match &r.anim {
            None => default_animation(model),
            Some(sel) => Some(
                model
                    .find_animation(sel)
                    .ok_or_else(|| format!("no animation '{sel}'"))?,
            ),
        };
        let opts = r.options(model, animation);
        let request = PoseRequest {
            animation,
            frame: r.frame,
            camera: None,
        };
        Ok((opts, request))
    }
}

pub fn run(args: Args) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot find the psxrender binary for saves: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    if !args.listen.is_loopback() {
        eprintln!(
            "warning: listening on {}: any machine that reaches it can read every file under \
             the PATHs given and make this one render; the default, 127.0.0.1, serves this \
             machine only",
            args.listen
        );
    }
    let config = Config {
        paths: args.paths,
        listen: args.listen,
        port: args.port,
        exe,
        frontend: Arc::new(Cli),
    };
    let server = match Server::bind(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let url = if args.listen.is_unspecified() {
        format!("http://127.0.0.1:{}/", server.addr().port())
    } else {
        server.url()
    };
    outln!("serving {url} (Ctrl-C stops)");
    eprintln!(
        "note: dropped files and saves go to {} (removed when the server stops)",
        server.temp_dir().display()
    );
    if args.open {
        open_browser(&url);
    }
    match server.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Asks the desktop to open `url`; a note if it cannot.
fn open_browser(url: &str) {
    let tried = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd")
            .args(["/C", "start", "", url])
            .spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if let Err(e) = tried {
        eprintln!("note: could not open a browser ({e}); open {url} yourself");
    }
}
