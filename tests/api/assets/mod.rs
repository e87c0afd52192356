mod history;
mod links;
mod rest;
