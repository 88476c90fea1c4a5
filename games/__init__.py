"""The game service: models, services, selectors, API and tasks around the pure engine."""
