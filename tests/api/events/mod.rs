mod admin;
mod comments;
mod email;
mod lanes;
mod webhook_targets;
mod webhooks;
