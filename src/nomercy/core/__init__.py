"""The pure rules engine: standard library only, no I/O."""
