//! The ticket model beyond the contract's fields: tags, links between tickets and time spent.
mod links;
mod tags;
mod time_spent;
