//! The ticket model beyond the contract's fields: tags.
mod tags;
