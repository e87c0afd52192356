mod counts;
mod edit;
mod visibility;
mod write;
