"""The live tier's fan-out: one feed per game and server process (``feed``)."""
