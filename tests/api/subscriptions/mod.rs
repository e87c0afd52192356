mod events;
mod viewer;
