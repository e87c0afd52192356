mod admin;
mod attachments;
mod comments;
mod login;
mod page_versions;
mod pages;
mod session;
mod sla;
