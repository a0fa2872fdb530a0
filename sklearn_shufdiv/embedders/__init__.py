"""embedders."""
