mod events;
mod limits;
mod viewer;
