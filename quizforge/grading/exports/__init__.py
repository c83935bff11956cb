"""Results as other tools read them (results.json, JUnit XML), and autograders for the platforms
courses grade on: a Gradescope zip and a GitHub Classroom template (course_platforms), and the
entry point Gradescope runs for each submission (gradescope_autograder)."""
