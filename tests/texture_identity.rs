//! Every texture of `../shared/samples` and `../shared/corpus` put in PS1 form must come out
//! exactly as the quantiser of the day it was recorded made it: the table below holds, per file,
//! a hash of the decoded images the loaders gave (so a change there shows as its own) and a hash
//! of every texel and CLUT halfword prepared from them, alone in each encoding at depths auto
//! and 4bpp, and together as the renderer places a model's textures (which halves them when
//! they do not fit).
//!
//! A deliberate change to the quantiser's output re-records the table (the failure prints it)
//! and bumps `texture::cache::FORMAT`, so no cache serves the old texels as the new.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use psxrender::detect::{identify, load_data, load_image, Role};
use psxrender::formats::LoadOptions;
use psxrender::scene::{PoseRequest, RgbaImage, Texture, TextureImage};
use psxrender::texture::{
    prepare, ps1_form, BlendClass, Rect, TextureDepth, TextureSet, LONE_TEXTURE_FRAMEBUFFER,
};

const CLASSES: [BlendClass; 4] = [
    BlendClass::Opaque,
    BlendClass::Cutout,
    BlendClass::Alpha,
    BlendClass::Blended,
];

/// FNV-1a, 64 bits: stable across Rust releases, unlike the standard library's hasher.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn halfwords(&mut self, h: &[u16]) {
        self.u64(h.len() as u64);
        for &x in h {
            self.bytes(&x.to_le_bytes());
        }
    }
}

fn hash_image(h: &mut Fnv, img: &RgbaImage) {
    h.u64(u64::from(img.width));
    h.u64(u64::from(img.height));
    for p in &img.pixels {
        h.bytes(p);
    }
}

fn hash_vram(h: &mut Fnv, v: &psxrender::scene::VramImage) {
    for n in [v.x, v.y, v.width, v.height] {
        h.u64(u64::from(n));
    }
    h.halfwords(&v.data);
}

fn hash_set(h: &mut Fnv, set: &TextureSet) {
    let mut placed: Vec<_> = set.placed.iter().collect();
    placed.sort_by_key(|(k, _)| **k);
    for ((i, class), p) in placed {
        h.u64(*i as u64);
        h.u64(*class as u64);
        h.u64(u64::from(p.page.0));
        h.u64(u64::from(p.clut.0));
        h.bytes(&[p.window.mask[0], p.window.mask[1]]);
        h.bytes(&[p.window.offset[0], p.window.offset[1]]);
        h.u64(u64::from(p.size[0]) << 16 | u64::from(p.size[1]));
    }
    for u in &set.uploads {
        hash_vram(h, u);
    }
    h.u64(u64::from(set.shrink));
}

/// (hash of the decoded images, hash of their PS1 forms) for the textures of one file.
fn file_hashes(textures: &[Texture]) -> (u64, u64) {
    let (mut input, mut output) = (Fnv::new(), Fnv::new());
    for t in textures {
        hash_image(&mut input, &t.image);
        for class in CLASSES {
            for depth in [TextureDepth::Auto, TextureDepth::Bpp4] {
                let form = ps1_form(
                    Arc::clone(t.image.image()),
                    class,
                    depth,
                    LONE_TEXTURE_FRAMEBUFFER,
                );
                match form {
                    Ok(f) => {
                        output.u64(f.tim.depth as u64);
                        if let Some(c) = &f.tim.clut {
                            hash_vram(&mut output, c);
                        }
                        hash_vram(&mut output, &f.tim.image);
                        output.u64(f.colours as u64);
                        output.u64(u64::from(f.shrink));
                    }
                    Err(e) => output.bytes(e.to_string().as_bytes()),
                }
            }
        }
    }
    // All of them at once in every encoding beside a 640×480 framebuffer, as a model's are placed.
    let uses: Vec<_> = (0..textures.len())
        .flat_map(|i| CLASSES.map(|c| (i, c)))
        .collect();
    let fb = [Rect {
        w: 640,
        h: 480,
        ..LONE_TEXTURE_FRAMEBUFFER
    }];
    match prepare(textures, &uses, TextureDepth::Auto, &fb, None) {
        Ok(set) => hash_set(&mut output, &set),
        Err(e) => output.bytes(e.to_string().as_bytes()),
    }
    (input.0, output.0)
}

