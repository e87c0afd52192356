mod documents;
mod doors;
mod text;
