mod checks;
mod page;
mod policies;
mod reclock;
