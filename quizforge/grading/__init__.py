"""Grading of coding challenges: a trusted judge and an untrusted, sandboxed worker."""