/// The textures `path` holds or is: a model's (rest pose), or an image file itself.
fn textures_of(path: &Path) -> Option<Vec<Texture>> {
    let data = std::fs::read(path).ok()?;
    let kind = identify(&data).ok()?;
    let opts = LoadOptions::default();
    match kind.role() {
        Role::Model => {
            let model = load_data(path, &data, kind, &opts).ok()?;
            Some(model.pose(&PoseRequest::default()).textures)
        }
        Role::Texture => {
            let (_, image) = load_image(path, &opts, &mut Vec::new()).ok()?;
            Some(vec![Texture {
                name: String::new(),
                image: image.into(),
            }])
        }
        _ => None,
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Recorded from main (commit 54a8361) before the quantiser was rewritten.
const EXPECTED: &[(&str, u64, u64)] = &[
    (
        "corpus/nwn/a_fa.mdl",
        0xce52ffbb191d1665,
        0x943d78eb25bf17a4,
    ),
    (
        "corpus/nwn/bioRGBA.dds",
        0x6f3241228416f6e5,
        0xd9696a3651696224,
    ),
    (
        "corpus/nwn/bones.dds",
        0x4acdd0cc704fc897,
        0x020dd374fd3d13c1,
    ),
    (
        "corpus/nwn/c_satyr.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/ctl_treebtn_spel.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/dxtRBG.dds",
        0x6eae44d6c496f6e5,
        0xe874ae358b43b224,
    ),
    (
        "corpus/nwn/fx_lanshard3.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/gui_icon_7x5r.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/pmh0_head001.plt",
        0x0429678bf735ec06,
        0xcbb942c322c77c7b,
    ),
    (
        "corpus/nwn/pmh0_siblingplt.mdl",
        0x0429678bf735ec06,
        0xcbb942c322c77c7b,
    ),
    (
        "corpus/nwn/pmh0_testplt.plt",
        0x0429678bf735ec06,
        0xcbb942c322c77c7b,
    ),
    (
        "corpus/nwn/qfpp_001_L.tga",
        0x8a876b5769ec263d,
        0xcd260f577a7434a6,
    ),
    (
        "corpus/nwn/tcm02_f05_06.mdl",
        0x70e4ce24b82b68e5,
        0x12a734db906f0114,
    ),
    (
        "corpus/nwn/test_missing_transparent_texture.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/test_mtr_preserve_diffuse.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/test_tile_render_zero_visibility.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/tni01_k02_01.mdl",
        0x3a32055f6488fb65,
        0xb3d03acf5fcb7ac4,
    ),
    (
        "corpus/nwn/tno01_v67_01.mdl",
        0x3a32055f6488fb65,
        0xb3d03acf5fcb7ac4,
    ),
    (
        "corpus/nwn/tno01_wtcliff01.dds",
        0x1dd54f849409c900,
        0x246104a83483e2b0,
    ),
    (
        "corpus/nwn/tss13_a35_01.mdl",
        0xa6075c42059009a5,
        0xafb640f74023570d,
    ),
    (
        "corpus/nwn/tsw01_h12_01.mdl",
        0x95ee7da282939be5,
        0x733bb7332f86a31e,
    ),
    (
        "corpus/nwn/ttf02_c01_15.mdl",
        0xe0db51fc87d5e265,
        0xd8c85beae18c9d68,
    ),
    (
        "corpus/nwn/ttf02_j09_02.mdl",
        0xe2361bfae887b0a5,
        0x536d89dbc5c3c279,
    ),
    (
        "corpus/nwn/tts01_h02_03.mdl",
        0x822c961b30c8cee5,
        0x36d0cd037896f120,
    ),
    (
        "corpus/nwn/vfx_lightning_test.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/vfx_normal_rect_aura_test.mdl",
        0x39993d0b049a34e5,
        0x32c198229ee995bb,
    ),
    (
        "corpus/nwn/vwp_flash_whiblu.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/nwn/wplss_t_044.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "corpus/wow/Creature/Bat/Bat.m2",
        0x95e838e1c0bae97d,
        0xdf3b4c5eef8640df,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkin01.blp",
        0x4691e2aeeb38d9a3,
        0x789d88c77a1ce703,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkin02.blp",
        0x0e78a15949dd7bc2,
        0x4f4eac6162bda451,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinBrown01.blp",
        0xc856b8a9705a231e,
        0x5a568c670f63da0f,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinBrown02.blp",
        0x1569af099630de06,
        0x23f46594d539af17,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinViolet01.blp",
        0xfd5765f950de890f,
        0x522300ce4cf54201,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinViolet02.blp",
        0xcb4e4e2ee00cf4b8,
        0x48663f118175ad98,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinWhite01.blp",
        0x20006689af5baf41,
        0x8d51edf596c64345,
    ),
    (
        "corpus/wow/Creature/Bat/BatSkinWhite02.blp",
        0x5f38d718b84ebccf,
        0x9ace3752a092fe22,
    ),
    (
        "corpus/wow/Creature/Bat/OrbReflect.blp",
        0x1eebbb31c390b929,
        0xb22bfc7d5ea80b5d,
    ),
    (
        "corpus/wow/Creature/Bat/SlimeDrip.blp",
        0x221bcfa608bc36c9,
        0x725238e80c976242,
    ),
    (
        "corpus/wow/Creature/DruidBear/DruidBear.m2",
        0xce46f29154b5668b,
        0xd9cecf2419f47f3d,
    ),
    (
        "corpus/wow/Creature/DruidBear/DruidBearSkin.blp",
        0xce46f29154b5668b,
        0xd9cecf2419f47f3d,
    ),
    (
        "corpus/wow/Creature/DruidBear/DruidBearTauren.m2",
        0x1704cece92c37ec7,
        0xaa0c53d07955113f,
    ),
    (
        "corpus/wow/Creature/DruidBear/DruidTaurenBearSkin.blp",
        0x1704cece92c37ec7,
        0xaa0c53d07955113f,
    ),
    (
        "corpus/wow/Creature/Kobold2/kobold2.m2",
        0x33f21ef7b4884a76,
        0x8f1f491b616676f5,
    ),
    (
        "corpus/wow/Creature/Kobold2/kobold2_Albino.blp",
        0xfc7d6bffc6c7c2df,
        0x4185fa0e4eef2afe,
    ),
    (
        "corpus/wow/Creature/Kobold2/kobold2_Normal.blp",
        0x99be39396c9915b4,
        0x9bdc5965ce0293bd,
    ),
    (
        "corpus/wow/Creature/Kobold2/kobold2_hat01.blp",
        0xf7402dc19a2f5fcf,
        0x6d846cc42fd4602c,
    ),
    (
        "corpus/wow/Creature/kodobeast2/dust1.blp",
        0xcbe8ce7c8bdce86a,
        0xd4d1207f23bcec46,
    ),
    (
        "corpus/wow/Creature/kodobeast2/kodobeast2.m2",
        0x5a14cec591719620,
        0x902f0610909c0d86,
    ),
    (
        "corpus/wow/Creature/kodobeast2/kotobeast2skinbrown.blp",
        0xca388a03b023ecbc,
        0x1b4b38e17e18c8c6,
    ),
    (
        "corpus/wow/Creature/kodobeast2/kotobeast2skingray.blp",
        0x352e9be6c0a18b09,
        0x4784439b0aa00ba5,
    ),
    (
        "corpus/wow/Creature/kodobeast2/orbreflectbright.blp",
        0x69de7f921a024071,
        0x915f7b0c9ae825d9,
    ),
    (
        "corpus/wow/Creature/kodobeast2/redstarflash.blp",
        0xbcb46ab1c3a9895c,
        0x03bbec09dfbea515,
    ),
    (
        "corpus/wow/Creature/kodobeast2/smoke02_flip.blp",
        0x49400c32dc1ff941,
        0xfc7dbb7c30df0aec,
    ),
    (
        "corpus/wow/Creature/kodobeast2/smoke02a.blp",
        0x61526c80fc923937,
        0x29b1b0e1b00feae5,
    ),
    (
        "corpus/wow/World/EXPANSION01/DOODADS/GENERIC/NAGA/TORCH/SHOCKWAVEWATER1EXTREME.BLP",
        0xb3f4e1e845cfd317,
        0xcf57dbc882a33358,
    ),
    (
        "corpus/wow/World/EXPANSION02/DOODADS/GENERIC/ORACLE/ORBREFLECTDARK.BLP",
        0xbf13e8a94542766e,
        0xa13f793c71e209d9,
    ),
    (
        "corpus/wow/World/EXPANSION02/DOODADS/GENERIC/WATERFALLS/T_VFX_BORDER3.blp",
        0xaa335b71a7ad9089,
        0x1482eb07bd2b4a82,
    ),
    (
        "corpus/wow/World/EXPANSION02/DOODADS/GENERIC/WATERFALLS/WATERFOAMLOOP2.blp",
        0x52ebd2e0fef7de68,
        0xcce3937542de4bb4,
    ),
    (
        "corpus/wow/World/EXPANSION03/DOODADS/LOSTISLES/WATERFALLS/LOSTISLES_WATERFALL01.blp",
        0x7d3495888c15c731,
        0x4859edb49f40aa86,
    ),
    (
        "corpus/wow/World/EXPANSION03/DOODADS/LOSTISLES/WATERFALLS/LOSTISLES_WATERFALLALPHA01.blp",
        0x5453424d04c3d677,
        0x35f6e5a95954b8eb,
    ),
    (
        "corpus/wow/World/EXPANSION03/DOODADS/LOSTISLES/WATERFALLS/LOSTISLES_WATERFALLALPHA02.blp",
        0x39d7a7201720d2dd,
        0x6aa0a5009c5b01c7,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/6HU_BARREL_CRATE_TEXTURE.blp",
        0xfe84c24dcc0285a0,
        0x5493be9999128b7d,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/6HU_Outhouse.blp",
        0xbf11819304aa797a,
        0x8bf7ce1e4e7d9026,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/6hu_inn_chair_n_bed.blp",
        0xa44d517dc298fbcd,
        0x1b6dc20e7bd65e30,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/Nex_EnvMap01t.blp",
        0x2f521fe6c4938684,
        0x6024d47e7682d16c,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/POSTBOXGARTEXT.BLP",
        0x32c584b1d4cfe6c4,
        0xd11564cac0138306,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/map1.blp",
        0xb919238820d27e98,
        0x9d32a2a838acfa0c,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/map6.blp",
        0x818e5e2eb60d6103,
        0x7e8d54e3062e992f,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/HUMAN/DOODADS/trashbin.blp",
        0xb29ed238b7c258a4,
        0xacd28c77290a5fdb,
    ),
    (
        "corpus/wow/World/EXPANSION05/DOODADS/IRONHORDE/NEX_ENVMAP01T.BLP",
        0x273d1503a4e5ac77,
        0x2cfc3de303120cf4,
    ),
    (
        "corpus/wow/World/Expansion04/Doodads/Pandaren/Campfire/pa_campfire_01.blp",
        0xee1a7faf984c80bd,
        0xc1f297a5ddceed6c,
    ),
    (
        "corpus/wow/World/Expansion04/Doodads/Pandaren/Campfire/pa_fire_01.blp",
        0x1c31adb267cd239d,
        0x37557f0ff9b1bb71,
    ),
    (
        "corpus/wow/World/Generic/Goblin/PassiveDoodads/Kezan/Items/tooncloud64b.blp",
        0x3648bf768c2f28d1,
        0xdbf40e57297111da,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/CRATES/STORMWINDCRATE01.M2",
        0xfe84c24dcc0285a0,
        0x5493be9999128b7d,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Chairs/GeneralChairLoEnd01.m2",
        0x111d461efbe2d68c,
        0x856fdc28c14ceee4,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Doghouses/Doghouse.m2",
        0xb102295d9ecc791e,
        0xca50bbe407c36434,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Fountains/StormwindFountain01.m2",
        0x8a480d41dd3521fa,
        0x6849c50008adcd4f,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/FOUNTAIN_PILLAR.blp",
        0x8e1c3dbd8b5b5c0c,
        0x000b6c54c15585a0,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/OrbReflectDark.blp",
        0xbf13e8a94542766e,
        0xa13f793c71e209d9,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/STORMWIND_FOUNTAINWATER_01.blp",
        0x0a8272e578de0c14,
        0xbb1733ab9ee64acb,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/STORMWIND_FOUNTAINWATER_03.blp",
        0x0f3a597edecbf505,
        0xd7bbe09a2d62579a,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/STORMWIND_LAMP_03.BLP",
        0xdbc355a66dcaaa22,
        0x15a62c1c1bf31a0c,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/STORMWIND_LAMP_WINDOW_02.BLP",
        0x8671428087fa9a42,
        0x786a855bc245baef,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/T_VFX_Glow01_64.blp",
        0x2530f54b4f04ce81,
        0x9e0fd284d6b6d39b,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/STORMWIND/stormwind_graves_03.blp",
        0x688e1496885deb9a,
        0x4953121b440ac744,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/AlchemistsShop01.m2",
        0xf7478635b3c25c37,
        0xcbf96bb4f76be6da,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/ArmorerShop01.m2",
        0x1521fdbdaba0d40f,
        0x08588656984b4810,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/BakerShop01.m2",
        0x3ce70897e9a78239,
        0x8eacc2aec81ebe8e,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Bank01.m2",
        0x367d57bf450529ca,
        0x7f26f481a5134657,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/ButcherShopSign01.m2",
        0xe7159365f232c38d,
        0x2edc7f03e64aae7b,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/CheeseShop01.m2",
        0x9ee44ad17b8871ff,
        0x004130204640fbcd,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/FletcherShop01.m2",
        0x5962804f2f75b669,
        0x0cf23b7cedb8a335,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Florist01.m2",
        0x61c68b1da42c68f4,
        0x5f7b21b036facdcc,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/GeneralStore01.m2",
        0x8c22807c31aa55cb,
        0x3b428b8d5b7cf63b,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/NobleHouse01.m2",
        0x113d152040ce1675,
        0x141f03c02fdc98eb,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Alchemy.blp",
        0x259576d14480cbdc,
        0x852bd66c8da9a718,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Armor.blp",
        0xd25926ab9b0b9ca4,
        0x754717fb32324bd7,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Chain.blp",
        0xc9051f98b11477aa,
        0x12b5db3f16f046a3,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Cheese.blp",
        0x4205da486edfb6a0,
        0x5161fd05622cc641,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Fletcher.blp",
        0x6d2f224a9b66c612,
        0xdacf162a4f2cfa46,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Florist.blp",
        0x095cbcdefed2fe4b,
        0x468af3f293247df8,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_General.blp",
        0x7d560d3b90e879c8,
        0xd3cd65b553b9ec2f,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Noble.blp",
        0x735c68b6082a3906,
        0x373a98530020f903,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Tailor.blp",
        0x9d80aedd5b11bf99,
        0xb49368e18258eb7d,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Tavern.blp",
        0xf9fce24468aa81f0,
        0xe4c0e29b7aef7574,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Visitor.blp",
        0x36188e605b1eb10c,
        0x7a308d7f8cf1991f,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Weapon.blp",
        0x4911ca4bf66d7e78,
        0x52a7951c2589ebf7,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_Wine.blp",
        0x38a796ff0338da85,
        0x21e4c4c2a64ef836,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_baker.blp",
        0x6a81194bab858902,
        0x5e144147b2969647,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_bank.blp",
        0xa5eb2159d66a6f05,
        0x75f575a2ef441ff1,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Stormwind_Shop_Sign_butcher.blp",
        0x8554853466835d6e,
        0x77d4a645fdce455a,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Tailor01.m2",
        0xf7ce739a520a48e6,
        0xc5d4f340e896746d,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/Tavern01.m2",
        0x58f621cfa719b1c3,
        0x646a444acac6f4a5,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/VisitorsCenter01.m2",
        0x07009f64799ca3c7,
        0x4f94784391464fc3,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/WIneShopSign01.m2",
        0x365383c156e6934a,
        0x6b7ab420488b36e5,
    ),
    (
        "corpus/wow/World/Generic/HUMAN/PASSIVE DOODADS/Signs/WeaponsmithShop01.m2",
        0xfb3950450cb032db,
        0x63ba953b1289cbfc,
    ),
    (
        "corpus/wow/World/Generic/PassiveDoodads/Barrel/Barrel01.m2",
        0xc0ea5fe1e252630a,
        0x481c67befaf418eb,
    ),
    (
        "corpus/wow/World/Generic/PassiveDoodads/Barrel/BarrelLowPoly.m2",
        0xc0ea5fe1e252630a,
        0x481c67befaf418eb,
    ),
    (
        "corpus/wow/World/Generic/PassiveDoodads/PostBoxes/PostBoxHuman.m2",
        0x8ef61d4e3c2548c4,
        0x9ca9da857eb68b47,
    ),
    (
        "corpus/wow/World/Generic/PassiveDoodads/Waterfalls/Waterfall02.blp",
        0x083e4b93e06a75fa,
        0x48b6f8ca97f4bc96,
    ),
    (
        "samples/gltf/BoxTextured.glb",
        0x162d8a208dfae1c9,
        0x66db2f79cb253238,
    ),
    (
        "samples/gltf/Fox-separate/Fox.gltf",
        0x15db76e9873173f6,
        0x2dab954d312eed88,
    ),
    (
        "samples/gltf/Fox-separate/Texture.png",
        0x15db76e9873173f6,
        0x2dab954d312eed88,
    ),
    (
        "samples/gltf/Fox.glb",
        0x15db76e9873173f6,
        0x2dab954d312eed88,
    ),
    (
        "samples/m2/6HU_BARREL_CRATE_TEXTURE.blp",
        0xfe84c24dcc0285a0,
        0x5493be9999128b7d,
    ),
    (
        "samples/m2/ArmorReflect5.blp",
        0x4481e2a0dc6fada1,
        0x114b20545d050859,
    ),
    (
        "samples/m2/FOUNTAIN_PILLAR.blp",
        0x8e1c3dbd8b5b5c0c,
        0x000b6c54c15585a0,
    ),
    (
        "samples/m2/Fire_2x2_Sharp_Mod4x.blp",
        0xdbe873aecb442265,
        0x7d7713051f49e00e,
    ),
    (
        "samples/m2/Fire_Bright_Mod2x_A_desat.blp",
        0x3fef621c6918a793,
        0x20ebf8a02d18dd3a,
    ),
    ("samples/m2/Imp2.m2", 0xeb0e52bfe3d7ee6c, 0x3f0a49814e0a6013),
    (
        "samples/m2/Rabbit2.m2",
        0xcb129032cdda6df3,
        0xc81a5157b49f42fd,
    ),
    (
        "samples/m2/STORMWINDCRATE01.M2",
        0xfe84c24dcc0285a0,
        0x5493be9999128b7d,
    ),
    (
        "samples/m2/STORMWIND_FOUNTAINWATER_01.blp",
        0x0a8272e578de0c14,
        0xbb1733ab9ee64acb,
    ),
    (
        "samples/m2/STORMWIND_FOUNTAINWATER_03.blp",
        0x0f3a597edecbf505,
        0xd7bbe09a2d62579a,
    ),
    (
        "samples/m2/StormwindFountain01.m2",
        0x0b068372066fc071,
        0x189f4eaaa60eb024,
    ),
    (
        "samples/m2/imp2red.blp",
        0xe679b2d34a0b3016,
        0x0c2fc18a4bf72948,
    ),
    (
        "samples/m2/rabbitskin2_default.blp",
        0xc4d7a239bf6e2ecf,
        0xe616aa7948244c0d,
    ),
    (
        "samples/nwn/a_fa.mdl",
        0xce52ffbb191d1665,
        0x943d78eb25bf17a4,
    ),
    (
        "samples/nwn/black.tga",
        0x5fb669c893741f65,
        0x331cbe60fbb2102c,
    ),
    (
        "samples/nwn/c_aribeth.dds",
        0xbdd2f2dd327631fe,
        0x5cae44cd8e16ac64,
    ),
    (
        "samples/nwn/c_aribeth.mdl",
        0xbdd2f2dd327631fe,
        0x5cae44cd8e16ac64,
    ),
    (
        "samples/nwn/c_aribeth.tga",
        0xdaf38ae658b1e897,
        0xf3d16ca158f9cf39,
    ),
    (
        "samples/nwn/c_satyr.ascii.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "samples/nwn/c_satyrarcher.mdl",
        0x6baeaf3c9b5eae65,
        0xe63f7c7f118d5fb8,
    ),
    (
        "samples/nwn/fxpa_flame00.tga",
        0x630befa95ad0822e,
        0x097841a24c9fd617,
    ),
    (
        "samples/nwn/fxpa_smoke01.tga",
        0xc4521c3e115180b6,
        0x6b4d050b5fa333ad,
    ),
    (
        "samples/nwn/it_torch_000.mdl",
        0xa33ad1d0098e02ec,
        0x2d2ddc3abf6d17e4,
    ),
    (
        "samples/nwn/pal/pal_armor01.tga",
        0x58b458f5b5aa60fd,
        0x85850e54e968bf5c,
    ),
    (
        "samples/nwn/pal/pal_armor02.tga",
        0x8393a2df4cf56433,
        0xf52cc6e27827ad18,
    ),
    (
        "samples/nwn/pal/pal_cloth01.tga",
        0xbf6458096b4443cc,
        0xd4eb95080df315aa,
    ),
    (
        "samples/nwn/pal/pal_hair01.tga",
        0x4a939faaf445a462,
        0x3332d57819e86a86,
    ),
    (
        "samples/nwn/pal/pal_leath01.tga",
        0xbf6458096b4443cc,
        0xd4eb95080df315aa,
    ),
    (
        "samples/nwn/pal/pal_skin01.tga",
        0xd30405c0a2659709,
        0xf43437dfed531f3b,
    ),
    (
        "samples/nwn/pal/pal_tattoo01.tga",
        0x19f5e6a855b1e2e5,
        0xd5cb1c2294c86241,
    ),
    (
        "samples/nwn/pmh0_head001.plt",
        0x98c2d4dc194f7214,
        0x46e33281c2a8e7a9,
    ),
    (
        "samples/nwn/ttd01_a04_03.mdl",
        0xad70f851f4ec734b,
        0x15ea4e592071b209,
    ),
    (
        "samples/nwn/ttd01_cliff01.dds",
        0x163694f3f4b216f5,
        0x41ceebece9feace4,
    ),
    (
        "samples/nwn/ttd01_cliff01.tga",
        0xbde185da5b2632be,
        0x2dd41f32de5e41bd,
    ),
    (
        "samples/nwn/ttd01_cliff02.tga",
        0x544d9cd13abc1c0f,
        0xdc84f83217c8241d,
    ),
    (
        "samples/nwn/ttd01_floor01.tga",
        0xbb668fda8983c6f9,
        0xcf13485b523bb845,
    ),
    (
        "samples/nwn/vfx_event_pulse_test.mdl",
        0x630befa95ad0822e,
        0x097841a24c9fd617,
    ),
    (
        "samples/nwn/vfx_midcurve_test.mdl",
        0xc4521c3e115180b6,
        0x6b4d050b5fa333ad,
    ),
    (
        "samples/nwn/vfx_spawn_motion_test.mdl",
        0xc4521c3e115180b6,
        0x6b4d050b5fa333ad,
    ),
    (
        "samples/nwn/vfx_start_end_only_test.mdl",
        0xc4521c3e115180b6,
        0x6b4d050b5fa333ad,
    ),
    (
        "samples/nwn/w_metal_tex.tga",
        0xb6b677111f4bb810,
        0xe3ccb5ff522d8752,
    ),
    (
        "samples/tim/ball16c.tim",
        0x39632f2487f583fa,
        0x7d20dfa460e3af55,
    ),
    (
        "samples/tim/cube16.tim",
        0x248cd67694704d03,
        0x7a111cf831b10fd5,
    ),
    (
        "samples/tim/lamelotl16c.tim",
        0xa0eb3d886edc15bc,
        0x3997dddb39092f6a,
    ),
    (
        "samples/tim/texture.tim",
        0xcd1f99eedb5f5f88,
        0xd5513e1601708695,
    ),
    (
        "samples/tim/texture64.tim",
        0x81b2c3649750d2a5,
        0x9094fe5df6a2229d,
    ),
    (
        "samples/tim/tiles_256.tim",
        0x077daabed386001c,
        0x6a25fbfbd09f03cc,
    ),
];

/// The same for made-up textures, recorded with them.
const EXPECTED_SYNTHETIC: &[(&str, u64, u64)] = &[
    ("noise 256x256 rgba", 0x96135ad4df0606f6, 0x32e71e6290064d8d),
    (
        "noise 300x90 opaque",
        0x7d31b675d2b11e68,
        0xa54ff9d3406be73b,
    ),
    ("gradient 1024x512", 0x8c606dcffaff4a83, 0xcd0373d1a7dfb0db),
    ("tied 64x64", 0x0ffe8401551a9025, 0xaa26c671b5c4152b),
    ("few colours 32x16", 0xcb706ada44d23e55, 0xb253d39eac029085),
    (
        "sparse noise 128x128",
        0x403c0cd9022bbe05,
        0x1c679bbf490be83f,
    ),
];

/// Deterministic pseudo-random bytes (xorshift64*).
fn noise(seed: u64) -> impl FnMut() -> u8 {
    let mut s = seed.max(1);
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
    }
}

fn made_up(width: u32, height: u32, mut f: impl FnMut(u32, u32) -> [u8; 4]) -> Texture {
    let mut pixels = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            pixels.push(f(x, y));
        }
    }
    Texture {
        name: String::new(),
        image: TextureImage::from(RgbaImage {
            width,
            height,
            pixels,
        }),
    }
}

