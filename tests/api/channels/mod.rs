//! Channels: mail to the help desk, and Slack and Teams destinations.
mod chat;
mod mail_in;
