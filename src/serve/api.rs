//! The routes: the page and its assets, and the JSON API under `/api/` (docs/serve.md lists
//! every route, parameter and field). Files are named by `ROOT/RELATIVE` specs
//! ([`super::roots`]); everything else is a checked number or flag ([`super::query`]).

use std::sync::Arc;
use std::time::Instant;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH};
use hyper::{Method, Request, StatusCode};
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

use super::captures::Point;
use super::http::{blocking, bytes_answer, json_answer, Answer, Failure};
use super::models::{self, View};
use super::query::Query;
use super::roots::Resolved;
use super::{assets, jobs, State};

/// Time an upload may pause between two pieces of its body.
const BODY_PIECE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Answers `req`.
pub async fn route(state: Arc<State>, workers: Arc<Semaphore>, req: Request<Incoming>) -> Answer {
    let path = req.uri().path().to_string();
    let query = match Query::parse(req.uri().query()) {
        Ok(q) => q,
        Err(e) => return Failure::bad(e).answer(),
    };
    let post = req.method() == Method::POST;
    let get = |f: fn(&State, &Query) -> Result<Answer, Failure>| {
        let (state, workers, query) = (state.clone(), workers.clone(), query.clone());
        async move { blocking(&workers, &state, move |s| f(s, &query)).await }
    };
    match (post, path.as_str()) {
        (false, "/" | "/index.html") => asset("index.html"),
        (false, p) if p.starts_with("/assets/") => asset(&p["/assets/".len()..]),
        (false, "/api/files") => get(files).await,
        (false, "/api/model") => get(model_facts).await,
        (false, "/api/frame.png") => get(frame_png).await,
        (true, "/api/save") => get(save).await,
        (false, p) if p.starts_with("/api/jobs/") => job(&state, &p["/api/jobs/".len()..]),
        (true, "/api/upload/batch") => {
            json_answer(StatusCode::OK, &json!({ "batch": state.temp.new_batch() }))
        }
        (true, "/api/upload") => upload(&state, &workers, &query, req).await,
        (false, "/api/capture") => get(capture_facts).await,
        (false, "/api/capture/commands") => get(capture_commands).await,
        (false, "/api/capture/display.png") => get(capture_display).await,
        (false, "/api/capture/vram.png") => get(capture_vram).await,
        (false, "/api/capture/thumb.png") => get(capture_thumb).await,
        (false, "/api/capture/history") => get(capture_history).await,
        (false, "/api/capture/compare") => get(capture_compare).await,
        (false, "/api/capture/diff.png") => get(capture_diff).await,
        (_, p) => Failure::not_found(format!(
            "no {} {}: see docs/serve.md for the API",
            if post { "POST" } else { "GET" },
            p.escape_debug()
        ))
        .answer(),
    }
}

fn asset(name: &str) -> Answer {
    match assets::get(name) {
        Some((content_type, body)) => {
            let mut a = bytes_answer(StatusCode::OK, content_type, body.as_bytes().to_vec());
            let h = a.headers_mut();
            h.insert(
                "content-security-policy",
                HeaderValue::from_static(assets::CONTENT_SECURITY_POLICY),
            );
            h.insert("x-frame-options", HeaderValue::from_static("DENY"));
            a
        }
        None => Failure::not_found(format!("no asset {}", name.escape_debug())).answer(),
    }
}

/// The file a request's `name` parameter names, or the refusal.
fn resolve(state: &State, q: &Query, name: &str) -> Result<Resolved, Failure> {
    let spec = q.required(name).map_err(Failure::bad)?;
    state
        .roots
        .resolve(spec)
        .map_err(|r| Failure::refused(r.to_string()))
}

fn png_answer(bytes: Vec<u8>) -> Answer {
    bytes_answer(StatusCode::OK, "image/png", bytes)
}

/// The listing reads the folders (and a little of each file): work, not the I/O loop's.
fn files(state: &State, _: &Query) -> Result<Answer, Failure> {
    Ok(json_answer(StatusCode::OK, &state.roots.list()))
}

fn model_facts(state: &State, q: &Query) -> Result<Answer, Failure> {
    let file = resolve(state, q, "path")?;
    let model = state.models.get(&file.real).map_err(Failure::unreadable)?;
    let mut facts = models::facts(model.as_ref());
    facts["path"] = json!(q.get("path"));
    facts["shown"] = json!(file.shown.display().to_string());
    Ok(json_answer(StatusCode::OK, &facts))
}

