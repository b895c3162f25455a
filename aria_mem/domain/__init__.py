"""Pure logic: the memory model, validation and normalisation. No I/O lives here."""
