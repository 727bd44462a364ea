"""pbm: a play-by-e-mail server for the tile game Trax."""

__version__ = "0.1.0"
