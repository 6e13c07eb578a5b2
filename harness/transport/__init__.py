"""What the harness knows of the event protocols a caller may reach a loop through (AG-UI)."""
