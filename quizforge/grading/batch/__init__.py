"""A whole class: every submission of a folder graded by parallel jobs (driver, job), with the
gradebook, the item analysis and the similarity hints written beside the results."""
