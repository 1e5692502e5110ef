"""Running the stage notebooks and building the book."""
