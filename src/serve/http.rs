//! The HTTP side: connections (hyper, HTTP/1), the guards every request passes, the limits,
//! and answers.
//!
//! Guards, in order: the `Host` header must be this server's own address (`127.0.0.1:PORT`,
//! `localhost:PORT`, `[::1]:PORT`, or the address it listens on) — a page on another name that
//! resolves here (DNS rebinding) is refused; a request the browser marks cross-site
//! (`Sec-Fetch-Site: cross-site`), or a POST whose `Origin` is not this server, is refused;
//! only GET and POST are served.
//!
//! Limits: a request head of at most [`MAX_HEAD`] bytes and 100 headers (hyper answers 431
//! past them), read within [`HEAD_TIMEOUT`]; [`MAX_CONNECTIONS`](super::MAX_CONNECTIONS)
//! connections; bodies only where a route reads one (uploads, capped by
//! [`uploads`](super::uploads)).

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::State;

/// Bytes a request head (request line and headers) may take.
pub const MAX_HEAD: usize = 16 * 1024;
/// Time a client has to send a whole request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// An answer.
pub type Answer = Response<Full<Bytes>>;

/// A failed request: the status and a message for the page.
#[derive(Debug)]
pub struct Failure {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong, in words.
    pub message: String,
}

impl Failure {
    /// 400: the request itself is wrong.
    pub fn bad(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// 403: refused.
    pub fn refused(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::FORBIDDEN,
            message: message.into(),
        }
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// 422: the file is there but cannot be read as what it was asked as.
    pub fn unreadable(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            message: message.into(),
        }
    }

    /// 503: busy; try again.
    pub fn busy(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
        }
    }

    /// The answer: `{"error": message}`.
    pub fn answer(self) -> Answer {
        let mut a = json_answer(self.status, &json!({ "error": self.message }));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            a.headers_mut()
                .insert("retry-after", HeaderValue::from_static("1"));
        }
        a
    }
}

/// A JSON answer.
pub fn json_answer(status: StatusCode, v: &Value) -> Answer {
    bytes_answer(
        status,
        "application/json",
        serde_json::to_vec(v).unwrap_or_default(),
    )
}

/// An answer of `body` typed `content_type`, with the headers every answer carries.
pub fn bytes_answer(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Answer {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("cache-control", HeaderValue::from_static("no-store"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    r
}

/// The `Host` values this server answers to when bound to `addr`.
pub fn allowed_hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
        hosts.push(addr.to_string());
    }
    hosts
}

/// The guards (see the module docs): `Err` is the refusal to send.
pub fn guard(state: &State, req: &Request<Incoming>) -> Result<(), Failure> {
    if req.method() != Method::GET && req.method() != Method::POST {
        return Err(Failure {
            status: StatusCode::METHOD_NOT_ALLOWED,
            message: format!("{} is not served (GET and POST only)", req.method()),
        });
    }
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !state.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Err(Failure::refused(format!(
            "Host '{}' is not this server's address ({}): refused, as a page on another \
             name pointed here would be (DNS rebinding)",
            host.escape_debug(),
            state.hosts.join(", ")
        )));
    }
    let site = req
        .headers()
        .get("sec-fetch-site")
        .and_then(|h| h.to_str().ok());
    if site == Some("cross-site") {
        return Err(Failure::refused(
            "a request from another site's page: refused",
        ));
    }
    if req.method() == Method::POST {
        if let Some(origin) = req.headers().get(ORIGIN) {
            let ours = origin
                .to_str()
                .ok()
                .and_then(|o| o.strip_prefix("http://"))
                .is_some_and(|o| state.hosts.iter().any(|h| h.eq_ignore_ascii_case(o)));
            if !ours {
                return Err(Failure::refused(
                    "a POST from a page of another origin: refused",
                ));
            }
        }
    }
    Ok(())
}

/// Runs `work` on a blocking thread once one of the [`WORKERS`](super::WORKERS) is free;
/// 503 when none frees up within [`BUSY_WAIT`](super::BUSY_WAIT). A panic in `work` is a 500
/// answer, and the server goes on.
pub async fn blocking<F>(workers: &Arc<Semaphore>, state: &Arc<State>, work: F) -> Answer
where
    F: FnOnce(&State) -> Result<Answer, Failure> + Send + 'static,
{
    let permit = tokio::time::timeout(super::BUSY_WAIT, workers.clone().acquire_owned()).await;
    let Ok(Ok(permit)) = permit else {
        return Failure::busy(format!(
            "busy: {} requests are being worked on; try again",
            super::WORKERS
        ))
        .answer();
    };
    let state = state.clone();
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&state)
    })
    .await;
    match done {
        Ok(Ok(a)) => a,
        Ok(Err(f)) => f.answer(),
        Err(_) => Failure {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: "the request's work failed inside psxrender (a panic; please report)".into(),
        }
        .answer(),
    }
}

/// Accepts connections until Ctrl-C or SIGTERM, each served as its own task.
pub async fn serve(listener: TcpListener, state: Arc<State>) -> Result<(), String> {
    let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
    let connections = Arc::new(Semaphore::new(super::MAX_CONNECTIONS));
    let workers = Arc::new(Semaphore::new(super::WORKERS));
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            p = connections.clone().acquire_owned() => p.map_err(|e| e.to_string())?,
            () = &mut stop => return Ok(()),
        };
        let (stream, _) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                // Out of file descriptors and the like: wait a moment, keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => return Ok(()),
        };
        let (state, workers) = (state.clone(), workers.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req| {
                let (state, workers) = (state.clone(), workers.clone());
                async move { Ok::<_, Infallible>(handle(state, workers, req).await) }
            });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD);
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn handle(state: Arc<State>, workers: Arc<Semaphore>, req: Request<Incoming>) -> Answer {
    if let Err(f) = guard(&state, &req) {
        return f.answer();
    }
    super::api::route(state, workers, req).await
}

/// Resolves when the process is asked to stop: Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
