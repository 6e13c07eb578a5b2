"""Writers that turn results into reports for people and machines."""
