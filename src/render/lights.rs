//! What the GTE's light registers hold: the default rig, or a model's own lights.
//!
//! The GTE lights with up to three directional lights (LLM rows: directions toward each light
//! in model space; LCM columns: their colours) plus a background colour (BK). A model's point
//! lights become directions from the model's centre toward each light, strongest three first
//! (a PS1 game does the same per object: lights are directions per model, not per vertex); its
//! ambient colour becomes BK. A black light is a placeholder the game would colour from its
//! scene (NWN tiles' main and source lights take the area's colours), so it shines at the rig's
//! diffuse level in white; a model without ambient light keeps the rig's ambient.

use super::camera::Basis;
use super::gte_stage::Q12;
use super::{AMBIENT, DIFFUSE, LIGHT_DIR};
use crate::math::{dot3, normalize3, sub3};
use crate::scene::ModelLights;

/// LLM, LCM and BK as loaded.
pub(super) type Registers = ([[Q12; 3]; 3], [[Q12; 3]; 3], [i32; 3]);

const ZERO: Q12 = Q12::from_bits(0);

/// The default rig: one white light from the camera's upper left, and ambient.
pub(super) fn rig(basis: &Basis) -> Registers {
    // Light direction in model space = basisᵀ · camera-space direction.
    let l = LIGHT_DIR;
    let len = dot3(l, l).sqrt();
    let light = [0, 1, 2].map(|a| (0..3).map(|r| basis[r][a] * l[r]).sum::<f32>() / len);
    let d = Q12::from_f32(DIFFUSE);
    let amb = (AMBIENT * 4096.0) as i32;
    (
        [light.map(Q12::from_f32), [ZERO; 3], [ZERO; 3]],
        [[d, ZERO, ZERO]; 3],
        [amb; 3],
    )
}

/// Below this (each channel) a light's colour counts as black: a placeholder.
const PLACEHOLDER: f32 = 1.0 / 64.0;

/// A model's lights seen from `centre` (the model space origin the GTE works around).
pub(super) fn from_model(lights: &ModelLights, centre: [f32; 3]) -> Registers {
    let mut llm = [[ZERO; 3]; 3];
    let mut lcm = [[ZERO; 3]; 3];
    let usable = lights.lights.iter().filter_map(|l| {
        let d = normalize3(sub3(l.position, centre));
        (dot3(d, d) > 0.5 && l.color.iter().all(|c| c.is_finite())).then_some((d, l.color))
    });
    for (j, (dir, color)) in usable.take(3).enumerate() {
        let color = if color.iter().all(|c| c.abs() < PLACEHOLDER) {
            [DIFFUSE; 3]
        } else {
            color
        };
        llm[j] = dir.map(Q12::from_f32);
        for (row, c) in lcm.iter_mut().zip(color) {
            row[j] = Q12::from_f32(c.clamp(0.0, 7.9));
        }
    }
    let bk = lights.ambient.unwrap_or([AMBIENT; 3]).map(|c| {
        let c = if c.is_finite() {
            c.clamp(0.0, 15.0)
        } else {
            0.0
        };
        (c * 4096.0).round() as i32
    });
    (llm, lcm, bk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::ModelLight;

    #[test]
    fn model_lights_become_directions_from_the_centre() {
        let lights = ModelLights {
            lights: vec![
                ModelLight {
                    position: [0.0, 10.0, 0.0],
                    color: [1.0, 0.5, 0.0],
                },
                ModelLight {
                    position: [1.0, 0.0, 0.0],
                    color: [0.0, 0.0, 2.0],
                },
            ],
            ambient: Some([0.25, 0.25, 0.5]),
        };
        let (llm, lcm, bk) = from_model(&lights, [0.0, 0.0, 0.0]);
        assert_eq!(llm[0], [ZERO, Q12::ONE, ZERO]);
        assert_eq!(llm[1], [Q12::ONE, ZERO, ZERO]);
        assert_eq!(llm[2], [ZERO; 3]);
        // Columns are lights, rows are R, G, B.
        assert_eq!(lcm[0][0], Q12::ONE);
        assert_eq!(lcm[1][0], Q12::from_f32(0.5));
        assert_eq!(lcm[2][1], Q12::from_f32(2.0));
        assert_eq!(bk, [1024, 1024, 2048]);
        // A black light is a placeholder: it shines at the rig's level; no ambient → the rig's.
        let placeholder = ModelLights {
            lights: vec![ModelLight {
                position: [0.0, 0.0, -3.0],
                color: [0.0, 0.0, 0.004],
            }],
            ambient: None,
        };
        let (llm, lcm, bk) = from_model(&placeholder, [0.0; 3]);
        assert_eq!(llm[0], [ZERO, ZERO, Q12::from_f32(-1.0)]);
        assert_eq!(
            [lcm[0][0], lcm[1][0], lcm[2][0]],
            [Q12::from_f32(DIFFUSE); 3]
        );
        assert_eq!(bk, [(AMBIENT * 4096.0).round() as i32; 3]);
    }
}
