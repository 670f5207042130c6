"""The terminal app (Textual): ``nomercy play``. Needs the ``tui`` extra."""
