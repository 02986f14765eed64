pub mod gluon_spec;
