"""Programs written in the original pyptx's style, with only its documented
API and idioms (docs/guides), that our package must trace, verify and
assemble unmodified. Each module's BUILDS lists (name, builder, ptx kwargs,
target); test_original_programs.py runs them."""
