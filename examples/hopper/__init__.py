"""Examples specialised for hopper."""
