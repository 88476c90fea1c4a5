"""Tournament pairing and scoring, pure (no Django): Swiss (one against one and four-player
tables with rotating partners), knockout brackets, arenas, duplicate scoring and incremental
standings. The services turn tournament models into these inputs and store the outputs."""
