//! Where the driver's lines for the mapper go.

/// The lines a run has for the person running it (warnings, damaged parts left out, a stage's
/// one-line summary), in the order they happen; the CLI prints each on stderr.
pub trait Messages {
    fn line(&self, text: &str);
}

/// [`Messages`] that drops every line.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMessages;

impl Messages for NoMessages {
    fn line(&self, _text: &str) {}
}
