"""Maintainers' tools that work on the repository: stub and notebook generation, planted mistakes,
mutation score, fuzzing, message extraction, make test's self-test, the lab launcher (never ship)."""
