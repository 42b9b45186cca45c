//! Effect sprites into the ordering table: each quad's corners through RTPT + RTPS like a mesh
//! quad, its OTZ from AVSZ4, never lit and never back-face culled (a billboard has no back).
//! At most [`SPRITE_BUDGET`] a frame, in the order the model gives them (its emitters in node
//! order, oldest particle first): the rest are counted in [`super::FrameStats::sprites_over_budget`].

use super::faces::oversize;
use super::gte_stage::{self, FLAG_PROJECTION_BAD};
use super::{FrameStats, Renderer};
use crate::scene::{Face, FaceTexture, Sprite};
use gte::typed::ScreenXY;

/// Most sprites drawn in one frame: a PS1 game's particle budget (a few hundred 10-word
/// textured quads, small next to a model's own polygons).
pub const SPRITE_BUDGET: usize = 256;

impl Renderer<'_> {
    /// Projects `sprites` and adds their packets to the ordering table.
    pub(super) fn draw_sprites(&mut self, sprites: &[Sprite], stats: &mut FrameStats) {
        let space = self.prep.space;
        for (i, s) in sprites.iter().enumerate() {
            if i >= SPRITE_BUDGET {
                stats.sprites_over_budget += 1;
                continue;
            }
            let mut pos = [[0i16; 3]; 4];
            for (p, c) in pos.iter_mut().zip(&s.corners) {
                let (v, clamped) = space.position(*c);
                stats.clamped_vertices += clamped as u32;
                *p = v;
            }
            let (sxy, flag) = gte_stage::rtpt(&mut self.gte, [pos[0], pos[1], pos[2]]);
            let (s3, flag3) = gte_stage::rtps(&mut self.gte, pos[3]);
            let xy: [ScreenXY; 4] = [sxy[0], sxy[1], sxy[2], s3];
            if (flag | flag3) & FLAG_PROJECTION_BAD != 0 || oversize(&xy) {
                stats.clipped += 1;
                continue;
            }
            let otz = gte_stage::average_z(&mut self.gte, true);
            let face = Face {
                vertices: [0, 1, 2, 3],
                corners: 4,
                colors: [s.color; 4],
                texture: match s.texture {
                    Some(texture) => FaceTexture::Image { texture, uv: s.uv },
                    None => FaceTexture::None,
                },
                blend: s.blend,
                two_sided: true,
            };
            let mut poly = self.polygon(&face, xy);
            let (pre, texpage_semi) = self.prefix(&face, &poly);
            if let (Some(t), Some(mode)) = (&mut poly.texture, texpage_semi) {
                t.page = t.page.with_blend(mode);
            }
            stats.sprites += 1;
            self.ot.add(otz, |w| {
                w.extend(pre);
                poly.write(w);
            });
        }
    }
}
