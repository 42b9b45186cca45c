//! Every file of `../shared/corpus` (real model trees no one here wrote, see its README) loads
//! with no flags, or is refused with the expected message: the NWN files from rollnw's test data
//! and the part of a WoW 1.12 tree with its creature tables.

mod common;

use std::path::{Path, PathBuf};

use psxrender::formats::LoadOptions;
use psxrender::scene::Model;

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if e.is_dir() {
            files(&e, ext, out);
        } else if e.extension().is_some_and(|x| x.eq_ignore_ascii_case(ext)) {
            out.push(e);
        }
    }
    out.sort();
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus")]
fn every_nwn_file_loads_but_the_one_with_a_pwk_node() {
    let mut mdls = Vec::new();
    files(&common::shared("corpus/nwn"), "mdl", &mut mdls);
    assert_eq!(mdls.len(), 31);
    for p in &mdls {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        match psxrender::detect::load(p, &LoadOptions::default()) {
            Ok(m) => {
                assert_ne!(name, "ptm_candle07n.mdl", "loaded");
                // Every property the exporters wrote is known.
                let odd: Vec<String> = (m.warnings().into_iter())
                    .filter(|w| w.contains("unknown property") || w.contains("not a number"))
                    .collect();
                assert!(odd.is_empty(), "{name}: {odd:?}");
            }
            Err(e) => {
                assert_eq!(name, "ptm_candle07n.mdl", "{e}");
                assert!(
                    e.to_string().ends_with(
                        "NWN ASCII MDL: line 1298, column 1: unknown node type 'pwk' at byte 0x84af"
                    ),
                    "{e}"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus")]
fn wow_textures_in_the_tree_are_found_and_creatures_wear_their_displays() {
    let root = common::shared("corpus/wow");
    let mut m2s = Vec::new();
    files(&root, "m2", &mut m2s);
    assert_eq!(m2s.len(), 27);
    let (mut found, mut missing) = (0, 0);
    for p in &m2s {
        let m =
            psxrender::formats::m2::load(p, &std::fs::read(p).unwrap(), &LoadOptions::default())
                .unwrap();
        for t in m.textures.iter().filter(|t| t.kind == 0) {
            match &t.resolved {
                Some(_) => found += 1,
                None => {
                    missing += 1;
                    // Only the folders this part of the tree lacks.
                    let upper = t.name.to_ascii_uppercase();
                    assert!(
                        upper.starts_with("ITEM\\"),
                        "{}: {} missing",
                        p.display(),
                        t.name
                    );
                }
            }
        }
    }
    assert_eq!((found, missing), (53, 16));
    // The creatures: the first display of their model in CreatureDisplayInfo.
    for (model, display, skin) in [
        (
            "Creature/kodobeast2/kodobeast2.m2",
            179,
            "kotobeast2skinbrown.blp",
        ),
        ("Creature/DruidBear/DruidBear.m2", 2281, "DruidBearSkin.blp"),
        (
            "Creature/DruidBear/DruidBearTauren.m2",
            2289,
            "DruidTaurenBearSkin.blp",
        ),
        ("Creature/Kobold2/kobold2.m2", 26, "kobold2_Normal.blp"),
    ] {
        let p = root.join(model);
        let m =
            psxrender::formats::m2::load(&p, &std::fs::read(&p).unwrap(), &LoadOptions::default())
                .unwrap();
        let t = &m.textures[0];
        assert_eq!(
            t.source,
            psxrender::formats::m2::TextureSource::Display(display),
            "{model}"
        );
        assert!(
            t.resolved.as_ref().unwrap().ends_with(skin),
            "{model}: {t:?}"
        );
        assert!(
            m.warnings().iter().all(|w| !w.contains("skin")),
            "{model}: {:?}",
            m.warnings()
        );
    }
    // --display picks another; `info --json` lists them all.
    let p = root.join("Creature/kodobeast2/kodobeast2.m2");
    let opts = LoadOptions {
        display: Some(1230),
        ..Default::default()
    };
    let m = psxrender::formats::m2::load(&p, &std::fs::read(&p).unwrap(), &opts).unwrap();
    assert!(m.textures[0]
        .resolved
        .as_ref()
        .unwrap()
        .ends_with("kotobeast2skingray.blp"));
    let facts = m.facts();
    let ids: Vec<u64> = facts["displays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.len(), 17);
    assert_eq!(&ids[..3], [179, 1230, 1231]);
}

/// An asset tree whose root holds 100 000 entries: the load lists at most 65 536 of them, says
/// so, and finishes in bounded time; nothing outside the tree is read.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus")]
fn a_tree_of_100000_entries_is_listed_within_its_cap() {
    let top = std::env::temp_dir().join(format!("psxr-corpus-big-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let signs = top.join("World/Generic/HUMAN/PASSIVE DOODADS/Signs");
    std::fs::create_dir_all(&signs).unwrap();
    let from = common::shared("corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Bank01.m2");
    std::fs::copy(&from, signs.join("Bank01.m2")).unwrap();
    for i in 0..100_000 {
        std::fs::File::create(top.join(format!("f{i:06}"))).unwrap();
    }
    let model = signs.join("Bank01.m2");
    let t0 = std::time::Instant::now();
    let m = psxrender::formats::m2::load(
        &model,
        &std::fs::read(&model).unwrap(),
        &LoadOptions::default(),
    )
    .unwrap();
    let took = t0.elapsed();
    assert!(took.as_secs() < 20, "{took:?}");
    let capped: Vec<String> = (m.warnings().into_iter())
        .filter(|w| w.contains("holds more than 65536 entries"))
        .collect();
    assert_eq!(capped.len(), 1, "{:?}", m.warnings());
    assert!(m.textures.iter().all(|t| t.resolved.is_none()));
    std::fs::remove_dir_all(&top).unwrap();
}

/// The tree's one BLP1 (JPEG content) decodes to the picture its BLP2 copy elsewhere in the
/// tree holds: same size, channels in the same order (the JPEG stores B, G, R, A), every
/// channel within a few levels on average (JPEG against DXT loss).
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus")]
fn the_blp1_jpeg_texture_is_its_blp2_twin() {
    let root = common::shared("corpus/wow/World/EXPANSION05/DOODADS");
    let read = |p: &str| {
        let data = std::fs::read(root.join(p)).unwrap();
        psxrender::formats::blp::decode(&data).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let jpeg = read("IRONHORDE/NEX_ENVMAP01T.BLP");
    let dxt = read("HUMAN/DOODADS/Nex_EnvMap01t.blp");
    assert_eq!((jpeg.width, jpeg.height), (dxt.width, dxt.height));
    // Mean absolute difference per channel, and the same with red and blue swapped.
    let mut diff = [0u64; 4];
    let mut swapped = 0u64;
    for (a, b) in jpeg.pixels.iter().zip(&dxt.pixels) {
        for c in 0..4 {
            diff[c] += u64::from(a[c].abs_diff(b[c]));
        }
        swapped += u64::from(a[0].abs_diff(b[2])) + u64::from(a[2].abs_diff(b[0]));
    }
    let n = jpeg.pixels.len() as u64;
    let mean = diff.map(|d| d / n);
    assert!(mean.iter().all(|&m| m <= 4), "mean differences {mean:?}");
    assert!(
        swapped / n > 2 * (mean[0] + mean[2]) + 4,
        "red/blue order unclear"
    );
}

/// A creature in a tree whose CreatureModelData.dbc lies about its record count, reached through
/// a symlink loop above it: the load finishes, says the tables were not used and why, picks the
/// skins by file name instead, and reads nothing outside the tree.
#[cfg(unix)]
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus")]
fn a_lying_table_and_a_symlink_loop_above_the_model_are_harmless() {
    let wow = common::shared("corpus/wow");
    let top = std::env::temp_dir().join(format!("psxr-corpus-lie-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let kobold = top.join("Creature/Kobold2");
    std::fs::create_dir_all(&kobold).unwrap();
    std::fs::create_dir_all(top.join("DBFilesClient")).unwrap();
    for f in ["kobold2.m2", "kobold2_Albino.blp", "kobold2_Normal.blp"] {
        std::fs::copy(wow.join("Creature/Kobold2").join(f), kobold.join(f)).unwrap();
    }
    let tables = wow.join("DBFilesClient");
    std::fs::copy(
        tables.join("CreatureDisplayInfo.dbc"),
        top.join("DBFilesClient/CreatureDisplayInfo.dbc"),
    )
    .unwrap();
    let mut lie = std::fs::read(tables.join("CreatureModelData.dbc")).unwrap();
    let records = u32::from_le_bytes(lie[4..8].try_into().unwrap());
    lie[4..8].copy_from_slice(&(records + 1).to_le_bytes());
    std::fs::write(top.join("DBFilesClient/CreatureModelData.dbc"), &lie).unwrap();
    // A loop above the model: Creature/Kobold2/up is the tree's root again.
    std::os::unix::fs::symlink(&top, kobold.join("up")).unwrap();
    let model = kobold.join("up/Creature/Kobold2/up/Creature/Kobold2/kobold2.m2");
    let t0 = std::time::Instant::now();
    let (m, reads) = psxrender::read::record_reads(|| {
        psxrender::formats::m2::load(&model, &std::fs::read(&model).unwrap(), &Default::default())
            .unwrap()
    });
    assert!(t0.elapsed().as_secs() < 10, "{:?}", t0.elapsed());
    let warnings = m.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("creature display tables not used")
                && w.contains(&format!("header says {} records", records + 1))),
        "{warnings:?}"
    );
    let skin = &m.textures[0];
    assert!(
        matches!(skin.source, psxrender::formats::m2::TextureSource::Skin(_)),
        "{skin:?}"
    );
    assert!(skin
        .resolved
        .as_ref()
        .unwrap()
        .ends_with("kobold2_Albino.blp"));
    let real_top = top.canonicalize().unwrap();
    assert!(!reads.is_empty());
    for r in &reads {
        let real = r.canonicalize().unwrap();
        assert!(
            real.starts_with(&real_top),
            "read outside the tree: {}",
            r.display()
        );
    }
    std::fs::remove_dir_all(&top).unwrap();
}
