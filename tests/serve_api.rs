//! `psxrender serve`'s JSON API on a real server at port 0: models, frames, saves, captures,
//! history, comparisons, uploads, and every refusal of docs/serve.md's safety list. Self-made
//! inputs only (the demo model, a text stream), so nothing here needs ../shared.

mod serve_support;

use std::path::{Path, PathBuf};

use serve_support::{cli, pixels, scratch, Serve};

/// A folder with the demo model, a two-frame GPU text stream, a picture and a folder of
/// pictures; and a file outside it.
fn inputs(name: &str) -> (PathBuf, PathBuf) {
    let base = scratch(name);
    let served = base.join("served");
    std::fs::create_dir_all(served.join("shots")).unwrap();
    std::fs::write(
        served.join("robot.ff9"),
        psxrender::formats::ff9::demo_character(),
    )
    .unwrap();
    // Frame 0: a red 16x8 fill at (0,0); frame 1 adds a green 8x4 one; display 320x240 at 0,0.
    let stream = "gp1 08000001\ngp1 03000000\ngp0 020000ff\ngp0 00000000\ngp0 00080010\nframe\n\
                  gp0 0200ff00\ngp0 00000000\ngp0 00040008\nframe\n";
    std::fs::write(served.join("two.txt"), stream).unwrap();
    std::fs::write(base.join("secret.txt"), "gp0 00000000\n").unwrap();
    (base, served)
}

fn q(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[test]
fn models_render_as_the_render_command_writes_them() {
    let (base, served) = inputs("serve-models");
    let s = Serve::start(&[&served]);
    let files = s.get("/api/files").json();
    let kinds: Vec<(String, String)> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        kinds.contains(&("0/robot.ff9".into(), "model".into())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("0/two.txt".into(), "capture".into())),
        "{kinds:?}"
    );

    let facts = s.get("/api/model?path=0/robot.ff9").json();
    assert_eq!(facts["format"], "FF9");
    assert!(!facts["animations"].as_array().unwrap().is_empty());

    let r = s.get("/api/frame.png?path=0/robot.ff9&frame=7&yaw=-30&size=368x240&bg=102030");
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("image/png"));
    let command = r.header("x-psxrender-command").unwrap();
    let command: String = form_urlencoded::parse(format!("c={command}").as_bytes())
        .next()
        .unwrap()
        .1
        .into_owned();
    let model = served.join("robot.ff9");
    assert_eq!(
        command,
        format!(
            "psxrender {} --frame=7 --yaw=-30 --size=368x240 --bg=102030",
            model.display()
        )
    );
    // The command line it shows writes the same pixels.
    let out = base.join("cli.png");
    let model_s = model.to_str().unwrap();
    let out_s = out.to_str().unwrap();
    cli(&[
        model_s,
        out_s,
        "--frame=7",
        "--yaw=-30",
        "--size=368x240",
        "--bg=102030",
    ]);
    assert_eq!(pixels(&r.body), pixels(&std::fs::read(&out).unwrap()));

    // A save is the render command's own file, byte for byte.
    let job = s.post(
        "/api/save?path=0/robot.ff9&kind=png&frame=7&yaw=-30&size=368x240&bg=102030",
        b"",
    );
    assert_eq!(job.status, 202, "{}", String::from_utf8_lossy(&job.body));
    let id = job.json()["job"].as_u64().unwrap();
    let status = wait_job(&s, id);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["files"][0], "robot.psx.png");
    let file = s.get(&format!("/api/jobs/{id}/robot.psx.png"));
    assert_eq!(file.status, 200);
    assert_eq!(
        file.body,
        std::fs::read(&out).unwrap(),
        "a save writes the CLI's PNG"
    );
    assert_eq!(s.get(&format!("/api/jobs/{id}/messages.txt")).status, 404);

    // A GIF save, and a second save while it runs is refused as busy.
    let gif = s.post("/api/save?path=0/robot.ff9&kind=gif&frames=0..40", b"");
    assert_eq!(gif.status, 202, "{}", String::from_utf8_lossy(&gif.body));
    let busy = s.post("/api/save?path=0/robot.ff9&kind=png", b"");
    let gif_id = gif.json()["job"].as_u64().unwrap();
    assert_eq!(wait_job(&s, gif_id)["state"], "done");
    assert_eq!(busy.status, 503, "{}", String::from_utf8_lossy(&busy.body));
    let cli_gif = base.join("robot.psx.gif");
    cli(&[
        model_s,
        cli_gif.to_str().unwrap(),
        "--frames=0..40",
        "--gif",
    ]);
    let served_gif = s.get(&format!("/api/jobs/{gif_id}/robot.psx.gif"));
    assert_eq!(
        served_gif.body,
        std::fs::read(&cli_gif).unwrap(),
        "the CLI's GIF"
    );
}