fn frame_png(state: &State, q: &Query) -> Result<Answer, Failure> {
    let file = resolve(state, q, "path")?;
    let model = state.models.get(&file.real).map_err(Failure::unreadable)?;
    let view = View::from_query(q, model.as_ref()).map_err(Failure::bad)?;
    let start = Instant::now();
    let (frame, command, distance) =
        models::render(state.frontend.as_ref(), model.as_ref(), &file.shown, &view)
            .map_err(Failure::unreadable)?;
    let took = start.elapsed();
    state
        .frame_times
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(file.real.clone(), took);
    let png = models::frame_png(&frame).map_err(Failure::unreadable)?;
    let mut a = png_answer(png);
    let h = a.headers_mut();
    let encoded: String = form_urlencoded::byte_serialize(command.as_bytes()).collect();
    if let Ok(v) = HeaderValue::from_str(&encoded) {
        h.insert("x-psxrender-command", v);
    }
    let s = frame.stats;
    let stats = format!(
        "drawn={} back_faces={} clipped={} sprites={}",
        s.drawn, s.back_faces, s.clipped, s.sprites
    );
    if let Ok(v) = HeaderValue::from_str(&stats) {
        h.insert("x-psxrender-stats", v);
    }
    if let Ok(v) = HeaderValue::from_str(&distance.to_string()) {
        h.insert("x-psxrender-distance", v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("render;dur={:.2}", took.as_secs_f64() * 1e3)) {
        h.insert("server-timing", v);
    }
    Ok(a)
}

fn save(state: &State, q: &Query) -> Result<Answer, Failure> {
    let file = resolve(state, q, "path")?;
    let model = state.models.get(&file.real).map_err(Failure::unreadable)?;
    let view = View::from_query(q, model.as_ref()).map_err(Failure::bad)?;
    let mut args = view.args(model.as_ref());
    let stem = file
        .shown
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let (kind, frames) = match q.required("kind").map_err(Failure::bad)? {
        "png" => (jobs::Kind::Png, 1),
        kind @ ("gif" | "sheet") => {
            let (a, b) = View::frames(q).map_err(Failure::bad)?;
            // With --frames the range decides the frames; --frame would be ignored.
            args.retain(|x| !x.starts_with("--frame="));
            args.insert(0, format!("--frames={a}..{b}"));
            if kind == "gif" {
                args.push("--gif".into());
                (jobs::Kind::Gif, b - a)
            } else {
                let sheet = match q.get("sheet").unwrap_or("auto") {
                    "auto" => "auto".to_string(),
                    s => {
                        let (c, r) = s
                            .split_once('x')
                            .ok_or_else(|| Failure::bad("sheet=COLSxROWS or auto"))?;
                        let (c, r): (u32, u32) = (c.parse().unwrap_or(0), r.parse().unwrap_or(0));
                        if !(1..=1000).contains(&c) || !(1..=1000).contains(&r) {
                            return Err(Failure::bad("sheet=COLSxROWS with 1 to 1000 each"));
                        }
                        format!("{c}x{r}")
                    }
                };
                args.push(format!("--sheet={sheet}"));
                let steps = q.number("yaw_steps", 1, 360).map_err(Failure::bad)? as u32;
                if steps > 1 {
                    args.push(format!("--yaw-steps={steps}"));
                }
                (jobs::Kind::Sheet, (b - a) * steps)
            }
        }
        k => return Err(Failure::bad(format!("kind={k}: png, gif or sheet"))),
    };
    let out = match kind {
        jobs::Kind::Png => format!("{stem}.psx.png"),
        jobs::Kind::Gif => format!("{stem}.psx.gif"),
        jobs::Kind::Sheet => format!("{stem}.sheet.png"),
    };
    // The options are checked as the render command will check them before it starts.
    state
        .frontend
        .render_request(&args, model.as_ref())
        .map_err(Failure::bad)?;
    let frame_time = state
        .frame_times
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&file.real)
        .copied()
        .unwrap_or(std::time::Duration::from_millis(30));
    let command = models::command_line(&file.shown, Some(&out), &args);
    let request = jobs::Request {
        kind,
        model: &file.real,
        args,
        out,
        command: command.clone(),
        frames,
        frame_time,
    };
    match state.jobs.start(request) {
        Ok(id) => Ok(json_answer(
            StatusCode::ACCEPTED,
            &json!({ "job": id, "command": command }),
        )),
        Err(None) => Err(Failure::busy("a save is running; one runs at a time")),
        Err(Some(e)) => Err(Failure {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: e,
        }),
    }
}

