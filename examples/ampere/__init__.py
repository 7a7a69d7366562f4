"""Examples specialised for ampere."""
