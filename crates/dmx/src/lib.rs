//! Datamodel exchange (DMX): keyvalues2 text and binary encodings.
