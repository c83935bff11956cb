"""Before anything runs (judge side): what students hand in, read as hostile input.

The file is read from the descriptor that was checked (source_file, class_folder), its text is
checked statically against the challenge's forbidden APIs (forbidden), and whatever a student
wrote is made safe before it is shown (text_safety)."""
