pub mod gluon_spec;
pub mod tally;
