mod collect;
mod email;
mod rest;
mod s3;
