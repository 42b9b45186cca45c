//! The project's own FF9 test character, built by our writer: a small moogle-ish robot with a
//! big furry head (4bpp face TIM), a plated body (8bpp TIM), arms, legs, ears, an antenna with a
//! glowing pom-pom, a 12-bone skeleton, a 0x12 material chunk and a 10-frame walk-in-place
//! animation. It is laid out as the game lays out a field model: typed chunks for every type
//! (0x12 included), image TIMs without CLUT blocks, and both palettes uploaded by a third,
//! 16bpp image TIM whose two rows are the CLUTs. Every polygon type is used: A quads (head, chest, pelvis), A tris (ears), B quads
//! (arms, torso sides), B tris (hands, pom-pom), C quads (legs, feet, antenna), C tris (toes).
//!
//! The geometry is described in scene space (+Y up, front +Z) in its rest pose (phase 0 of the walk cycle) and converted to
//! bone-local FF9 coordinates through the same bone chain the loader poses with.

use std::collections::HashMap;

use super::anim::{bone_worlds, Animation, Xform};
use super::material::{Clut, Material, MaterialSet, ModelMaterials, TexPage};
use super::mesh::{Bone, Group, GroupVertex, Mesh, PolyKind, Polygon};
use super::write_cluster;
use crate::formats::tim::{Tim, TimDepth};
use crate::scene::VramImage;

/// Object ids used in the demo cluster.
const MODEL_ID: u16 = 1;
const ANIM_ID: u16 = 10;

/// VRAM placement: both textures right of a 640-wide frame buffer, CLUTs below them (rows of
/// one 256x2 palette image).
const FACE_X: u16 = 640; // texture page 10, 4bpp, 128x64 px = 32x64 halfwords
const BODY_X: u16 = 704; // texture page 11, 8bpp, 64x64 px = 32x64 halfwords
const CLUT_X: u16 = 640;
const CLUT4_Y: u16 = 256;
const CLUT8_Y: u16 = 257;

const MAT_FUR: u8 = 0; // TIM 0: face at u 0..63, fur at u 64..127
const MAT_METAL: u8 = 1; // TIM 1: chest panel at v 0..31, plating at v 32..63

const BONES: [(u32, u8); 12] = [
    (0, 0),   // 0 root / pelvis
    (0, 0),   // 1 torso
    (220, 1), // 2 head
    (180, 1), // 3 left shoulder
    (146, 3), // 4 left arm
    (180, 1), // 5 right shoulder
    (146, 5), // 6 right arm
    (0, 0),   // 7 left hip
    (70, 7),  // 8 left leg
    (0, 0),   // 9 right hip
    (70, 9),  // 10 right leg
    (240, 2), // 11 antenna
];

fn angle(v: f32) -> u16 {
    (v.round() as i32).rem_euclid(4096) as u16
}

/// Root position and bone angles at phase `t` (radians) of the walk cycle; `t = 0` is the
/// rest pose the geometry is modelled in.
fn pose_at(t: f32) -> ([i16; 3], Vec<[u16; 3]>) {
    let s = crate::math::sin(t);
    let s2 = crate::math::sin(2.0 * t);
    let root = [0, -300 - (10.0 * s2).round() as i16, 0];
    let angles = vec![
        [1024, 0, 0],
        [0, 0, angle(70.0 * s)],
        [angle(60.0 * s2), 0, angle(-110.0 * s)],
        [0, 1024, 0],
        [angle(320.0 * s), 1024, 0],
        [0, 3072, 0],
        [angle(320.0 * s), 3072, 0],
        [0, 1024, 0],
        [angle(-220.0 * s), 1024, 0],
        [0, 3072, 0],
        [angle(-220.0 * s), 3072, 0],
        [angle(180.0 * s2), 0, angle(120.0 * s)],
    ];
    (root, angles)
}

