"""Examples specialised for blackwell."""