/// Textures that reach every path of the quantiser: more colours than a CLUT holds, with and
/// without partial alpha, at, below and above 256 texels a side, with equal counts (ties in the
/// median cut) and few colours.
fn synthetic() -> Vec<(&'static str, Vec<Texture>)> {
    let mut n = noise(69);
    let mut m = noise(7);
    let mut k = noise(3);
    vec![
        (
            "noise 256x256 rgba",
            vec![made_up(256, 256, |_, _| [n(), n(), n(), n()])],
        ),
        (
            "noise 300x90 opaque",
            vec![made_up(300, 90, |_, _| [m(), m(), m(), 255])],
        ),
        (
            "gradient 1024x512",
            vec![made_up(1024, 512, |x, y| {
                [
                    (x / 4) as u8,
                    (y / 2) as u8,
                    ((x + y) / 6) as u8,
                    (x % 256) as u8,
                ]
            })],
        ),
        (
            "tied 64x64",
            vec![made_up(64, 64, |x, y| {
                let v = ((x / 4) * 16 + y / 4) as u8;
                [
                    v,
                    v.wrapping_mul(3),
                    255 - v,
                    if v.is_multiple_of(5) { 0 } else { 255 },
                ]
            })],
        ),
        (
            "few colours 32x16",
            vec![made_up(32, 16, |x, _| [(x % 12) as u8 * 20, 0, 9, 200])],
        ),
        (
            "sparse noise 128x128",
            vec![made_up(128, 128, |_, _| {
                let v = k();
                [
                    v & 0xf8,
                    v.rotate_left(3) & 0xf8,
                    0,
                    if v < 40 { 0 } else { 255 },
                ]
            })],
        ),
    ]
}

