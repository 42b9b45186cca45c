//! A `psxrender serve` process for the tests, and a small HTTP client that can also send what
//! no browser would (wrong Host, oversized heads), one request per connection.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running server; stopped (SIGTERM, as Ctrl-C would) when dropped.
pub struct Serve {
    pub child: Child,
    pub port: u16,
    pub temp: PathBuf,
}

impl Serve {
    /// Starts `psxrender serve PATHS --port 0` and reads the address and folder it prints.
    pub fn start(paths: &[&Path]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_psxrender"))
            .arg("serve")
            .args(paths)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start psxrender serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        let port: u16 = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut note = String::new();
        err.read_line(&mut note).unwrap();
        let temp = note
            .split_whitespace()
            .find(|w| w.contains("psxrender-serve-"))
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("no temporary folder in {note:?}"));
        // Keep draining standard error so the server never blocks on it.
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = err.read_to_string(&mut sink);
        });
        Serve { child, port, temp }
    }

    /// The `Host` a browser sends.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `head` (request line and headers, without the blank line) and `body`; the status,
    /// headers (lower-cased names) and body.
    pub fn raw(&self, head: &str, body: &[u8]) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let _ = s.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes());
        let _ = s.write_all(body);
        let mut all = Vec::new();
        let _ = s.read_to_end(&mut all);
        Reply::parse(&all)
    }

    /// `GET path` as the page sends it.
    pub fn get(&self, path: &str) -> Reply {
        self.raw(
            &format!("GET {path} HTTP/1.1\r\nHost: {}", self.host()),
            b"",
        )
    }

    /// `POST path` with `body`, as the page sends it.
    pub fn post(&self, path: &str, body: &[u8]) -> Reply {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nOrigin: http://{}\r\nContent-Length: {}",
            self.host(),
            self.host(),
            body.len()
        );
        self.raw(&head, body)
    }

    /// Stops the server as Ctrl-C would (SIGTERM) and waits for it.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

/// An answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    fn parse(all: &[u8]) -> Reply {
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no answer head in {:?}", String::from_utf8_lossy(all)));
        let head = String::from_utf8_lossy(&all[..split]).into_owned();
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: all[split + 4..].to_vec(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The error message of a refusal.
    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_string()
    }
}

/// Runs `psxrender ARGS`; standard output, asserting success.
pub fn cli(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "psxrender {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A fresh scratch folder under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// RGB(A) pixels of PNG bytes.
pub fn pixels(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let img = image::load_from_memory(png).unwrap();
    (img.width(), img.height(), img.to_rgba8().into_raw())
}
