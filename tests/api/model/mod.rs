//! The ticket model beyond the contract's fields: tags, followers, links between tickets and time spent.
mod custom_fields;
mod followers;
mod links;
mod merge;
mod tags;
mod time_spent;