/// Ten frames of a walk-in-place cycle; frames 0 and 5 are its two extremes (arms and legs
/// furthest out), so a still of frame 5 shows the character mid-stride.
fn animation() -> Animation {
    let frames = 10;
    let (root, angles) = (0..frames)
        .map(|f| {
            let t = (f as f32 / frames as f32 - 0.25) * std::f32::consts::TAU;
            pose_at(t)
        })
        .unzip();
    Animation { root, angles }
}

struct Builder {
    worlds: Vec<Xform>,
    group: Group,
    vmap: HashMap<(u8, [i16; 3]), u16>,
}

/// A face corner: scene position and texel.
type Corner = ([f32; 3], [u8; 2]);

impl Builder {
    fn new(worlds: &[Xform]) -> Self {
        Builder {
            worlds: worlds.to_vec(),
            group: Group::default(),
            vmap: HashMap::new(),
        }
    }

    fn vertex(&mut self, bone: u8, scene: [f32; 3]) -> u16 {
        let ps1 = [scene[0], -scene[1], -scene[2]];
        let local = self.worlds[usize::from(bone)].unapply(ps1);
        let key = (bone, local.map(|c| c.round() as i16));
        let next = self.group.vertices.len() as u16;
        let group = &mut self.group;
        *self.vmap.entry(key).or_insert_with(|| {
            group.vertices.push(GroupVertex {
                position: key.1,
                bone,
            });
            next
        })
    }

    /// Adds a polygon given as a counter-clockwise ring (seen from the front, scene space).
    fn poly(
        &mut self,
        kind: PolyKind,
        bone: u8,
        ring: &[Corner],
        colors: &[[u8; 3]],
        material: u8,
        flags: u32,
    ) {
        // Scene ring → FF9 file order: quads [a, d, b, c] (Z order, reversed winding),
        // triangles [a, c, b].
        let order: &[usize] = if ring.len() == 4 {
            &[0, 3, 1, 2]
        } else {
            &[0, 2, 1]
        };
        let mut verts = Vec::new();
        let mut uvs = Vec::new();
        let mut cols = Vec::new();
        for &i in order {
            verts.push(self.vertex(bone, ring[i].0));
            uvs.push(self.group.uvs.len() as u16);
            self.group.uvs.push(ring[i].1);
            cols.push(
                colors
                    .get(i)
                    .or(colors.first())
                    .copied()
                    .unwrap_or([128; 3]),
            );
        }
        self.group
            .polygons
            .push(Polygon::new(kind, &verts, &uvs, &cols, material, flags));
    }

