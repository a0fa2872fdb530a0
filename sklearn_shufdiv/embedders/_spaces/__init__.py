"""The spaces room: the corpus' LSA space and its join with the encoder's space."""
