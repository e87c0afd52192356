//! Channels: mail to the help desk.
mod mail_in;