fn job(state: &State, rest: &str) -> Answer {
    let (id, file) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(id) = id
        .parse::<u64>()
        .ok()
        .filter(|_| id.bytes().all(|b| b.is_ascii_digit()))
    else {
        return Failure::bad("/api/jobs/ID: ID is a job number").answer();
    };
    if file.is_empty() {
        return match state.jobs.status(id) {
            Some(s) => json_answer(StatusCode::OK, &s),
            None => Failure::not_found(format!("no job {id}")).answer(),
        };
    }
    let Some(path) = state.jobs.file(id, file) else {
        return Failure::not_found(format!("job {id} has no file {}", file.escape_debug()))
            .answer();
    };
    match std::fs::read(&path) {
        Ok(bytes) => {
            let ct = match path.extension().and_then(|e| e.to_str()) {
                Some("png") => "image/png",
                Some("gif") => "image/gif",
                _ => "application/json",
            };
            let mut a = bytes_answer(StatusCode::OK, ct, bytes);
            if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
                a.headers_mut().insert("content-disposition", v);
            }
            a
        }
        Err(e) => Failure::not_found(format!("{file}: {e}")).answer(),
    }
}

/// `POST /api/upload?batch=N&name=FILE`: the body is the file, written as it comes, capped.
async fn upload(
    state: &Arc<State>,
    workers: &Arc<Semaphore>,
    q: &Query,
    req: Request<Incoming>,
) -> Answer {
    let claimed = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let Some(len) = claimed else {
        return Failure {
            status: StatusCode::LENGTH_REQUIRED,
            message: "an upload needs a Content-Length".into(),
        }
        .answer();
    };
    let batch = match q.number("batch", 1, u64::MAX) {
        Ok(b) => b,
        Err(e) => return Failure::bad(e).answer(),
    };
    let name = q.get("name").unwrap_or("");
    let path = match state.temp.reserve(batch, name, len) {
        Ok(p) => p,
        Err(e) => {
            let status = if len > super::uploads::MAX_FILE {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::BAD_REQUEST
            };
            return Failure { status, message: e }.answer();
        }
    };
    // One of the workers while the body comes: uploads count as work.
    let Ok(Ok(_permit)) =
        tokio::time::timeout(super::BUSY_WAIT, workers.clone().acquire_owned()).await
    else {
        state.temp.release(len);
        return Failure::busy("busy; try the upload again").answer();
    };
    match receive(req.into_body(), &path, len).await {
        Ok(()) => {
            let rel = path
                .strip_prefix(state.temp.uploads())
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            json_answer(
                StatusCode::CREATED,
                &json!({ "path": format!("{}/{rel}", super::roots::UPLOADS), "bytes": len }),
            )
        }
        Err(f) => {
            let _ = tokio::fs::remove_file(&path).await;
            state.temp.release(len);
            f.answer()
        }
    }
}

/// Writes the body to a new file at `path`: exactly `len` bytes, each piece within
/// [`BODY_PIECE_TIMEOUT`].
async fn receive(mut body: Incoming, path: &std::path::Path, len: u64) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::bad(format!("cannot write the upload: {e}"));
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .await
        .map_err(io)?;
    let mut got = 0u64;
    loop {
        let piece = tokio::time::timeout(BODY_PIECE_TIMEOUT, body.frame())
            .await
            .map_err(|_| Failure::bad("the upload stalled"))?;
        let Some(piece) = piece else { break };
        let piece = piece.map_err(|e| Failure::bad(format!("the upload broke off: {e}")))?;
        if let Ok(data) = piece.into_data() {
            got += data.len() as u64;
            if got > len {
                return Err(Failure {
                    status: StatusCode::PAYLOAD_TOO_LARGE,
                    message: "the upload is longer than its Content-Length".into(),
                });
            }
            file.write_all(&data).await.map_err(io)?;
        }
    }
    if got != len {
        return Err(Failure::bad(format!(
            "the upload ended after {got} of {len} bytes"
        )));
    }
    file.flush().await.map_err(io)
}

