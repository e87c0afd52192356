mod checks;
mod policies;
mod reclock;
