//! KeyValues1 text: lossless document and typed access.