/// The capture `path` names and the point `frame`/`after` name in it.
fn capture_at(
    state: &State,
    q: &Query,
) -> Result<(Arc<super::captures::Session>, Resolved, Point), Failure> {
    let file = resolve(state, q, "path")?;
    let session = state.capture(&file.real).map_err(Failure::unreadable)?;
    let frame = q
        .number("frame", 0, u64::from(u32::MAX))
        .map_err(Failure::bad)? as usize;
    if frame >= session.frames.len() {
        return Err(Failure::bad(format!(
            "frame={frame}: the capture has {} frames (from 0)",
            session.frames.len()
        )));
    }
    let commands = match q.get("after") {
        None | Some("") => None,
        Some(_) => Some(q.number("after", 0, u64::MAX).map_err(Failure::bad)?),
    };
    Ok((session, file, Point { frame, commands }))
}

fn capture_facts(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, file, _) = capture_at(state, q)?;
    let mut facts = session.facts();
    facts["path"] = json!(q.get("path"));
    facts["shown"] = json!(file.shown.display().to_string());
    Ok(json_answer(StatusCode::OK, &facts))
}

fn capture_commands(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    let from = q.number("from", 0, u64::MAX).map_err(Failure::bad)?;
    let list = session.commands(p.frame, from).map_err(Failure::bad)?;
    Ok(json_answer(StatusCode::OK, &list))
}

fn capture_display(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    let (pic, d) = session.display(p).map_err(Failure::bad)?;
    let mut a = png_answer(super::png(&pic).map_err(Failure::unreadable)?);
    let info = json!({
        "x": d.x, "y": d.y, "width": pic.width, "height": pic.height,
        "depth24": d.depth24, "enabled": d.enabled,
    });
    if let Ok(v) = HeaderValue::from_str(&info.to_string()) {
        a.headers_mut().insert("x-psxrender-display", v);
    }
    Ok(a)
}

fn capture_vram(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    let depth24 = match q.get("depth") {
        None | Some("" | "15") => false,
        Some("24") => true,
        Some(d) => return Err(Failure::bad(format!("depth={d}: 15 or 24"))),
    };
    let pic = session.vram(p, depth24).map_err(Failure::bad)?;
    Ok(png_answer(super::png(&pic).map_err(Failure::unreadable)?))
}

fn capture_thumb(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    Ok(png_answer(
        session.thumbnail(p.frame).map_err(Failure::bad)?,
    ))
}

fn capture_history(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, file, p) = capture_at(state, q)?;
    let x = q.number("x", 0, 1023).map_err(Failure::bad)? as u16;
    let y = q.number("y", 0, 511).map_err(Failure::bad)? as u16;
    let mut h = session.history(p, (x, y)).map_err(Failure::bad)?;
    let stop = session.frames[p.frame].stop;
    h["command"] = match p.commands {
        Some(_) => serde_json::Value::Null,
        None => {
            let mut args = vec![
                "replay".to_string(),
                models::shell_quote(&file.shown.to_string_lossy()),
            ];
            if let Some(f) = stop {
                args.push(format!("--frame={f}"));
            }
            args.push(format!("--history={x},{y}"));
            json!(format!("psxrender {}", args.join(" ")))
        }
    };
    Ok(json_answer(StatusCode::OK, &h))
}

fn capture_compare(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    let against = resolve(state, q, "against")?;
    let v = session
        .compare(p.frame, &against.real)
        .map_err(Failure::unreadable)?;
    Ok(json_answer(StatusCode::OK, &v))
}

fn capture_diff(state: &State, q: &Query) -> Result<Answer, Failure> {
    let (session, _, p) = capture_at(state, q)?;
    let against = resolve(state, q, "against")?;
    let picture = if against.real.is_dir() {
        let files = super::captures::pictures_in(&against.real).map_err(Failure::unreadable)?;
        files.get(&(p.frame as u64)).cloned().ok_or_else(|| {
            Failure::not_found(format!("no picture numbered {} in the folder", p.frame))
        })?
    } else {
        against.real
    };
    let pic = session
        .diff(p.frame, &picture)
        .map_err(Failure::unreadable)?;
    Ok(png_answer(super::png(&pic).map_err(Failure::unreadable)?))
}
