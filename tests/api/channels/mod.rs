//! Channels: mail to the help desk, and Slack and Teams destinations.
mod chat;
mod imap;
mod mail_in;
