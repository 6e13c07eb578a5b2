"""Detection power: loop coverage per spec row, mutation score per spec row, and the rows a change affects."""