#[test]
fn made_up_textures_match_the_recorded_ones() {
    let actual: Vec<(String, u64, u64)> = synthetic()
        .into_iter()
        .map(|(name, t)| {
            let (i, o) = file_hashes(&t);
            (name.to_string(), i, o)
        })
        .collect();
    compare(actual, EXPECTED_SYNTHETIC);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples and ../shared/corpus")]
fn prepared_textures_match_the_recorded_ones() {
    let root = common::shared("");
    let mut files = Vec::new();
    files_under(&root.join("samples"), &mut files);
    files_under(&root.join("corpus"), &mut files);
    files.sort();
    let mut actual = Vec::new();
    for f in &files {
        let Some(textures) = textures_of(f) else {
            continue;
        };
        if textures.is_empty() {
            continue;
        }
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (i, o) = file_hashes(&textures);
        actual.push((rel, i, o));
    }
    compare(actual, EXPECTED);
}

/// Fails naming what differs from `expected`, printing the table as it now is.
fn compare(actual: Vec<(String, u64, u64)>, expected: &[(&str, u64, u64)]) {
    let expected: Vec<(String, u64, u64)> = expected
        .iter()
        .map(|&(p, i, o)| (p.to_string(), i, o))
        .collect();
    if actual != expected {
        let mut table = String::new();
        for (p, i, o) in &actual {
            table.push_str(&format!("    ({p:?}, {i:#018x}, {o:#018x}),\n"));
        }
        for ((p, i, o), (ep, ei, eo)) in actual.iter().zip(&expected) {
            if p != ep {
                eprintln!("file list differs at {p} / {ep}");
                break;
            }
            if i != ei {
                eprintln!("{p}: decoded images differ");
            } else if o != eo {
                eprintln!("{p}: PS1 forms differ");
            }
        }
        panic!(
            "{} files' textures differ from the {} recorded; the table now:\n{table}",
            actual.len(),
            expected.len()
        );
    }
}
