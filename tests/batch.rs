//! `psxrender batch` (issue 35): a manifest over every sample model gives the single commands'
//! outputs, four shards give the one-process outputs with no file written twice, `--resume`
//! after a SIGKILL finishes only the rest and re-renders what changed, and broken manifests are
//! refused before anything renders.

mod cli_run;
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use cli_run::{demo_dir, psxrender, write_manifest};
use common::shared;

fn workdir(name: &str) -> PathBuf {
    demo_dir("batch", name)
}

/// Every file under `dir` (relative path → bytes), leaving out manifests and reports.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                walk(root, &p, out);
            } else if !(rel.ends_with(".jsonl")
                || rel.contains(".report.json")
                || rel.contains(".texture-cache/")
                || rel == "demo.ff9"
                || rel.starts_with("in/"))
            {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// (key → status) of a report.
fn statuses(r: &Value) -> BTreeMap<String, String> {
    r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["key"].as_str().unwrap().to_string(),
                j["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn count(r: &Value, status: &str) -> usize {
    statuses(r).values().filter(|s| *s == status).count()
}

/// Twelve one-frame jobs and two small GIFs of the demo character.
fn demo_jobs() -> Vec<Value> {
    let mut lines: Vec<Value> = (0..12)
        .map(|i| json!({"model": "demo.ff9", "out": format!("out/y{i}.png"), "yaw": i * 30, "frame": i}))
        .collect();
    lines.push(json!({"model": "demo.ff9", "out": "anim/a.gif", "frames": "0..3", "gif": true}));
    lines.push(json!({"model": "demo.ff9", "out": "anim/b", "frames": "2..4", "size": "256x240"}));
    lines
}

#[test]
fn four_shards_write_exactly_the_one_process_outputs() {
    let one = workdir("shards-one");
    let four = workdir("shards-four");
    let m1 = write_manifest(&one, &demo_jobs());
    // The shards' manifest lists the same jobs in another order: the split does not move.
    let mut reordered = demo_jobs();
    reordered.reverse();
    let m4 = write_manifest(&four, &reordered);

    let (code, text) = psxrender([
        "batch".as_ref(),
        m1.as_os_str(),
        "--jobs".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("14 jobs: 14 ok, 0 skipped, 0 failed"),
        "{text}"
    );

    let shards: Vec<_> = (0..4)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_psxrender"))
                .args(["batch".as_ref(), m4.as_os_str()])
                .args(["--jobs", "1", "--shard", &format!("{i}/4")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut s in shards {
        assert!(s.wait().unwrap().success());
    }
    let mut written: BTreeMap<String, usize> = BTreeMap::new();
    let mut reports = Vec::new();
    for i in 0..4 {
        let p = four.join(format!("jobs.jsonl.shard-{i}-of-4.report.json"));
        for j in report(&p)["jobs"].as_array().unwrap() {
            for o in j["outputs"].as_array().unwrap() {
                *written.entry(o.as_str().unwrap().to_string()).or_default() += 1;
            }
        }
        reports.push(p);
    }
    assert!(
        written.values().all(|&n| n == 1),
        "a file written twice: {written:?}"
    );
    let one_files = outputs(&one);
    assert_eq!(
        written.keys().cloned().collect::<BTreeSet<_>>(),
        one_files.keys().cloned().collect::<BTreeSet<_>>()
    );
    assert_eq!(one_files.len(), 12 + 1 + 2);
    assert!(
        one_files == outputs(&four),
        "shard outputs differ from one process's"
    );

    let merged = four.join("merged.report.json");
    let mut args = vec!["batch".into(), "--merge-reports".into()];
    args.extend(reports.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["--report".into(), merged.as_os_str().to_owned()]);
    let (code, text) = psxrender(&args);
    assert_eq!(code, Some(0), "{text}");
    let whole = report(&one.join("jobs.jsonl.report.json"));
    let merged = report(&merged);
    assert_eq!(statuses(&merged), statuses(&whole));
    // Merged in manifest order of the shards' manifest, with the same hashes.
    let hashes = |r: &Value| -> BTreeMap<String, Value> {
        r["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| (j["key"].as_str().unwrap().into(), j["hashes"].clone()))
            .collect()
    };
    assert_eq!(hashes(&merged), hashes(&whole));
    // Merging a report twice is refused.
    let busy = reports
        .iter()
        .find(|p| count(&report(p), "ok") > 0)
        .unwrap();
    let (code, text) = psxrender([
        "batch".as_ref(),
        "--merge-reports".as_ref(),
        busy.as_os_str(),
        busy.as_os_str(),
        "--report".as_ref(),
        four.join("twice.json").as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("are both shard"), "{text}");
}

#[test]
fn resume_after_sigkill_finishes_only_the_rest() {
    let reference = workdir("resume-ref");
    let dir = workdir("resume");
    let lines: Vec<Value> = (0..8)
        .map(|i| json!({"model": "demo.ff9", "out": format!("g{i}.gif"), "frames": "0..12", "gif": true, "yaw": i * 45}))
        .collect();
    let mref = write_manifest(&reference, &lines);
    let m = write_manifest(&dir, &lines);
    let (code, text) = psxrender(["batch".as_ref(), mref.as_os_str()]);
    assert_eq!(code, Some(0), "{text}");

    // One job at a time; SIGKILL the batch (not its job) once three jobs are journalled.
    let journal = dir.join("jobs.jsonl.report.json.partial");
    let mut batch = batch_one_job_at_a_time(&m);
    let journalled = || {
        std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while journalled() < 3 {
        assert!(start.elapsed() < Duration::from_secs(300), "batch too slow");
        assert!(
            batch.try_wait().unwrap().is_none(),
            "batch ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    batch.kill().unwrap();
    batch.wait().unwrap();
    let done = journalled();
    assert!((3..8).contains(&done), "{done} jobs done at the kill");
    // The job running at the kill ends with its parent (its stdin pipe closed).
    std::thread::sleep(Duration::from_millis(500));

    let (code, text) = psxrender(["batch".as_ref(), m.as_os_str(), "--resume".as_ref()]);
    assert_eq!(code, Some(0), "{text}");
    let r = report(&dir.join("jobs.jsonl.report.json"));
    assert_eq!(
        (count(&r, "skipped"), count(&r, "ok")),
        (done, 8 - done),
        "{text}"
    );
    assert!(!journal.exists(), "the journal is replaced by the report");
    let without_temps = |d: &Path| {
        let mut o = outputs(d);
        o.retain(|k, _| !k.ends_with(".tmp"));
        o
    };
    assert!(
        without_temps(&dir) == outputs(&reference),
        "resumed outputs differ"
    );

    // Again: nothing to do. Then one changed option re-renders that job alone.
    let (code, text) = psxrender(["batch".as_ref(), m.as_os_str(), "--resume".as_ref()]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        count(&report(&dir.join("jobs.jsonl.report.json")), "skipped"),
        8
    );
    let mut changed = lines.clone();
    changed[5]["yaw"] = json!(10);
    write_manifest(&dir, &changed);
    let (code, text) = psxrender(["batch".as_ref(), m.as_os_str(), "--resume".as_ref()]);
    assert_eq!(code, Some(0), "{text}");
    let r = report(&dir.join("jobs.jsonl.report.json"));
    assert_eq!(statuses(&r)["g5.gif"], "ok");
    assert_eq!(count(&r, "skipped"), 7);
    // A damaged output is rendered again.
    std::fs::write(dir.join("g2.gif"), b"not a gif").unwrap();
    let (_, text) = psxrender(["batch".as_ref(), m.as_os_str(), "--resume".as_ref()]);
    let r = report(&dir.join("jobs.jsonl.report.json"));
    assert_eq!(
        (statuses(&r)["g2.gif"].as_str(), count(&r, "skipped")),
        ("ok", 7),
        "{text}"
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn resume_rerenders_the_job_whose_texture_changed() {
    let dir = workdir("resume-texture");
    let src = shared("samples/gltf/Fox-separate");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    for f in ["Fox.gltf", "Fox.bin", "Texture.png"] {
        std::fs::copy(src.join(f), dir.join("in").join(f)).unwrap();
    }
    let m = write_manifest(
        &dir,
        &[
            json!({"model": "in/Fox.gltf", "out": "fox.png"}),
            json!({"model": "in/Fox.gltf", "out": "fox-side.png", "yaw": 90}),
            json!({"model": "demo.ff9", "out": "demo.png"}),
        ],
    );
    let (code, text) = psxrender(["batch".as_ref(), m.as_os_str()]);
    assert_eq!(code, Some(0), "{text}");
    let r = report(&dir.join("jobs.jsonl.report.json"));
    let inputs: Vec<&str> = r["jobs"][0]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(inputs, ["in/Fox.gltf", "in/Fox.bin", "in/Texture.png"]);
    let before = std::fs::read(dir.join("fox.png")).unwrap();

    // A new texture: the colours inverted.
    let mut tex = image::open(dir.join("in/Texture.png")).unwrap().to_rgb8();
    tex.pixels_mut().for_each(|p| p.0 = p.0.map(|c| 255 - c));
    tex.save(dir.join("in/Texture.png")).unwrap();
    let (code, text) = psxrender(["batch".as_ref(), m.as_os_str(), "--resume".as_ref()]);
    assert_eq!(code, Some(0), "{text}");
    let s = statuses(&report(&dir.join("jobs.jsonl.report.json")));
    assert_eq!(
        (
            s["fox.png"].as_str(),
            s["fox-side.png"].as_str(),
            s["demo.png"].as_str()
        ),
        ("ok", "ok", "skipped")
    );
    assert_ne!(std::fs::read(dir.join("fox.png")).unwrap(), before);
}

/// One sample job: model, output name, options as (key, JSON value).
struct Sample {
    model: PathBuf,
    out: String,
    options: Vec<(&'static str, Value)>,
}

fn sample(model: PathBuf, out: &str, options: &[(&'static str, Value)]) -> Sample {
    Sample {
        model,
        out: out.into(),
        options: options.to_vec(),
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn manifest_over_every_sample_equals_the_single_commands() {
    let dir = workdir("samples");
    let single = workdir("samples-single");
    let samples = shared("samples");
    let demo = dir.join("demo.ff9");
    let mut jobs = Vec::new();
    let mut models: Vec<PathBuf> = Vec::new();
    for (sub, ext) in [("nwn", "mdl"), ("m2", "m2"), ("m2", "M2")] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(samples.join(sub))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        found.sort();
        models.extend(found);
    }
    models.extend(
        [
            "gltf/Fox.glb",
            "gltf/BoxTextured.glb",
            "gltf/Fox-separate/Fox.gltf",
        ]
        .iter()
        .map(|g| samples.join(g)),
    );
    models.push(demo.clone());
    for (k, m) in models.iter().enumerate() {
        jobs.push(sample(m.clone(), &format!("thumbs/{k:02}.png"), &[]));
    }
    let fox = samples.join("gltf/Fox.glb");
    let rabbit = samples.join("m2/Rabbit2.m2");
    jobs.extend([
        sample(
            fox.clone(),
            "gif/fox-run.gif",
            &[
                ("anim", json!("Run")),
                ("frames", json!("0..6")),
                ("gif", json!(true)),
            ],
        ),
        sample(
            rabbit.clone(),
            "gif/rabbit.gif",
            &[
                ("frames", json!("0..4")),
                ("gif", json!(true)),
                ("bg", json!("none")),
            ],
        ),
        sample(
            demo.clone(),
            "gif/demo.gif",
            &[("frames", json!("0..4")), ("gif", json!(true))],
        ),
        sample(
            fox,
            "sheet/fox.png",
            &[
                ("anim", json!("Walk")),
                ("frames", json!("0..3")),
                ("sheet", json!("auto")),
                ("yaw-steps", json!(2)),
            ],
        ),
        sample(
            rabbit,
            "sheet/rabbit.png",
            &[
                ("frames", json!("0..4")),
                ("sheet", json!("2x2")),
                ("bg", json!("none")),
                (
                    "texture",
                    json!([format!(
                        "11={}",
                        samples.join("m2/rabbitskin2_default.blp").display()
                    )]),
                ),
            ],
        ),
        sample(
            demo,
            "frames/demo.png",
            &[("frames", json!("3..5")), ("size", json!("640x480"))],
        ),
    ]);
    // The NWN models together as one glob line, written out here file by file.
    let lines: Vec<Value> = jobs
        .iter()
        .map(|j| {
            let mut o = serde_json::Map::new();
            o.insert("model".into(), json!(j.model.to_string_lossy()));
            o.insert("out".into(), json!(j.out));
            for (k, v) in &j.options {
                o.insert((*k).into(), v.clone());
            }
            Value::Object(o)
        })
        .collect();
    let mut lines = lines;
    lines.push(json!({"model": samples.join("nwn/*.mdl").to_string_lossy(), "out": "glob/{stem}.png", "yaw": 10}));
    let m = write_manifest(&dir, &lines);
    // The models are the shared samples, outside the manifest's folder: a search path.
    let (code, text) = psxrender([
        "batch".as_ref(),
        m.as_os_str(),
        "--search-path".as_ref(),
        samples.as_os_str(),
    ]);
    let r = report(&dir.join("jobs.jsonl.report.json"));
    let status = statuses(&r);

    // The same jobs one command each.
    let mut nwn_glob = Vec::new();
    for p in &models {
        if p.extension().is_some_and(|e| e == "mdl") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            nwn_glob.push(sample(
                p.clone(),
                &format!("glob/{stem}.png"),
                &[("yaw", json!(10))],
            ));
        }
    }
    let mut failed = 0;
    for j in jobs.iter().chain(&nwn_glob) {
        let out = single.join(&j.out);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let mut args: Vec<String> = vec![
            j.model.to_string_lossy().into(),
            out.to_string_lossy().into(),
        ];
        for (k, v) in &j.options {
            match v {
                Value::Bool(true) => args.push(format!("--{k}")),
                Value::Array(items) => args.extend(
                    items
                        .iter()
                        .map(|i| format!("--{k}={}", i.as_str().unwrap())),
                ),
                Value::String(s) => args.push(format!("--{k}={s}")),
                other => args.push(format!("--{k}={other}")),
            }
        }
        let o = Command::new(env!("CARGO_BIN_EXE_psxrender"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let want = if o.status.success() { "ok" } else { "failed" };
        failed += usize::from(!o.status.success());
        assert_eq!(
            status[&j.out],
            want,
            "{}: {}",
            j.out,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(code, Some(if failed > 0 { 1 } else { 0 }), "{text}");
    assert!(count(&r, "ok") >= jobs.len(), "{text}");
    let (b, s) = (outputs(&dir), outputs(&single));
    assert_eq!(b.keys().collect::<Vec<_>>(), s.keys().collect::<Vec<_>>());
    for (k, v) in &b {
        assert!(v == &s[k], "{k} differs from the single command's");
    }
    assert!(b.contains_key("sheet/fox.json") && b.contains_key("frames/demo_0004.png"));
}

#[test]
fn broken_manifests_are_refused_before_anything_renders() {
    let dir = workdir("broken");
    let ok = json!({"model": "demo.ff9", "out": "ok.png"}).to_string();
    let cases = [
        (
            "{\"model\": \"demo.ff9\", \"out\": ",
            "line 2: not valid JSON",
        ),
        (
            r#"{"model": "demo.ff9", "out": "x.png", "sise": "320x240"}"#,
            "line 2, key \"sise\": unknown key",
        ),
        (
            r#"{"model": "demo.ff9", "out": "x.png", "size": "300x200"}"#,
            "line 2, key \"size\": invalid value",
        ),
        (
            r#"{"model": "missing.ff9", "out": "x.png"}"#,
            "line 2, key \"model\": no such file",
        ),
        (
            r#"{"model": "demo.ff9", "out": "x.png", "sheet": "auto"}"#,
            "line 2, key \"frames\"",
        ),
        (
            r#"{"model": "demo.ff9", "out": "ok.png", "yaw": 3}"#,
            "ok.png (line 2, key \"out\") is also written as ",
        ),
    ];
    for (line, want) in cases {
        std::fs::write(dir.join("jobs.jsonl"), format!("{ok}\n{line}\n")).unwrap();
        let (code, text) = psxrender(["batch".as_ref(), dir.join("jobs.jsonl").as_os_str()]);
        let clash = want.contains("also written");
        assert_eq!(code, Some(if clash { 3 } else { 2 }), "{line}: {text}");
        assert!(text.contains(want), "{line}\n got: {text}\nwant: {want}");
        assert!(
            !dir.join("ok.png").exists(),
            "{line}: rendered before refusing"
        );
        assert!(!dir.join("jobs.jsonl.report.json").exists());
    }
    // TOML manifests: the same keys in [[job]] tables, errors naming the line.
    let toml = dir.join("jobs.toml");
    let cases = [
        ("[[job]]\nmodel = \"demo.ff9\"\nout = \n", "jobs.toml line 3: not valid TOML"),
        ("[[job]]\nmodel = \"demo.ff9\"\nout = \"t.png\"\n\n[[job]]\nmodel = \"demo.ff9\"\nout = \"u.png\"\nyaw-stepz = 8\n", "jobs.toml line 5, key \"yaw-stepz\": unknown key"),
        ("model = \"demo.ff9\"\n", "key \"model\": a TOML manifest holds only [[job]] tables"),
    ];
    for (text, want) in cases {
        std::fs::write(&toml, text).unwrap();
        let (code, out) = psxrender(["batch".as_ref(), toml.as_os_str()]);
        assert_eq!(code, Some(2), "{text}: {out}");
        assert!(out.contains(want), "{text}\n got: {out}\nwant: {want}");
    }
    std::fs::write(
        &toml,
        "[[job]]\nmodel = \"demo.ff9\"\nout = \"t.png\"\nframe = 3\n",
    )
    .unwrap();
    let (code, out) = psxrender(["batch".as_ref(), toml.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    let (_, single) = psxrender([
        dir.join("demo.ff9").as_os_str(),
        dir.join("single.png").as_os_str(),
        "--frame".as_ref(),
        "3".as_ref(),
    ]);
    assert_eq!(
        std::fs::read(dir.join("t.png")).unwrap(),
        std::fs::read(dir.join("single.png")).unwrap(),
        "{single}"
    );
    assert!(!dir.join("ok.png").exists());

    // A failing job is reported and the rest go on: exit 1.
    std::fs::write(
        dir.join("jobs.jsonl"),
        format!(
            "{ok}\n{}\n",
            json!({"model": "demo.ff9", "out": "bad.png", "anim": "Nope"})
        ),
    )
    .unwrap();
    let (code, text) = psxrender(["batch".as_ref(), dir.join("jobs.jsonl").as_os_str()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("1 ok, 0 skipped, 1 failed"), "{text}");
    let r = report(&dir.join("jobs.jsonl.report.json"));
    let bad = &r["jobs"][1];
    assert_eq!(
        (bad["line"].as_u64(), bad["status"].as_str()),
        (Some(2), Some("failed"))
    );
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("no animation 'Nope'"),
        "{bad}"
    );
    assert!(dir.join("ok.png").exists());
}

/// With `--jobs 1` one worker process renders every job in turn: a job that fails between two
/// good ones fails alone, and each record holds only its own messages and files read.
#[test]
fn jobs_sharing_a_worker_keep_their_own_messages_and_inputs() {
    let dir = workdir("worker");
    std::fs::write(dir.join("broken.mdl"), b"not a model at all").unwrap();
    let lines = [
        json!({"model": "demo.ff9", "out": "a.png"}),
        json!({"model": "broken.mdl", "out": "b.png"}),
        json!({"model": "demo.ff9", "out": "c.png", "yaw": 10}),
    ];
    let m = write_manifest(&dir, &lines);
    let (code, text) = psxrender([
        "batch".as_ref(),
        m.as_os_str(),
        "--jobs".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(code, Some(1), "{text}");
    let r = report(&dir.join("jobs.jsonl.report.json"));
    let job = |key: &str| {
        r["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["key"] == key)
            .unwrap_or_else(|| panic!("no record of {key}: {r}"))
            .clone()
    };
    for key in ["a.png", "c.png"] {
        let j = job(key);
        assert_eq!(j["status"], "ok", "{j}");
        assert_eq!(j["error"], Value::Null, "{j}");
        assert_eq!(j["warnings"], json!([]), "{j}");
        assert_eq!(j["inputs"], json!(["demo.ff9"]), "{j}");
    }
    let b = job("b.png");
    assert_eq!(b["status"], "failed", "{b}");
    assert!(
        b["error"]
            .as_str()
            .is_some_and(|e| e.contains("broken.mdl")),
        "{b}"
    );
    let single = dir.join("single.png");
    let (code, text) = psxrender([
        dir.join("demo.ff9").as_os_str(),
        single.as_os_str(),
        "--yaw".as_ref(),
        "10".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        std::fs::read(dir.join("c.png")).unwrap(),
        std::fs::read(&single).unwrap(),
        "the worker's third job draws as the command alone"
    );
}

/// The children of `parent` (Linux: `/proc/*/stat`'s fourth field).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (name) state ppid …`: the name may hold spaces, so count from its ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            found.push(pid);
        }
    }
    found
}

/// A worker killed in the middle of a job fails that job alone, saying how it ended; the next
/// job gets a new worker and renders.
#[test]
#[cfg(target_os = "linux")]
fn a_worker_killed_in_a_job_fails_only_that_job() {
    let dir = workdir("worker-killed");
    let lines = [
        json!({"model": "demo.ff9", "out": "long.gif", "frames": "0..3000", "gif": true}),
        json!({"model": "demo.ff9", "out": "after.png"}),
    ];
    let m = write_manifest(&dir, &lines);
    let mut batch = batch_one_job_at_a_time(&m);
    let start = Instant::now();
    let worker = loop {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no worker started"
        );
        if let Some(&w) = children_of(batch.id()).first() {
            break w;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Well into the long job (3,000 frames), then SIGKILL its worker.
    std::thread::sleep(Duration::from_millis(500));
    let killed = Command::new("kill")
        .args(["-KILL", &worker.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(batch.wait().unwrap().code(), Some(1));
    let r = report(&dir.join("jobs.jsonl.report.json"));
    let s = statuses(&r);
    assert_eq!(s["long.gif"], "failed", "{r}");
    assert_eq!(s["after.png"], "ok", "{r}");
    let long = r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["key"] == "long.gif")
        .unwrap();
    assert!(
        long["error"]
            .as_str()
            .is_some_and(|e| e.contains("signal 9")),
        "{long}"
    );
    assert!(!dir.join("long.gif").exists(), "no partial output");
}

/// `psxrender batch M --jobs 1` started in the background, its output dropped.
fn batch_one_job_at_a_time(m: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .args([
            "batch".as_ref(),
            m.as_os_str(),
            "--jobs".as_ref(),
            "1".as_ref(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}