fn wait_job(s: &Serve, id: u64) -> serde_json::Value {
    for _ in 0..1200 {
        let st = s.get(&format!("/api/jobs/{id}")).json();
        if st["state"] != "running" {
            return st;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("job {id} still running after 2 minutes");
}

#[test]
fn captures_by_frame_and_command_with_history_and_comparisons() {
    let (base, served) = inputs("serve-captures");
    let s = Serve::start(&[&served]);
    let facts = s.get("/api/capture?path=0/two.txt").json();
    assert_eq!(facts["frames"].as_array().unwrap().len(), 2, "{facts}");
    let cmds = s.get("/api/capture/commands?path=0/two.txt&frame=1").json();
    assert_eq!(cmds["total"], 1);
    assert_eq!(cmds["commands"][0]["index"], 1);
    assert_eq!(cmds["commands"][0]["at"], "line 7");
    assert_eq!(
        cmds["commands"][0]["title"],
        "02h fill (0,0) 16x4 with 03e0"
    );

    // VRAM after 0 and after 1 command of frame 1.
    let vram = |after: &str| {
        let r = s.get(&format!(
            "/api/capture/vram.png?path=0/two.txt&frame=1&after={after}"
        ));
        assert_eq!(r.status, 200);
        pixels(&r.body)
    };
    let (w, h, before) = vram("0");
    assert_eq!((w, h), (1024, 512));
    assert_eq!(&before[..4], &[255, 0, 0, 255], "red after frame 0's fill");
    let (_, _, after) = vram("1");
    assert_eq!(&after[..4], &[0, 255, 0, 255], "green after frame 1's");
    let (w24, _, _) = pixels(
        &s.get("/api/capture/vram.png?path=0/two.txt&frame=1&depth=24")
            .body,
    );
    assert_eq!(w24, 682);
    let shown = s.get("/api/capture/display.png?path=0/two.txt&frame=0");
    assert_eq!(pixels(&shown.body).0, 320);
    assert!(shown
        .header("x-psxrender-display")
        .unwrap()
        .contains("\"width\":320"));
    assert_eq!(
        s.get("/api/capture/thumb.png?path=0/two.txt&frame=1")
            .status,
        200
    );

    // The history is `replay --history --json`'s, event for event.
    let h = s
        .get("/api/capture/history?path=0/two.txt&frame=1&x=3&y=2")
        .json();
    let file = served.join("two.txt");
    let out = cli(&[
        "replay",
        file.to_str().unwrap(),
        "--frame=2",
        "--history=3,2",
        "--json",
    ]);
    let want: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(h["events"], want["pixels"][0]["events"]);
    assert_eq!(h["events"].as_array().unwrap().len(), 2);
    assert_eq!(
        h["command"],
        format!(
            "psxrender replay {} --frame=2 --history=3,2",
            file.display()
        )
    );

    // Against a picture: frame 1 itself is equal, frame 0 differs.
    let png = served.join("shots/f_0001.png");
    let frame1 = s
        .get("/api/capture/display.png?path=0/two.txt&frame=1")
        .body;
    std::fs::write(&png, &frame1).unwrap();
    std::fs::write(served.join("shots/f_0000.png"), &frame1).unwrap();
    let one = s
        .get("/api/capture/compare?path=0/two.txt&frame=1&against=0/shots/f_0001.png")
        .json();
    assert_eq!(
        one["summary"]["first_differing_frame"],
        serde_json::Value::Null,
        "{one}"
    );
    let folder = s
        .get("/api/capture/compare?path=0/two.txt&against=0/shots")
        .json();
    assert_eq!(folder["summary"]["first_differing_frame"], 0, "{folder}");
    assert_eq!(folder["frames"][0]["differing"], 64, "{folder}");
    let diff = s.get("/api/capture/diff.png?path=0/two.txt&frame=0&against=0/shots");
    assert_eq!(diff.status, 200);
    let _ = base;
}

#[test]
fn bad_files_are_errors_and_the_server_goes_on() {
    let (_base, served) = inputs("serve-bad");
    std::fs::write(served.join("junk.m2"), b"MD20\x01\x01\0\0garbage").unwrap();
    let s = Serve::start(&[&served]);
    let r = s.get("/api/model?path=0/junk.m2");
    assert_eq!(r.status, 422);
    assert!(r.error().contains("junk.m2"), "{}", r.error());
    let r = s.get("/api/capture?path=0/robot.ff9");
    assert_eq!(r.status, 422, "a model is no capture");
    for bad in [
        "/api/frame.png?path=0/robot.ff9&frame=-1",
        "/api/frame.png?path=0/robot.ff9&size=300x240",
        "/api/frame.png?path=0/robot.ff9&yaw=nan",
        "/api/frame.png?path=0/robot.ff9&anim=99",
        "/api/capture/vram.png?path=0/two.txt&frame=9",
        "/api/capture/history?path=0/two.txt&x=1024&y=0",
        "/api/frame.png",
    ] {
        let r = s.get(bad);
        assert_eq!(r.status, 400, "{bad}: {}", String::from_utf8_lossy(&r.body));
        assert!(!r.error().is_empty());
    }
    assert_eq!(s.get("/api/nothing").status, 404);
    assert_eq!(
        s.get("/api/frame.png?path=0/robot.ff9").status,
        200,
        "still serving"
    );
}

#[test]
fn refusals() {
    let (base, served) = inputs("serve-refusals");
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.join("secret.txt"), served.join("link.txt")).unwrap();
    let s = Serve::start(&[&served]);
    let secret = base.join("secret.txt");
    // Names outside the served paths, however spelled.
    for spec in [
        "0/../secret.txt".to_string(),
        "0/%2e%2e/secret.txt".to_string(),
        q("0/../secret.txt"),
        "0/%252e%252e/secret.txt".to_string(),
        q(secret.to_str().unwrap()),
        format!("0/{}", q(secret.to_str().unwrap())),
        "0//etc/passwd".to_string(),
        "0/link.txt".to_string(),
        "1/x".to_string(),
        "u/../../etc/passwd".to_string(),
    ] {
        let r = s.get(&format!("/api/capture?path={spec}"));
        assert!(
            r.status == 403 || r.status == 404,
            "{spec}: {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        assert!(
            !String::from_utf8_lossy(&r.body).contains("gp0"),
            "{spec} leaked"
        );
    }
    // Refused heads: DNS rebinding (a name not this server's address, or none), cross-site
    // requests, foreign origins, other methods, oversized heads.
    let host = s.host();
    let many: String = (0..200).map(|i| format!("\r\nX-H{i}: v")).collect();
    let big = "a".repeat(64 * 1024);
    let post0 = "Content-Length: 0";
    for (head, status, why) in [
        ("GET /api/files HTTP/1.1\r\nHost: evil.example:80".to_string(), 403, "another name"),
        (format!("GET /api/files HTTP/1.1\r\nHost: evil.example:{}", s.port), 403, "another name, our port"),
        ("GET /api/files HTTP/1.0".to_string(), 403, "no Host at all"),
        (format!("GET /api/files HTTP/1.1\r\nHost: {host}\r\nSec-Fetch-Site: cross-site"), 403, "cross-site"),
        (format!("POST /api/upload/batch HTTP/1.1\r\nHost: {host}\r\nOrigin: http://evil.example\r\n{post0}"), 403, "foreign origin"),
        (format!("PUT /api/files HTTP/1.1\r\nHost: {host}\r\n{post0}"), 405, "PUT"),
        (format!("GET /api/files HTTP/1.1\r\nHost: {host}\r\nX-Big: {big}"), 431, "a 64 KiB header"),
        (format!("GET /api/files HTTP/1.1\r\nHost: {host}{many}"), 431, "200 headers"),
        (format!("GET /api/files HTTP/1.1\r\nHost: localhost:{}", s.port), 200, "localhost is ours"),
    ] {
        let r = s.raw(&head, b"");
        assert_eq!(r.status, status, "{why}");
        if status == 403 && why.contains("name") {
            assert!(r.error().contains("DNS rebinding"), "{}", r.error());
        }
    }
    // Uploads: a batch the server made, plain names, capped sizes.
    let batch = s.post("/api/upload/batch", b"").json()["batch"]
        .as_u64()
        .unwrap();
    let r = s.raw(
        &format!(
            "POST /api/upload?batch={batch}&name=big.m2 HTTP/1.1\r\nHost: {}\r\nContent-Length: {}",
            s.host(),
            (256u64 << 20) + 1
        ),
        b"",
    );
    assert_eq!(r.status, 413, "{}", String::from_utf8_lossy(&r.body));
    for name in ["../x.m2", "a%2Fb.m2", ".hidden", "%2e%2e"] {
        let r = s.post(&format!("/api/upload?batch={batch}&name={name}"), b"x");
        assert_eq!(r.status, 400, "{name}");
    }
    assert_eq!(s.post("/api/upload?batch=999&name=a.m2", b"x").status, 400);
    let r = s.raw(
        &format!("POST /api/upload?batch={batch}&name=short.m2 HTTP/1.1\r\nHost: {}\r\nContent-Length: 10", s.host()),
        b"abc",
    );
    assert_eq!(r.status, 400, "a body shorter than announced");
    assert_eq!(s.get("/api/files").status, 200, "still serving");
}

#[test]
fn uploads_open_like_the_files_served_and_go_when_the_server_stops() {
    let (_base, served) = inputs("serve-uploads");
    let mut s = Serve::start(&[]);
    let batch = s.post("/api/upload/batch", b"").json()["batch"]
        .as_u64()
        .unwrap();
    let model = std::fs::read(served.join("robot.ff9")).unwrap();
    let up = s.post(&format!("/api/upload?batch={batch}&name=robot.ff9"), &model);
    assert_eq!(up.status, 201, "{}", String::from_utf8_lossy(&up.body));
    let spec = up.json()["path"].as_str().unwrap().to_string();
    assert_eq!(spec, format!("u/{batch}/robot.ff9"));
    let r = s.get(&format!("/api/frame.png?path={spec}&frame=3"));
    assert_eq!(r.status, 200);
    let command = r.header("x-psxrender-command").unwrap();
    assert!(command.starts_with("psxrender+robot.ff9+"), "{command}");
    assert_eq!(
        s.post(&format!("/api/upload?batch={batch}&name=robot.ff9"), b"x")
            .status,
        400,
        "no overwriting"
    );
    assert!(s
        .temp
        .join("uploads")
        .join(batch.to_string())
        .join("robot.ff9")
        .exists());
    let status = s.stop();
    assert!(status.success(), "{status:?}");
    assert!(
        !s.temp.exists(),
        "{} is left after the server stopped",
        s.temp.display()
    );
    let _ = Path::new("");
}
