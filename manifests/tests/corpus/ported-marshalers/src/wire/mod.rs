//! JSON written by hand for API types whose wire format is not their fields.

mod extras;
