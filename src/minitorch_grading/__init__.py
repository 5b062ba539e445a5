"""The instructor's side of the course: release building, class runs, scores of record (never ships)."""
