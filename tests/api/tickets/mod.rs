mod assignment;
mod list;
mod projects;
mod rest;
mod totals;
mod visibility;
mod workflow;
