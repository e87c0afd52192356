//! Automation: triggers managed through every door, and what they do to the tickets they fire on.
mod macros;
mod pages;
mod triggers;
