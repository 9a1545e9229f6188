//! Handlebars rendering of the embedded templates. Templates only fill in names; logic stays in Rust.

use anyhow::{Context as _, Result};
use handlebars::Handlebars;
use serde::Serialize;

pub struct Renderer {
    hbs: Handlebars<'static>,
}

impl Renderer {
    pub fn new() -> Self {
        let mut hbs = Handlebars::new();
        // A misspelt variable must fail loudly instead of rendering as an empty string.
        hbs.set_strict_mode(true);
        hbs.register_escape_fn(handlebars::no_escape);
        Self { hbs }
    }

    pub fn render(
        &self,
        template: &rkb_templates::Template,
        data: &impl Serialize,
    ) -> Result<String> {
        self.hbs
            .render_template(template.source, data)
            .with_context(|| format!("internal error: template {} does not render", template.path))
    }
}
