//! Automation: triggers and time rules managed through every door, and what they do to the tickets they fire on.
mod bulk;
mod fields;
mod macros;
mod pages;
mod time_rules;
mod triggers;