    /// A box `lo..hi` (scene space) on `bone`; `faces` picks (kind, material, uv rect) per side
    /// in the order front, back, right, left, top, bottom (None = side left out).
    fn cuboid(&mut self, bone: u8, lo: [f32; 3], hi: [f32; 3], sides: [Option<Side>; 6]) {
        let [x0, y0, z0] = lo;
        let [x1, y1, z1] = hi;
        let rings = [
            [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
            [[x1, y0, z0], [x0, y0, z0], [x0, y1, z0], [x1, y1, z0]],
            [[x1, y0, z1], [x1, y0, z0], [x1, y1, z0], [x1, y1, z1]],
            [[x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]],
            [[x0, y1, z1], [x1, y1, z1], [x1, y1, z0], [x0, y1, z0]],
            [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
        ];
        // Baked light from above-front: front, back, right, left, top, bottom.
        let light = [1.0f32, 0.7, 0.85, 0.85, 1.15, 0.55];
        for ((ring, side), l) in rings.iter().zip(sides).zip(light) {
            let Some(s) = side else { continue };
            let [u0, v0, u1, v1] = s.uv;
            let uv = [[u0, v1], [u1, v1], [u1, v0], [u0, v0]];
            let corners: Vec<Corner> = ring.iter().zip(uv).map(|(p, t)| (*p, t)).collect();
            // A/C take one colour per side; B polygons get a Gouraud ramp, darker below.
            let shade = |v: f32| [(v * l).min(255.0) as u8; 3];
            let colors = if s.kind == PolyKind::B {
                [shade(100.0), shade(100.0), shade(150.0), shade(150.0)]
            } else {
                [shade(128.0); 4]
            };
            self.poly(s.kind, bone, &corners, &colors, s.material, 0);
        }
    }

    /// A four-sided pyramid from a square base (centre `base`, half size `r`, in the plane
    /// normal to `axis` 0=X,1=Y,2=Z, pointing + or -) to `apex`, as triangles.
    #[allow(clippy::too_many_arguments)]
    fn pyramid(
        &mut self,
        kind: PolyKind,
        bone: u8,
        base: [f32; 3],
        r: f32,
        apex: [f32; 3],
        material: u8,
        uv: [u8; 4],
        flags: u32,
    ) {
        // Base corners around the apex direction, counter-clockwise seen from the apex.
        let d = [apex[0] - base[0], apex[1] - base[1], apex[2] - base[2]];
        let axis = (0..3)
            .max_by(|&a, &b| d[a].abs().total_cmp(&d[b].abs()))
            .unwrap_or(1);
        let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
        let sign = if d[axis] >= 0.0 { 1.0 } else { -1.0 };
        let mut ring = Vec::new();
        for (sa, sb) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
            let mut p = base;
            p[a] += sa * r;
            p[b] += sb * r * sign;
            ring.push(p);
        }
        let [u0, v0, u1, v1] = uv;
        let um = ((u16::from(u0) + u16::from(u1)) / 2) as u8;
        for i in 0..4 {
            let p = ring[i];
            let q = ring[(i + 1) % 4];
            let corners = [(p, [u0, v1]), (q, [u1, v1]), (apex, [um, v0])];
            let colors = [[96, 96, 96], [128, 128, 128], [160, 160, 160]];
            self.poly(kind, bone, &corners, &colors, material, flags);
        }
    }

    fn finish(mut self) -> Group {
        let class = |p: &Polygon| {
            PolyKind::ORDER
                .iter()
                .position(|&(k, q)| k == p.kind && q == p.is_quad())
                .unwrap_or(0)
        };
        // Keep UVs in polygon order after sorting polygons into the file's class order.
        let mut polys = std::mem::take(&mut self.group.polygons);
        polys.sort_by_key(class);
        let old_uvs = std::mem::take(&mut self.group.uvs);
        for p in &mut polys {
            for i in 0..p.corners as usize {
                let uv = old_uvs[usize::from(p.uvs[i])];
                p.uvs[i] = self.group.uvs.len() as u16;
                self.group.uvs.push(uv);
            }
        }
        self.group.polygons = polys;
        self.group
    }
}

#[derive(Clone, Copy)]
struct Side {
    kind: PolyKind,
    material: u8,
    uv: [u8; 4],
}

const FACE_UV: [u8; 4] = [0, 0, 63, 63];
const FUR_UV: [u8; 4] = [64, 0, 127, 63];
const CHEST_UV: [u8; 4] = [0, 0, 63, 31];
const PLATE_UV: [u8; 4] = [0, 32, 63, 63];
const GLOW_UV: [u8; 4] = [25, 8, 39, 22];

fn side(kind: PolyKind, material: u8, uv: [u8; 4]) -> Option<Side> {
    Some(Side { kind, material, uv })
}

fn all(kind: PolyKind, material: u8, uv: [u8; 4]) -> [Option<Side>; 6] {
    [side(kind, material, uv); 6]
}

fn mesh() -> Mesh {
    use PolyKind::{A, B, C};
    let bones: Vec<Bone> = BONES
        .iter()
        .map(|&(length, parent)| Bone { length, parent })
        .collect();
    let (root, angles) = pose_at(0.0);
    let worlds = bone_worlds(&bones, Some(root), &angles);

    // Group 0: pelvis, torso, legs, feet.
    let mut g = Builder::new(&worlds);
    g.cuboid(
        0,
        [-110.0, 280.0, -70.0],
        [110.0, 340.0, 70.0],
        all(A, MAT_METAL, PLATE_UV),
    );
    let mut torso = all(B, MAT_METAL, PLATE_UV);
    torso[0] = side(A, MAT_METAL, CHEST_UV);
    g.cuboid(1, [-120.0, 335.0, -80.0], [120.0, 525.0, 80.0], torso);
    for (bone, sx) in [(8u8, 1.0f32), (10, -1.0)] {
        let (xa, xb) = (sx * 40.0, sx * 100.0);
        let (x0, x1) = (xa.min(xb), xa.max(xb));
        g.cuboid(
            bone,
            [x0, 40.0, -40.0],
            [x1, 300.0, 40.0],
            all(C, MAT_METAL, PLATE_UV),
        );
        let mut foot = all(C, MAT_FUR, FUR_UV);
        foot[0] = None; // the toes cover the front
        g.cuboid(bone, [x0 - 5.0, 0.0, -45.0], [x1 + 5.0, 40.0, 75.0], foot);
        let cx = (x0 + x1) / 2.0;
        g.pyramid(
            C,
            bone,
            [cx, 20.0, 75.0],
            20.0,
            [cx, 15.0, 100.0],
            MAT_FUR,
            FUR_UV,
            0,
        );
    }
    let body = g.finish();

    // Group 1: head, ears, antenna, pom-pom.
    let mut g = Builder::new(&worlds);
    let mut head = all(A, MAT_FUR, FUR_UV);
    head[0] = side(A, MAT_FUR, FACE_UV);
    g.cuboid(2, [-150.0, 520.0, -120.0], [150.0, 760.0, 120.0], head);
    for sx in [1.0f32, -1.0] {
        g.pyramid(
            A,
            2,
            [sx * 95.0, 760.0, 0.0],
            28.0,
            [sx * 125.0, 850.0, 0.0],
            MAT_FUR,
            FUR_UV,
            0,
        );
    }
    let mut stalk = all(C, MAT_METAL, PLATE_UV);
    stalk[5] = None;
    g.cuboid(11, [-7.0, 760.0, -7.0], [7.0, 885.0, 7.0], stalk);
    // Pom-pom: an octahedron, semi-transparent additive (flags bit 0, mode 1 in bits 5-6).
    let glow = 1 | 1 << 5;
    for dy in [1.0f32, -1.0] {
        g.pyramid(
            B,
            11,
            [0.0, 915.0, 0.0],
            32.0,
            [0.0, 915.0 + dy * 40.0, 0.0],
            MAT_METAL,
            GLOW_UV,
            glow,
        );
    }
    let head = g.finish();

    // Group 2: arms and hands.
    let mut g = Builder::new(&worlds);
    for (bone, sx) in [(4u8, 1.0f32), (6, -1.0)] {
        let (xa, xb) = (sx * 122.0, sx * 170.0);
        let (x0, x1) = (xa.min(xb), xa.max(xb));
        let mut arm = all(B, MAT_METAL, PLATE_UV);
        arm[4] = None;
        arm[5] = None;
        g.cuboid(bone, [x0, 320.0, -35.0], [x1, 500.0, 35.0], arm);
        g.pyramid(
            B,
            bone,
            [(x0 + x1) / 2.0, 320.0, 0.0],
            30.0,
            [(x0 + x1) / 2.0, 270.0, 0.0],
            MAT_FUR,
            FUR_UV,
            0,
        );
    }
    let arms = g.finish();

    Mesh {
        position: [0, 0, 0],
        bones,
        groups: vec![body, head, arms],
    }
}

fn rgb15(r: u8, g: u8, b: u8) -> u16 {
    let v = u16::from(r >> 3) | u16::from(g >> 3) << 5 | u16::from(b >> 3) << 10;
    if v == 0 {
        1 << 10 // never the transparent texel
    } else {
        v
    }
}

fn ellipse(x: i32, y: i32, cx: i32, cy: i32, rx: i32, ry: i32) -> bool {
    let (dx, dy) = (x - cx, y - cy);
    dx * dx * ry * ry + dy * dy * rx * rx <= rx * rx * ry * ry
}

/// The fur TIM: 4bpp, 128x64 px — a moogle face (u 0..63) and a fur tile (u 64..127) — and its
/// 16-colour palette.
fn fur_tim() -> (Tim, Vec<u16>) {
    let palette = [
        (0, 0, 0),
        (250, 240, 215),
        (222, 205, 172),
        (80, 56, 44),
        (16, 12, 20),
        (255, 255, 255),
        (236, 110, 150),
        (250, 176, 186),
        (196, 178, 140),
        (120, 80, 170),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
    ];
    let mut px = vec![[0u8; 128]; 64];
    for (y, row) in px.iter_mut().enumerate() {
        for (x, p) in row.iter_mut().enumerate() {
            let (xi, yi) = (x as i32, y as i32);
            *p = if x < 64 {
                let mut c = if (xi - 32).pow(2) + (yi - 30).pow(2) > 31 * 31 {
                    2
                } else {
                    1
                };
                for cx in [20, 43] {
                    if ellipse(xi, yi, cx, 27, 5, 8) {
                        c = 4;
                    }
                    if ellipse(xi, yi, cx - 2, 23, 1, 2) {
                        c = 5;
                    }
                }
                for cx in [10, 53] {
                    if ellipse(xi, yi, cx, 41, 5, 3) {
                        c = 7;
                    }
                }
                if ellipse(xi, yi, 32, 44, 4, 3) {
                    c = if yi <= 42 { 3 } else { 6 };
                }
                if x == 0 || y == 0 || x == 63 || y == 63 {
                    c = 3;
                }
                c
            } else {
                let wave = (y / 6) % 2 * 3;
                let hash = (x * 7 + y * 13) % 11;
                if (x + wave) % 8 < 2 {
                    8
                } else if hash == 0 {
                    2
                } else {
                    1
                }
            };
        }
    }
    let data = px
        .iter()
        .flat_map(|row| {
            row.chunks_exact(4).map(|q| {
                u16::from(q[0])
                    | u16::from(q[1]) << 4
                    | u16::from(q[2]) << 8
                    | u16::from(q[3]) << 12
            })
        })
        .collect();
    let clut = palette.iter().map(|&(r, g, b)| rgb15(r, g, b)).collect();
    (
        Tim {
            depth: TimDepth::Bpp4,
            clut: None,
            image: VramImage {
                x: FACE_X,
                y: 0,
                width: 32,
                height: 64,
                data,
            },
        },
        clut,
    )
}

/// The palettes as the game uploads them: one 16bpp image TIM, 256x2 at (640,256), whose row 0
/// holds the fur's 16 colours (the rest 0) and row 1 the metal's 256.
fn palette_tim(fur: &[u16], metal: &[u16]) -> Tim {
    let mut data = vec![0u16; 512];
    data[..fur.len()].copy_from_slice(fur);
    data[256..256 + metal.len()].copy_from_slice(metal);
    Tim {
        depth: TimDepth::Bpp15,
        clut: None,
        image: VramImage {
            x: CLUT_X,
            y: CLUT4_Y,
            width: 256,
            height: 2,
            data,
        },
    }
}

/// The metal TIM: 8bpp, 64x64 px — a chest panel with a red button and a grille (v 0..31)
/// and gold/steel plating (v 32..63) — and its palette: 4 ramps of 64 (grey, blue, red, gold).
fn metal_tim() -> (Tim, Vec<u16>) {
    let ramp = |i: u16| -> u16 {
        let t = (i % 64) as f32 / 63.0;
        let lerp = |a: f32, b: f32| (a + (b - a) * t) as u8;
        match i / 64 {
            0 => rgb15(lerp(40.0, 235.0), lerp(40.0, 235.0), lerp(46.0, 240.0)),
            1 => rgb15(lerp(10.0, 150.0), lerp(30.0, 200.0), lerp(70.0, 255.0)),
            2 => rgb15(lerp(60.0, 255.0), lerp(8.0, 170.0), lerp(10.0, 120.0)),
            _ => rgb15(lerp(70.0, 255.0), lerp(50.0, 230.0), lerp(10.0, 120.0)),
        }
    };
    let mut px = vec![[0u8; 64]; 64];
    for (y, row) in px.iter_mut().enumerate() {
        for (x, p) in row.iter_mut().enumerate() {
            let (xi, yi) = (x as i32, y as i32);
            *p = if y < 32 {
                let mut c = 64 + 34 - (y as u8 / 4);
                if x < 2 || y < 2 {
                    c = 64 + 58;
                } else if x > 61 || y > 29 {
                    c = 64 + 6;
                }
                for (rx, ry) in [(6, 6), (57, 6), (6, 25), (57, 25)] {
                    if ellipse(xi, yi, rx, ry, 2, 2) {
                        c = if xi <= rx && yi <= ry { 60 } else { 30 };
                    }
                }
                let d2 = (xi - 32).pow(2) + (yi - 15).pow(2);
                if d2 <= 64 {
                    let hl = (((xi - 30).pow(2) + (yi - 12).pow(2)) as f32).sqrt();
                    c = 128 + (63.0 - hl * 4.0).clamp(20.0, 63.0) as u8;
                }
                if (24..=27).contains(&y) && (20..44).contains(&x) && x % 2 == 0 {
                    c = 64 + 2;
                }
                c
            } else {
                let band = (y - 32) / 5;
                let edge = (y - 32) % 5 == 4;
                if edge {
                    192 + 8
                } else if band % 2 == 0 {
                    192 + 36 + (x as u8 % 16) / 4
                } else {
                    40 + (x as u8 % 16) / 2
                }
            };
        }
    }
    let data = px
        .iter()
        .flat_map(|row| {
            row.chunks_exact(2)
                .map(|q| u16::from(q[0]) | u16::from(q[1]) << 8)
        })
        .collect();
    (
        Tim {
            depth: TimDepth::Bpp8,
            clut: None,
            image: VramImage {
                x: BODY_X,
                y: 0,
                width: 32,
                height: 64,
                data,
            },
        },
        (0..256).map(ramp).collect(),
    )
}

/// A material sampling `tim`'s page with the palette at (`CLUT_X`, `clut_y`).
fn material_for(tim: &Tim, clut_y: u16) -> Material {
    Material {
        tpage: TexPage(tim.texpage()),
        clut: Clut((CLUT_X / 16) | (clut_y << 6)),
        window: [0, 0],
        faces: [[0, 0], [0, 0]],
    }
}

/// The parts of the demo character, before they are written: (model, animation, TIMs,
/// materials). The TIMs are the 4bpp fur image, the 8bpp metal image (neither with a CLUT
/// block) and the 16bpp palette image both materials take their CLUTs from.
pub fn demo_parts() -> (Mesh, Animation, Vec<Tim>, MaterialSet) {
    let (fur, fur_clut) = fur_tim();
    let (metal, metal_clut) = metal_tim();
    let materials = MaterialSet {
        models: vec![ModelMaterials {
            model_id: MODEL_ID,
            default_animation: Some(ANIM_ID),
            id_0x19: 0,
            extra: [0, 0],
            materials: vec![material_for(&fur, CLUT4_Y), material_for(&metal, CLUT8_Y)],
        }],
    };
    let palettes = palette_tim(&fur_clut, &metal_clut);
    (mesh(), animation(), vec![fur, metal, palettes], materials)
}

/// The project's test character as an FF9 data cluster (0xDB) in the game's layout: one model
/// (12 bones, every polygon type), a 10-frame animation, a 4bpp and an 8bpp image TIM, a 16bpp
/// palette TIM, and a 0x12 material chunk.
/// `psxrender demo` renders it.
pub fn demo_character() -> Vec<u8> {
    let (mesh, anim, tims, materials) = demo_parts();
    let tims: Vec<(u16, Tim)> = tims.into_iter().zip(20..).map(|(t, i)| (i, t)).collect();
    write_cluster(
        &[(MODEL_ID, mesh)],
        &[(ANIM_ID, anim)],
        &tims,
        Some(&materials),
    )
    .expect("the demo character fits every FF9 limit (checked by the tests)")
}
