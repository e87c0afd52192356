mod oidc;
mod people;
mod throttle;
mod tokens;
