//! Options about what a model carries beside its mesh: effects on or off, whose lights, whose
//! camera.

use clap::{Args as ClapArgs, ValueEnum};

use psxrender::render::{LightChoice, RenderOptions};

/// `--lights`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum Lights {
    /// The model's light nodes when it has any, else the default rig.
    #[default]
    Model,
    /// Always the default rig (one light from the camera's upper left plus ambient).
    Rig,
}

/// Effect, light and camera options of every command that renders.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct EffectArgs {
    /// Leave out particles and ribbons (a mesh-only render).
    #[arg(long = "no-effects")]
    pub no_effects: bool,
    /// Whose lights the GTE is loaded with.
    #[arg(long, value_enum, default_value_t = Lights::Model)]
    pub lights: Lights,
    /// Look through the model's own camera N (`psxrender info` lists them) instead of the
    /// orbit camera.
    #[arg(long, value_name = "N")]
    pub camera: Option<usize>,
}

impl EffectArgs {
    /// Applies these options to `opts`.
    pub fn apply(&self, opts: &mut RenderOptions) {
        opts.effects = !self.no_effects;
        opts.lights = match self.lights {
            Lights::Model => LightChoice::Model,
            Lights::Rig => LightChoice::Rig,
        };
        opts.camera = self.camera;
    }
}

/// The effect line of the render report, when a frame had any sprites.
pub fn report(s: &psxrender::render::FrameStats) {
    if s.sprites + s.sprites_over_budget > 0 {
        eprintln!(
            "drew {} effect sprites ({} over the {}-sprite budget)",
            s.sprites,
            s.sprites_over_budget,
            psxrender::render::SPRITE_BUDGET
        );
    }
}
